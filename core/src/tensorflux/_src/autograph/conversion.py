"""Converting Python functions with AutoGraph: source in, a new function object out, and the
runtime call hook (`converted_call`) that converts user functions called from converted code.

A converted function is compiled from the transformed AST under the original file name with the
original line numbers, and is built with the original function's globals, defaults and closure
cells (so it reads and writes the same variables). A lambda is found in its file's syntax tree
(Note [Converting lambdas]) and converted as a function returning its body. Functions that cannot
be converted (no source, builtins, generators, functions of tensorflux, the standard library or
installed packages, functions marked with `do_not_convert`) run as they are, as TensorFlow does.
"""

import ast
import builtins
import copy
import functools
import inspect
import linecache
import logging
import os
import sys
import sysconfig
import textwrap
import types
import weakref

from tensorflux._src.autograph import errors as _errors
from tensorflux._src.autograph import loops, operators
from tensorflux._src.autograph.transformer import AG, FunctionConverter
from tensorflux._src import cond
from tensorflux._src import while_loop

_log = logging.getLogger("tensorflux.autograph")
_DO_NOT_CONVERT = "_tx_autograph_do_not_convert"
_CONVERTED = "_tx_autograph_converted"
# Top-level packages whose functions are never converted (ours, and libraries).
_SKIPPED_PACKAGES = frozenset(["tensorflux", "numpy", "tensorflow", "scipy", "pytest", "_pytest", "ml_dtypes",
                               "google", "keras", "jax"])
_LIBRARY_DIRS = tuple(os.path.realpath(p) + os.sep for p in {sysconfig.get_paths()[k]
                                                               for k in ("stdlib", "platstdlib", "purelib", "platlib")})


class ConversionError(Exception):
    """A function could not be converted (``tx.autograph.to_graph`` / ``to_code``)."""


class _Runtime(types.SimpleNamespace):
    """The `ag__` object converted code calls into."""


def _make_runtime():
    ns = {n: getattr(operators, n) for n in ("Undefined", "UndefinedReturnValue", "retval", "not_", "and_", "or_",
                                             "if_stmt", "if_exp", "print_", "eq", "ne", "get_attr", "set_attr")}
    ns.update(while_stmt=loops.while_stmt, for_stmt=loops.for_stmt, converted_call=converted_call)
    return _Runtime(**ns)


_verbosity = [int(os.environ.get("AUTOGRAPH_VERBOSITY", "0") or 0)]
# Note [Conversion cache lifetime]
# A function's converted form (or None: not convertible) is cached on the function itself, under
# _CACHE, as (weakref to the function, converted). A global WeakKeyDictionary cannot hold it: the
# converted function refers to its original (__wrapped__, set by functools.update_wrapper), so the
# entry's value kept its own key alive and every function ever converted lived forever (with its
# tx.function's retracing monitor: the soak test's ~6 KB per round). On the function, the pair is
# a cycle the garbage collector frees with it. The weak reference tells a function's own entry
# from one copied onto a wrapper by functools.wraps (which copies __dict__).
_CACHE = "_tx_autograph_cache"
_code_cache = {}  # original code object -> (converted code, source text)
_runtime = None


def set_verbosity(level, alsologtostdout=False):
    """Sets how much AutoGraph logs (``tensorflux.autograph`` logger): 0 nothing, 1 functions it
    could not convert, 2 also each function it converts, 3 also their converted code."""
    _verbosity[0] = int(level)
    if alsologtostdout and not any(getattr(h, "_tx_stdout", False) for h in _log.handlers):
        h = logging.StreamHandler(sys.stdout)
        h._tx_stdout = True
        _log.addHandler(h)
    _log.setLevel(logging.INFO if level > 0 else logging.WARNING)


def get_verbosity():
    """The verbosity level set by ``set_verbosity`` (or the AUTOGRAPH_VERBOSITY variable)."""
    return _verbosity[0]


def trace(*args):
    """Prints ``args`` (Python's print) when the code runs in Python, that is at trace time inside
    tx.function (TensorFlow's tf.autograph.trace); tensors show as their symbolic description."""
    print(*args)


def do_not_convert(func=None):
    """Marks ``func`` to run as it is (never converted) when called from converted code or
    traced by tx.function; usable as a decorator."""
    if func is None:
        return do_not_convert
    target = getattr(func, "__func__", func)
    try:
        setattr(target, _DO_NOT_CONVERT, True)
    except (AttributeError, TypeError):
        pass
    return func


def _skip_reason(fn, top_level):
    """Why ``fn`` (a plain function) is not converted, or None."""
    if getattr(fn, _DO_NOT_CONVERT, False):
        return "it is marked do_not_convert"
    if getattr(fn, _CONVERTED, False) or AG in fn.__code__.co_freevars:
        return "it is converted already"  # (a function defined inside converted code is converted with it)
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return "generators and coroutines run unconverted"
    module = (fn.__globals__.get("__name__") or "").split(".")[0]  # where it is defined (wraps() copies __module__)
    if module in _SKIPPED_PACKAGES:
        return "functions of %s are not converted" % module
    if not top_level and os.path.realpath(code.co_filename).startswith(_LIBRARY_DIRS):
        return "functions of the standard library and installed packages are not converted"
    if "super" in code.co_names and "__class__" in code.co_freevars:
        return "functions calling super() run unconverted"
    return None


def convert(fn, top_level=True, strict=False):
    """The converted form of ``fn`` (a function or bound method), or None when it is not
    converted (with ``strict``, a ConversionError saying why)."""
    if isinstance(fn, types.MethodType):
        inner = convert(fn.__func__, top_level, strict)
        return None if inner is None else types.MethodType(inner, fn.__self__)
    if not isinstance(fn, types.FunctionType):
        if strict:
            raise ConversionError("%r is not a Python function" % (fn,))
        return None
    if getattr(fn, _CONVERTED, False):
        return fn
    entry = fn.__dict__.get(_CACHE)
    if entry is not None and entry[0]() is fn and not strict:
        return entry[1]
    reason = _skip_reason(fn, top_level)
    out = None
    if reason is None:
        try:
            out = _convert_function(fn)
        except Exception as e:  # noqa: BLE001 (any failure means: run it unconverted, as TensorFlow does)
            reason = "%s: %s" % (type(e).__name__, e)
            if _verbosity[0] >= 1:
                _log.warning("AutoGraph could not transform %s and will run it as-is: %s", _describe(fn), reason)
    if out is None and strict:
        raise ConversionError("AutoGraph could not convert %s: %s" % (_describe(fn), reason))
    fn.__dict__[_CACHE] = (weakref.ref(fn), out)
    return out


def _describe(fn):
    return "<function %s at %s:%s>" % (getattr(fn, "__qualname__", fn), fn.__code__.co_filename,
                                       fn.__code__.co_firstlineno)


def _parse(fn):
    """The function's definition as an AST with its real line and column numbers."""
    lines, first = inspect.getsourcelines(fn.__code__)  # the code's own source, not that of a __wrapped__
    dedented = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip(" \t"))
    tree = ast.parse(dedented)
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.FunctionDef,)):
        raise ConversionError("its source is not one function definition")
    node = tree.body[0]
    if node.name != fn.__code__.co_name:
        raise ConversionError("its source defines %r, not %r" % (node.name, fn.__code__.co_name))
    for n in ast.walk(tree):
        if "lineno" in n._attributes and hasattr(n, "lineno"):
            n.lineno += first - 1
            if getattr(n, "end_lineno", None) is not None:
                n.end_lineno += first - 1
            n.col_offset += indent
            if getattr(n, "end_col_offset", None) is not None:
                n.end_col_offset += indent
    return node


# Note [Converting lambdas]
# inspect gives a lambda's source only as the lines of the statement holding it, which need not
# parse on their own and may hold several lambdas. So the lambda is looked up in the syntax tree
# of its whole file (parsed once per file text): among the lambdas that start on its first line,
# the innermost whose body spans every source position of its code (co_positions, Python >= 3.11;
# on 3.10 the one lambda of that line with the same parameters). The converted function is a
# copy of that node as `def ag__lambda(<its parameters>): return <its body>`, so it has the
# lambda's parameters, defaults (from the function object), closure cells and line numbers.


@functools.lru_cache(maxsize=32)
def _lambdas_by_line(source):
    """The Lambda nodes of the module text ``source``, by first line."""
    out = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Lambda):
            out.setdefault(node.lineno, []).append(node)
    return out


def _encloses(node, positions):
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return all(start <= (l0, c0) and (l1, c1) <= end for l0, l1, c0, c1 in positions)


def _lambda_params(code):
    """The parameter names of ``code``, in the order a Lambda node lists them."""
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return code.co_varnames[:n]


def _node_params(args):
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return tuple(names + [a.arg for a in (args.vararg, args.kwarg) if a is not None])


def _parse_lambda(fn):
    """The lambda ``fn``'s definition as a FunctionDef named ag__lambda (Note [Converting lambdas])."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    if not lines:
        raise ConversionError("its source is not available")
    candidates = _lambdas_by_line("".join(lines)).get(code.co_firstlineno, [])
    if hasattr(code, "co_positions"):
        positions = [p for p in code.co_positions()
                     if None not in p and (p[0], p[2]) != (p[1], p[3])]  # not the 0-width entry and exit
        candidates = [n for n in candidates if positions and _encloses(n.body, positions)]
        candidates.sort(key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))
        candidates = candidates[:1]
    # The parameters must match too (on 3.10 they are all there is to go by; on later versions they
    # catch a file changed on disk since the code was compiled).
    candidates = [n for n in candidates if _node_params(n.args) == _lambda_params(code)]
    if len(candidates) != 1:
        raise ConversionError("its source could not be told apart from the other lambdas of line %d"
                              % code.co_firstlineno)
    node = copy.deepcopy(candidates[0])
    body = ast.copy_location(ast.Return(value=node.body), node.body)
    out = ast.FunctionDef(name=AG + "lambda", args=node.args, body=[body], decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        out.type_params = []
    return ast.copy_location(out, node)


def _transformed(fn):
    """(converted code object, converted source) of ``fn``, cached per code object."""
    hit = _code_cache.get(fn.__code__)
    if hit is not None:
        return hit
    node = _parse_lambda(fn) if fn.__code__.co_name == "<lambda>" else _parse(fn)
    FunctionConverter().convert(node)
    freevars = list(fn.__code__.co_freevars)
    params = [AG] + freevars
    factory = ast.FunctionDef(
        name=AG + "factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                           kw_defaults=[], kwarg=None, defaults=[]),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))], decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    ast.copy_location(factory, node)
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    code = compile(module, fn.__code__.co_filename, "exec", dont_inherit=True)
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
    _errors.register(inner)
    hit = (inner, ast.unparse(node))
    _code_cache[fn.__code__] = hit
    return hit


def _cell(value):
    return (lambda: value).__closure__[0]


def _convert_function(fn):
    global _runtime
    if _runtime is None:
        _runtime = _make_runtime()
    code, source = _transformed(fn)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(_cell(_runtime) if name == AG else cells[name] for name in code.co_freevars)
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(new, fn, updated=())
    new.__dict__.update((k, v) for k, v in fn.__dict__.items() if k != _CACHE)
    setattr(new, _CONVERTED, True)
    new._tx_autograph_source = source
    if _verbosity[0] >= 2:
        _log.info("AutoGraph converted %s", _describe(fn))
    if _verbosity[0] >= 3:
        _log.info("Converted code of %s:\n%s", fn.__qualname__, source)
    return new


def converted_call(f, args, kwargs):
    """Calls ``f(*args, **kwargs)`` from converted code: ``print``, ``range`` and ``len`` become
    their AutoGraph forms (for tensors), user functions are converted first."""
    kwargs = kwargs or {}
    if f is builtins.print:
        return operators.print_(*args, **kwargs)
    if f is builtins.range and not kwargs:
        return operators.range_(*args)
    if f is builtins.len and not kwargs and len(args) == 1:
        return operators.len_(*args)
    if isinstance(f, (types.FunctionType, types.MethodType)):
        if _is_control_flow_api(f):  # their Python functions are traced in a graph: convert them too
            args = tuple(_converted_callables(a) for a in args)
            kwargs = {k: _converted_callables(v) for k, v in kwargs.items()}
        else:
            g = convert(f, top_level=False)
            if g is not None:
                return g(*args, **kwargs)
    return f(*args, **kwargs)


def _is_control_flow_api(f):
    return f in (cond.cond, cond.case, cond.switch_case, while_loop.while_loop)


def _converted_callables(value):
    """``value`` with the user functions in it (also in a list, tuple or dict) converted."""
    if isinstance(value, (types.FunctionType, types.MethodType)):
        return convert(value, top_level=False) or value
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_converted_callables(v) for v in value)
    if isinstance(value, dict):
        return {k: _converted_callables(v) for k, v in value.items()}
    return value


def to_code(entity):
    """The source code of the converted form of ``entity`` (a function, method or tx.function)."""
    fn = _python_function(entity)
    convert(fn, strict=True)
    return _transformed(getattr(fn, "__func__", fn))[1] + "\n"


def to_graph(entity):
    """The converted form of ``entity`` (a function, method or tx.function): Python control flow
    on tensors in it becomes tx.cond / tx.while_loop when it runs in a graph."""
    return convert(_python_function(entity), strict=True)


# The tx.function class, whose objects are converted as their Python function: function.py
# registers it when imported (it imports this module; Note [Import layering]).
_function_types = ()


def register_function_type(cls):
    """Makes conversion see through instances of ``cls`` (tx.function's Function) to their
    Python function ``_fn``."""
    global _function_types
    _function_types += (cls,)


def _python_function(entity):
    return entity._fn if isinstance(entity, _function_types) else entity
