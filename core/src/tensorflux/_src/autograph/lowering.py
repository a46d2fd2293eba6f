"""AutoGraph's first pass: `break`, `continue` and `return` inside control flow become
assignments to flag variables and `if not flag:` guards, so that every if/while/for left has one
entry and one exit and can become a tx.cond / tx.while_loop (Note [AutoGraph jumps]).

Note [AutoGraph jumps]
- `break` in a loop: `ag__break_N = False` before the loop, `break` -> `ag__break_N = True`, the
  statements after it in the body run under `if not ag__break_N:`, and the loop stops when the flag
  is set (an extra test of the loop). A loop `else:` runs after the loop, under `if not flag:`.
- `continue`: `ag__continue_N = False` at the start of each iteration, the rest of the iteration
  guarded the same way.
- `return` inside control flow: `do_return = False; retval_ = ag__.UndefinedReturnValue()` at the
  start, `return v` -> `do_return = True; retval_ = v`, guards after every statement that may
  return, loops stop on it, and the function ends with `return ag__.retval(retval_)`. As in
  TensorFlow, when one branch of an `if` always returns, the statements after the `if` move into
  the other branch first, so both branches of a tensor cond produce a return value.
Flags are ordinary variables: after a tensor cond they are bool tensors, and the guards become
conds too.
"""

import ast
import itertools

RETURN_FLAG = "do_return"
RETURN_VALUE = "retval_"

_LOOPS = (ast.While, ast.For)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _contains(stmts, kinds, through_loops=True):
    """Whether ``stmts`` hold a node of ``kinds`` in this function (optionally not inside loops)."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, _SCOPES) or (not through_loops and isinstance(n, _LOOPS)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _assign(name, value):
    return ast.Assign(targets=[_name(name, True)], value=value)


def _not(name):
    return ast.UnaryOp(op=ast.Not(), operand=_name(name))


def _guard(flag, stmts, where):
    """``if not flag: stmts`` placed at ``where``."""
    node = ast.If(test=_not(flag), body=stmts, orelse=[])
    return ast.copy_location(node, where)


def _definitely_returns(stmts):
    for s in stmts:
        if isinstance(s, (ast.Return, ast.Raise)):
            return True
        if isinstance(s, ast.If) and _definitely_returns(s.body) and _definitely_returns(s.orelse):
            return True
        if isinstance(s, (ast.With, ast.AsyncWith)) and _definitely_returns(s.body):
            return True
    return False


def fold_conditional_returns(stmts):
    """Moves the statements after an ``if`` one of whose branches always returns into its other
    branch (recursively), TensorFlow's return-statement rewrite."""
    out = []
    for i, s in enumerate(stmts):
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, _SCOPES):
                setattr(s, field, fold_conditional_returns(getattr(s, field)))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = fold_conditional_returns(h.body)
        out.append(s)
        rest = stmts[i + 1:]
        if isinstance(s, ast.If) and rest:
            if _definitely_returns(s.body) and not _definitely_returns(s.orelse):
                s.orelse = fold_conditional_returns(s.orelse + rest)
                return out
            if _definitely_returns(s.orelse) and not _definitely_returns(s.body):
                s.body = fold_conditional_returns(s.body + rest)
                return out
    return out


class _Lowerer:
    def __init__(self):
        self._ids = itertools.count(1)

    def loops(self, stmts):
        """Lowers break/continue of every loop in ``stmts`` (inner loops first)."""
        out = []
        for s in stmts:
            if isinstance(s, _SCOPES):
                out.append(s)
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, self.loops(getattr(s, field)))
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    h.body = self.loops(h.body)
            out.extend(self._loop(s) if isinstance(s, _LOOPS) else [s])
        return out

    def _loop(self, loop):
        before, after = [], []
        has_break = _contains(loop.body, ast.Break, through_loops=False)
        if _contains(loop.body, ast.Continue, through_loops=False):
            flag = "ag__continue_%d" % next(self._ids)
            loop.body = [ast.copy_location(_assign(flag, ast.Constant(False)), loop)] + _replace_jump(
                loop.body, ast.Continue, flag)
        if has_break:
            flag = "ag__break_%d" % next(self._ids)
            before.append(ast.copy_location(_assign(flag, ast.Constant(False)), loop))
            loop.body = _replace_jump(loop.body, ast.Break, flag)
            loop._ag_extra_tests = getattr(loop, "_ag_extra_tests", []) + [flag]
            if loop.orelse:
                after.append(_guard(flag, loop.orelse, loop.orelse[0]))
        elif loop.orelse:
            after.extend(loop.orelse)
        loop.orelse = []
        return before + [loop] + after


def _replace_jump(stmts, kind, flag):
    """``stmts`` with each ``kind`` (Break/Continue, not in nested loops) replaced by ``flag = True``
    and the statements after anything that may jump guarded by ``if not flag:``."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.append(ast.copy_location(_assign(flag, ast.Constant(True)), s))
            return out  # the rest of the block is unreachable
        if isinstance(s, _SCOPES) or isinstance(s, _LOOPS) or not _contains([s], kind, through_loops=False):
            out.append(s)
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _replace_jump(getattr(s, field), kind, flag))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = _replace_jump(h.body, kind, flag)
        out.append(s)
        rest = stmts[i + 1:]
        if rest:
            out.append(_guard(flag, _replace_jump(rest, kind, flag), rest[0]))
        return out
    return out


def _replace_returns(stmts):
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(None)
            out.append(ast.copy_location(_assign(RETURN_FLAG, ast.Constant(True)), s))
            out.append(ast.copy_location(_assign(RETURN_VALUE, value), s))
            return out
        if isinstance(s, _SCOPES) or not _contains([s], ast.Return):
            out.append(s)
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _replace_returns(getattr(s, field)))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = _replace_returns(h.body)
        if isinstance(s, _LOOPS):
            s._ag_extra_tests = getattr(s, "_ag_extra_tests", []) + [RETURN_FLAG]
        out.append(s)
        rest = stmts[i + 1:]
        if rest:
            out.append(_guard(RETURN_FLAG, _replace_returns(rest), rest[0]))
        return out
    return out


def lower_jumps(fn_node):
    """Rewrites ``fn_node`` (a FunctionDef) in place as Note [AutoGraph jumps] describes."""
    body = fold_conditional_returns(fn_node.body)
    body = _Lowerer().loops(body)
    compound = (ast.If, ast.While, ast.For, ast.With, ast.Try)
    if any(isinstance(s, compound) and _contains([s], ast.Return) for s in body):
        where = body[0]
        prologue = [ast.copy_location(_assign(RETURN_FLAG, ast.Constant(False)), where),
                    ast.copy_location(_assign(RETURN_VALUE, ast.Call(
                        func=ast.Attribute(value=_name("ag__"), attr="UndefinedReturnValue", ctx=ast.Load()),
                        args=[], keywords=[])), where)]
        body = _replace_returns(body)
        last = body[-1]
        epilogue = ast.copy_location(ast.Return(value=ast.Call(
            func=ast.Attribute(value=_name("ag__"), attr="retval", ctx=ast.Load()), args=[_name(RETURN_VALUE)],
            keywords=[])), last)
        body = prologue + body + [epilogue]
    fn_node.body = body
