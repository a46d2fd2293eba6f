"""Top-level tensor utilities TensorFlow exports as ``tf.*``: ``is_tensor``, ``is_symbolic_tensor``,
``get_static_value``, ``broadcast_static_shape``, ``shape_n`` and ``saturate_cast``."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast
from tensorflux._src.complex_ops import real
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.image_util import static_value
from tensorflux._src.operation import TensorLike
from tensorflux._src.shape_ops import shape as _shape
from tensorflux._src.sparse_tensor import SparseTensor
from tensorflux._src.tensor_shape import TensorShape
from tensorflux._src.variables import Variable


def is_tensor(x):
    """Whether ``x`` is a tensor-like object (a Tensor, an eager tensor, a Variable or a
    SparseTensor) rather than a Python or NumPy value.

    >>> tx.is_tensor(tx.constant(1.0)), tx.is_tensor(1.0)
    (True, False)
    """
    return isinstance(x, (*_TENSORS, TensorLike, Variable, SparseTensor)) or bool(getattr(x, "is_tensor_like", False))


def is_symbolic_tensor(x):
    """Whether ``x`` is a graph tensor (its value known only when the graph runs), not an eager
    one.

    >>> tx.is_symbolic_tensor(tx.constant(1.0))
    False
    """
    return isinstance(x, _TENSORS) and not isinstance(x, EagerTensor)


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` as a NumPy array when it is known without running a graph (an
    eager tensor, a Const op), None otherwise; a non-tensor comes back unchanged. ``partial`` is
    accepted for TensorFlow's signature (no partially known values are computed).

    >>> tx.get_static_value(tx.constant([1, 2])).tolist()
    [1, 2]
    """
    if not is_tensor(tensor):
        return tensor
    if isinstance(tensor, (Variable, SparseTensor)):
        return None
    return static_value(tensor)


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes (unknown dimensions stay unknown where they decide the
    result); ValueError when they cannot broadcast.

    >>> tx.broadcast_static_shape(tx.TensorShape([2, 1]), tx.TensorShape([3]))
    TensorShape([2, 3])
    """
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    xd, yd = x.as_list(), y.as_list()
    n = max(len(xd), len(yd))
    xd, yd = [1] * (n - len(xd)) + xd, [1] * (n - len(yd)) + yd
    out = []
    for a, b in zip(xd, yd):
        if a == 1:
            out.append(b)
        elif b == 1:
            out.append(a)
        elif a is None or b is None:
            out.append(a if b is None else b)
        elif a == b:
            out.append(a)
        else:
            raise ValueError("Incompatible shapes for broadcasting: %s and %s" % (x, y))
    return TensorShape(out)


def shape_n(input, out_type=_dtypes.int32, name=None):  # noqa: A002 (TensorFlow's name)
    """The shapes of a list of tensors, one 1-D tensor each.

    >>> [s.numpy().tolist() for s in tx.shape_n([tx.zeros([2, 3]), tx.zeros([4])])]
    [[2, 3], [4]]
    """
    with name_scope(name or "ShapeN"):
        return [_shape(x, out_type=out_type) for x in input]


def _exact(v):
    """A NumPy scalar as an exact Python number (int for integers and integral floats)."""
    v = v.item()
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _saturation_bounds(src, dst):
    """The clamp bounds (values of ``src``) that keep a cast to ``dst`` in range, None for a side
    that needs none; a bound that rounds outside the range steps back inside it."""
    s, d = np.dtype(src.as_numpy_dtype), np.dtype(dst.as_numpy_dtype)
    sinfo = np.finfo(s) if s.kind == "f" else np.iinfo(s)
    dinfo = np.finfo(d) if d.kind == "f" else np.iinfo(d)
    dmin, dmax = _exact(np.array(dinfo.min, d)), _exact(np.array(dinfo.max, d))
    lo = hi = None
    if _exact(np.array(sinfo.min, s)) < dmin:
        lo = np.array(dinfo.min).astype(s)
        if _exact(lo) < dmin:
            lo = np.nextafter(lo, np.array(0, s))
    if _exact(np.array(sinfo.max, s)) > dmax:
        hi = np.array(dinfo.max).astype(s)
        if _exact(hi) > dmax:
            hi = np.nextafter(hi, np.array(0, s))
    return lo, hi


def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype`` after clamping it to the range ``dtype`` can hold (complex to
    real takes the real part).

    >>> tx.saturate_cast(tx.constant([300.0, -5.0, 7.6]), tx.uint8).numpy().tolist()
    [255, 0, 7]
    """
    dtype = _dtypes.as_dtype(dtype)
    with name_scope(name or "saturate_cast"):
        value = value if isinstance(value, _TENSORS) else convert_to_tensor(value)
        if value.dtype.is_complex and not dtype.is_complex:
            value = real(value)
        if value.dtype.is_complex or value.dtype == _dtypes.bool or dtype == _dtypes.bool or dtype.is_complex:
            return cast(value, dtype)
        lo, hi = _saturation_bounds(value.dtype, dtype)
        if lo is not None:
            value = gen_ops.maximum(value, convert_to_tensor(lo, dtype=value.dtype))
        if hi is not None:
            value = gen_ops.minimum(value, convert_to_tensor(hi, dtype=value.dtype))
        return cast(value, dtype)
