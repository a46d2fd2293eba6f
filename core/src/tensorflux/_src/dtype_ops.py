"""Casts that depend on the types' ranges: saturate_cast."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope


def _promoted(a, b):
    """The NumPy type both values compare in exactly (float64 when NumPy has none, e.g. bfloat16)."""
    try:
        return np.promote_types(np.asarray(a).dtype, np.asarray(b).dtype)
    except TypeError:
        return np.float64


def _clip_limits(in_dtype, out_dtype):
    """(low, high) in ``in_dtype``: out_dtype's range, nudged toward zero where rounding to in_dtype
    would leave it (float32 cannot hold uint32's max, so the limit is the float just below)."""
    np_in = in_dtype.as_numpy_dtype
    low = np_in(max(in_dtype.min, out_dtype.min))
    if np.array([low, out_dtype.min], _promoted(low, out_dtype.min))[0] < out_dtype.min:
        low = np.nextafter(low, np_in(0), dtype=np_in)
    high = np_in(min(float(in_dtype.max), float(out_dtype.max)))
    if np.array([high, out_dtype.max], _promoted(high, out_dtype.max))[0] > out_dtype.max:
        high = np.nextafter(high, np_in(0), dtype=np_in)
    return low, high


def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype`` with out-of-range values clamped to ``dtype``'s range first, so
    nothing wraps or overflows (NaN stays NaN for float targets), as ``tf.dtypes.saturate_cast``.

    >>> tx.dtypes.saturate_cast([300.0, -5.0, 7.6], tx.uint8).numpy()
    array([255,   0,   7], dtype=uint8)
    """
    with name_scope(name or "saturate_cast"):
        value = convert_to_tensor(value)
        dtype = _dtypes.as_dtype(dtype)
        in_dtype = value.dtype
        if in_dtype.is_complex or dtype.is_complex:
            raise TypeError("saturate_cast of complex types is not supported (from %s to %s)" % (in_dtype, dtype))
        low, high = _clip_limits(in_dtype, dtype)
        value = gen_ops.clip_by_value(value, convert_to_tensor(low, in_dtype), convert_to_tensor(high, in_dtype),
                                      name="clamp")
        return cast(value, dtype)
