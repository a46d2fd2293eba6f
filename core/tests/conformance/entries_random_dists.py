"""Conformance entries: the samplers of parameterized distributions (RandomGamma, RandomPoisson,
RandomPoissonV2, StatelessRandomGammaV2/V3, StatelessRandomPoisson, StatelessRandomBinomial) and
RandomGammaGrad. Samples are checked against SciPy's distributions (moments within five standard
errors, a Kolmogorov-Smirnov distance below its 1e-4 critical value for Gamma, per-value
frequencies for the discrete ones). The stateless ops use TensorFlow's algorithms and streams, so
they are also cross-checked value for value against tf.raw_ops; the stateful ones match only in
distribution (their seeds reach the stream differently), so cross_check=False.

The Gamma samplers' gradients (implicit reparameterization) are not derivatives of the samples at
a fixed seed, so finite differences of the outputs cannot check them; RandomGammaGrad itself is
checked against -dP/da / dP/dx from SciPy here, and the gradient pipeline in
core/tests/test_random_dists.py."""

import math

import numpy as np
import scipy.special as sp
import scipy.stats as st

import tensorflux as tx
from conformance.entries_random import _NEG, _ks, _ks_bound, _shape, _stateless_inputs
from conformance.harness import ErrorSample, OpEntry, Sample

_SEEDS = {"seed": 11, "seed2": 7}
_ROWS = 6000  # samples per parameter
_ALPHAS = np.array([0.3, 1.0, 4.5], np.float64)  # below one, the exponential, Marsaglia-Tsang
_RATES = np.array([0.5, 4.0, 30.0], np.float64)  # Knuth's method below 10, PTRS above
_COUNTS = np.array([10.0, 50.0, 100.0], np.float64)
_PROBS = np.array([0.3, 0.5, 0.95], np.float64)  # inversion, BTRS, BTRS of 1 - p (flipped)


def _columns(out, params):
    """The samples of each parameter: out has shape [..., len(params)]."""
    return np.asarray(out, np.float64).reshape(-1, len(params)).T


def _check_gamma_column(x, alpha):
    n = x.size
    assert np.all(x > 0), x.min()
    assert abs(x.mean() - alpha) < 5 * math.sqrt(alpha / n), (alpha, x.mean())
    assert _ks(x, st.gamma(alpha).cdf) < _ks_bound(n), (alpha, _ks(x, st.gamma(alpha).cdf))


def _check_discrete_column(x, dist):
    """Mean within five standard errors; each likely value's frequency within five of its own."""
    n = x.size
    assert np.all(x == np.floor(x)) and np.all(x >= 0), x.min()
    assert abs(x.mean() - dist.mean()) < 5 * dist.std() / math.sqrt(n), (x.mean(), dist.mean())
    values = np.arange(int(dist.ppf(1e-3)), int(dist.ppf(1 - 1e-3)) + 1)
    freq = np.array([(x == v).mean() for v in values])
    p = dist.pmf(values)
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9), (values, freq, p)


def _out_dtype(sample, default):
    return np.dtype(tx.as_dtype(sample.attrs.get("dtype", default)).as_numpy_dtype)


def _check_gamma(outputs, sample):
    (out,) = outputs
    alpha = np.asarray(sample.inputs["alpha"], np.float64)
    want = tuple(int(d) for d in sample.inputs["shape"])
    if "seed" in sample.attrs:  # stateful: shape + alpha's shape
        want = want + alpha.shape
    assert out.shape == want and out.dtype == np.asarray(sample.inputs["alpha"]).dtype, (out.shape, out.dtype)
    if out.size >= 1000:
        for x, a in zip(_columns(out, alpha.ravel()), alpha.ravel()):
            _check_gamma_column(x, a)


def _check_poisson(default_dtype):
    """The check of a Poisson sampler whose output dtype defaults to ``default_dtype`` (None:
    the rate's dtype, as RandomPoisson's)."""
    def check(outputs, sample):
        (out,) = outputs
        given = sample.inputs["rate"] if "rate" in sample.inputs else sample.inputs["lam"]
        rate = np.asarray(given, np.float64)
        want = np.asarray(given).dtype if default_dtype is None else _out_dtype(sample, default_dtype)
        assert out.dtype == want, out.dtype
        if out.size >= 1000:
            for x, r in zip(_columns(out, rate.ravel()), rate.ravel()):
                _check_discrete_column(x, st.poisson(r))
    return check


def _check_binomial(outputs, sample):
    (out,) = outputs
    counts, probs = np.broadcast_arrays(sample.inputs["counts"], sample.inputs["probs"])
    assert out.dtype == _out_dtype(sample, tx.int64), out.dtype
    if out.size >= 1000:
        for x, n, p in zip(_columns(out, counts.ravel()), counts.ravel(), probs.ravel()):
            _check_discrete_column(x, st.binom(int(n), float(p)))


def _seed(dtype=np.int64, value=(12, 34)):
    return np.array(value, dtype)


def _gamma_samples():
    out = []
    for dt in (np.float32, np.float64):
        out.append(Sample({"shape": _shape(_ROWS), "alpha": _ALPHAS.astype(dt)}, _SEEDS, note=np.dtype(dt).name))
    out.append(Sample({"shape": _shape(2, 3, dtype=np.int64), "alpha": np.float32(2.0)}, _SEEDS,
                      note="scalar alpha"))
    out.append(Sample({"shape": _shape(0), "alpha": _ALPHAS}, _SEEDS, note="empty"))
    return out


def _stateless_gamma_samples(v3):
    def inputs(shape, alpha, **kw):
        if v3:
            return {**_stateless_inputs(shape, **kw), "alpha": alpha}
        return {"shape": shape, "seed": _seed(), "alpha": alpha}
    out = [Sample(inputs(_shape(_ROWS, 3), _ALPHAS.astype(dt)), {}, note=np.dtype(dt).name)
           for dt in (np.float32, np.float64)]
    out.append(Sample(inputs(_shape(4, 2, 3, dtype=np.int64), np.array([[0.5, 1.0, 7.0], [2.0, 0.1, 1.0]])), {},
                      note="2-D alpha"))
    out.append(Sample(inputs(_shape(0, 3), _ALPHAS), {}, note="empty"))
    return out


def _poisson_samples(v2):
    """RandomPoissonV2 samples choose the output dtype; RandomPoisson's is the rate's."""
    out = []
    for rate_dt, out_dt in ((np.float32, tx.float32), (np.float64, tx.float64)) + (
            ((np.float64, tx.int64), (np.int32, tx.int32)) if v2 else ()):
        rate = _RATES.astype(rate_dt) if rate_dt != np.int32 else np.array([1, 4, 30], np.int32)
        attrs = {"dtype": out_dt, **_SEEDS} if v2 else dict(_SEEDS)
        out.append(Sample({"shape": _shape(_ROWS), "rate": rate}, attrs,
                          note=f"{np.dtype(rate_dt).name} -> {out_dt.name}"))
    out.append(Sample({"shape": _shape(0, 2), "rate": _RATES}, dict(_SEEDS), note="empty"))
    return out


def _stateless_poisson_samples():
    out = []
    for rate_dt, out_dt in ((np.float32, tx.int32), (np.float64, tx.float64), (np.int64, tx.int64)):
        rate = _RATES.astype(rate_dt) if rate_dt != np.int64 else np.array([1, 4, 30], np.int64)
        out.append(Sample({"shape": _shape(_ROWS, 3), "seed": _seed(), "lam": rate}, {"dtype": out_dt},
                          note=f"{np.dtype(rate_dt).name} -> {out_dt.name}"))
    out.append(Sample({"shape": _shape(5, 2, 3), "seed": _seed(np.int32, (7, -3)), "lam": np.zeros((2, 3))},
                      {"dtype": tx.float32}, note="rate 0, int32 seed"))
    return out


def _binomial_samples():
    out = []
    for dt, out_dt in ((np.float32, tx.int32), (np.float64, tx.float64)):
        out.append(Sample({"shape": _shape(_ROWS, 3), "seed": _seed(), "counts": _COUNTS.astype(dt),
                           "probs": _PROBS.astype(dt)}, {"dtype": out_dt}, note=np.dtype(dt).name))
    out.append(Sample({"shape": _shape(4, 2, 3), "seed": _seed(), "counts": np.array([[5.0], [0.0]]),
                       "probs": np.array([0.0, 1.0, 0.2])}, {"dtype": tx.int64}, note="broadcast, edge probs"))
    return out


def _gamma_grad_ref(alpha, sample):
    """-dP/da / dP/dx at x = sample, with dP/da by central differences of SciPy's gammainc."""
    a, x = np.broadcast_arrays(alpha.astype(np.float64), sample.astype(np.float64))
    h = 1e-6 * np.maximum(a, 1.0)
    dpda = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    dpdx = np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))
    return (-dpda / dpdx).astype(alpha.dtype)


_GAMMA_GRAD_SAMPLES = [
    Sample({"alpha": np.array([0.5, 1.0, 3.0, 10.0, 0.2, 40.0]), "sample": np.array([0.1, 2.0, 3.5, 8.0, 1e-3, 45.0])}),
    Sample({"alpha": np.array([[0.7], [2.5]], np.float32), "sample": np.array([0.3, 1.0, 4.0], np.float32)},
           note="broadcast float32"),
]

_BAD_SEED = [ErrorSample({"shape": _shape(4, 3), "seed": np.array([1, 2, 3], np.int64), "alpha": _ALPHAS},
                         match=r"seed must have shape \[2\]")]


def _not_ending(param_name, value, extra=None, attrs=None):
    return ErrorSample({"shape": _shape(4, 2), "seed": _seed(), param_name: value, **(extra or {})}, attrs or {},
                       match="must end with broadcasted shape")


ENTRIES = [
    OpEntry("RandomGamma", _gamma_samples(), check=_check_gamma, cross_check=False,
            errors=[ErrorSample({"shape": _shape(-2, 3), "alpha": _ALPHAS}, _SEEDS, match=_NEG)],
            grad_by_differences=False,
            grad_checked_by="test_random_dists.py::test_gamma_gradient_is_implicit_reparameterization"),
    OpEntry("StatelessRandomGammaV2", _stateless_gamma_samples(False), check=_check_gamma,
            errors=_BAD_SEED + [_not_ending("alpha", _ALPHAS, {})], rtol=1e-6, atol=0,
            grad_by_differences=False,
            grad_checked_by="test_random_dists.py::test_gamma_gradient_is_implicit_reparameterization"),
    OpEntry("StatelessRandomGammaV3", _stateless_gamma_samples(True), check=_check_gamma, rtol=1e-6, atol=0,
            errors=[ErrorSample({**_stateless_inputs(_shape(4)), "alpha": _ALPHAS}, match="must end with broadcasted"),
                    ErrorSample({**_stateless_inputs(_shape(3), alg=2), "alpha": _ALPHAS},
                                match="Unsupported random algorithm")],
            grad_by_differences=False,
            grad_checked_by="test_random_dists.py::test_gamma_gradient_is_implicit_reparameterization"),
    OpEntry("RandomGammaGrad", _GAMMA_GRAD_SAMPLES, ref=_gamma_grad_ref, rtol=1e-5, atol=1e-7,
            errors=[ErrorSample({"alpha": np.ones(3), "sample": np.ones(4)}, match=r"[Ii]ncompatible shapes")]),
    OpEntry("RandomPoisson", _poisson_samples(False), check=_check_poisson(None), cross_check=False,
            errors=[ErrorSample({"shape": _shape(-1), "rate": _RATES}, match=_NEG)]),
    OpEntry("RandomPoissonV2", _poisson_samples(True), check=_check_poisson(tx.int64), cross_check=False,
            errors=[ErrorSample({"shape": _shape(-1), "rate": _RATES}, match=_NEG)]),
    OpEntry("StatelessRandomPoisson", _stateless_poisson_samples(), check=_check_poisson(tx.int64), rtol=0, atol=0,
            errors=[_not_ending("lam", _RATES, attrs={"dtype": tx.int32}),
                    ErrorSample({"shape": _shape(3, 2), "seed": _seed(value=(1, 2)), "lam": np.ones((2, 1))},
                                {"dtype": tx.float64}, match="must end with broadcasted"),
                    ErrorSample({"shape": _shape(3), "seed": _seed(), "lam": np.array([1.0, np.nan, 2.0])},
                                {"dtype": tx.int32}, match="has no samples representable in int32",
                                when="runtime")]),
    OpEntry("StatelessRandomBinomial", _binomial_samples(), check=_check_binomial, rtol=0, atol=0,
            errors=[_not_ending("counts", _COUNTS, {"probs": _PROBS}),
                    ErrorSample({"shape": _shape(4, 3), "seed": _seed(), "counts": _COUNTS, "probs": np.ones(2)},
                                match=r"[Ii]ncompatible shapes")]),
]
