"""Conformance entries: elementwise math, comparisons, reductions and linear algebra."""

import math

import numpy as np

import tensorflux as tx
from conformance.gen import BROADCAST_SHAPES, FLOATS, NUMBERS, positive, rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _binary(op, fn, dtypes=NUMBERS, divisor=False, errors=(), extra_samples=()):
    samples = list(extra_samples)
    for i, (sx, sy) in enumerate(BROADCAST_SHAPES):
        for dt in dtypes:
            y = positive(sy, dt, seed=i) if divisor else rand(sy, dt, seed=i + 1)
            samples.append(Sample({"x": rand(sx, dt, seed=i), "y": y}, note=f"{sx}+{sy} {np.dtype(dt).name}"))
    bad = ErrorSample({"x": rand((2, 3)), "y": rand((4,))}, match=r"[Ii]ncompatible shapes")
    return OpEntry(op, samples, ref=lambda x, y: fn(x, y), errors=(bad, *errors), rtol=1e-6, atol=1e-6)


def _nonzero(shape, dtype, seed):
    """Values in [-5, 5] without 0, of both signs (floor division and modulo divisors)."""
    v = rand(shape, dtype, -5, 5, seed)
    return np.where(v == 0, np.ones_like(v), v)


def _floordiv(x, y):
    return np.floor(x / y).astype(x.dtype) if x.dtype.kind == "f" else np.floor_divide(x, y)


def _int_pow(x, y):
    return np.power(x, y) if x.dtype.kind == "f" else np.power(x.astype(np.int64), y).astype(x.dtype)


def _int_error(match, y):
    """An int32 sample that must fail with `match`, y as given."""
    x = np.array([7, -7, 3], np.int32)
    return ErrorSample({"x": x, "y": np.array(y, np.int32)}, match=match)


_DIV_ZERO = "Integer division by zero"
_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30, 1e30], np.float32)


def _unary(op, fn, dtypes=FLOATS, low=-3.0, high=3.0, specials=_SPECIALS, rtol=1e-5, atol=1e-6):
    """Samples over shapes and dtypes in [low, high), plus IEEE special values; the reference runs
    in float64 and is rounded to the input dtype (a bool result stays bool)."""
    samples = []
    for i, shape in enumerate([(), (7,), (2, 3, 5), (0, 4), (1000,)]):
        for dt in dtypes:
            samples.append(Sample({"x": rand(shape, dt, low, high, seed=i)}, note=f"{shape} {np.dtype(dt).name}"))
    for dt in (d for d in dtypes if np.dtype(d).kind == "f"):
        samples.append(Sample({"x": specials.astype(dt)}, note=f"specials {np.dtype(dt).name}"))

    def ref(x):
        with np.errstate(all="ignore"):
            y = np.asarray(fn(x.astype(np.float64) if x.dtype.kind == "f" else x))
            return y if y.dtype == np.bool_ else y.astype(x.dtype)

    return OpEntry(op, samples, ref=ref, rtol=rtol, atol=atol)


def _compare(op, fn, dtypes=NUMBERS):
    samples = []
    for i, (sx, sy) in enumerate(BROADCAST_SHAPES):
        for dt in dtypes:
            # Integers take few distinct values, so equal pairs occur (floats meet in the NaN sample).
            samples.append(Sample({"x": rand(sx, dt, -2, 2, seed=i), "y": rand(sy, dt, -2, 2, seed=i + 1)},
                                  note=f"{sx} vs {sy} {np.dtype(dt).name}"))
    nan = np.array([np.nan, 1.0, np.nan], np.float32)
    samples.append(Sample({"x": nan, "y": np.array([np.nan, 1.0, 0.0], np.float32)}, note="NaN"))
    bad = ErrorSample({"x": rand((2, 3)), "y": rand((4,))}, match=r"[Ii]ncompatible shapes")
    return OpEntry(op, samples, ref=lambda x, y, **_: fn(x, y), errors=(bad,))


def _strings(*values):
    return np.array(values, dtype=object)


# String samples of the ops that also take strings: byte-wise comparison, and Add's concatenation.
_STRING_PAIRS = [
    Sample({"x": _strings(b"a", b"bb", b"", "\u00e9".encode()), "y": _strings(b"a", b"b", b"", b"e")},
           note="strings"),
    Sample({"x": _strings([b"x", b"y"], [b"z", b"x\x00"]), "y": np.array(b"x", dtype=object)},
           note="strings vs scalar"),
    Sample({"x": np.zeros((0, 2), dtype=object), "y": _strings(b"q", b"r")}, note="empty strings"),
]


def _equality(op, fn):
    entry = _compare(op, fn, dtypes=NUMBERS + (np.bool_,))
    entry.samples.extend(_STRING_PAIRS)
    loose = {"incompatible_shape_error": False}
    entry.samples.append(Sample({"x": rand((2, 3), np.int32), "y": rand((4,), np.int32)}, loose, note="incompatible"))
    entry.samples.append(Sample({"x": rand((2, 3), np.int32), "y": rand((3,), np.int32)}, loose, note="loose ok"))

    def ref(x, y, incompatible_shape_error=True):
        try:
            np.broadcast_shapes(x.shape, y.shape)
        except ValueError:
            return np.array(op == "NotEqual")
        return fn(x, y)

    entry.ref = ref
    return entry


def _logical(op, fn):
    samples = [Sample({"x": rand(sx, np.bool_, seed=i), "y": rand(sy, np.bool_, seed=i + 1)}, note=f"{sx} vs {sy}")
               for i, (sx, sy) in enumerate(BROADCAST_SHAPES)]
    return OpEntry(op, samples, ref=lambda x, y: fn(x, y),
                   errors=[ErrorSample({"x": rand((2, 3), np.bool_), "y": rand((4,), np.bool_)},
                                                            match=r"[Ii]ncompatible shapes")])


def _select_samples():
    shapes = [((), (), ()), ((4,), (4,), (4,)), ((2, 1), (3,), ()), ((), (2, 3), (2, 3)), ((2, 3), (1, 3), (2, 1)),
              ((3, 1, 4), (2, 4), (1,)), ((0, 2), (2,), ())]
    out = []
    for i, (sc, st, se) in enumerate(shapes):
        for dt in (np.float32, np.float64, np.int32, np.int64, np.bool_):
            out.append(Sample({"condition": rand(sc, np.bool_, seed=i), "t": rand(st, dt, seed=i + 1),
                               "e": rand(se, dt, seed=i + 2)}, note=f"{sc} {st} {se} {np.dtype(dt).name}"))
    return out


def _add_n_samples():
    out = []
    for dt in NUMBERS:
        for n in (1, 2, 3, 5):
            out.append(Sample({"inputs": [rand((3, 4), dt, seed=k) for k in range(n)]},
                              note=f"N={n} {np.dtype(dt).name}"))
    out.append(Sample({"inputs": [rand((), np.float32, seed=k) for k in range(3)]}, note="scalars"))
    out.append(Sample({"inputs": [rand((0, 2), np.float32, seed=k) for k in range(2)]}, note="zero-size"))
    return out


def _clip_samples():
    out = []
    for dt in NUMBERS:
        t = rand((4, 5), dt, -5, 5, seed=1)
        lo, hi = rand((4, 5), dt, -3, 0, seed=2), rand((4, 5), dt, 0, 3, seed=3)
        out.append(Sample({"t": t, "clip_value_min": np.array(-1, dt), "clip_value_max": np.array(2, dt)},
                          note=f"scalars {np.dtype(dt).name}"))
        out.append(Sample({"t": t, "clip_value_min": lo, "clip_value_max": hi}, note=f"tensors {np.dtype(dt).name}"))
        out.append(Sample({"t": t, "clip_value_min": lo, "clip_value_max": np.array(2, dt)}, note="mixed"))
    out.append(Sample({"t": np.array([np.nan, 5.0, -5.0], np.float32), "clip_value_min": np.array(0, np.float32),
                       "clip_value_max": np.array(3, np.float32)}, note="NaN"))
    out.append(Sample({"t": np.array([1.0, 5.0], np.float32), "clip_value_min": np.array(4, np.float32),
                       "clip_value_max": np.array(3, np.float32)}, note="min > max"))
    return out


_erf = np.vectorize(math.erf, otypes=[np.float64])


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
    # Big enough to be split over the intra-op pool: by rows (tall C) and by columns (wide C).
    for (m, k, n) in ((301, 64, 61), (9, 130, 1000)):
        for dt in (np.float32, np.float64):
            for ta, tb in ((False, False), (True, True)):
                a = rand((k, m) if ta else (m, k), dt, seed=3)
                b = rand((n, k) if tb else (k, n), dt, seed=4)
                out.append(Sample({"a": a, "b": b}, {"transpose_a": ta, "transpose_b": tb}, rtol=1e-4, atol=1e-4,
                                  note=f"pool split {m}x{k}x{n} ta={ta} tb={tb}"))
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
    _binary("Add", np.add, extra_samples=_STRING_PAIRS),
    _binary("Sub", np.subtract),
    _binary("Mul", np.multiply),
    _binary("RealDiv", lambda x, y: (x / y).astype(x.dtype) if x.dtype.kind == "f" else _int_div(x, y),
            dtypes=FLOATS, divisor=True),
    _binary("Div", lambda x, y: (x / y).astype(x.dtype) if x.dtype.kind == "f" else _int_div(x, y), divisor=True,
            errors=[_int_error(_DIV_ZERO, [1, 0, 2])]),
    OpEntry("FloorDiv", [Sample({"x": rand(sx, dt, -9, 9, seed=i), "y": _nonzero(sy, dt, seed=i + 1)},
                                note=f"{sx}/{sy} {np.dtype(dt).name}")
                         for i, (sx, sy) in enumerate(BROADCAST_SHAPES) for dt in NUMBERS],
            ref=_floordiv, errors=[_int_error(_DIV_ZERO, [1, 0, 2])]),
    OpEntry("FloorMod", [Sample({"x": rand(sx, dt, -9, 9, seed=i), "y": _nonzero(sy, dt, seed=i + 1)},
                                note=f"{sx}%{sy} {np.dtype(dt).name}")
                         for i, (sx, sy) in enumerate(BROADCAST_SHAPES) for dt in NUMBERS],
            ref=lambda x, y: np.mod(x, y).astype(x.dtype), rtol=1e-5, atol=1e-5,
            errors=[_int_error(_DIV_ZERO, [0, 1, 2])]),
    OpEntry("Pow", [Sample({"x": rand(sx, dt, 0.5, 2.0, seed=i) if np.dtype(dt).kind == "f" else rand(sx, dt, -3, 3, i),
                            "y": (rand(sy, dt, -2.0, 3.0, seed=i + 1) if np.dtype(dt).kind == "f"
                                  else rand(sy, dt, 0, 5, i))},
                           note=f"{sx}**{sy} {np.dtype(dt).name}")
                    for i, (sx, sy) in enumerate(BROADCAST_SHAPES) for dt in NUMBERS],
            ref=_int_pow, rtol=1e-5, errors=[_int_error("negative integer powers", [2, -1, 0])]),
    _binary("Maximum", np.maximum),
    _binary("Minimum", np.minimum),
    _binary("SquaredDifference", lambda x, y: np.square(x - y), dtypes=NUMBERS),
    _unary("Neg", np.negative, dtypes=NUMBERS),
    _unary("Abs", np.abs, dtypes=NUMBERS),
    _unary("Sign", np.sign, dtypes=NUMBERS),
    _unary("Square", np.square, dtypes=NUMBERS),
    _unary("Sqrt", np.sqrt, low=0.0, high=100.0),
    _unary("Rsqrt", lambda x: 1 / np.sqrt(x), low=0.01, high=100.0),
    _unary("Reciprocal", lambda x: 1 / x, low=0.1, high=10.0),
    _unary("Exp", np.exp, low=-80.0, high=80.0),
    _unary("Expm1", np.expm1, low=-5.0, high=5.0),
    _unary("Log", np.log, low=1e-3, high=1e4),
    _unary("Log1p", np.log1p, low=-0.99, high=100.0),
    _unary("Sin", np.sin, low=-50.0, high=50.0, atol=1e-6),
    _unary("Cos", np.cos, low=-50.0, high=50.0, atol=1e-6),
    _unary("Tan", np.tan, low=-1.5, high=1.5),
    _unary("Tanh", np.tanh, low=-10.0, high=10.0),
    _unary("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), low=-30.0, high=30.0),
    # TensorFlow's float32 Erf gives NaN at +-inf (ours: +-1, as NumPy/SciPy; tested in test_math.py).
    _unary("Erf", _erf, low=-5.0, high=5.0, specials=_SPECIALS[np.isfinite(_SPECIALS) | np.isnan(_SPECIALS)]),
    _unary("Floor", np.floor, low=-10.0, high=10.0),
    _unary("Ceil", np.ceil, low=-10.0, high=10.0),
    # Integer Round is the identity (TensorFlow's raw integer kernel returns zeros; see test_math.py).
    _unary("Round", np.round, low=-10.0, high=10.0),
    _unary("IsNan", np.isnan),
    _unary("IsFinite", np.isfinite),
    _equality("Equal", np.equal),
    _equality("NotEqual", np.not_equal),
    _compare("Less", np.less),
    _compare("LessEqual", np.less_equal),
    _compare("Greater", np.greater),
    _compare("GreaterEqual", np.greater_equal),
    _logical("LogicalAnd", np.logical_and),
    _logical("LogicalOr", np.logical_or),
    OpEntry("LogicalNot", [Sample({"x": rand(s, np.bool_, seed=3)}) for s in ((), (5,), (2, 0), (3, 4))],
            ref=lambda x: np.logical_not(x)),
    OpEntry("SelectV2", _select_samples(), ref=lambda condition, t, e: np.where(condition, t, e),
            errors=[ErrorSample({"condition": rand((2,), np.bool_), "t": rand((3,)), "e": rand((3,))},
                                match=r"[Ii]ncompatible|broadcast")]),
    OpEntry("AddN", _add_n_samples(), ref=lambda inputs: sum(inputs[1:], inputs[0]), rtol=1e-5,
            errors=[ErrorSample({"inputs": [rand((2, 3)), rand((3,))]}, match=r"same shape")]),
    OpEntry("ClipByValue", _clip_samples(),
            ref=lambda t, clip_value_min, clip_value_max: np.maximum(np.minimum(t, clip_value_max), clip_value_min),
            errors=[ErrorSample({"t": rand((2, 3)), "clip_value_min": rand((4,)), "clip_value_max": rand(())},
                                match=r"clip_value_min.*broadcast")]),
    OpEntry("MatMul", _matmul_samples(), ref=_matmul_ref, rtol=1e-5, atol=1e-5,
            errors=[ErrorSample({"a": rand((2, 3)), "b": rand((4, 5))},
                                match=r"[2,3].*[4,5]|Dimensions must be equal|[Mm]atrix size"),
                    ErrorSample({"a": rand((2, 3, 1)), "b": rand((3, 5))}, match="rank 2", when="static")]),
    _reduce("Sum", np.sum),
    _reduce("Mean", lambda x, axis, keepdims: _int_mean(x, axis, keepdims)),
    OpEntry("Cast", _cast_samples(), ref=lambda x, DstT, Truncate=False: x.astype(DstT.as_numpy_dtype),
            grad_samples=[Sample({"x": rand((2, 3), np.float64, seed=31)}, {"DstT": tx.float64}, note="float64")]),
]
