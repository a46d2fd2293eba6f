"""Shape and utility ops: zeros/ones/fill, *_like, range, shape/size/rank, identity_n,
stop_gradient, check_numerics (thin over the generated wrappers, TensorFlow 2 names)."""

import builtins

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import constant, convert_to_tensor, holds_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS

# Names the lead exports in submodules (see the package __init__).

def _shape_tensor(shape):
    """``shape`` (a Tensor, or a list/tuple of ints) as an int32 (int64 when needed) vector Tensor."""
    if isinstance(shape, _TENSORS):
        return shape
    if isinstance(shape, (list, tuple)) and holds_tensor(shape):
        return convert_to_tensor(shape)
    dims = np.asarray(list(shape) if isinstance(shape, (list, tuple)) else shape, dtype=np.int64).reshape(-1)
    fits32 = dims.size == 0 or builtins.max(abs(int(d)) for d in dims) < 2 ** 31
    return constant(dims.astype(np.int32 if fits32 else np.int64), name="shape")


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value``.

    >>> tx.fill([2, 2], 9.0).numpy()
    array([[9., 9.],
           [9., 9.]], dtype=float32)
    """
    return gen_ops.fill(_shape_tensor(dims), value, name=name)


def _scalar(value, dtype):
    """0 or 1 as a scalar constant of ``dtype`` (False/True for bool, as tf.zeros/tf.ones)."""
    dtype = _dtypes.as_dtype(dtype)
    return constant(bool(value) if dtype == _dtypes.bool else value, dtype=dtype)


def zeros(shape, dtype=_dtypes.float32, name=None):
    """A tensor of ``shape`` and ``dtype`` holding zeros.

    >>> tx.zeros([3])
    <tx.Tensor: shape=(3,), dtype=float32, numpy=array([0., 0., 0.], dtype=float32)>
    """
    return gen_ops.fill(_shape_tensor(shape), _scalar(0, dtype), name=name or "zeros")


def ones(shape, dtype=_dtypes.float32, name=None):
    """A tensor of ``shape`` and ``dtype`` holding ones.

    >>> tx.ones([2], dtype=tx.int32).numpy()
    array([1, 1], dtype=int32)
    """
    return gen_ops.fill(_shape_tensor(shape), _scalar(1, dtype), name=name or "ones")


def _shape_of(x):
    """x's shape as a constant when statically known (so later shape inference sees it), else a Shape op."""
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is not None and builtins.all(d is not None for d in dims):
        return _shape_tensor(dims)
    return gen_ops.shape(x)


def zeros_like(input, dtype=None, name=None):  # noqa: A002 (TensorFlow's name)
    """Zeros with the shape of ``input`` (and its dtype unless ``dtype`` is given).

    >>> tx.zeros_like(tx.constant([[1, 2], [3, 4]])).numpy()
    array([[0, 0],
           [0, 0]], dtype=int32)
    """
    x = input if isinstance(input, _TENSORS) else convert_to_tensor(input)
    if dtype is not None and _dtypes.as_dtype(dtype) != x.dtype:
        return gen_ops.fill(_shape_of(x), _scalar(0, dtype), name=name or "zeros_like")
    return gen_ops.zeros_like(x, name=name)


def ones_like(input, dtype=None, name=None):  # noqa: A002 (TensorFlow's name)
    """Ones with the shape of ``input`` (and its dtype unless ``dtype`` is given).

    >>> tx.ones_like(tx.constant([1.5, 2.5])).numpy()
    array([1., 1.], dtype=float32)
    """
    x = input if isinstance(input, _TENSORS) else convert_to_tensor(input)
    if dtype is not None and _dtypes.as_dtype(dtype) != x.dtype:
        return gen_ops.fill(_shape_of(x), _scalar(1, dtype), name=name or "ones_like")
    return gen_ops.ones_like(x, name=name)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 (TensorFlow's name)
    """start, start + delta, ... below ``limit`` (``range(n)`` counts from 0), like TensorFlow's tf.range.

    >>> tx.range(5).numpy()
    array([0, 1, 2, 3, 4], dtype=int32)
    >>> tx.range(1.0, 2.0, 0.25).numpy()
    array([1.  , 1.25, 1.5 , 1.75], dtype=float32)
    """
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    else:
        tensor_types = [v.dtype for v in values if isinstance(v, _TENSORS)]
        if tensor_types:
            dtype = tensor_types[0]
        elif builtins.any(isinstance(v, float) or np.asarray(v).dtype.kind == "f" for v in values):
            dtype = _dtypes.float32
        else:
            dtype = _dtypes.int32
    args = [v if isinstance(v, _TENSORS) else constant(v, dtype=dtype) for v in values]
    return gen_ops.range(*args, name=name)


def shape(input, out_type=_dtypes.int32, name=None):  # noqa: A002 (TensorFlow's name)
    """The dimensions of ``input`` as a 1-D tensor.

    >>> tx.shape(tx.zeros([2, 3])).numpy()
    array([2, 3], dtype=int32)
    """
    return gen_ops.shape(input, out_type=_dtypes.as_dtype(out_type), name=name)


def size(input, out_type=_dtypes.int32, name=None):  # noqa: A002 (TensorFlow's name)
    """The number of elements of ``input``, as a scalar tensor.

    >>> int(tx.size(tx.zeros([2, 3])))
    6
    """
    return gen_ops.size(input, out_type=_dtypes.as_dtype(out_type), name=name)


def rank(input, name=None):  # noqa: A002 (TensorFlow's name)
    """The number of dimensions of ``input``, as an int32 scalar tensor.

    >>> int(tx.rank(tx.zeros([2, 3])))
    2
    """
    return gen_ops.rank(input, name=name)


def identity_n(input, name=None):  # noqa: A002 (TensorFlow's name)
    """Each tensor of the list ``input``, unchanged.

    >>> [t.numpy().tolist() for t in tx.identity_n([tx.constant(1), tx.constant([2, 3])])]
    [1, [2, 3]]
    """
    return gen_ops.identity_n(list(input), name=name)


def stop_gradient(input, name=None):  # noqa: A002 (TensorFlow's name)
    """``input`` unchanged; gradients are not propagated through it.

    >>> x = tx.constant(2.0)
    >>> with tx.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * tx.stop_gradient(x)
    ...
    >>> float(tape.gradient(y, x))
    2.0
    """
    return gen_ops.stop_gradient(input, name=name)


def check_numerics(tensor, message, name=None):
    """``tensor`` unchanged; running it fails with ``message`` when it holds an Inf or a NaN.

    >>> tx.debugging.check_numerics(tx.constant([1.0, 2.0]), "ok").numpy()
    array([1., 2.], dtype=float32)
    >>> try:
    ...     tx.debugging.check_numerics(tx.constant([1.0, np.nan]), "bad values")
    ... except tx.errors.InvalidArgumentError as e:
    ...     print("bad values" in str(e))
    ...
    True
    """
    return gen_ops.check_numerics(tensor, message=message, name=name)
