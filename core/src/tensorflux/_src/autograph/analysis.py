"""Static analysis of a function's AST for AutoGraph: which names a statement writes and reads,
and which names are live after each if/while/for (read later before being overwritten).

Note [AutoGraph state]
A converted `if`/`while`/`for` runs as nested functions (branches, loop body) that share the
enclosing function's variables through `nonlocal`. Its *state* is every name it writes; its
*outputs* (cond results, loop variables) are the written names that are live afterwards (or, for a
loop, read by the next iteration or the loop test). Temporaries that die inside the statement are
neither, so a branch may create them without the other branch having to (TensorFlow's rule).
Liveness is computed backwards over statements; loops iterate to a fixed point.
"""

import ast

def walk_own_scope(node, include_self=False):
    """The nodes under ``node`` that are in its own scope (nested functions, classes and
    comprehensions are not entered, though a def's decorators and defaults are)."""
    stack = [node] if include_self else list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(n.decorator_list + n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
        elif isinstance(n, ast.ClassDef):
            stack.extend(n.decorator_list + n.bases)
        elif isinstance(n, ast.Lambda):
            stack.extend(n.args.defaults)
        elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            stack.append(n.generators[0].iter)
        else:
            stack.extend(ast.iter_child_nodes(n))


def composite(node):
    """The dotted name ("self.total") of an attribute chain on a name, else None: AutoGraph tracks
    such attributes like variables."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id] + parts[::-1]) if isinstance(node, ast.Name) and parts else None


def writes(node):
    """Names (and dotted attribute names) ``node`` (a statement or list of statements) binds in its
    own scope."""
    nodes = node if isinstance(node, list) else [node]
    out = set()
    for top in nodes:
        for n in walk_own_scope(top, include_self=True):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and composite(n):
                out.add(composite(n))
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                out.add(n.name)
    return out


def reads(node):
    """Names ``node`` (an AST node or list) may read, nested functions and comprehensions included
    (an over-approximation: a closure may read them when called)."""
    nodes = node if isinstance(node, list) else [node]
    out = set()
    for top in nodes:
        if top is None:
            continue
        for n in ast.walk(top):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and composite(n):
                name = composite(n).split(".")
                out.update(".".join(name[:k]) for k in range(2, len(name) + 1))
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, (ast.Name, ast.Attribute)):
                out.add(n.target.id if isinstance(n.target, ast.Name) else composite(n.target))
    return out


def _definitely_writes(stmt):
    """Names every execution of ``stmt`` binds (plain assignments only; conservative)."""
    if isinstance(stmt, ast.Assign):
        out = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)
               and isinstance(n.ctx, ast.Store)}
        return out | {composite(n) for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Attribute)
                      and isinstance(n.ctx, ast.Store) and composite(n)}
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
        return writes(stmt)
    return set()


def annotate_liveness(body, live_after=frozenset()):
    """Sets ``_ag_live_out`` on every If/While/For in ``body`` (and, on loops, ``_ag_live_body``:
    the names live at the start of an iteration); returns the names live before ``body``."""
    live = set(live_after)
    for stmt in reversed(body):
        live = _live_before(stmt, live)
    return live


def _live_before(stmt, live):
    if isinstance(stmt, ast.If):
        stmt._ag_live_out = set(live)
        return reads(stmt.test) | annotate_liveness(stmt.body, live) | annotate_liveness(stmt.orelse, live)
    if isinstance(stmt, (ast.While, ast.For)):
        stmt._ag_live_out = set(live)
        flags = set(getattr(stmt, "_ag_extra_tests", ()))  # break/return flags the loop tests (lowering.py)
        head = (reads(stmt.test) if isinstance(stmt, ast.While) else reads(stmt.iter)) | flags
        after_else = annotate_liveness(stmt.orelse, live)
        body_out = set(live) | after_else | (head if isinstance(stmt, ast.While) else flags)
        for _ in range(8):
            body_in = annotate_liveness(stmt.body, body_out)
            if isinstance(stmt, ast.For):  # the target is bound before each iteration
                body_in = body_in - writes(ast.Assign(targets=[stmt.target], value=ast.Constant(None)))
            grown = body_out | body_in
            if grown == body_out:
                break
            body_out = grown
        stmt._ag_live_body = body_in
        return head | body_in | after_else | set(live)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return reads([i.context_expr for i in stmt.items]) | annotate_liveness(stmt.body, live)
    if isinstance(stmt, ast.Try):
        inner = set(live)
        inner |= annotate_liveness(stmt.finalbody, live)
        for h in stmt.handlers:
            inner |= annotate_liveness(h.body, live)
        inner |= annotate_liveness(stmt.orelse, live)
        return inner | annotate_liveness(stmt.body, inner)
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return reads(stmt)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (set(live) - {stmt.name}) | reads(stmt)
    return (set(live) - _definitely_writes(stmt)) | reads(stmt)


def declared(fn_node):
    """(global names, nonlocal names) a function declares in its own scope."""
    glob, nonloc = set(), set()
    for n in walk_own_scope(fn_node):
        if isinstance(n, ast.Global):
            glob.update(n.names)
        elif isinstance(n, ast.Nonlocal):
            nonloc.update(n.names)
    return glob, nonloc


def parameters(fn_node):
    """The parameter names of a function definition."""
    a = fn_node.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return set(names)
