"""Helpers shared by the ``tx.image`` modules: tensor conversion, static values and shapes,
3-D/4-D image batching, and checks that fail at once on static values and through Assert ops
on dynamic ones (as TensorFlow's image functions do)."""

import numpy as np

from tensorflux._src import array_ops, check_ops, context, graph, math_ops, reduce_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES
from tensorflux._src.shape_ops import shape as _shape
from tensorflux._src.variables import Variable


def to_tensor(x, dtype=None, name=None):
    """``x`` as a tensor (Variables read), optionally of ``dtype``."""
    if isinstance(x, Variable):
        x = x.value() if hasattr(x, "value") else convert_to_tensor(x)
    return convert_to_tensor(x, dtype=dtype, name=name)


def is_tensor(x):
    """Whether ``x`` is a tensor or a Variable (its value is known only when the graph runs)."""
    return isinstance(x, TENSOR_TYPES) or isinstance(x, Variable)


def static_value(x):
    """The value of ``x`` as a NumPy array when it is known now (Python/NumPy values, eager
    tensors, Const ops in a graph), else None."""
    if not is_tensor(x):
        return np.asarray(x)
    if isinstance(x, Variable):
        return None
    if context.executing_eagerly() and hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    op = getattr(x, "op", None)
    if op is not None and op.type == "Const":
        return np.asarray(op.get_attr("value"))
    return None


def static_rank(image):
    """The static rank of ``image`` or None."""
    return image.shape.rank


def image_dims(image, rank):
    """The dimensions of ``image`` (of rank ``rank``): Python ints where static, scalar int32
    tensors elsewhere (TensorFlow's _ImageDimensions)."""
    dims = image.shape.as_list() if image.shape.rank is not None else [None] * rank
    if len(dims) != rank:
        raise ValueError("'image' (shape %s) must have rank %d" % (image.shape, rank))
    if all(d is not None for d in dims):
        return dims
    dynamic = array_ops.unstack(_shape(image), num=rank)
    return [s if s is not None else d for s, d in zip(dims, dynamic)]


def as_batch(image, what="image"):
    """(4-D images, was_batched): a 3-D image gains a batch dimension of 1; other ranks raise
    ValueError (an unknown rank is treated as 3-D, as TensorFlow does)."""
    rank = static_rank(image)
    if rank == 4:
        return image, True
    if rank == 3 or rank is None:
        return array_ops.expand_dims(image, 0), False
    raise ValueError("'%s' (shape %s) must have either 3 or 4 dimensions." % (what, image.shape))


def unbatch(images, was_batched):
    """Drops the batch dimension ``as_batch`` added."""
    return images if was_batched else array_ops.squeeze(images, axis=[0])


def check(cond, error, message):
    """A check of a Python bool (raises ``error(message)`` when false, returns []) or of a bool
    tensor (a list holding its Assert op in a graph; eagerly it raises at once)."""
    if is_tensor(cond):
        op = check_ops.Assert(cond, [message])
        return [] if op is None else [op]
    if not cond:
        raise error(message)
    return []


def with_dependencies(deps, x):
    """``x`` computed after the ops ``deps`` (``x`` itself when there are none)."""
    if not deps:
        return x
    with graph.control_dependencies(deps):
        return array_ops.identity(x)


def require_3d_or_4d(image, what="image"):
    """The static rank of ``image``, which must be 3 or 4 (ValueError otherwise)."""
    rank = static_rank(image)
    if rank not in (3, 4):
        raise ValueError("'%s' (shape %s) must have either 3 or 4 dimensions." % (what, image.shape))
    return rank


def check_at_least_3d(image):
    """TensorFlow's _CheckAtLeast3DImage: rank >= 3 and non-empty inner dimensions, statically
    when the shape is known, else through Assert ops (returned)."""
    s = image.shape
    if s.rank is not None and s.rank < 3:
        raise ValueError("'image' (shape %s) must be at least three-dimensional." % (s,))
    inner = s.as_list()[-3:] if s.rank is not None else [None] * 3
    if any(d == 0 for d in inner):
        raise ValueError("inner 3 dims of 'image.shape' must be > 0: %s" % (s,))
    if s.rank is not None and all(d is not None for d in inner):
        return []
    positive = reduce_ops.reduce_all(math_ops.greater(_shape(image)[-3:], 0))
    return check(positive, ValueError, "inner 3 dims of 'image.shape' must be > 0.")


def tile_channels(kernel, image):
    """A depthwise filter [kh, kw, 1, m] repeated for each channel of ``image`` (the last
    dimension), keeping kh and kw static so depthwise_conv2d sees its window size."""
    kh, kw, _, m = kernel.shape.as_list()
    channels = image.shape.as_list()[-1] if image.shape.rank is not None else None
    if channels is not None:
        return array_ops.tile(kernel, [1, 1, channels, 1])
    tiled = array_ops.tile(kernel, array_ops.stack([1, 1, _shape(image)[-1], 1]))
    return array_ops.reshape(tiled, [kh, kw, -1, m])


def batch_for_target(image, target_height, target_width):
    """(4-D images, was_batched, height, width) for the functions that fit an image (or batch)
    to a target size: the image checked (rank, non-empty) and both targets positive."""
    image, batched = as_batch(to_tensor(image, name="image"))
    deps = check_at_least_3d(image)
    deps += check(target_width > 0, ValueError, "target_width must be > 0.")
    deps += check(target_height > 0, ValueError, "target_height must be > 0.")
    image = with_dependencies(deps, image)
    _, height, width, _ = image_dims(image, 4)
    return image, batched, height, width
