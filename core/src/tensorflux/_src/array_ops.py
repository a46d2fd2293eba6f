"""Array ops (thin over the generated wrappers, TensorFlow 2 names and signatures): placeholder,
identity, reshape, cast, no_op, transpose, concat, split, slice, strided_slice, pad, tile,
expand_dims, squeeze, stack, unstack, reverse, broadcast_to; and NumPy-style indexing of
Tensors (`slice_helper`, installed as ``Tensor.__getitem__``)."""

import builtins
import numbers

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import context
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.boolean_mask import boolean_mask

# Inserts a new axis of size 1 when used as an index: ``x[:, tx.newaxis]``.
newaxis = None


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed when running (``Session.run(..., feed_dict={p: value})``).
    ``shape`` may be None (any shape) or contain None for unknown dimensions. Graph mode only.

    >>> with tx.Graph().as_default():
    ...     p = tx.placeholder(tx.float32, shape=[None, 3])
    ...     p.shape
    ...
    TensorShape([None, 3])
    """
    if context.executing_eagerly():
        raise RuntimeError("tx.placeholder() is not compatible with eager execution: build it inside `with "
                           "tx.Graph().as_default():` (or call tx.compat.v1.disable_eager_execution()).")
    return gen_ops.placeholder(dtype=_dtypes.as_dtype(dtype), shape=shape, name=name)


def identity(input, name=None):  # noqa: A002 (TensorFlow's argument name)
    """A tensor with the same value as ``input``.

    >>> tx.identity(tx.constant([1, 2])).numpy()
    array([1, 2], dtype=int32)
    """
    return gen_ops.identity(input, name=name)


def reshape(tensor, shape, name=None):
    """``tensor`` with its elements in a new ``shape`` (one dimension may be -1).

    >>> tx.reshape(tx.range(6), [2, 3]).numpy()
    array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    >>> tx.reshape(tx.range(6), [-1, 2]).shape
    TensorShape([3, 2])
    """
    return gen_ops.reshape(tensor, shape, name=name)


def bitcast(input, type, name=None):  # noqa: A002 (TensorFlow's argument names)
    """The bytes of ``input`` read as elements of ``type``, without copying: a wider input dtype
    adds a last dimension (float32 to uint8: 4), a narrower one removes a last dimension of that
    size.

    >>> int(tx.bitcast(tx.constant(1.0), tx.int32))
    1065353216
    >>> tx.bitcast(tx.constant([0x3f800000], tx.uint32), tx.uint8).numpy()
    array([[  0,   0, 128,  63]], dtype=uint8)
    """
    return gen_ops.bitcast(input, _dtypes.as_dtype(type), name=name)


def cast(x, dtype, name=None):
    """``x`` converted element-wise to ``dtype`` (``x`` itself when it already has it).

    >>> tx.cast(tx.constant([1.7, -1.7]), tx.int32).numpy()
    array([ 1, -1], dtype=int32)
    """
    dtype = _dtypes.as_dtype(dtype)
    if isinstance(x, _TENSORS) and x.dtype == dtype:
        return x
    if not isinstance(x, _TENSORS) and not hasattr(x, "_as_graph_element"):
        arr = np.asarray(x)
        # Python/NumPy numbers go straight to a float target, not through float32 (0.999 stays 0.999);
        # half and bfloat16 targets round in the Cast kernel, bit for bit as TensorFlow's (Note [16-bit floats]).
        wide_float = dtype.is_floating and dtype.size > 2
        if arr.dtype.kind in "fiub" and (wide_float or (arr.dtype.kind in "iub" and dtype.is_integer)):
            return convert_to_tensor(arr.astype(dtype.as_numpy_dtype), name=name or "Cast")
        x = convert_to_tensor(x)
    return gen_ops.cast(x, DstT=dtype, name=name or "Cast")


def no_op(name=None):
    """An operation that does nothing; useful as a target grouping control dependencies."""
    return gen_ops.no_op(name=name)


def _tensor(x):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x)


def _int_vector(values):
    """A Python int sequence as an int32 array (int64 when a value needs it)."""
    arr = np.asarray(values, dtype=np.int64).reshape(-1)
    if arr.size and (arr.max() >= 2 ** 31 or arr.min() < -2 ** 31):
        return arr
    return arr.astype(np.int32)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """``a`` with its dimensions permuted: output dimension i is input dimension ``perm[i]``
    (default: the dimensions reversed). ``conjugate`` also conjugates complex values (a no-op for
    real dtypes).

    >>> tx.transpose(tx.constant([[1, 2, 3], [4, 5, 6]])).numpy()
    array([[1, 4],
           [2, 5],
           [3, 6]], dtype=int32)
    >>> tx.transpose(tx.zeros([2, 3, 4]), perm=[2, 0, 1]).shape
    TensorShape([4, 2, 3])
    """
    a = _tensor(a)
    if perm is None:
        rank = a.shape.rank
        if rank is None:
            r = gen_ops.rank(a)
            perm = gen_ops.sub(gen_ops.sub(r, 1), gen_ops.range(0, r, 1))
        else:
            perm = _int_vector(list(range(rank - 1, -1, -1)))
    if conjugate and a.dtype.is_complex:  # TensorFlow's ConjugateTranspose: Conj of the Transpose
        return gen_ops.conj(gen_ops.transpose(a, perm), name=name)
    return gen_ops.transpose(a, perm, name=name)


def concat(values, axis, name="concat"):
    """The tensors in ``values`` joined along dimension ``axis`` (negative counts from the end).

    >>> a, b = tx.constant([[1, 2]]), tx.constant([[3, 4]])
    >>> tx.concat([a, b], axis=0).numpy()
    array([[1, 2],
           [3, 4]], dtype=int32)
    >>> tx.concat([a, b], axis=1).numpy()
    array([[1, 2, 3, 4]], dtype=int32)
    """
    values = list(values)
    if not values:
        raise ValueError("concat needs at least one tensor")
    if len(values) == 1:
        return identity(_tensor(values[0]), name=name)
    return gen_ops.concat_v2(values, axis, name=name)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal pieces (an int), or into
    pieces of the given sizes (a list or 1-D tensor; one size may be -1). Returns a list.

    >>> [t.numpy() for t in tx.split(tx.range(6), 3)]
    [array([0, 1], dtype=int32), array([2, 3], dtype=int32), array([4, 5], dtype=int32)]
    >>> [t.shape for t in tx.split(tx.zeros([4, 5]), [1, 4], axis=1)]
    [TensorShape([4, 1]), TensorShape([4, 4])]
    """
    if isinstance(num_or_size_splits, numbers.Integral) and not isinstance(num_or_size_splits, bool):
        return gen_ops.split(axis, value, num_split=int(num_or_size_splits), name=name)
    sizes = num_or_size_splits
    if isinstance(sizes, _TENSORS):
        n = num if num is not None else (sizes.shape.as_list()[0] if sizes.shape.rank == 1 else None)
        if n is None:
            raise ValueError("Cannot infer the number of pieces from size_splits %s; pass num" % sizes.name)
    else:
        sizes = _int_vector(sizes)
        n = sizes.size
    if n == 0:
        raise ValueError("split needs at least one size in num_or_size_splits")
    return gen_ops.split_v(value, sizes, axis, num_split=int(n), name=name)


builtins_slice = builtins.slice


def slice(input_, begin, size, name=None):  # noqa: A001 (TensorFlow's name)
    """The block of ``input_`` of ``size`` (-1: to the end) starting at ``begin``.

    >>> tx.slice(tx.constant([[1, 2, 3], [4, 5, 6]]), begin=[0, 1], size=[2, 2]).numpy()
    array([[2, 3],
           [5, 6]], dtype=int32)
    """
    if not isinstance(begin, _TENSORS):
        begin = _int_vector(begin)
    if not isinstance(size, _TENSORS):
        size = _int_vector(size)
    return gen_ops.slice(input_, begin, size, name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, name=None):
    """The StridedSlice op: ``input_[begin:end:strides]`` per dimension, with masks as in TensorFlow.

    >>> tx.strided_slice(tx.range(10), [1], [8], [3]).numpy()
    array([1, 4, 7], dtype=int32)
    >>> tx.range(10)[1:8:3].numpy()
    array([1, 4, 7], dtype=int32)
    """
    if strides is None:
        n = begin.shape.as_list()[0] if isinstance(begin, _TENSORS) else len(begin)
        strides = np.ones([n], np.int32 if not isinstance(begin, _TENSORS) else begin.dtype.as_numpy_dtype)
    if not isinstance(begin, _TENSORS):
        begin = _int_vector(begin)
    if not isinstance(end, _TENSORS):
        end = _int_vector(end)
    if not isinstance(strides, _TENSORS):
        strides = _int_vector(strides)
    return gen_ops.strided_slice(input_, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                                 ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                                 shrink_axis_mask=shrink_axis_mask, name=name)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tensor`` padded by ``paddings[i] = [before, after]`` in dimension i: with
    ``constant_values`` (CONSTANT), or mirrored at the edges (REFLECT without the edge element,
    SYMMETRIC with it). ``mode`` is case-insensitive.

    >>> tx.pad(tx.constant([[1, 2]]), [[1, 0], [0, 1]]).numpy()
    array([[0, 0, 0],
           [1, 2, 0]], dtype=int32)
    """
    mode = str(mode).upper()
    tensor = _tensor(tensor)
    if not isinstance(paddings, _TENSORS):
        paddings = _int_vector(paddings).reshape(-1, 2) if np.size(paddings) else np.zeros([0, 2], np.int32)
    if mode == "CONSTANT":
        if not isinstance(constant_values, _TENSORS) and np.all(np.asarray(constant_values) == 0):
            return gen_ops.pad(tensor, paddings, name=name)
        if not isinstance(constant_values, _TENSORS):
            constant_values = constant(constant_values, dtype=tensor.dtype)
        return gen_ops.pad_v2(tensor, paddings, constant_values, name=name)
    if mode in ("REFLECT", "SYMMETRIC"):
        return gen_ops.mirror_pad(tensor, paddings, mode=mode, name=name)
    raise ValueError("pad mode must be one of CONSTANT, REFLECT, SYMMETRIC, got %r" % (mode,))


def tile(input, multiples, name=None):  # noqa: A002 (TensorFlow's argument name)
    """``input`` repeated ``multiples[i]`` times along each dimension i.

    >>> tx.tile(tx.constant([[1, 2]]), [2, 2]).numpy()
    array([[1, 2, 1, 2],
           [1, 2, 1, 2]], dtype=int32)
    """
    if not isinstance(multiples, _TENSORS):
        multiples = _int_vector(multiples)
    return gen_ops.tile(input, multiples, name=name)


def expand_dims(input, axis, name=None):  # noqa: A002 (TensorFlow's argument name)
    """``input`` with a dimension of size 1 inserted at ``axis`` (negative counts from the end).

    >>> tx.expand_dims(tx.constant([1, 2]), axis=0).shape
    TensorShape([1, 2])
    >>> tx.expand_dims(tx.constant([1, 2]), axis=-1).shape
    TensorShape([2, 1])
    """
    return gen_ops.expand_dims(input, axis, name=name)


def squeeze(input, axis=None, name=None):  # noqa: A002 (TensorFlow's argument name)
    """``input`` without dimensions of size 1 (only those in ``axis``, an int or list, when given).

    >>> tx.squeeze(tx.zeros([1, 3, 1])).shape
    TensorShape([3])
    >>> tx.squeeze(tx.zeros([1, 3, 1]), axis=[0]).shape
    TensorShape([3, 1])
    """
    if axis is None:
        axis = []
    elif isinstance(axis, numbers.Integral):
        axis = [int(axis)]
    else:
        axis = [int(a) for a in axis]
    return gen_ops.squeeze(input, axis=axis, name=name)


def stack(values, axis=0, name="stack"):
    """The tensors in ``values`` (all of one shape) stacked along a new dimension ``axis``.

    >>> tx.stack([tx.constant([1, 2]), tx.constant([3, 4])], axis=1).numpy()
    array([[1, 3],
           [2, 4]], dtype=int32)
    """
    values = list(values)
    if not values:
        raise ValueError("stack needs at least one tensor")
    return gen_ops.pack(values, axis=axis, name=name)


def unstack(value, num=None, axis=0, name="unstack"):
    """The list of slices of ``value`` along ``axis`` (that dimension removed); ``num`` defaults
    to the dimension's static size.

    >>> [t.numpy() for t in tx.unstack(tx.constant([[1, 2], [3, 4]]))]
    [array([1, 2], dtype=int32), array([3, 4], dtype=int32)]
    """
    value = _tensor(value)
    if num is None:
        rank = value.shape.rank
        if rank is None:
            raise ValueError("Cannot infer argument `num` from shape %s" % value.shape)
        if not -rank <= axis < rank:
            raise ValueError("axis = %d not in [%d, %d)" % (axis, -rank, rank))
        num = value.shape.as_list()[axis]
        if num is None:
            raise ValueError("Cannot infer argument `num` from shape %s" % value.shape)
    return gen_ops.unpack(value, num=num, axis=axis, name=name)


def reverse(tensor, axis, name=None):
    """``tensor`` with the order of elements reversed along each dimension in ``axis``.

    >>> tx.reverse(tx.constant([[1, 2], [3, 4]]), axis=[1]).numpy()
    array([[2, 1],
           [4, 3]], dtype=int32)
    """
    if not isinstance(axis, _TENSORS):
        axis = _int_vector(axis)
    return gen_ops.reverse_v2(tensor, axis, name=name)


def broadcast_to(input, shape, name=None):  # noqa: A002 (TensorFlow's argument name)
    """``input`` repeated to ``shape`` with NumPy broadcasting rules.

    >>> tx.broadcast_to(tx.constant([1, 2]), [2, 2]).numpy()
    array([[1, 2],
           [1, 2]], dtype=int32)
    """
    if not isinstance(shape, _TENSORS):
        shape = _int_vector(shape)
    return gen_ops.broadcast_to(input, shape, name=name)


# ----------------------------------------------------------------------------- indexing

_INDEX_HELP = ("Only integers, slices (`:`), ellipsis (`...`), tx.newaxis (`None`), scalar integer tensors and "
               "(alone) a 1-D integer tensor or array are valid indices")


def _is_int(x):
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def _scalar_index_tensor(t):
    if not t.dtype.is_integer or t.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError("%s; got a tensor of dtype %s (%s)" % (_INDEX_HELP, t.dtype.name, t.name))
    if t.shape.rank is not None and t.shape.rank != 0:
        raise TypeError("%s; got a tensor of shape %s (%s). A 1-D index must be the only index."
                        % (_INDEX_HELP, t.shape, t.name))
    return t


def _gather_index(tensor, index):
    """tensor[index] for a 1-D integer index on the first axis (GatherV2), or None."""
    if isinstance(index, _TENSORS):
        if index.shape.rank != 1 or index.dtype not in (_dtypes.int32, _dtypes.int64):
            return None
        idx = index
    elif isinstance(index, (list, np.ndarray)):
        arr = np.asarray(index)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            if arr.dtype.kind == "b":
                raise TypeError("%s; boolean mask indices are not supported (got %r)" % (_INDEX_HELP, index))
            return None
        idx = _int_vector(arr)
        if idx.size and idx.min() < 0:  # NumPy counts negative indices from the end; GatherV2 does not
            dims = tensor.shape.as_list() if tensor.shape.rank else None
            n = dims[0] if dims else None
            if n is None:
                raise IndexError("negative indices %s need a statically known first dimension" % (index,))
            if idx.min() < -n:
                raise IndexError("index %d is out of bounds for axis 0 with size %d" % (idx.min(), n))
            idx = np.where(idx < 0, idx + n, idx).astype(idx.dtype)
    else:
        return None
    gather = getattr(gen_ops, "gather_v2", None)
    if gather is None:
        raise TypeError("Indexing with a 1-D integer tensor or array needs the GatherV2 op, which this build does "
                        "not register; use slices or tx.gather when available.")
    return gather(tensor, idx, np.int32(0), name="GatherV2")


def slice_helper(tensor, slice_spec):
    """``tensor[slice_spec]`` with NumPy's basic indexing rules, as one StridedSlice: ints (and
    scalar int tensors) select and drop a dimension, slices keep it (steps may be negative),
    ``...`` stands for the remaining dimensions, ``None`` inserts a dimension of size 1. A lone
    1-D integer index (tensor, array or list) gathers rows of the first axis."""
    if _is_bool_mask(slice_spec):
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, tuple):
        gathered = _gather_index(tensor, slice_spec)
        if gathered is not None:
            return gathered
    b, e, st, masks = strided_slice_spec(slice_spec)
    return gen_ops.strided_slice(tensor, b, e, st, name="strided_slice", **masks)


def _is_bool_mask(spec):
    """Whether ``spec`` is a whole boolean mask index (``a[a > 1.5]``), as TensorFlow accepts."""
    if isinstance(spec, _TENSORS):
        return spec.dtype == _dtypes.bool
    return isinstance(spec, np.ndarray) and spec.dtype == np.bool_


def strided_slice_spec(slice_spec):
    """The StridedSlice arguments of ``x[slice_spec]``: (begin, end, strides, masks) with masks the
    op's five mask attrs by name (NumPy basic indexing, see `slice_helper`)."""
    if not isinstance(slice_spec, tuple):
        slice_spec = (slice_spec,)
    if len(slice_spec) > 64:
        raise IndexError("too many indices: %d (at most 64)" % len(slice_spec))
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    any_tensor = False
    for i, s in enumerate(slice_spec):
        bit = 1 << i
        if isinstance(s, np.ndarray) and s.ndim == 0 and s.dtype.kind in "iu":
            s = int(s)
        if s is Ellipsis:
            if ellipsis_mask:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis_mask |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif s is None:
            new_axis_mask |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(s, builtins_slice):
            parts = []
            for name, v in (("start", s.start), ("stop", s.stop), ("step", s.step)):
                if v is None or _is_int(v):
                    parts.append(None if v is None else int(v))
                elif isinstance(v, _TENSORS):
                    parts.append(_scalar_index_tensor(v))
                    any_tensor = True
                else:
                    raise TypeError("slice %s must be an integer, a scalar integer tensor or None, got %r"
                                    % (name, v))
            start, stop, step = parts
            if step is None:
                step = 1
            elif _is_int(step) and step == 0:
                raise ValueError("slice step cannot be zero")
            if start is None:
                begin_mask |= bit
                start = 0
            if stop is None:
                end_mask |= bit
                stop = 0
            begin.append(start), end.append(stop), strides.append(step)
        elif _is_int(s):
            shrink_axis_mask |= bit
            s = int(s)
            begin.append(s), end.append(s + 1), strides.append(1)
        elif isinstance(s, _TENSORS):
            t = _scalar_index_tensor(s)
            any_tensor = True
            shrink_axis_mask |= bit
            begin.append(t), end.append(gen_ops.add_v2(t, constant(1, dtype=t.dtype))), strides.append(1)
        else:
            raise TypeError("%s; got %r" % (_INDEX_HELP, s))
    if any_tensor:
        wide = any(isinstance(v, _TENSORS) and v.dtype == _dtypes.int64 for v in begin + end + strides)
        dt = _dtypes.int64 if wide else _dtypes.int32

        def pack(values, what):
            if not any(isinstance(v, _TENSORS) for v in values):
                return np.asarray(values, dt.as_numpy_dtype)
            items = [cast(v, dt) if isinstance(v, _TENSORS) else constant(v, dtype=dt) for v in values]
            return gen_ops.pack(items, axis=0, name=what)

        # Constant strides keep the output rank (and unindexed dims) known statically.
        b, e, st = pack(begin, "stack"), pack(end, "stack_1"), pack(strides, "stack_2")
    else:
        b, e, st = _int_vector(begin), _int_vector(end), _int_vector(strides)
        if b.dtype != e.dtype or b.dtype != st.dtype:
            b, e, st = b.astype(np.int64), e.astype(np.int64), st.astype(np.int64)
    return b, e, st, dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                          new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)


def _tensor_getitem(self, slice_spec):
    """NumPy-style indexing: ints, slices (with steps), ``...``, ``newaxis`` and scalar int
    tensors become one StridedSlice; a lone 1-D int index gathers along the first axis."""
    return slice_helper(self, slice_spec)


_tensor_getitem.__name__ = "__getitem__"
# Indexing of symbolic and eager tensors is installed from here: operation.py and eager_tensor.py sit
# below the ops (Note [Import layering]).
for _tensor_type in _TENSORS:
    _tensor_type.__getitem__ = _tensor_getitem
del _tensor_type
