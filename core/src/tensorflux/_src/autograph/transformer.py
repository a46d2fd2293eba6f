"""AutoGraph's source transformation: a function's AST in, the AST of its converted form out.

Passes, per function definition (nested definitions too): jumps lowered (lowering.py), liveness
annotated (analysis.py), then every `if`/`while`/`for` becomes nested functions and one call of a
runtime operator (operators.py) that decides at run time, from the type of the condition or
iterable, between Python control flow and tx.cond / tx.while_loop (Note [AutoGraph state]).
`not`/`and`/`or` and `a if c else b` become operator calls (lazy, as Python's), `==`/`!=` compare tensors element-wise
(TensorFlow 2's tensor equality; a graph Tensor's own `==` is identity), and every call goes through
`ag__.converted_call` (user functions converted recursively, `print` dispatched). Generated
statements carry the line of the statement they replace, so tracebacks show the user's lines.
"""

import ast
import itertools

from tensorflux._src.autograph import analysis, lowering

AG = "ag__"
# Calls left alone: they look at the calling frame (or are ours).
_FRAME_BUILTINS = frozenset(["super", "locals", "globals", "vars", "eval", "exec", "dir"])


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _ag(attr):
    return ast.Attribute(value=_name(AG), attr=attr, ctx=ast.Load())


def _call(func, args, keywords=()):
    return ast.Call(func=func, args=list(args), keywords=list(keywords))


def _strs(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _def(name, params, body):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    node = ast.FunctionDef(name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:  # Python >= 3.12
        node.type_params = []
    return node


def _lazy(expr):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                         kwarg=None, defaults=[]), body=expr)


class _Expressions(ast.NodeTransformer):
    """`not`/`and`/`or` and calls become runtime operator calls."""

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call(_ag("not_"), [node.operand]), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if any(isinstance(n, ast.NamedExpr) for n in ast.walk(node)):
            return node
        return ast.copy_location(_call(_ag("if_exp"), [node.test, _lazy(node.body), _lazy(node.orelse)]), node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            fn = "eq" if isinstance(node.ops[0], ast.Eq) else "ne"
            return ast.copy_location(_call(_ag(fn), [node.left, node.comparators[0]]), node)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if any(isinstance(n, ast.NamedExpr) for v in node.values for n in ast.walk(v)):
            return node  # a walrus would bind inside the lambda: keep Python's operator
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        expr = node.values[-1]
        for v in reversed(node.values[:-1]):
            expr = _call(_ag(fn), [_lazy(v), _lazy(expr)])
        return ast.copy_location(expr, node)

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in _FRAME_BUILTINS:
            return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == AG:
            return node
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        kwargs = ast.Dict(keys=[k.arg for k in node.keywords], values=[k.value for k in node.keywords])
        kwargs.keys = [None if k is None else ast.Constant(k) for k in kwargs.keys]
        return ast.copy_location(_call(_ag("converted_call"), [f, args, kwargs]), node)

    def visit_FunctionDef(self, node):
        return node  # converted on its own (FunctionConverter)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef


class FunctionConverter:
    """Converts one function definition (and the ones nested in it) in place."""

    def __init__(self):
        self._ids = itertools.count(1)

    def convert(self, fn):
        for stmt in ast.walk(fn):  # nested definitions first, each on its own
            if stmt is not fn and isinstance(stmt, (ast.FunctionDef,)) and not stmt.name.startswith(AG):
                if not getattr(stmt, "_ag_done", False):
                    FunctionConverter().convert(stmt)
        fn._ag_done = True
        lowering.lower_jumps(fn)
        analysis.annotate_liveness(fn.body)
        glob, nonloc = analysis.declared(fn)
        self._globals = glob
        state_names = set()
        for n in analysis.walk_own_scope(fn):
            if isinstance(n, (ast.If, ast.While, ast.For)):
                n._ag_writes = analysis.writes(n.body + n.orelse)
                if isinstance(n, ast.For):
                    n._ag_writes |= analysis.writes(ast.Assign(targets=[n.target], value=ast.Constant(None)))
                state_names |= n._ag_writes
        body = [_Expressions().visit(s) if not isinstance(s, (ast.FunctionDef, ast.ClassDef)) else s
                for s in fn.body]
        body = self._block(body)
        undefined = sorted(n for n in state_names - analysis.parameters(fn) - glob - nonloc if "." not in n)
        prelude = [ast.copy_location(ast.Assign(targets=[_name(n, True)], value=_call(_ag("Undefined"),
                                                                                      [ast.Constant(n)])), fn.body[0])
                   for n in undefined]
        doc = body[:1] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str) else []
        fn.body = doc + prelude + body[len(doc):]
        fn.decorator_list = []
        return fn

    # --- statements ---

    def _block(self, stmts):
        out = []
        for s in stmts:
            out.extend(self._stmt(s))
        return out

    def _stmt(self, s):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [s]
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, self._block(getattr(s, field)))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = self._block(h.body)
        if isinstance(s, ast.If):
            return self._if(s)
        if isinstance(s, ast.While):
            return self._while(s)
        if isinstance(s, ast.For):
            return self._for(s)
        return [s]

    def _declare(self, names):
        names = sorted(n for n in names if "." not in n)  # attributes ("self.x") need no declaration
        out = []
        local = [n for n in names if n not in self._globals]
        glob = [n for n in names if n in self._globals]
        if local:
            out.append(ast.Nonlocal(names=local))
        if glob:
            out.append(ast.Global(names=glob))
        return out

    def _state_fns(self, k, names):
        """get_state / set_state definitions over ``names`` (variables and dotted attributes)."""
        values = []
        for n in names:
            if "." in n:
                obj, attr = n.rsplit(".", 1)
                values.append(_call(_ag("get_attr"), [ast.parse(obj, mode="eval").body, ast.Constant(attr),
                                                      ast.Constant(n)]))
            else:
                values.append(_name(n))
        get = _def("%sget_state_%d" % (AG, k), [], [ast.Return(value=ast.Tuple(elts=values, ctx=ast.Load()))])
        set_body = self._declare(names)
        for i, n in enumerate(names):
            value = ast.Subscript(value=_name(AG + "vals"), slice=ast.Constant(i), ctx=ast.Load())
            if "." in n:
                obj, attr = n.rsplit(".", 1)
                set_body.append(ast.Expr(value=_call(_ag("set_attr"), [ast.parse(obj, mode="eval").body,
                                                                       ast.Constant(attr), value])))
            else:
                set_body.append(ast.Assign(targets=[_name(n, True)], value=value))
        set_ = _def("%sset_state_%d" % (AG, k), [AG + "vals"], set_body)
        return get, set_

    @staticmethod
    def _order(writes, outputs):
        outs = sorted(writes & outputs)
        return outs + sorted(writes - set(outs))

    def _if(self, s):
        k = next(self._ids)
        writes = s._ag_writes
        names = self._order(writes, s._ag_live_out)
        nouts = len(writes & s._ag_live_out)
        body = _def("%sif_body_%d" % (AG, k), [], self._declare(writes) + s.body)
        orelse = _def("%selse_body_%d" % (AG, k), [], self._declare(writes) + s.orelse)
        get, set_ = self._state_fns(k, names)
        call = ast.Expr(value=_call(_ag("if_stmt"), [s.test, _name(body.name), _name(orelse.name), _name(get.name),
                                                     _name(set_.name), _strs(names), ast.Constant(nouts)]))
        return self._located([body, orelse, get, set_, call], s)

    @staticmethod
    def _located(nodes, where):
        """``nodes`` with the generated parts placed on the first line of ``where`` (a statement
        spanning lines would put a call's location on its last line: CPython locates method calls
        at the end of the attribute)."""
        end_col = where.end_col_offset if where.end_lineno == where.lineno else where.col_offset + 5
        loc = dict(lineno=where.lineno, end_lineno=where.lineno, col_offset=where.col_offset, end_col_offset=end_col)
        for n in nodes:
            for sub in ast.walk(n):
                if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                    for k, v in loc.items():
                        setattr(sub, k, v)
        return nodes

    def _extra_test(self, s):
        flags = getattr(s, "_ag_extra_tests", [])
        expr = None
        for f in reversed(flags):
            t = _call(_ag("not_"), [_name(f)])
            expr = t if expr is None else _call(_ag("and_"), [_lazy(t), _lazy(expr)])
        return expr, flags

    def _loop_names(self, s, extra_live):
        writes = s._ag_writes
        live = set(s._ag_live_out) | set(s._ag_live_body) | set(extra_live)
        names = self._order(writes, live)
        return names, len(writes & live)

    @staticmethod
    def _loop_options(s):
        """Takes the ``set_loop_options(...)`` calls out of the top of loop ``s``'s body; returns
        their arguments as a dict expression (None when there are none)."""
        keep, keywords = [], []
        for stmt in s.body:
            inner = _converted_target(stmt.value if isinstance(stmt, ast.Expr) else None)
            if inner is not None and _attr_name(inner[0]) == "set_loop_options":
                keywords.extend(inner[1])
                continue
            keep.append(stmt)
        s.body = keep
        if not keywords:
            return ast.Constant(None)
        return ast.Dict(keys=[ast.Constant(k.arg) for k in keywords], values=[k.value for k in keywords])

    def _while(self, s):
        k = next(self._ids)
        extra, _ = self._extra_test(s)
        test = s.test if extra is None else _call(_ag("and_"), [_lazy(extra), _lazy(s.test)])
        names, nloop = self._loop_names(s, analysis.reads(test))
        opts = self._loop_options(s)
        test_fn = _def("%sloop_test_%d" % (AG, k), [], [ast.Return(value=test)])
        body = _def("%sloop_body_%d" % (AG, k), [], self._declare(s._ag_writes) + s.body)
        get, set_ = self._state_fns(k, names)
        call = ast.Expr(value=_call(_ag("while_stmt"), [_name(test_fn.name), _name(body.name), _name(get.name),
                                                        _name(set_.name), _strs(names), ast.Constant(nloop), opts]))
        return self._located([test_fn, body, get, set_, call], s)

    def _for(self, s):
        k = next(self._ids)
        extra, flags = self._extra_test(s)
        names, nloop = self._loop_names(s, flags)
        opts = self._loop_options(s)
        nodes = []
        extra_name = ast.Constant(None)
        if extra is not None:
            extra_fn = _def("%sextra_test_%d" % (AG, k), [], [ast.Return(value=extra)])
            nodes.append(extra_fn)
            extra_name = _name(extra_fn.name)
        bind = ast.Assign(targets=[s.target], value=_name(AG + "itr"))
        body = _def("%sfor_body_%d" % (AG, k), [AG + "itr"], self._declare(s._ag_writes) + [bind] + s.body)
        get, set_ = self._state_fns(k, names)
        call = ast.Expr(value=_call(_ag("for_stmt"), [s.iter, extra_name, _name(body.name), _name(get.name),
                                                      _name(set_.name), _strs(names), ast.Constant(nloop), opts]))
        return self._located(nodes + [body, get, set_, call], s)


def _converted_target(call):
    """(function expression, keywords) of a call that _Expressions made ``ag__.converted_call(f,
    args, kwargs)`` with no positional arguments, else None."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "converted_call"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == AG):
        return None
    f, args, kwargs = call.args
    if not isinstance(args, ast.Tuple) or args.elts or not isinstance(kwargs, ast.Dict) or None in kwargs.keys:
        return None
    return f, [ast.keyword(arg=k.value, value=v) for k, v in zip(kwargs.keys, kwargs.values)]


def _attr_name(expr):
    """The last name of a dotted expression (``a.b.c`` -> "c")."""
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return None
