"""Framing for ``tx.signal``: ``frame`` (overlapping windows of a signal, one gather) and
``overlap_and_add`` (its adjoint, one segment sum), with TensorFlow's shapes and arguments."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope


def _int_scalar(value, what, fn):
    """(value as an int32 scalar Tensor, its Python value when static)."""
    if isinstance(value, _TENSORS):
        if not value.dtype.is_integer:
            raise ValueError("%s: %s must be an integer, got dtype %s" % (fn, what, value.dtype.name))
        if value.shape.rank not in (None, 0):
            raise ValueError("%s: %s must be a scalar, got shape %s" % (fn, what, value.shape))
        return gen_ops.cast(value, DstT=_dtypes.int32), None
    if int(value) != value:
        raise ValueError("%s: %s must be an integer, got %r" % (fn, what, value))
    return convert_to_tensor(int(value), dtype=_dtypes.int32), int(value)


def _dim(x, axis):
    """Size of ``x`` along ``axis``: a Python int when static, else an int32 scalar Tensor."""
    if x.shape.rank is not None and x.shape[axis] is not None:
        return int(x.shape[axis])
    return gen_ops.strided_slice(gen_ops.shape(x, out_type=_dtypes.int32), [axis], [axis + 1 if axis != -1 else 0], [1],
                                 end_mask=0 if axis != -1 else 1, shrink_axis_mask=1)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """``signal``'s ``axis`` dimension (of length N) replaced by [num_frames, frame_length]: frame i
    holds samples i * frame_step ... i * frame_step + frame_length - 1. Without ``pad_end`` only
    frames that fit are made (max(0, 1 + (N - frame_length) // frame_step)); with it the signal is
    padded with ``pad_value`` to ceil(N / frame_step) frames.

    >>> tx.signal.frame(tx.range(6), frame_length=3, frame_step=2).numpy()
    array([[0, 1, 2],
           [2, 3, 4]], dtype=int32)
    >>> tx.signal.frame(tx.range(6), 3, 2, pad_end=True).numpy()
    array([[0, 1, 2],
           [2, 3, 4],
           [4, 5, 0]], dtype=int32)
    """
    with name_scope(name or "frame"):
        x = signal if isinstance(signal, _TENSORS) else convert_to_tensor(signal, name="signal")
        if x.shape.rank == 0:
            raise ValueError("frame: signal must have rank at least 1, got a scalar")
        length, length_static = _int_scalar(frame_length, "frame_length", "frame")
        step, step_static = _int_scalar(frame_step, "frame_step", "frame")
        if step_static is not None and step_static <= 0:
            raise ValueError("frame: frame_step must be positive, got %d" % step_static)
        if length_static is not None and length_static < 0:
            raise ValueError("frame: frame_length must be non-negative, got %d" % length_static)
        if isinstance(axis, _TENSORS):
            raise ValueError("frame: axis must be a Python int")
        rank = x.shape.rank
        if rank is not None:
            if not -rank <= axis < rank:
                raise ValueError("frame: axis %d is out of range for a signal of rank %d" % (axis, rank))
            axis = axis % rank
        elif axis != -1:
            raise ValueError("frame: the signal's rank must be known for axis %d" % axis)
        n = _dim(x, axis)
        n_t = convert_to_tensor(n, dtype=_dtypes.int32) if isinstance(n, int) else n
        if pad_end:
            num_frames = gen_ops.neg(gen_ops.floor_div(gen_ops.neg(n_t), step))  # ceil(N / step)
            needed = gen_ops.add_v2(gen_ops.mul(gen_ops.sub(num_frames, 1), step), length)
            extra = gen_ops.maximum(gen_ops.sub(needed, n_t), 0)
            if rank is None:
                raise ValueError("frame: pad_end needs a signal of known rank")
            zeros = convert_to_tensor([0, 0], dtype=_dtypes.int32)
            rows = [zeros if i != axis else gen_ops.pack([convert_to_tensor(0), extra]) for i in range(rank)]
            x = gen_ops.pad_v2(x, gen_ops.pack(rows), convert_to_tensor(pad_value, dtype=x.dtype))
        else:
            num_frames = gen_ops.maximum(gen_ops.add_v2(gen_ops.floor_div(gen_ops.sub(n_t, length), step), 1), 0)
        # indices[i, j] = i * step + j, gathered along axis.
        starts = gen_ops.mul(gen_ops.range(0, num_frames, 1), step)
        indices = gen_ops.add_v2(gen_ops.expand_dims(starts, 1), gen_ops.expand_dims(gen_ops.range(0, length, 1), 0))
        return gen_ops.gather_v2(x, indices, axis)


def overlap_and_add(signal, frame_step, name=None):
    """Frames [..., frames, frame_length] summed back into a signal [..., output_length], frame i
    starting at sample i * frame_step; output_length = (frames - 1) * frame_step + frame_length.

    >>> tx.signal.overlap_and_add(tx.ones([3, 4]), frame_step=2).numpy()
    array([1., 1., 2., 2., 2., 2., 1., 1.], dtype=float32)
    """
    with name_scope(name or "overlap_and_add"):
        x = signal if isinstance(signal, _TENSORS) else convert_to_tensor(signal, name="signal")
        if x.shape.rank is not None and x.shape.rank < 2:
            raise ValueError("overlap_and_add: signal must have rank at least 2, got shape %s" % (x.shape,))
        step, step_static = _int_scalar(frame_step, "frame_step", "overlap_and_add")
        if step_static is not None and step_static <= 0:
            raise ValueError("overlap_and_add: frame_step must be positive, got %d" % step_static)
        shape = gen_ops.shape(x, out_type=_dtypes.int32)
        frames = gen_ops.strided_slice(shape, [-2], [-1], [1], shrink_axis_mask=1)
        length = gen_ops.strided_slice(shape, [-1], [0], [1], end_mask=1, shrink_axis_mask=1)
        outer = gen_ops.strided_slice(shape, [0], [-2], [1])
        out_len = gen_ops.add_v2(gen_ops.mul(gen_ops.maximum(gen_ops.sub(frames, 1), 0), step), length)
        out_len = gen_ops.select_v2(gen_ops.equal(frames, 0), 0, out_len)
        # Samples as the leading axis ([frames * frame_length, prod(...)]), summed by output position.
        positions = gen_ops.add_v2(gen_ops.expand_dims(gen_ops.mul(gen_ops.range(0, frames, 1), step), 1),
                                   gen_ops.expand_dims(gen_ops.range(0, length, 1), 0))
        moved = _samples_first(x)
        summed = gen_ops.unsorted_segment_sum(moved, gen_ops.reshape(positions, [-1]), out_len)
        result = _samples_last(summed)
        return gen_ops.reshape(result, gen_ops.concat_v2([outer, gen_ops.reshape(out_len, [1])], 0))


def _samples_first(x):
    """[..., frames, frame_length] -> [frames * frame_length, prod(...)]."""
    shape = gen_ops.shape(x, out_type=_dtypes.int32)
    outer = gen_ops.prod(gen_ops.strided_slice(shape, [0], [-2], [1]), 0)
    rows = gen_ops.reshape(x, gen_ops.pack([outer, -1]))
    return gen_ops.transpose(rows, [1, 0])


def _samples_last(x):
    """[samples, prod(...)] -> [prod(...), samples]."""
    return gen_ops.transpose(x, [1, 0])
