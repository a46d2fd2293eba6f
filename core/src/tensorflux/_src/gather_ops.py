"""Gather/scatter and index ops (thin over the generated wrappers, TensorFlow 2 names and
signatures): gather, gather_nd, scatter_nd, one_hot, where, and top_k (``tx.math`` / ``tx.nn``)."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS

# Names the lead exports in submodules (see the package __init__).

def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` along ``axis`` at ``indices`` (the GatherV2 op). ``axis`` None means
    ``batch_dims`` (0 by default), as in TensorFlow; ``validate_indices`` is ignored (indices are
    always checked: out-of-range ones raise InvalidArgumentError).

    >>> tx.gather(tx.constant([10, 20, 30, 40]), [3, 0]).numpy()
    array([40, 10], dtype=int32)
    >>> tx.gather(tx.constant([[1, 2], [3, 4], [5, 6]]), [2, 0], axis=0).numpy()
    array([[5, 6],
           [1, 2]], dtype=int32)
    """
    del validate_indices
    if axis is None:
        axis = batch_dims
    return gen_ops.gather_v2(params, indices, axis, batch_dims=int(batch_dims), name=name or "GatherV2")


def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of ``params`` addressed by the index tuples in the last axis of ``indices``.

    >>> tx.gather_nd(tx.constant([[1, 2], [3, 4]]), [[1, 0], [0, 1]]).numpy()
    array([3, 2], dtype=int32)
    """
    if batch_dims != 0:
        raise NotImplementedError("gather_nd with batch_dims=%r is not supported yet (only 0)" % (batch_dims,))
    return gen_ops.gather_nd(params, indices, name=name or "GatherNd")


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of ``shape`` with ``updates`` added at the index tuples of ``indices``
    (updates at duplicate indices add up).

    >>> tx.scatter_nd(indices=[[1], [3]], updates=tx.constant([5, 7]), shape=[5]).numpy()
    array([0, 5, 0, 7, 0], dtype=int32)
    """
    return gen_ops.scatter_nd(indices, updates, shape, name=name or "ScatterNd")


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length ``depth`` for ``indices`` (inserted at ``axis``, last by default):
    ``on_value`` (default 1) at the index, ``off_value`` (default 0) elsewhere. The dtype is
    ``dtype``, else that of ``on_value``/``off_value`` when given, else float32.

    >>> tx.one_hot([0, 2], depth=3).numpy()
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    values = [v for v in (on_value, off_value) if v is not None]
    inferred = None
    for v in values:
        if isinstance(v, _TENSORS):
            inferred = v.dtype
            break
    if inferred is None and values:
        inferred = convert_to_tensor(values[0]).dtype if not isinstance(values[0], Tensor) else values[0].dtype
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
        if inferred is not None and inferred != dtype:
            raise TypeError("dtype %s of on_value/off_value does not match the requested dtype %s"
                            % (inferred.name, dtype.name))
    else:
        dtype = inferred or _dtypes.float32
    if on_value is None:
        on_value = convert_to_tensor(True if dtype.is_bool else 1, dtype=dtype, name="on_value")
    elif not isinstance(on_value, _TENSORS):
        on_value = convert_to_tensor(on_value, dtype=dtype, name="on_value")
    if off_value is None:
        off_value = convert_to_tensor(False if dtype.is_bool else 0, dtype=dtype, name="off_value")
    elif not isinstance(off_value, _TENSORS):
        off_value = convert_to_tensor(off_value, dtype=dtype, name="off_value")
    if on_value.dtype != off_value.dtype:
        raise TypeError("on_value (%s) and off_value (%s) must have the same dtype"
                        % (on_value.dtype.name, off_value.dtype.name))
    if not isinstance(indices, _TENSORS):
        indices = convert_to_tensor(indices, name="indices")
    return gen_ops.one_hot(indices, depth, on_value, off_value, axis=-1 if axis is None else int(axis),
                           name=name or "one_hot")


def where(condition, x=None, y=None, name=None):
    """With only ``condition``: the int64 coordinates of its true (non-zero) elements, shape
    [num_true, rank]. With ``x`` and ``y``: elements of ``x`` where ``condition`` holds, else of
    ``y``, with broadcasting (the SelectV2 op).

    >>> tx.where(tx.constant([True, False, True]), tx.constant([1, 2, 3]), tx.constant([-1, -2, -3])).numpy()
    array([ 1, -2,  3], dtype=int32)
    >>> tx.where(tx.constant([0, 5, 0, 7]) > 0).numpy()
    array([[1],
           [3]])
    """
    if x is None and y is None:
        return gen_ops.where(condition, name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    select_v2 = getattr(gen_ops, "select_v2", None)
    if select_v2 is None:
        raise NotImplementedError("where(condition, x, y) needs the SelectV2 op, which this build does not register")
    return select_v2(condition, x, y, name=name or "SelectV2")


def top_k(input, k=1, sorted=True, index_type=_dtypes.int32, name=None):  # noqa: A002 (TensorFlow's names)
    """The ``k`` largest entries of ``input`` along its last axis and their indices, as a
    (values, indices) namedtuple; equal values are ordered by lower index first.

    >>> values, indices = tx.nn.top_k(tx.constant([1.0, 5.0, 3.0, 4.0]), k=2)
    >>> values.numpy(), indices.numpy()
    (array([5., 4.], dtype=float32), array([1, 3], dtype=int32))
    """
    return gen_ops.top_kv2(input, k, sorted=bool(sorted), index_type=_dtypes.as_dtype(index_type),
                           name=name or "TopKV2")
