"""Array ops: placeholder, identity, reshape, cast, no_op (thin over the generated wrappers)."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed when running (``Session.run(..., feed_dict={p: value})``).
    ``shape`` may be None (any shape) or contain None for unknown dimensions."""
    return gen_ops.placeholder(dtype=_dtypes.as_dtype(dtype), shape=shape, name=name)


def identity(input, name=None):  # noqa: A002 (TensorFlow's argument name)
    """A tensor with the same value as ``input``."""
    return gen_ops.identity(input, name=name)


def reshape(tensor, shape, name=None):
    """``tensor`` with its elements in a new ``shape`` (one dimension may be -1)."""
    return gen_ops.reshape(tensor, shape, name=name)


def cast(x, dtype, name=None):
    """``x`` converted element-wise to ``dtype`` (``x`` itself when it already has it)."""
    dtype = _dtypes.as_dtype(dtype)
    if isinstance(x, Tensor) and x.dtype == dtype:
        return x
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    return gen_ops.cast(x, DstT=dtype, name=name or "Cast")


def no_op(name=None):
    """An operation that does nothing; useful as a target grouping control dependencies."""
    return gen_ops.no_op(name=name)
