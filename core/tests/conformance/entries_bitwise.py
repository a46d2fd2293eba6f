"""Conformance entries: bitwise ops (BitwiseAnd/Or/Xor, LeftShift, RightShift, Invert,
PopulationCount) and the truncating division ops (TruncateDiv, TruncateMod)."""

import numpy as np

from conformance.gen import BROADCAST_SHAPES, rand
from conformance.harness import ErrorSample, OpEntry, Sample

INTEGERS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


def _full_range(shape, dtype, seed):
    """Values over the whole range of an integer dtype (both extremes included)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    v = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    flat = v.reshape(-1)
    if flat.size >= 2:
        flat[0], flat[1] = info.min, info.max
    return v


def _shift_counts(shape, dtype, seed):
    """Counts from -3 (0 for unsigned types) to bits + 3, so clamping is exercised."""
    bits = np.iinfo(dtype).bits
    low = 0 if np.iinfo(dtype).min == 0 else -3
    return np.random.default_rng(seed).integers(low, bits + 4, size=shape).astype(dtype)


def _clamp(y, dtype):
    return np.clip(y.astype(np.int64), 0, np.iinfo(dtype).bits - 1).astype(dtype)


def _pairs(op, ref, y_fn=_full_range):
    samples = [Sample({"x": _full_range(sx, dt, i), "y": y_fn(sy, dt, i + 7)}, note=f"{sx}, {sy} {np.dtype(dt).name}")
               for i, (sx, sy) in enumerate(BROADCAST_SHAPES) for dt in INTEGERS]
    bad = ErrorSample({"x": rand((2, 3), np.int32), "y": rand((4,), np.int32)}, match=r"[Ii]ncompatible shapes")
    return OpEntry(op, samples, ref=ref, errors=[bad])


def _unary(op, ref):
    samples = [Sample({"x": _full_range(s, dt, i)}, note=f"{s} {np.dtype(dt).name}")
               for i, s in enumerate(((), (7,), (2, 3, 4), (0, 3))) for dt in INTEGERS]
    return OpEntry(op, samples, ref=ref)


def _popcount(x):
    u = np.asarray(x).view(f"u{x.dtype.itemsize}")
    return np.vectorize(lambda v: bin(int(v)).count("1"), otypes=[np.uint8])(u).reshape(x.shape)


def _nonzero(shape, dtype, seed):
    v = rand(shape, dtype, -9, 9, seed) if np.dtype(dtype).kind != "u" else rand(shape, dtype, 1, 9, seed)
    return np.where(v == 0, np.ones_like(v), v)


def _trunc_div(x, y):
    if x.dtype.kind == "f":
        return np.trunc(x / y).astype(x.dtype)
    q = np.abs(x.astype(np.int64)) // np.abs(y.astype(np.int64))
    return (np.sign(x.astype(np.int64)) * np.sign(y.astype(np.int64)) * q).astype(x.dtype)


def _trunc_mod(x, y):
    return np.fmod(x, y).astype(x.dtype)


_DIV_ZERO = [ErrorSample({"x": np.array([7, 9, 3], dt), "y": np.array([1, 0, 2], dt)}, match="Integer division by zero")
             for dt in (np.int8, np.uint16, np.int32, np.uint64)]
_MOD_ZERO = [ErrorSample({"x": np.array([7, -7], np.int32), "y": np.array([0, 2], np.int32)},
                         match="Integer division by zero")]
_DIV_TYPES = (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)

ENTRIES = [
    _pairs("BitwiseAnd", lambda x, y: np.bitwise_and(x, y)),
    _pairs("BitwiseOr", lambda x, y: np.bitwise_or(x, y)),
    _pairs("BitwiseXor", lambda x, y: np.bitwise_xor(x, y)),
    _pairs("LeftShift", lambda x, y: np.left_shift(x, _clamp(y, x.dtype)), y_fn=_shift_counts),
    _pairs("RightShift", lambda x, y: np.right_shift(x, _clamp(y, x.dtype)), y_fn=_shift_counts),
    _unary("Invert", lambda x: np.invert(x)),
    _unary("PopulationCount", _popcount),
    OpEntry("TruncateDiv", [Sample({"x": rand(sx, dt, -9, 9, seed=i) if np.dtype(dt).kind != "u" else
                                    rand(sx, dt, 0, 200, seed=i), "y": _nonzero(sy, dt, seed=i + 1)},
                                   note=f"{sx}/{sy} {np.dtype(dt).name}")
                            for i, (sx, sy) in enumerate(BROADCAST_SHAPES) for dt in _DIV_TYPES]
            + [Sample({"x": np.array([-128, 127, -7], np.int8), "y": np.array([-1, -1, 2], np.int8)}, note="MIN / -1")],
            ref=_trunc_div, rtol=1e-6, atol=1e-6, errors=_DIV_ZERO, dtypes=("float16", "bfloat16")),
    OpEntry("TruncateMod", [Sample({"x": rand(sx, dt, -9, 9, seed=i), "y": _nonzero(sy, dt, seed=i + 1)},
                                   note=f"{sx}%{sy} {np.dtype(dt).name}")
                            for i, (sx, sy) in enumerate(BROADCAST_SHAPES)
                            for dt in (np.float32, np.float64, np.int32, np.int64)]
            + [Sample({"x": np.array([-2**31, 5], np.int32), "y": np.array([-1, -1], np.int32)}, note="MIN % -1")],
            ref=_trunc_mod, rtol=1e-6, atol=1e-6, errors=_MOD_ZERO),
]
