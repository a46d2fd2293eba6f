"""`tx.boolean_mask` (also ``tensor[mask]``): the elements of a tensor where a boolean mask is true,
TensorFlow's composite of Reshape, Where and GatherV2."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """``tensor`` with the dimensions ``axis .. axis + k`` (k the rank of ``mask``, whose shape
    they must match) flattened into one, keeping the entries where ``mask`` is true; ``axis``
    defaults to 0. E.g. ``boolean_mask([[1, 2], [3, 4]], [True, False])`` is ``[[1, 2]]``."""
    tensor = convert_to_tensor(tensor, name="tensor")
    mask = convert_to_tensor(mask, dtype=_dtypes.bool, name="mask")
    k = mask.shape.rank
    if k is None:
        raise ValueError("boolean_mask: the rank of mask must be known statically")
    if k == 0:
        raise ValueError("boolean_mask: mask cannot be a scalar")
    axis = 0 if axis is None else int(axis)
    rank = tensor.shape.rank
    if rank is not None:
        if axis < 0:
            axis += rank
        if not 0 <= axis <= rank - k:
            raise ValueError("boolean_mask: axis %d with a mask of rank %d does not fit a tensor of rank %d"
                             % (axis, k, rank))
        masked_dims = tensor.shape[axis:axis + k]
        if not masked_dims.is_compatible_with(mask.shape):
            raise ValueError("boolean_mask: the mask's shape %s does not match the tensor's dimensions %s at "
                             "axis %d" % (mask.shape, masked_dims, axis))
    shape = gen_ops.shape(tensor, out_type=_dtypes.int64)
    lead = gen_ops.strided_slice(shape, np.array([0], np.int64), np.array([axis], np.int64),
                                 np.array([1], np.int64), begin_mask=1)
    tail = gen_ops.strided_slice(shape, np.array([axis + k], np.int64), np.array([0], np.int64),
                                 np.array([1], np.int64), end_mask=1)
    flat = gen_ops.reshape(tensor, gen_ops.concat_v2([lead, np.array([-1], np.int64), tail], np.int32(0)))
    indices = gen_ops.reshape(gen_ops.where(gen_ops.reshape(mask, np.array([-1], np.int32))),
                              np.array([-1], np.int32))
    return gen_ops.gather_v2(flat, indices, np.int32(axis), name=name)
