"""Conformance entries: inverse and hyperbolic trigonometry, Rint and IsInf, the gamma family
(Lgamma, Digamma, Polygamma, Zeta), BesselI0e, BesselI1e and the binary maps with special-value rules (Atan2, Xlogy,
Xlog1py, Xdivy, DivNoNan, MulNoNan, NextAfter), Unique, UniqueWithCounts, Bincount, DenseBincount and
the sorted segment reductions (SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd) and
TensorScatterUpdate, TensorScatterSub, TensorScatterMin, TensorScatterMax."""

import numpy as np
import scipy.special as sp

import tensorflux as tx

from conformance.entries_math import _SPECIALS, _unary
from conformance.gen import BROADCAST_SHAPES, FLOATS, rand
from conformance.harness import ErrorSample, OpEntry, Sample

_NAN = np.nan


def _no_poles(specials):
    """The special values without the gamma function's poles (0, -1) and -inf."""
    keep = [v for v in specials if not (np.isfinite(v) and v <= 0 and v == np.floor(v)) and v != -np.inf]
    return np.array(keep, np.float32)


def _pairs(gen_a, gen_b, names=("x", "y"), extra=()):
    """Samples over the broadcast shape pairs and float dtypes, inputs drawn by gen_a / gen_b(shape, dtype, seed)."""
    out = []
    for i, (sa, sb) in enumerate(BROADCAST_SHAPES):
        for dt in FLOATS:
            out.append(Sample({names[0]: gen_a(sa, dt, i), names[1]: gen_b(sb, dt, i + 1)},
                              note=f"{sa},{sb} {np.dtype(dt).name}"))
    return out + list(extra)


def _grad_pairs(gen_a, gen_b, names=("x", "y")):
    return [Sample({names[0]: gen_a(sa, np.float64, 40 + i), names[1]: gen_b(sb, np.float64, 50 + i)},
                   note=f"grad {sa},{sb}")
            for i, (sa, sb) in enumerate([((3,), (3,)), ((2, 3), (3,)), ((), (4,)), ((2, 1), (1, 3))])]


def _uniform(low, high):
    return lambda shape, dt, seed: rand(shape, dt, low, high, seed)


def _with_zeros(low, high):
    """Values in [low, high) with every third element 0."""
    def gen(shape, dt, seed):
        v = rand(shape, dt, low, high, seed)
        flat = v.reshape(-1)
        flat[::3] = 0
        return flat.reshape(v.shape)
    return gen


def _ref64(fn):
    """fn computed in float64, rounded to the first input's dtype."""
    def ref(**kw):
        dt = next(iter(kw.values())).dtype
        with np.errstate(all="ignore"):
            return np.asarray(fn(*[v.astype(np.float64) for v in kw.values()])).astype(dt)
    return ref


def _xlogy(x, y):
    return np.where(x == 0, 0.0, x * np.log(y))


def _xlog1py(x, y):
    return np.where(x == 0, 0.0, x * np.log1p(y))


def _xdivy(x, y):
    return np.where(x == 0, 0.0, x / np.where(x == 0, 1.0, y))


def _div_no_nan(x, y):
    return np.where(y == 0, 0.0, x / np.where(y == 0, 1.0, y))


def _mul_no_nan(x, y):
    return np.where(y == 0, 0.0, x * y)


# x == 0 gives 0 whatever y is (NaN and 0 included), as in TensorFlow.
_ZERO_X = Sample({"x": np.array([0, 0, 0, 1, 2, -1], np.float32),
                  "y": np.array([_NAN, 0, -1, 0, np.inf, _NAN], np.float32)}, note="x == 0 and specials")


def _binary(op, ref, gen_a, gen_b, names=("x", "y"), extra=(), grad_inputs=None, rtol=1e-5, atol=1e-6,
            grad_gen=None):
    bad = ErrorSample({names[0]: rand((2, 3)), names[1]: rand((4,))}, match=r"[Ii]ncompatible shapes")
    ga, gb = grad_gen or (gen_a, gen_b)
    return OpEntry(op, _pairs(gen_a, gen_b, names, extra), ref=ref, errors=[bad], rtol=rtol, atol=atol,
                   grad_samples=_grad_pairs(ga, gb, names), grad_inputs=grad_inputs)


def _polygamma_order(shape, dt, seed):
    return rand(shape, np.int32, 0, 3, seed).astype(dt)


_POLYGAMMA_SPECIALS = Sample({"a": np.array([0, 1, 2, 1.5, -1, 3], np.float64),
                              "x": np.array([2, 2, 0.5, 2, 2, -1.5], np.float64)}, note="orders and poles")
_ZETA_SPECIALS = Sample({"x": np.array([1, 0.5, 2, 2, 2, 3, 2.5, np.inf, 2], np.float64),
                         "q": np.array([1, 1, 0, -1, -1.5, -1.5, -1.5, 2, np.inf], np.float64)}, note="domain edges")


def _polygamma_ref(a, x):
    with np.errstate(all="ignore"):
        ok = (a >= 0) & (a == np.floor(a))
        safe = np.where(ok, a, 0).astype(np.int64)
        return np.where(ok, sp.polygamma(safe, x.astype(np.float64)), np.nan).astype(x.dtype)


def _zeta_ref(x, q):
    with np.errstate(all="ignore"):
        x64, q64 = x.astype(np.float64), q.astype(np.float64)
        z = sp.zeta(x64, q64)
        # TensorFlow's domain: inf at x == 1 and at non-positive integer q; NaN below x = 1.
        z = np.where(x64 == 1, np.inf, z)
        z = np.where(x64 < 1, np.nan, z)
        z = np.where((q64 <= 0) & (q64 == np.floor(q64)) & (x64 >= 1), np.inf, z)
        z = np.where((x64 == np.inf) & (q64 > 1), 0.0, z)  # SciPy gives NaN
        return z.astype(x.dtype)


ENTRIES = [
    _unary("Asin", np.arcsin, low=-0.99, high=0.99),
    _unary("Acos", np.arccos, low=-0.99, high=0.99),
    _unary("Atan", np.arctan, low=-10.0, high=10.0),
    _unary("Sinh", np.sinh, low=-10.0, high=10.0),
    _unary("Cosh", np.cosh, low=-10.0, high=10.0),
    _unary("Asinh", np.arcsinh, low=-10.0, high=10.0),
    _unary("Acosh", np.arccosh, low=1.01, high=10.0),
    _unary("Atanh", np.arctanh, low=-0.99, high=0.99),
    _unary("Rint", np.rint, low=-10.0, high=10.0, specials=np.concatenate([_SPECIALS, [0.5, 1.5, 2.5, -0.5, -1.5]])
           .astype(np.float32)),
    _unary("IsInf", np.isinf),
    # TensorFlow's lgamma(-inf) is +inf (SciPy's gammaln gives -inf).
    _unary("Lgamma", lambda x: np.where(x == -np.inf, np.inf, sp.gammaln(x)), low=0.1, high=8.0, rtol=1e-5, atol=1e-5),
    _unary("Digamma", sp.psi, low=0.2, high=8.0, specials=_no_poles(_SPECIALS), rtol=1e-5, atol=1e-5),
    _unary("BesselI0e", sp.i0e, low=-30.0, high=30.0, rtol=1e-5, atol=1e-7,
           specials=np.array([_NAN, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 600.0, -800.0, 1e30], np.float32)),
    _unary("BesselI1e", sp.i1e, low=-30.0, high=30.0, rtol=1e-5, atol=1e-7,
           specials=np.array([_NAN, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 600.0, -800.0, 1e30], np.float32)),
    _binary("Atan2", _ref64(np.arctan2), _uniform(-3, 3), _uniform(-3, 3), names=("y", "x")),
    _binary("Xlogy", _ref64(_xlogy), _with_zeros(-3, 3), _uniform(0.1, 3), extra=[_ZERO_X],
            grad_gen=(_uniform(-3, 3), _uniform(0.5, 3))),
    _binary("Xlog1py", _ref64(_xlog1py), _with_zeros(-3, 3), _uniform(-0.9, 3), extra=[_ZERO_X],
            grad_gen=(_uniform(-3, 3), _uniform(-0.5, 3))),
    _binary("Xdivy", _ref64(_xdivy), _with_zeros(-3, 3), _uniform(0.5, 3), extra=[_ZERO_X],
            grad_gen=(_uniform(-3, 3), _uniform(0.5, 3))),
    _binary("DivNoNan", _ref64(_div_no_nan), _uniform(-3, 3), _with_zeros(0.5, 3),
            extra=[Sample({"x": np.array([1, _NAN, np.inf, 1], np.float32), "y": np.array([0, 0, 0, 2], np.float32)},
                          note="y == 0 with specials")],
            grad_gen=(_uniform(-3, 3), _uniform(0.5, 3))),
    _binary("MulNoNan", _ref64(_mul_no_nan), _uniform(-3, 3), _with_zeros(-3, 3),
            extra=[Sample({"x": np.array([1, _NAN, np.inf, 1], np.float32),
                           "y": np.array([0, 0, 0, _NAN], np.float32)}, note="y == 0 with specials")],
            grad_gen=(_uniform(-3, 3), _uniform(-3, 3))),
    OpEntry("NextAfter", _pairs(_uniform(-3, 3), _uniform(-3, 3), ("x1", "x2"),
                                [Sample({"x1": np.array([0, 1, 1, _NAN, np.inf], np.float32),
                                         "x2": np.array([1, 1, _NAN, 0, 0], np.float32)}, note="specials")]),
            ref=lambda x1, x2: np.nextafter(x1, x2), rtol=0, atol=0,
            errors=[ErrorSample({"x1": rand((2, 3)), "x2": rand((4,))}, match=r"[Ii]ncompatible shapes")]),
    _binary("Zeta", _zeta_ref, _uniform(1.5, 5), _uniform(0.5, 3), names=("x", "q"), extra=[_ZETA_SPECIALS],
            grad_inputs=["q"], rtol=1e-5, atol=1e-6),
    _binary("Polygamma", _polygamma_ref, _polygamma_order, _uniform(0.5, 3), names=("a", "x"),
            extra=[_POLYGAMMA_SPECIALS], grad_inputs=["x"], rtol=1e-5, atol=1e-5),
]


def _first_appearance(x):
    _, first = np.unique(x, return_index=True)
    order = np.sort(first)
    y = x[order]
    idx = np.array([int(np.nonzero(y == v)[0][0]) for v in x], np.int64)
    counts = np.array([np.sum(x == v) for v in y], np.int64)
    return y, idx, counts


def _unique_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8):
        for shape in ((0,), (1,), (9,), (40,)):
            x = rand(shape, dt, 0, 5, seed=shape[0])
            for out_idx in (np.int32, np.int64):
                out.append(Sample({"x": x}, {"out_idx": tx.as_dtype(out_idx)}, note=f"{shape} {np.dtype(dt).name}"))
    out.append(Sample({"x": np.array([0.0, -0.0, 1.0, 0.0], np.float32)}, note="signed zeros"))
    out.append(Sample({"x": np.array([True, False, True])}, note="bool"))
    return out


def _unique_ref(with_counts):
    def ref(x, out_idx=tx.int32):
        y, idx, counts = _first_appearance(x)
        o = out_idx.as_numpy_dtype
        return (y, idx.astype(o), counts.astype(o)) if with_counts else (y, idx.astype(o))
    return ref


_NOT_1D = ErrorSample({"x": rand((2, 3))}, match="1D")
ENTRIES += [
    OpEntry("Unique", _unique_samples(), ref=_unique_ref(False), errors=[_NOT_1D]),
    OpEntry("UniqueWithCounts", _unique_samples(), ref=_unique_ref(True), errors=[_NOT_1D]),
]


def _bincount_ref(arr, size, weights):
    flat = arr.reshape(-1)
    keep = flat < size
    w = weights.reshape(-1)[keep] if weights.size else None
    return np.bincount(flat[keep], weights=w, minlength=int(size))[:int(size)].astype(weights.dtype)


def _bincount_samples():
    out = []
    for dt in (np.int32, np.int64, np.float32, np.float64):
        arr = rand((12,), np.int32, 0, 6, seed=1)
        out.append(Sample({"arr": arr, "size": np.array(5, np.int32), "weights": rand((12,), dt, 0, 4, seed=2)},
                          note=f"weighted {np.dtype(dt).name}"))
        out.append(Sample({"arr": arr.reshape(3, 4), "size": np.array(8, np.int32), "weights": np.zeros((0,), dt)},
                          note=f"counts {np.dtype(dt).name}"))
    out.append(Sample({"arr": np.zeros((0,), np.int32), "size": np.array(3, np.int32),
                       "weights": np.zeros((0,), np.float32)}, note="empty"))
    out.append(Sample({"arr": np.array([1, 2], np.int32), "size": np.array(0, np.int32),
                       "weights": np.zeros((0,), np.int32)}, note="size 0"))
    return out


def _dense_bincount_ref(input, size, weights, binary_output=False):
    rows = input.reshape(1, -1) if input.ndim == 1 else input
    w = weights.reshape(rows.shape) if weights.size else np.ones(rows.shape, weights.dtype)
    out = np.zeros((rows.shape[0], int(size)), weights.dtype)
    for r in range(rows.shape[0]):
        for v, wv in zip(rows[r], w[r]):
            if v < size:
                out[r, v] = 1 if binary_output else out[r, v] + wv
    return out[0] if input.ndim == 1 else out


def _dense_bincount_samples():
    out = []
    for idx in (np.int32, np.int64):
        for dt in (np.int32, np.float64):
            for binary in (False, True):
                x = rand((3, 5), idx, 0, 6, seed=3)
                out.append(Sample({"input": x, "size": np.array(5, idx), "weights": rand((3, 5), dt, 0, 4, seed=4)},
                                  {"binary_output": binary}, note=f"2-D weighted {np.dtype(dt).name} {binary}"))
                out.append(Sample({"input": x[0], "size": np.array(7, idx), "weights": np.zeros((0,), dt)},
                                  {"binary_output": binary}, note=f"1-D counts {np.dtype(dt).name} {binary}"))
    return out


_NEGATIVE = "must be non-negative"
ENTRIES += [
    OpEntry("Bincount", _bincount_samples(), ref=_bincount_ref, errors=[
        ErrorSample({"arr": np.array([1, -1], np.int32), "size": np.array(3, np.int32),
                     "weights": np.zeros((0,), np.float32)}, match=_NEGATIVE),
        ErrorSample({"arr": np.array([1, 2], np.int32), "size": np.array(3, np.int32),
                     "weights": np.ones((3,), np.float32)}, match="same size"),
        ErrorSample({"arr": np.array([1, 2], np.int32), "size": np.array(-3, np.int32),
                     "weights": np.zeros((0,), np.float32)}, match=_NEGATIVE)]),
    OpEntry("DenseBincount", _dense_bincount_samples(), ref=_dense_bincount_ref, errors=[
        ErrorSample({"input": np.array([1, -1], np.int32), "size": np.array(3, np.int32),
                     "weights": np.zeros((0,), np.float32)}, match=_NEGATIVE),
        ErrorSample({"input": np.zeros((2, 2, 2), np.int32), "size": np.array(3, np.int32),
                     "weights": np.zeros((0,), np.float32)}, match="1 or 2-dimensional")]),
]


def _segment_ref(kind):
    def ref(data, segment_ids):
        n = int(segment_ids[-1]) + 1 if segment_ids.size else 0
        out = np.full((n,) + data.shape[1:], 1 if kind == "prod" else 0, data.dtype)
        for s in range(n):
            rows = data[segment_ids == s]
            if len(rows):
                fn = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}.get(kind)
                if kind == "mean":
                    total = np.sum(rows, axis=0)
                    out[s] = total / len(rows) if data.dtype.kind == "f" else np.fix(total / len(rows))
                else:
                    out[s] = fn(rows, axis=0)
        return out
    return ref


def _segment_samples():
    out = []
    ids_list = [np.array([0, 0, 1, 3, 3, 3], np.int32), np.array([2, 2, 2, 2, 4, 5], np.int64)]
    for dt in (np.float32, np.float64, np.int32, np.int64):
        for k, ids in enumerate(ids_list):
            for shape in ((6,), (6, 3)):
                out.append(Sample({"data": rand(shape, dt, -3, 3, seed=k), "segment_ids": ids},
                                  note=f"{shape} ids{k} {np.dtype(dt).name}"))
    out.append(Sample({"data": np.zeros((0, 2), np.float32), "segment_ids": np.zeros((0,), np.int32)}, note="empty"))
    return out


def _segment_grad_samples():
    # Distinct values (no ties for max/min; a zero for prod's special case in the second sample).
    a = np.array([[0.5, -1.2], [1.7, 2.2], [-0.3, 0.9], [1.1, -2.1], [2.6, 0.4]])
    b = np.array([[0.0, 1.3], [1.5, -0.7], [-1.1, 0.0], [0.8, 1.9], [2.4, -0.6]])
    return [Sample({"data": a, "segment_ids": np.array([0, 0, 1, 1, 3], np.int32)}, note="grad"),
            Sample({"data": b, "segment_ids": np.array([0, 0, 0, 2, 2], np.int64)}, note="grad zeros")]


_SEGMENT_ERRORS = [
    ErrorSample({"data": rand((4,)), "segment_ids": np.array([0, 2, 1, 3], np.int32)}, match="not increasing"),
    ErrorSample({"data": rand((3,)), "segment_ids": np.array([-1, 0, 0], np.int32)}, match=">= 0"),
    ErrorSample({"data": rand((3,)), "segment_ids": np.array([0, 0], np.int32)}, match="size|dimension 0"),
]
ENTRIES += [OpEntry(op, _segment_samples(), ref=_segment_ref(kind), errors=_SEGMENT_ERRORS, rtol=1e-5, atol=1e-5,
                    grad_samples=_segment_grad_samples(), grad_inputs=["data"])
            for op, kind in (("SegmentSum", "sum"), ("SegmentMean", "mean"), ("SegmentMax", "max"),
                             ("SegmentMin", "min"), ("SegmentProd", "prod"))]


def _scatter_ref(kind):
    def ref(tensor, indices, updates, bad_indices_policy=""):
        out = tensor.copy()
        n = indices.shape[-1]
        flat_idx = indices.reshape(-1, n)
        flat_up = updates.reshape((flat_idx.shape[0],) + tensor.shape[n:])
        for t, (ix, up) in enumerate(zip(flat_idx, flat_up)):
            key = tuple(int(v) for v in ix)
            if kind == "update":
                out[key] = up
            elif kind == "sub":
                out[key] = out[key] - up
            elif kind == "min":
                out[key] = np.minimum(out[key], up)
            else:
                out[key] = np.maximum(out[key], up)
        return out
    return ref


def _scatter_samples(kind):
    out = []
    dts = (np.float32, np.float64, np.int32, np.int64) + ((np.bool_,) if kind == "update" else ())
    for dt in dts:
        for it in (np.int32, np.int64):
            # Slices of rows (n = 1) with a duplicate, and single elements (n = 2).
            out.append(Sample({"tensor": rand((4, 3), dt, seed=1), "indices": np.array([[2], [0], [2]], it),
                               "updates": rand((3, 3), dt, seed=2)}, note=f"rows {np.dtype(dt).name}"))
            out.append(Sample({"tensor": rand((4, 3), dt, seed=3), "indices": np.array([[1, 2], [3, 0]], it),
                               "updates": rand((2,), dt, seed=4)}, note=f"elements {np.dtype(dt).name}"))
    out.append(Sample({"tensor": rand((3,), np.float32), "indices": np.zeros((0, 1), np.int32),
                       "updates": np.zeros((0,), np.float32)}, note="no updates"))
    return out


def _scatter_grad_samples():
    # Distinct values, so min / max pick one input per element.
    t = np.array([[0.3, -1.1, 2.2], [1.4, 0.6, -0.2], [-2.5, 1.9, 0.8], [0.1, -0.7, 1.2]])
    u = np.array([[1.0, -2.0, 0.45], [-0.35, 0.75, 2.6]])
    return [Sample({"tensor": t, "indices": np.array([[2], [0]], np.int32), "updates": u}, note="grad rows")]


_SCATTER_OOB = ErrorSample({"tensor": rand((3, 2)), "indices": np.array([[5]], np.int32),
                            "updates": rand((1, 2))}, match="does not index into")
ENTRIES += [OpEntry(op, _scatter_samples(kind), ref=_scatter_ref(kind), errors=[_SCATTER_OOB],
                    grad_samples=_scatter_grad_samples(), grad_inputs=["tensor", "updates"])
            for op, kind in (("TensorScatterUpdate", "update"), ("TensorScatterSub", "sub"),
                             ("TensorScatterMin", "min"), ("TensorScatterMax", "max"))]
