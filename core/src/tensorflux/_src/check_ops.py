"""Assertions (``tx.debugging.assert_*``, TensorFlow 2's tf.debugging): eagerly they check at once
and raise InvalidArgumentError with TensorFlow's message text; in a graph or a tx.function they
add an Assert op (stateful, so a tx.function runs it even when nothing uses it) that fails the run
with the data tensors, and return it. Static facts (ranks, dtypes, known shapes) are checked when
the call is made, raising ValueError / TypeError as TensorFlow does.
"""

import contextlib

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import errors as _errors
from tensorflux._src import graph as _graph
from tensorflux._src import math_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.reduce_ops import reduce_all
from tensorflux._src.shape_ops import check_numerics, rank as rank_op
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.operation import Tensor

__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal",
           "assert_integer", "assert_less", "assert_less_equal", "assert_near", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive", "assert_rank",
           "assert_rank_at_least", "assert_shapes", "assert_type", "is_numeric_tensor"]

_NON_NUMERIC = frozenset(["bool", "resource", "string", "variant"])


def _tensor(x, dtype=None, name=None):
    return convert_to_tensor(x, dtype=dtype, name=name)


def _pretty(item, summarize):
    """One line of an eager assertion message (TensorFlow's _pretty_print)."""
    if hasattr(item, "numpy") and not isinstance(item, np.ndarray):
        arr = item.numpy()
        if np.isscalar(arr) or np.ndim(arr) == 0:
            return str(arr)
        flat = np.asarray(arr).reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _raise(data, summarize):
    raise _errors.InvalidArgumentError(None, None, "\n".join(_pretty(d, summarize) for d in data))


def _graph_assert(condition, data, summarize, name):
    """An Assert op showing ``data`` (tensors and Python values; text becomes string tensors)."""
    tensors = [_tensor(d) for d in data] or [condition]
    return gen_ops.assert_(condition, tensors, summarize=3 if summarize is None else summarize, name=name)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """Fails when the scalar bool ``condition`` is false, showing ``data`` (tensors and Python
    values such as message strings); eagerly raises at once and returns None, in a graph returns
    the Assert op, whose error shows each data item as TensorFlow's does ("[msg] [1 2]")."""
    if _context.executing_eagerly():
        cond = _tensor(condition)
        if not bool(cond.numpy()):
            _raise(["Expected '%s' to be true. Summarized data:" % bool(cond.numpy())] + list(data),
                   3 if summarize is None else summarize)
        return None
    return _graph_assert(condition, data, summarize, name or "Assert")


def _shape_and_dtype(x):
    return "shape=%s dtype=%s" % (tuple(x.shape.as_list()) if x.shape.rank is not None else "<unknown>",
                                  x.dtype.name)


def _binary_assert(sym, op_fn, default_name, x, y, data, summarize, message, name):
    with _graph.name_scope(name or default_name) if not _context.executing_eagerly() else _nullscope():
        x = _tensor(x, name="x")
        y = _tensor(y, dtype=x.dtype, name="y")
        test = op_fn(x, y)
        if _context.executing_eagerly():
            if bool(reduce_all(test).numpy()):
                return None
            summarize = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
            if data is None:
                data = _assert_message_data(sym, x, y, summarize, math_ops.logical_not(test))
            if message is not None:
                data = [message] + list(data)
            _raise(data, summarize)
        if data is None:
            data = [x, y]
        return _graph_assert(reduce_all(test), data, summarize, "Assert")


def _nullscope():
    return contextlib.nullcontext()


def _assert_message_data(sym, x, y, summarize, mask):
    data = ["Condition x %s y did not hold." % sym]
    if summarize > 0:
        xs, ys = x.numpy(), y.numpy()
        if xs.shape == ys.shape and np.ndim(xs) > 0:
            m = np.asarray(mask.numpy())
            indices = np.argwhere(m)
            n = min(summarize, indices.shape[0])
            data += ["Indices of first %d different values:" % n, indices[:n],
                     "Corresponding x values:", np.asarray(xs)[m].reshape(-1)[:n],
                     "Corresponding y values:", np.asarray(ys)[m].reshape(-1)[:n]]
        xf, yf = np.asarray(xs).reshape(-1), np.asarray(ys).reshape(-1)
        nx, ny = min(xf.size, summarize), min(yf.size, summarize)
        data += ["First %d elements of x:" % nx, xf[:nx], "First %d elements of y:" % ny, yf[:ny]]
    return data


def _binary(sym, op_name, default_name):
    def assert_fn(x, y, message=None, summarize=None, name=None):
        return _binary_assert(sym, getattr(math_ops, op_name), default_name, x, y, None, summarize, message, name)

    assert_fn.__name__ = default_name
    assert_fn.__doc__ = ("Asserts ``x %s y`` element-wise (NumPy broadcasting): eagerly raises "
                         "InvalidArgumentError at once, in a graph returns an Assert op." % sym)
    return assert_fn


assert_equal = _binary("==", "equal", "assert_equal")
assert_none_equal = _binary("!=", "not_equal", "assert_none_equal")
assert_less = _binary("<", "less", "assert_less")
assert_less_equal = _binary("<=", "less_equal", "assert_less_equal")
assert_greater = _binary(">", "greater", "assert_greater")
assert_greater_equal = _binary(">=", "greater_equal", "assert_greater_equal")


def _sign_assert(sym, op_name, default_name, zero_first):
    def assert_fn(x, message=None, summarize=None, name=None):
        eager = _context.executing_eagerly()
        with _graph.name_scope(name or default_name) if not eager else _nullscope():
            x = _tensor(x, name="x")
            desc = _shape_and_dtype(x) if eager else x.name
            data = [message or "", "Condition x %s 0 did not hold element-wise:" % sym, "x (%s) = " % desc, x]
            zero = _tensor(np.zeros((), x.dtype.as_numpy_dtype))
            a, b = (zero, x) if zero_first else (x, zero)
            return _binary_assert(sym, getattr(math_ops, op_name), default_name, a, b, data, summarize, None,
                                  None if eager else "check")

    assert_fn.__name__ = default_name
    assert_fn.__doc__ = "Asserts ``x %s 0`` element-wise (see assert_equal for the modes)." % sym
    return assert_fn


assert_positive = _sign_assert(">", "less", "assert_positive", True)
assert_negative = _sign_assert("<", "less", "assert_negative", False)
assert_non_negative = _sign_assert(">=", "less_equal", "assert_non_negative", True)
assert_non_positive = _sign_assert("<=", "less_equal", "assert_non_positive", False)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Asserts ``|x - y| <= atol + rtol * |y|`` element-wise; tolerances default to 10 * eps of
    the dtype (TensorFlow's)."""
    eager = _context.executing_eagerly()
    with _graph.name_scope(name or "assert_near") if not eager else _nullscope():
        x = _tensor(x, name="x")
        y = _tensor(y, dtype=x.dtype, name="y")
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol = _tensor(10 * eps if rtol is None else rtol, dtype=x.dtype, name="rtol")
        atol = _tensor(10 * eps if atol is None else atol, dtype=x.dtype, name="atol")
        diff = math_ops.abs(math_ops.subtract(x, y))
        tol = math_ops.add(atol, math_ops.multiply(rtol, math_ops.abs(y)))
        cond = reduce_all(math_ops.less_equal(diff, tol))
        if eager:
            if bool(cond.numpy()):
                return None
            summarize = 3 if summarize is None else summarize
            _raise([message or "", "x and y not equal to tolerance rtol = %s, atol = %s"
                    % (rtol.numpy(), atol.numpy()), "x (%s) = " % _shape_and_dtype(x), x,
                    "y (%s) = " % _shape_and_dtype(y), y], summarize)
        return _graph_assert(cond, [x, y], summarize, "Assert")


def _static_rank_error(x, what, rank, message):
    shape = tuple(x.shape.as_list())
    name = "" if _context.executing_eagerly() else x.name
    return ValueError("%sTensor %s must have rank %s%d.  Received rank %d, shape %s"
                      % (message + "  " if message else "", name, what, rank, x.shape.rank, shape))


def _rank_assert(x, rank, message, name, at_least):
    x = _tensor(x)
    if isinstance(rank, (int, np.integer)):
        r = int(rank)
    else:
        rank_t = _tensor(rank)
        if rank_t.shape.rank not in (None, 0):
            raise ValueError("Rank must be a scalar. Received rank: %s" % rank_t.shape.rank)
        r = int(rank_t.numpy()) if hasattr(rank_t, "numpy") else None
    if x.shape.rank is not None and r is not None:
        if (x.shape.rank < r) if at_least else (x.shape.rank != r):
            raise _static_rank_error(x, "at least " if at_least else "", r, message)
        return None if _context.executing_eagerly() else gen_ops.no_op(name=name)
    with _graph.name_scope(name):
        actual = rank_op(x)
        want = _tensor(rank, dtype=_dtypes.int32)
        cond = math_ops.greater_equal(actual, want) if at_least else math_ops.equal(actual, want)
        return _graph_assert(cond, [actual, want], None, "Assert")


def assert_rank(x, rank, message=None, name=None):
    """Asserts that ``x`` has rank ``rank`` (ValueError when statically known)."""
    return _rank_assert(x, rank, message, name or "assert_rank", False)


def assert_rank_at_least(x, rank, message=None, name=None):
    """Asserts that ``x`` has rank ``rank`` or more (ValueError when statically known)."""
    return _rank_assert(x, rank, message, name or "assert_rank_at_least", True)


def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless ``tensor``'s dtype is ``tf_type``."""
    del name
    tf_type = _dtypes.as_dtype(tf_type)
    t = _tensor(tensor)
    if t.dtype != tf_type:
        raise TypeError("%s%s must be of type tx.%s; got tx.%s" % (message + " " if message else "",
                                                                    "tensor" if _context.executing_eagerly()
                                                                    else t.name, tf_type.name, t.dtype.name))
    return None


def assert_integer(x, message=None, name=None):
    """TypeError unless ``x`` has an integer dtype."""
    del name
    t = _tensor(x)
    if not t.dtype.is_integer:
        raise TypeError('%sExpected "x" to be integer type.  Found: tensor of dtype %s'
                        % (message + " " if message else "", t.dtype))
    return None


def assert_all_finite(x, message, name=None):
    """``x`` unchanged; fails (at once eagerly, at run time in a graph) when it holds Inf or NaN."""
    return check_numerics(x, message, name=name)


def is_numeric_tensor(tensor):
    """True for a tensor of a numeric dtype (not bool, resource or string)."""
    return isinstance(tensor, (Tensor, EagerTensor)) and tensor.dtype.name not in _NON_NUMERIC


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Asserts that tensors' static shapes agree with symbolic specs: ``shapes`` is a list of
    ``(tensor, spec)`` pairs (or a dict); a spec lists one entry per dimension, an int (that size),
    a string (a symbol every tensor must give the same size) or None / ``'.'`` (any); a leading
    ``'...'`` (or ``'*'``) allows any leading dimensions. ValueError names the first mismatch."""
    del data, summarize, name
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes = {}
    prefix = message + "  " if message else ""
    for x, spec in pairs:
        x = _tensor(x)
        spec = list(spec) if isinstance(spec, (list, tuple)) else list(str(spec))
        ellipsis = bool(spec) and spec[0] in ("...", "*")
        dims = spec[1:] if ellipsis else spec
        shape = x.shape.as_list() if x.shape.rank is not None else None
        desc = "shape=%s dtype=%s" % (tuple(shape) if shape is not None else None, x.dtype.name)
        if shape is None:
            continue
        if (len(shape) < len(dims)) if ellipsis else (len(shape) != len(dims)):
            raise ValueError("%sTensor %s.  Specified shape must have rank %s%d.  Received rank %d, shape %s"
                             % (prefix, desc, "at least " if ellipsis else "", len(dims), len(shape),
                                tuple(shape)))
        offset = len(shape) - len(dims)
        for i, d in enumerate(dims):
            actual = shape[offset + i]
            if d is None or d == "." or actual is None:
                continue
            if isinstance(d, str):
                if d not in sizes:
                    sizes[d] = (actual, desc, offset + i)
                    continue
                want, by, by_dim = sizes[d]
                if want != actual:
                    raise ValueError("%sSpecified by tensor %s dimension %d.  Tensor %s dimension %d must have "
                                     "size %d.  Received size %d, shape %s"
                                     % (prefix, by, by_dim, desc, offset + i, want, actual, tuple(shape)))
            elif int(d) != actual:
                raise ValueError("%sTensor %s dimension %d must have size %d.  Received size %d, shape %s"
                                 % (prefix, desc, offset + i, int(d), actual, tuple(shape)))
    return None
