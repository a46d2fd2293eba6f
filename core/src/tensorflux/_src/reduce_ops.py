"""Reductions, arg reductions and scans: reduce_prod/max/min/all/any, argmax/argmin, cumsum
(thin over the generated wrappers, with TensorFlow 2 names and signatures)."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.generated import gen_ops
from tensorflux._src.math_ops import _reduction

# Names the lead exports in submodules (see the package __init__).

def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """The product over ``axis`` (an int, a list of ints or a Tensor; None: all axes).

    >>> float(tx.reduce_prod(tx.constant([1.0, 2.0, 3.0, 4.0])))
    24.0
    """
    return _reduction(gen_ops.prod, input_tensor, axis, keepdims, name)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """The maximum over ``axis`` (None: all axes); NaN propagates, empty axes give the lowest value.

    >>> tx.reduce_max(tx.constant([[1, 7], [4, 2]]), axis=0).numpy()
    array([4, 7], dtype=int32)
    """
    return _reduction(gen_ops.max, input_tensor, axis, keepdims, name)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """The minimum over ``axis`` (None: all axes); NaN propagates, empty axes give the highest value.

    >>> tx.reduce_min(tx.constant([[1, 7], [4, 2]]), axis=1).numpy()
    array([1, 2], dtype=int32)
    """
    return _reduction(gen_ops.min, input_tensor, axis, keepdims, name)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical AND of a bool tensor over ``axis`` (None: all axes).

    >>> tx.reduce_all(tx.constant([[True, False], [True, True]]), axis=1).numpy()
    array([False,  True])
    """
    return _reduction(gen_ops.all, input_tensor, axis, keepdims, name)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical OR of a bool tensor over ``axis`` (None: all axes).

    >>> tx.reduce_any(tx.constant([[True, False], [False, False]]), axis=1).numpy()
    array([ True, False])
    """
    return _reduction(gen_ops.any, input_tensor, axis, keepdims, name)


def argmax(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002 (TensorFlow's name)
    """Index of the largest value along ``axis`` (None: 0); ties pick the first index.

    >>> tx.argmax(tx.constant([[1.0, 9.0, 3.0], [8.0, 2.0, 4.0]]), axis=1).numpy()
    array([1, 0])
    """
    return gen_ops.arg_max(input, 0 if axis is None else axis, output_type=_dtypes.as_dtype(output_type), name=name)


def argmin(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002 (TensorFlow's name)
    """Index of the smallest value along ``axis`` (None: 0); ties pick the first index.

    >>> int(tx.argmin(tx.constant([3, 1, 2])))
    1
    """
    return gen_ops.arg_min(input, 0 if axis is None else axis, output_type=_dtypes.as_dtype(output_type), name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums of ``x`` along ``axis``; ``exclusive`` shifts by one, ``reverse`` sums from the end.

    >>> tx.math.cumsum(tx.constant([1, 2, 3, 4])).numpy()
    array([ 1,  3,  6, 10], dtype=int32)
    >>> tx.math.cumsum(tx.constant([1, 2, 3, 4]), exclusive=True).numpy()
    array([0, 1, 3, 6], dtype=int32)
    """
    return gen_ops.cumsum(x, axis, exclusive=bool(exclusive), reverse=bool(reverse), name=name)
