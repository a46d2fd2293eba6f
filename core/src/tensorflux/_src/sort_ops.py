"""sort and argsort over TopKV2 (as TensorFlow builds them): the sorted axis is moved last and
top_k takes all of it. top_k orders NaN above every number and keeps equal values in index order,
so descending order is top_k itself; ascending order is top_k of the axis reversed, read backwards
(equal values then come back in index order, and NaN last, as in TensorFlow and NumPy). Both sorts
are stable."""

from tensorflux._src.array_ops import transpose
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.shape_ops import shape as _shape


def _sort(values, axis, direction, want_indices, fn):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("%s: direction must be 'ASCENDING' or 'DESCENDING', got %r" % (fn, direction))
    x = values if isinstance(values, _TENSORS) else convert_to_tensor(values)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("%s needs the rank of its input, which is unknown" % fn)
    if rank == 0:
        raise ValueError("%s: input must have rank >= 1, got a scalar" % fn)
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise ValueError("%s: axis must be a Python int in [%d, %d), got %r" % (fn, -rank, rank, axis))
    axis %= rank
    perm = None
    if axis != rank - 1:
        perm = list(range(rank))
        perm[axis], perm[rank - 1] = rank - 1, axis
        x = transpose(x, perm)
    ascending = direction == "ASCENDING"
    last = [-1]
    if ascending:
        x = gen_ops.reverse_v2(x, last)
    k = gen_ops.strided_slice(_shape(x), last, [0], [1], end_mask=1, shrink_axis_mask=1)
    top, indices = gen_ops.top_kv2(x, k, sorted=True)
    out = indices if want_indices else top
    if ascending:
        out = gen_ops.reverse_v2(out, last)
        if want_indices:  # positions in the reversed axis, counted back from its end
            out = gen_ops.sub(gen_ops.sub(k, 1), out)
    if perm is not None:
        out = transpose(out, perm)  # a swap is its own inverse
    return out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (a Python int), ascending or descending."""
    with name_scope(name or "sort"):
        return _sort(values, axis, direction, False, "sort")


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis``; equal values keep their order (the
    sort is always stable, which ``stable=True`` asks for)."""
    with name_scope(name or "argsort"):
        return _sort(values, axis, direction, True, "argsort")
