"""Conformance entries: elementwise math, reductions and linear algebra."""

import numpy as np

import tensorflux as tx
from conformance.gen import BROADCAST_SHAPES, FLOATS, NUMBERS, positive, rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _binary(op, fn, dtypes=NUMBERS, divisor=False, errors=()):
    samples = []
    for i, (sx, sy) in enumerate(BROADCAST_SHAPES):
        for dt in dtypes:
            y = positive(sy, dt, seed=i) if divisor else rand(sy, dt, seed=i + 1)
            samples.append(Sample({"x": rand(sx, dt, seed=i), "y": y}, note=f"{sx}+{sy} {np.dtype(dt).name}"))
    bad = ErrorSample({"x": rand((2, 3)), "y": rand((4,))}, match=r"[Ii]ncompatible shapes")
    return OpEntry(op, samples, ref=lambda x, y: fn(x, y), errors=(bad, *errors), rtol=1e-6, atol=1e-6)


def _int_div(x, y):
    q = np.trunc(x / y) if x.dtype.kind == "f" else np.fix(np.true_divide(x, y)).astype(x.dtype)
    return x / y if x.dtype.kind == "f" else q


def _reduce(op, fn):
    samples = []
    for dt in NUMBERS:
        x = rand((3, 4, 5), dt, seed=2)
        for axes in ([], [0], [-1], [0, 2], [1, -3], [0, 1, 2]):
            for keep in (False, True):
                samples.append(Sample({"input": x, "reduction_indices": np.array(axes, np.int32)},
                                      {"keep_dims": keep}, note=f"axes={axes} keep={keep}"))
    samples.append(Sample({"input": rand((), np.float32), "reduction_indices": np.array([], np.int32)}, note="scalar"))
    samples.append(Sample({"input": rand((0, 3), np.float32), "reduction_indices": np.array([1], np.int64)},
                          note="zero-size"))

    def ref(input, reduction_indices, keep_dims=False):
        axes = tuple(int(a) % max(input.ndim, 1) for a in np.atleast_1d(reduction_indices))
        return fn(input, axis=axes, keepdims=keep_dims).astype(input.dtype)

    errors = [ErrorSample({"input": rand((2, 3)), "reduction_indices": np.array([2], np.int32)},
                          match=r"out of range|Invalid reduction")]
    return OpEntry(op, samples, ref=ref, errors=errors, rtol=1e-5, atol=1e-5)


def _int_mean(x, axis, keepdims):
    if x.dtype.kind == "f":
        return np.mean(x, axis=axis, keepdims=keepdims)
    s = np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)
    n = int(np.prod([x.shape[a] for a in axis])) if axis else 1
    return np.fix(s / max(n, 1)).astype(x.dtype) if n else np.zeros_like(s)


def _matmul_samples():
    out = []
    for dt in NUMBERS:
        for ta in (False, True):
            for tb in (False, True):
                a = rand((4, 3) if ta else (3, 4), dt, seed=1)
                b = rand((5, 4) if tb else (4, 5), dt, seed=2)
                out.append(Sample({"a": a, "b": b}, {"transpose_a": ta, "transpose_b": tb}, note=f"ta={ta} tb={tb}"))
    out.append(Sample({"a": rand((0, 3)), "b": rand((3, 2))}, note="empty"))
    return out


def _matmul_ref(a, b, transpose_a=False, transpose_b=False):
    return np.matmul(a.T if transpose_a else a, b.T if transpose_b else b)


def _cast_samples():
    out = []
    for src in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_):
        for dst in (tx.float32, tx.float64, tx.int32, tx.int64, tx.uint8, tx.bool):
            x = rand((7,), src, 0, 100, seed=3) if src != np.bool_ else rand((7,), src)
            out.append(Sample({"x": x}, {"DstT": dst}, note=f"{np.dtype(src).name}->{dst.name}"))
    return out


ENTRIES = [
    _binary("AddV2", np.add),
    _binary("Add", np.add),
    _binary("Sub", np.subtract),
    _binary("Mul", np.multiply),
    _binary("RealDiv", lambda x, y: (x / y).astype(x.dtype) if x.dtype.kind == "f" else _int_div(x, y),
            dtypes=FLOATS, divisor=True),
    OpEntry("MatMul", _matmul_samples(), ref=_matmul_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"a": rand((2, 3)), "b": rand((4, 5))}, match=r"[2,3].*[4,5]|Dimensions must be equal|[Mm]atrix size"),
                    ErrorSample({"a": rand((2, 3, 1)), "b": rand((3, 5))}, match="rank 2", when="static")]),
    _reduce("Sum", np.sum),
    _reduce("Mean", lambda x, axis, keepdims: _int_mean(x, axis, keepdims)),
    OpEntry("Cast", _cast_samples(), ref=lambda x, DstT, Truncate=False: x.astype(DstT.as_numpy_dtype)),
]
