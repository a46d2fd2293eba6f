"""Conformance entries: the incomplete gamma functions (Igamma, Igammac, IgammaGradA), the
incomplete beta function (Betainc) and Bucketize, against SciPy (gammainc, gammaincc, betainc)
and NumPy (searchsorted); gradients by central differences (Igamma and Igammac in a and x,
Betainc in x, as TensorFlow defines them)."""

import numpy as np
import scipy.special as sp

from conformance.gen import BROADCAST_SHAPES, FLOATS, rand
from conformance.harness import ErrorSample, OpEntry, Sample

_NAN = np.nan


def _ab_samples(names, extra=()):
    out = []
    for i, (sa, sb) in enumerate(BROADCAST_SHAPES):
        for dt in FLOATS:
            out.append(Sample({names[0]: rand(sa, dt, 0.1, 12.0, i), names[1]: rand(sb, dt, 0.0, 15.0, i + 1)},
                              note=f"{sa},{sb} {np.dtype(dt).name}"))
    return out + list(extra)


# Domain edges: a <= 0 or x < 0 give NaN; x == 0, x == inf; a large and x near a (the slowest
# convergence); tiny a.
_EDGES = Sample({"a": np.array([0.0, -1.0, 2.0, 2.0, 2.0, _NAN, 1.0, 500.0, 1e-3, 30.0, 0.5, 3.0]),
                 "x": np.array([1.0, 1.0, -0.5, 0.0, np.inf, 1.0, _NAN, 510.0, 1e-4, 1e-8, 60.0, 700.0])},
                note="domain edges")


def _ref64(fn):
    def ref(**kw):
        dt = next(iter(kw.values())).dtype
        with np.errstate(all="ignore"):
            return np.asarray(fn(*[np.asarray(v, np.float64) for v in kw.values()])).astype(dt)
    return ref


def _domain(fn):
    """fn with TensorFlow's domain rule: NaN where a <= 0 or x < 0."""
    def wrapped(a, x):
        with np.errstate(all="ignore"):
            return np.where((a <= 0) | (x < 0), np.nan, fn(a, x))
    return wrapped


def _igamma_grad_a(a, x):
    """dP/da by Richardson-extrapolated central differences of SciPy's gammainc."""
    h = 1e-4 * np.maximum(np.abs(a), 1e-2)
    d1 = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    d2 = (sp.gammainc(a + h / 2, x) - sp.gammainc(a - h / 2, x)) / h
    return np.where(x == 0, 0.0, (4 * d2 - d1) / 3)


def _grad_samples(names, gen_a, gen_b):
    return [Sample({names[0]: gen_a(sa, 40 + i), names[1]: gen_b(sb, 50 + i)}, note=f"grad {sa},{sb}")
            for i, (sa, sb) in enumerate([((3,), (3,)), ((2, 3), (3,)), ((), (4,)), ((2, 1), (1, 3))])]


def _positive(low, high):
    return lambda shape, seed: rand(shape, np.float64, low, high, seed)


def _incompatible(names):
    return [ErrorSample({names[0]: rand((2, 3)), names[1]: rand((4,))}, match=r"[Ii]ncompatible shapes")]


def _betainc_samples():
    out = []
    for dt in FLOATS:
        for i, shapes in enumerate((((4,), (4,), (4,)), ((), (2, 3), (2, 3)), ((3,), (), ()), ((), (), ()))):
            out.append(Sample({"a": rand(shapes[0], dt, 0.2, 8.0, i), "b": rand(shapes[1], dt, 0.2, 8.0, i + 1),
                               "x": rand(shapes[2], dt, 0.0, 1.0, i + 2)}, note=f"{shapes} {np.dtype(dt).name}"))
    out.append(Sample({"a": np.array([1.0, 0.0, 2.0, 2.0, 2.0, 2.0, 0.5, 300.0]),
                       "b": np.array([1.0, 1.0, -1.0, 3.0, 3.0, 3.0, 0.5, 200.0]),
                       "x": np.array([0.3, 0.5, 0.5, 0.0, 1.0, 1.5, 0.999, 0.6])}, note="domain edges"))
    return out


def _betainc_ref(a, b, x):
    with np.errstate(all="ignore"):
        a64, b64, x64 = (np.asarray(v, np.float64) for v in (a, b, x))
        z = sp.betainc(a64, b64, x64)
        z = np.where((a64 <= 0) | (b64 <= 0) | (x64 < 0) | (x64 > 1), np.nan, z)
        return z.astype(np.asarray(x).dtype)


_BOUNDARIES = [-1.0, 0.0, 0.5, 2.0, 2.0, 10.0]


def _bucketize_samples():
    out = [Sample({"input": np.array([-3.0, -1.0, -0.5, 0.0, 0.25, 0.5, 2.0, 5.0, 10.0, 11.0], dt)},
                  {"boundaries": _BOUNDARIES}, note=np.dtype(dt).name) for dt in (np.float32, np.float64)]
    out += [Sample({"input": np.array([[-5, 0, 1], [2, 10, 30]], dt)}, {"boundaries": _BOUNDARIES},
                   note=np.dtype(dt).name) for dt in (np.int32, np.int64)]
    out.append(Sample({"input": np.array([1.0, 2.0], np.float32)}, {"boundaries": []}, note="no boundaries"))
    out.append(Sample({"input": np.zeros((0, 2), np.float32)}, {"boundaries": [1.0]}, note="empty"))
    return out


def _bucketize_ref(input, boundaries):  # noqa: A002 (the op's argument name)
    b = np.asarray(boundaries, np.float32)
    return np.searchsorted(b, np.asarray(input), side="right").astype(np.int32)


ENTRIES = [
    OpEntry("Igamma", _ab_samples(("a", "x"), [_EDGES]), ref=_ref64(_domain(sp.gammainc)), rtol=2e-5, atol=1e-6,
            errors=_incompatible(("a", "x")),
            grad_samples=_grad_samples(("a", "x"), _positive(0.5, 6.0), _positive(0.2, 8.0)), grad_rtol=1e-4,
            grad_atol=1e-6),
    OpEntry("Igammac", _ab_samples(("a", "x"), [_EDGES]), ref=_ref64(_domain(sp.gammaincc)), rtol=2e-5, atol=1e-6,
            errors=_incompatible(("a", "x")),
            grad_samples=_grad_samples(("a", "x"), _positive(0.5, 6.0), _positive(0.2, 8.0)), grad_rtol=1e-4,
            grad_atol=1e-6),
    OpEntry("IgammaGradA", [Sample({"a": rand((3, 4), dt, 0.2, 10.0, 3), "x": rand((4,), dt, 0.0, 12.0, 4)},
                                   note=np.dtype(dt).name) for dt in FLOATS],
            ref=_ref64(_domain(_igamma_grad_a)), rtol=1e-4, atol=1e-6, errors=_incompatible(("a", "x"))),
    OpEntry("Betainc", _betainc_samples(), ref=_betainc_ref, rtol=2e-5, atol=1e-6, grad_inputs=["x"],
            grad_samples=[Sample({"a": np.array([0.7, 2.0, 5.0]), "b": np.array([1.5, 3.0, 0.8]),
                                  "x": np.array([0.2, 0.5, 0.9])}),
                          Sample({"a": np.float64(2.5), "b": np.array([[1.5, 3.0]]), "x": np.array([[0.3, 0.6]])},
                                 note="scalar a")],
            errors=[ErrorSample({"a": np.ones(3), "b": np.ones(4), "x": np.ones(3)},
                                match=r"Shapes of a and b are inconsistent")]),
    OpEntry("Bucketize", _bucketize_samples(), ref=_bucketize_ref, rtol=0, atol=0,
            errors=[ErrorSample({"input": np.ones(3, np.float32)}, {"boundaries": [2.0, 1.0]},
                                match="Expected sorted boundaries")]),
]
