"""The runtime operators converted code calls (`ag__.if_stmt`, `ag__.while_stmt`, ...): each
decides, from the type of the condition or iterable at run time, between plain Python control flow
and a tx.cond / tx.while_loop over the statement's state (Note [AutoGraph state] in analysis.py),
TensorFlow's dispatch rule. They check what tx.cond / tx.while_loop need and explain failures in
terms of the user's variable names and source line.
"""

import builtins
import sys

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.nest import flatten
from tensorflux._src.operation import Tensor
from tensorflux._src.tensor_array import TensorArray
from tensorflux._src.variables import Variable
from tensorflux._src.math_ops import equal, logical_not, not_equal
from tensorflux._src.cond import cond as tx_cond
from tensorflux._src.shape_ops import range as tx_range, shape
from tensorflux._src.control_flow import structure_signature


class Undefined:
    """The value of a local variable that no executed statement has assigned yet (AutoGraph
    binds every conditional and loop variable up front); using it is an error naming it."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def __repr__(self):
        return "<undefined %s>" % self.symbol_name

    def _fail(self, *args, **kwargs):
        raise UnboundLocalError("local variable '%s' is used before it is assigned a value (it is not assigned on "
                                "every path that reaches this use)" % self.symbol_name)

    def __getattr__(self, name):
        raise AttributeError("local variable '%s' is used (.%s) before it is assigned a value" % (self.symbol_name,
                                                                                                  name))

    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = __index__ = __float__ = __int__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __floordiv__ = __mod__ = __pow__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = __matmul__ = _fail


class UndefinedReturnValue:
    """The return value of a converted function before a `return` statement ran."""

    __slots__ = ()


def get_attr(obj, attr, name):
    """``obj.attr`` for the state of a converted statement; Undefined(``name``) when missing."""
    try:
        return getattr(obj, attr)
    except AttributeError:
        return Undefined(name)


def set_attr(obj, attr, value):
    """``obj.attr = value`` when restoring the state of a converted statement (an undefined value
    leaves the attribute unset)."""
    if not isinstance(value, Undefined):
        setattr(obj, attr, value)


def retval(value):
    """What a converted function returns: None when no `return` statement ran."""
    return None if isinstance(value, UndefinedReturnValue) else value


def is_tensor(value):
    """Whether ``value`` is a graph tensor (its value unknown until the graph runs): the condition
    or iterable that makes AutoGraph build a tx.cond / tx.while_loop."""
    return isinstance(value, Tensor) or (isinstance(value, Variable) and not _context.executing_eagerly())


def _where():
    """'file, line N' of the converted statement being run (the frame calling the operator)."""
    f = sys._getframe(2)
    return "%s, line %d" % (f.f_code.co_filename, f.f_lineno)


# --- logical operators ---

def not_(x):
    """``not x``; a logical_not for a tensor."""
    if is_tensor(x):
        return logical_not(x)
    return not x


def and_(a_fn, b_fn):
    """``a and b``, evaluating ``b`` only when needed (a tx.cond when ``a`` is a tensor)."""
    a = a_fn()
    if is_tensor(a):
        return tx_cond(a, b_fn, lambda: a)
    return b_fn() if a else a


def or_(a_fn, b_fn):
    """``a or b``, evaluating ``b`` only when needed (a tx.cond when ``a`` is a tensor)."""
    a = a_fn()
    if is_tensor(a):
        return tx_cond(a, lambda: a, b_fn)
    return a if a else b_fn()


def if_exp(cond, body_fn, orelse_fn):
    """``body if cond else orelse``: a tx.cond when ``cond`` is a tensor."""
    if is_tensor(cond):
        return tx_cond(cond, body_fn, orelse_fn)
    return body_fn() if cond else orelse_fn()


def eq(a, b):
    """``a == b``; element-wise (tx.equal) when either is a graph tensor, as TensorFlow 2's
    tensors compare."""
    if (is_tensor(a) or is_tensor(b)) and a is not None and b is not None:
        return equal(a, b)
    return a == b


def ne(a, b):
    """``a != b``; element-wise (tx.not_equal) when either is a graph tensor."""
    if (is_tensor(a) or is_tensor(b)) and a is not None and b is not None:
        return not_equal(a, b)
    return a != b


def range_(*args):
    """``range(...)``; tx.range when an argument is a graph tensor (TensorFlow converts it so)."""
    if any(is_tensor(a) for a in args):
        return tx_range(*args)
    return builtins.range(*args)


def len_(x):
    """``len(x)``; the size of the first axis of a graph tensor (a tensor when not static)."""
    if is_tensor(x):
        if x.shape.rank == 0:
            raise TypeError("len() of a scalar tensor (%s)" % getattr(x, "name", x))
        if x.shape.rank is not None and x.shape.as_list()[0] is not None:
            return x.shape.as_list()[0]
        return shape(x, out_type=_dtypes.int32)[0]
    return builtins.len(x)


# --- print ---

def print_(*args, **kwargs):
    """Python's print; ``tensorflux.print`` (printing when the graph runs) when an argument is a
    tensor and tensorflux has it."""
    # Imported here: the tensorflux package imports this module.
    import tensorflux

    tx_print = getattr(tensorflux, "print", None)
    if tx_print is None or not any(isinstance(a, (Tensor, EagerTensor)) for a in flatten(list(args))):
        return builtins.print(*args, **kwargs)
    options = {}
    if "sep" in kwargs and kwargs["sep"] is not None:
        options["sep"] = kwargs["sep"]
    if "end" in kwargs and kwargs["end"] is not None:
        options["end"] = kwargs["end"]
    options["output_stream"] = kwargs.get("file") or sys.stdout
    return tx_print(*args, **options)


# --- if ---

def _leaf_dtype(x):
    if isinstance(x, (Tensor, EagerTensor, Variable, TensorArray)):  # a TensorArray: its element dtype
        return x.dtype
    if isinstance(x, (bool, np.bool_)):
        return _dtypes.bool
    if isinstance(x, int):
        return _dtypes.int32
    if isinstance(x, float):
        return _dtypes.float32
    if isinstance(x, (np.ndarray, np.generic)):
        return _dtypes.as_dtype(np.asarray(x).dtype)
    return None


def _is_tensor_like(value):
    """Whether every leaf of ``value`` can be an output of tx.cond / a tx.while_loop variable."""
    return all(_leaf_dtype(x) is not None for x in flatten(value))


def if_stmt(cond, body, orelse, get_state, set_state, names, nouts):
    """Runs ``body()`` if ``cond`` else ``orelse()``: a tx.cond whose outputs are the first
    ``nouts`` of ``names`` when ``cond`` is a tensor."""
    if is_tensor(cond):
        _tensor_if(cond, body, orelse, get_state, set_state, names, nouts, _where())
    elif cond:
        body()
    else:
        orelse()


def _tensor_if(cond, body, orelse, get_state, set_state, names, nouts, where):
    init = get_state()
    seen = {}     # branch label -> its raw outputs
    keep = {}     # output position -> the value kept outside the cond (undefined or a Python object)

    def branch(fn, label, other):
        def run():
            set_state(init)
            fn()
            outs = tuple(get_state()[:nouts])
            seen[label] = outs
            result = []
            for i, (name, v) in enumerate(zip(names, outs)):
                result.append(_branch_output(name, v, i, label, other, seen, keep, where))
            return tuple(result)
        return run

    results = tx_cond(cond, branch(body, "main", "else"), branch(orelse, "else", "main"))
    final = [keep.get(i, r) for i, r in enumerate(results)]
    set_state(tuple(final) + tuple(init[nouts:]))


def _undefined(v):
    return isinstance(v, (Undefined, UndefinedReturnValue))


def _branch_output(name, v, i, label, other, seen, keep, where):
    """The value a branch gives tx.cond for output ``i``; on the second branch, checks it against
    the first (TensorFlow's messages)."""
    first = seen.get(other) if label == "else" else None
    if label == "main":
        if _undefined(v) or (v is not None and not _is_tensor_like(v)):
            keep[i] = v
            return None
        return v
    u = first[i]
    if _undefined(u) != _undefined(v):
        missing, value = ("main", v) if _undefined(u) else ("else", u)
        if isinstance(u, UndefinedReturnValue) or isinstance(v, UndefinedReturnValue):
            raise ValueError("the %s branch must also have a return statement (if statement at %s)"
                             % (missing, where))
        raise ValueError("'%s' must also be initialized in the %s branch (if statement at %s)" % (name, missing, where))
    if _undefined(v):
        return None
    if i in keep or (v is not None and not _is_tensor_like(v)):
        if keep.get(i) is v:
            return None
        raise TypeError("'%s' must be a tensor, a number or a nested structure of them in both branches of a "
                        "conditional on a tensor, or the same Python value in both; it is %r in the main branch and "
                        "%r in the else branch (if statement at %s)" % (name, u, v, where))
    if (u is None) != (v is None):
        raise ValueError("'%s' is None at the end of the %s branch (if statement at %s)"
                         % (name, "main" if u is None else "else", where))
    _check_same_structure(name, u, v, "in the main branch", "in the else branch", where, "if statement")
    for a, b in zip(flatten(u), flatten(v)):
        da, db = _leaf_dtype(a), _leaf_dtype(b)
        if da != db and not _python_number_fits(a, db) and not _python_number_fits(b, da):
            raise TypeError("'%s' has dtype %s in the main branch, but dtype %s in the else branch (if statement at "
                            "%s)" % (name, da.name, db.name, where))
    return v


def _python_number_fits(x, dtype):
    """Whether a Python number becomes a tensor of ``dtype`` where a tensor of that dtype is
    expected (an int for any number dtype, a float for a floating one)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    return dtype.is_floating or (isinstance(x, int) and dtype.is_integer)


def _check_same_structure(name, a, b, when_a, when_b, where, what):
    if structure_signature(a, check_types=False) != structure_signature(b, check_types=False):
        raise ValueError("'%s' has a different nested structure %s (%r) than %s (%r) (%s at %s)"
                         % (name, when_a, a, when_b, b, what, where))
