"""Conformance entries: shape and utility ops (Fill, ZerosLike, OnesLike, Range, Shape, Size, Rank,
IdentityN, StopGradient, PreventGradient, Snapshot, CheckNumerics)."""

import numpy as np

from conformance.gen import NUMBERS, rand
from conformance.harness import ErrorSample, OpEntry, Sample

import tensorflux as tx

DTYPES = (*NUMBERS, np.uint8, np.bool_)
SHAPES = ((), (4,), (2, 3), (0, 3), (2, 1, 3))


def _per_shape_and_dtype(arg, dtypes=DTYPES, attrs=None):
    out = []
    for dt in dtypes:
        for shape in SHAPES:
            out.append(Sample({arg: rand(shape, dt, seed=len(shape))}, dict(attrs or {}),
                              note=f"{np.dtype(dt).name} {shape}"))
    return out


def _fill_samples():
    out = []
    for dt in DTYPES:
        for dims in ([], [3], [2, 3], [0, 4], [2, 1, 2]):
            out.append(Sample({"dims": np.array(dims, np.int32), "value": rand((), dt, seed=1)},
                              note=f"{np.dtype(dt).name} {dims}"))
    out.append(Sample({"dims": np.array([2, 2], np.int64), "value": np.float32(1.5)}, note="int64 dims"))
    return out


def _range_samples():
    out = []
    for dt, triples in ((np.int32, [(0, 10, 3), (10, 0, -4), (5, 5, 1), (-7, 8, 2)]),
                        (np.int64, [(0, 6, 1), (3, -4, -3)]),
                        (np.float32, [(1.5, 4.0, 0.5), (0.0, 1.0, 0.3), (4.0, -1.0, -1.5)]),
                        (np.float64, [(0.0, 1.0, 0.1), (2.0, 2.0, 1.0)])):
        for start, limit, delta in triples:
            out.append(Sample({"start": np.array(start, dt), "limit": np.array(limit, dt),
                               "delta": np.array(delta, dt)},
                              note=f"{np.dtype(dt).name} {start},{limit},{delta}"))
    return out


def _range_ref(start, limit, delta):
    return np.arange(start, limit, delta, dtype=start.dtype)


def _stateless_identity(op, extra_attrs=None):
    return OpEntry(op, _per_shape_and_dtype("input", attrs=extra_attrs), ref=lambda input, **_: input)


def _check_numerics_samples():
    out = []
    for dt in (np.float32, np.float64):
        for shape in ((), (5,), (0, 2), (3, 40)):
            out.append(Sample({"tensor": rand(shape, dt, seed=2)}, {"message": "checked"},
                              note=f"{np.dtype(dt).name} {shape}"))
    return out


ENTRIES = [
    OpEntry("Fill", _fill_samples(), ref=lambda dims, value: np.full(tuple(int(d) for d in dims), value, value.dtype),
            errors=[ErrorSample({"dims": np.array([2, -1], np.int32), "value": np.float32(1)},
                                match=r"Fill dimensions must be >= 0"),
                    ErrorSample({"dims": np.array([2], np.int32), "value": np.array([1.0], np.float32)},
                                match=r"rank 0|scalar"),
                    ErrorSample({"dims": np.array([2 ** 40, 2 ** 40, 2 ** 20], np.int64), "value": np.float32(1)},
                                match=r"overflow|too many|too large", when="runtime")]),
    OpEntry("ZerosLike", _per_shape_and_dtype("x"), ref=lambda x: np.zeros_like(x)),
    OpEntry("OnesLike", _per_shape_and_dtype("x"), ref=lambda x: np.ones_like(x)),
    OpEntry("Range", _range_samples(), ref=_range_ref, rtol=1e-6, atol=1e-6,
            errors=[ErrorSample({"start": np.int32(0), "limit": np.int32(5), "delta": np.int32(0)},
                                match=r"Requires delta != 0"),
                    ErrorSample({"start": np.int32(0), "limit": np.int32(5), "delta": np.int32(-1)},
                                match=r"Requires start >= limit when delta < 0"),
                    ErrorSample({"start": np.float32(5), "limit": np.float32(1), "delta": np.float32(0.5)},
                                match=r"Requires start <= limit when delta > 0"),
                    ErrorSample({"start": np.float32(0), "limit": np.float32(1e30), "delta": np.float32(1)},
                                match=r"too large")]),
    OpEntry("Shape",
            _per_shape_and_dtype("input") + _per_shape_and_dtype("input", (np.float32,), {"out_type": tx.int64}),
            ref=lambda input, out_type=tx.int32: np.array(input.shape, out_type.as_numpy_dtype)),
    OpEntry("Size",
            _per_shape_and_dtype("input") + _per_shape_and_dtype("input", (np.float32,), {"out_type": tx.int64}),
            ref=lambda input, out_type=tx.int32: np.array(input.size, out_type.as_numpy_dtype)),
    OpEntry("Rank", _per_shape_and_dtype("input"), ref=lambda input: np.array(input.ndim, np.int32)),
    OpEntry("IdentityN", [Sample({"input": [rand((2, 3)), rand((4,), np.int64), rand((), np.bool_)]}, note="mixed"),
                          Sample({"input": [rand((0, 2), np.float64)]}, note="one empty")],
            ref=lambda input: tuple(input),
            grad_samples=[Sample({"input": [rand((2, 3), np.float64), rand((4,), np.int64),
                                            rand((), np.float64, seed=1)]}, note="mixed"),
                          Sample({"input": [rand((0, 2), np.float64)]}, note="one empty")]),
    _stateless_identity("StopGradient"),
    _stateless_identity("PreventGradient", {"message": "no gradient here"}),
    _stateless_identity("Snapshot"),
    OpEntry("CheckNumerics", _check_numerics_samples(), ref=lambda tensor, message: tensor,
            errors=[ErrorSample({"tensor": np.array([1, np.inf, np.nan], np.float32)}, {"message": "my check"},
                                match=r"my check : Tensor had Inf and NaN values"),
                    ErrorSample({"tensor": np.array([1, np.inf], np.float64)}, {"message": "m2"},
                                match=r"m2 : Tensor had Inf values"),
                    ErrorSample({"tensor": np.array([[np.nan]], np.float32)}, {"message": "m3"},
                                match=r"m3 : Tensor had NaN values")]),
]
