"""The table behind ``tx.raw_ops``: op name -> keyword-only wrapper of the generated function."""

import functools
import inspect

from tensorflux._src.generated import gen_ops
from tensorflux._src.op_def_library import OpSig


def _keyword_only(op_type, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if args:
            raise TypeError("raw_ops.%s(...) only accepts keyword arguments, got %d positional ones"
                            % (op_type, len(args)))
        return fn(**kwargs)

    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in inspect.signature(fn).parameters.values()]
    wrapper.__signature__ = inspect.Signature(params)
    wrapper.__name__ = wrapper.__qualname__ = op_type
    return wrapper


def _build():
    ops = {}
    for const, sig in vars(gen_ops).items():
        if not isinstance(sig, OpSig) or not const.startswith("_"):
            continue
        fn = getattr(gen_ops, const[1:].lower(), None) or getattr(gen_ops, const[1:].lower() + "_", None)
        if fn is None or not callable(fn):
            raise RuntimeError("no generated wrapper for op %s (%s)" % (sig.op_type, const))
        ops[sig.op_type] = _keyword_only(sig.op_type, fn)
    return ops


OPS = _build()
