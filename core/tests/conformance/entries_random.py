"""Conformance entries: random ops. There is no exact reference for a random stream, so each entry
has a `check` that asserts distribution properties on a large sample: range, mean and variance
within about five standard errors, a Kolmogorov-Smirnov distance below its 1e-4 critical value,
and frequencies against softmax(logits). Seeds are fixed, so every check is deterministic.

Stateful ops are not compared with TensorFlow (their streams differ by design: only the
distribution is specified). The stateless V2 uniform and normal ops use Philox like TensorFlow's
and are cross-checked against tf.raw_ops; the truncated normal's rejection sampler assigns
candidates to elements differently from TensorFlow's, so it has cross_check=False.
"""

import math

import numpy as np

import tensorflux as tx
from conformance.harness import ErrorSample, OpEntry, Sample
from tensorflux._src.random_ops import key_counter_from_seed

N = 20000  # values per distribution sample
_SEEDS = {"seed": 11, "seed2": 7}


def _shape(*dims, dtype=np.int32):
    return np.array(dims, dtype=dtype)


def _stats(x):
    x = np.asarray(x, np.float64).ravel()
    return x.mean(), x.var(), x.size


def _ks(x, cdf):
    """The Kolmogorov-Smirnov distance of sample x from the continuous distribution `cdf`."""
    x = np.sort(np.asarray(x, np.float64).ravel())
    n = x.size
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(0, n) / n))


def _ks_bound(n):
    return math.sqrt(-0.5 * math.log(1e-4 / 2)) / math.sqrt(n)


_erf = np.vectorize(math.erf)


def _normal_cdf(x):
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


_TRUNC_Z = math.erf(2 / math.sqrt(2))  # P(|z| <= 2)
_TRUNC_VAR = 1.0 - 4.0 * math.exp(-2.0) / math.sqrt(2 * math.pi) / _TRUNC_Z


def _truncated_cdf(x):
    return (_normal_cdf(x) - _normal_cdf(-2.0)) / _TRUNC_Z


def _check_dtype_shape(out, sample, dtype):
    want = tuple(int(d) for d in sample.inputs["shape"])
    assert out.shape == want, f"shape {out.shape} != {want}"
    assert out.dtype == np.dtype(dtype), f"dtype {out.dtype} != {dtype}"


def _float_dtype(sample):
    return tx.as_dtype(sample.attrs.get("dtype", tx.float32)).as_numpy_dtype


def _check_uniform(outputs, sample):
    (out,) = outputs
    _check_dtype_shape(out, sample, _float_dtype(sample))
    if out.size == 0:
        return
    assert out.min() >= 0.0 and out.max() < 1.0, (out.min(), out.max())
    m, v, n = _stats(out)
    if n >= 1000:
        assert abs(m - 0.5) < 5 * math.sqrt(1 / 12 / n), m
        assert abs(v - 1 / 12) < 5 * math.sqrt(1 / 180 / n), v
        assert _ks(out, lambda x: x) < _ks_bound(n)


def _check_normal(outputs, sample):
    (out,) = outputs
    _check_dtype_shape(out, sample, _float_dtype(sample))
    if out.size == 0:
        return
    assert np.all(np.isfinite(out))
    m, v, n = _stats(out)
    if n >= 1000:
        assert abs(m) < 5 / math.sqrt(n), m
        assert abs(v - 1) < 5 * math.sqrt(2 / n), v
        assert _ks(out, _normal_cdf) < _ks_bound(n)


def _check_truncated(outputs, sample):
    (out,) = outputs
    _check_dtype_shape(out, sample, _float_dtype(sample))
    if out.size == 0:
        return
    assert np.all(np.abs(out) <= 2.0), np.abs(out).max()
    m, v, n = _stats(out)
    if n >= 1000:
        assert abs(m) < 5 * math.sqrt(_TRUNC_VAR / n), m
        assert abs(v - _TRUNC_VAR) < 5 * math.sqrt(2 / n), v
        assert _ks(out, _truncated_cdf) < _ks_bound(n)


def _check_uniform_int(outputs, sample):
    (out,) = outputs
    lo, hi = int(sample.inputs["minval"]), int(sample.inputs["maxval"])
    _check_dtype_shape(out, sample, np.asarray(sample.inputs["minval"]).dtype)
    if out.size == 0:
        return
    assert out.min() >= lo and out.max() < hi, (out.min(), out.max(), lo, hi)
    n = out.size
    span = hi - lo
    if span <= 64:
        counts = np.bincount((out.astype(np.int64) - lo).ravel(), minlength=span)
        p = 1.0 / span
        assert np.all(np.abs(counts / n - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-9), counts
    else:  # a wide range: compare the scaled values with U[0, 1)
        u = (out.astype(np.float64) - lo) / span
        assert _ks(u, lambda x: x) < _ks_bound(n) + 1.0 / span


def _check_full_int(outputs, sample):
    (out,) = outputs
    dt = np.dtype(sample.attrs.get("dtype", tx.uint64).as_numpy_dtype)
    _check_dtype_shape(out, sample, dt)
    if out.size < 1000:
        return
    info = np.iinfo(dt)
    u = (out.astype(np.float64).ravel() - float(info.min)) / (float(info.max) - float(info.min) + 1.0)
    assert _ks(u, lambda x: x) < _ks_bound(u.size), _ks(u, lambda x: x)


def _stateless_int_samples():
    out = []
    for dt, lo, hi in ((np.int32, -3, 7), (np.int64, -(2**40), 2**40 + 17), (np.uint32, 5, 2**32 - 1),
                       (np.uint64, 0, 50)):
        unsigned = np.dtype(dt).kind == "u"
        out.append(Sample({**_stateless_inputs(_shape(N)), "minval": dt(lo), "maxval": dt(hi)}, {},
                          note=np.dtype(dt).name + (" (TensorFlow has no CPU kernel)" if unsigned else ""),
                          cross_check=not unsigned))
    out.append(Sample({**_stateless_inputs(_shape(77, 13, dtype=np.int64), alg=3, key=(2**63 + 5,),
                                           counter=(2**64 - 3, 1)), "minval": np.int32(0), "maxval": np.int32(10)},
                      {}, note="auto alg, counter carry"))
    out.append(Sample({**_stateless_inputs(_shape(0, 4)), "minval": np.int32(3), "maxval": np.int32(3)}, {},
                      note="empty output, empty range"))
    return out


def _stateless_full_int_samples():
    out = [Sample(_stateless_inputs(_shape(N)), {"dtype": dt}, note=dt.name)
           for dt in (tx.int32, tx.int64, tx.uint32, tx.uint64)]
    out.append(Sample(_stateless_inputs(_shape(5, 3, dtype=np.int64), alg=3, counter=(2**64 - 1, 7)), {},
                      note="default uint64, counter carry"))
    out.append(Sample(_stateless_inputs(_shape(0)), {"dtype": tx.int32}, note="empty"))
    return out


def _check_shuffle(outputs, sample):
    (out,) = outputs
    value = np.asarray(sample.inputs["value"])
    assert out.shape == value.shape and out.dtype == value.dtype
    if value.ndim == 0 or value.shape[0] <= 1:
        np.testing.assert_array_equal(out, value)
        return
    # Rows are a permutation of the input rows (inputs have distinct first-column values).
    key_in = value.reshape(value.shape[0], -1)[:, 0]
    key_out = out.reshape(out.shape[0], -1)[:, 0]
    order = np.argsort(key_in)
    perm = order[np.searchsorted(key_in[order], key_out)]
    assert sorted(perm.tolist()) == list(range(value.shape[0]))
    np.testing.assert_array_equal(out, value[perm])
    if value.shape[0] >= 10:
        assert not np.array_equal(perm, np.arange(value.shape[0])), "the permutation is the identity"


def _check_multinomial(outputs, sample):
    (out,) = outputs
    logits = np.asarray(sample.inputs["logits"], np.float64)
    ns = int(sample.inputs["num_samples"])
    want_dtype = tx.as_dtype(sample.attrs.get("output_dtype", tx.int64)).as_numpy_dtype
    assert out.shape == (logits.shape[0], ns) and out.dtype == np.dtype(want_dtype), (out.shape, out.dtype)
    if out.size == 0:
        return
    assert out.min() >= 0 and out.max() < logits.shape[1]
    for row, draws in zip(logits, out):
        p = np.exp(row - row.max())
        p /= p.sum()
        freq = np.bincount(draws, minlength=row.size) / ns
        tol = 5 * np.sqrt(p * (1 - p) / ns) + 1e-9
        assert np.all(np.abs(freq - p) <= tol), (freq, p)


_F = [tx.float32, tx.float64]


def _dist_samples(extra=None):
    out = []
    for dt in _F:
        out.append(Sample({"shape": _shape(N)}, {"dtype": dt, **_SEEDS}))
        out.append(Sample({"shape": _shape(101, 99, dtype=np.int64)}, {"dtype": dt, **_SEEDS}, note="2-D int64 shape"))
    for dt in (tx.float16, tx.bfloat16):  # float32 samples rounded (Note [16-bit samples])
        out.append(Sample({"shape": _shape(N)}, {"dtype": dt, **_SEEDS}, note="16-bit"))
    out.append(Sample({"shape": _shape(3, 0)}, {"dtype": tx.float32, **_SEEDS}, note="empty"))
    out.append(Sample({"shape": _shape()}, {"dtype": tx.float32, "seed": 3}, note="scalar, op seed only"))
    return out


def _stateless_inputs(shape, alg=1, key=(5,), counter=(0, 9)):
    return {"shape": shape, "key": np.array(key, np.uint64), "counter": np.array(counter, np.uint64),
            "alg": np.int32(alg)}


def _stateless_samples():
    out = []
    for dt in _F:
        out.append(Sample(_stateless_inputs(_shape(N)), {"dtype": dt}))
        out.append(Sample(_stateless_inputs(_shape(77, 131, dtype=np.int64), alg=3, key=(2**63 + 5,),
                                            counter=(2**64 - 3, 1)), {"dtype": dt}, note="auto alg, counter carry"))
    out.append(Sample(_stateless_inputs(_shape(0, 4)), {}, note="empty"))
    return out


# A negative shape entry: rejected by the shape function (static) or the kernel (runtime).
_NEG = r"non-negative|invalid dimension"


def _shape_errors(extra_inputs=None, attrs=None):
    return [ErrorSample({"shape": _shape(-2, 3), **(extra_inputs or {})}, attrs or {}, match=_NEG)]


_DT = {"dtype": tx.float32}
_BAD_STATELESS = [
    ErrorSample(_stateless_inputs(_shape(-1, 3)), match=_NEG),
    ErrorSample(_stateless_inputs(_shape(4), alg=2), match="Unsupported random algorithm"),
    ErrorSample(_stateless_inputs(_shape(4), key=(1, 2)), match="key must have shape", when="runtime"),
]

def _key_counter_ref(seed):
    """The Python derivation tx.random uses for constant seeds (Note [Stateless seeds])."""
    return key_counter_from_seed(np.asarray(seed))


ENTRIES = [
    OpEntry("StatelessRandomGetKeyCounter", [
        Sample({"seed": np.array([1, 2], np.int64)}),
        Sample({"seed": np.array([-1, 7], np.int32)}, note="int32, negative (sign-extended)"),
        Sample({"seed": np.array([2**62 + 3, -(2**63)], np.int64)}, note="extreme int64"),
        Sample({"seed": np.array([0, 0], np.int32)}, note="zero seed"),
    ], ref=_key_counter_ref, errors=[
        ErrorSample({"seed": np.array([1, 2, 3], np.int64)}, match=r"shape \[2\]"),
        ErrorSample({"seed": np.int64(4)}, match=r"rank|shape \[2\]"),
    ]),
    OpEntry("RandomUniform", _dist_samples(), check=_check_uniform, cross_check=False,
            errors=_shape_errors(attrs=_DT)),
    OpEntry("RandomStandardNormal", _dist_samples(), check=_check_normal, cross_check=False,
            errors=_shape_errors(attrs=_DT)),
    OpEntry("TruncatedNormal", _dist_samples(), check=_check_truncated, cross_check=False,
            errors=_shape_errors(attrs=_DT)),
    OpEntry("RandomUniformInt", [
        Sample({"shape": _shape(N), "minval": np.int32(-3), "maxval": np.int32(7)}, _SEEDS),
        Sample({"shape": _shape(N), "minval": np.int64(-2**40), "maxval": np.int64(2**41)}, _SEEDS, note="int64 wide"),
        Sample({"shape": _shape(60, 50), "minval": np.int64(0), "maxval": np.int64(2)}, _SEEDS, note="coin"),
        Sample({"shape": _shape(0), "minval": np.int32(0), "maxval": np.int32(5)}, _SEEDS, note="empty"),
    ], check=_check_uniform_int, cross_check=False, errors=[
        ErrorSample({"shape": _shape(4), "minval": np.int32(5), "maxval": np.int32(5)}, match=r"minval < maxval"),
        ErrorSample({"shape": _shape(4), "minval": np.int64(9), "maxval": np.int64(-1)}, match=r"minval < maxval"),
        ErrorSample({"shape": _shape(-4), "minval": np.int32(0), "maxval": np.int32(5)}, match=_NEG),
    ]),
    OpEntry("RandomShuffle", [
        Sample({"value": np.arange(1000, dtype=np.float32)}, _SEEDS),
        Sample({"value": np.arange(60, dtype=np.int64).reshape(20, 3)}, _SEEDS, note="rows"),
        Sample({"value": np.arange(24, dtype=np.float64).reshape(12, 2, 1)}, {"seed": 4}, note="rank 3"),
        Sample({"value": np.float32(3.5)}, _SEEDS, note="scalar"),
        Sample({"value": np.zeros((0, 2), np.int32)}, _SEEDS, note="empty"),
        Sample({"value": np.array([[1, 2]], np.int32)}, _SEEDS, note="one row"),
    ], check=_check_shuffle, cross_check=False),
    OpEntry("Multinomial", [
        Sample({"logits": np.array([[0.0, 1.0, 2.0], [-1.0, -1.0, 3.0]], np.float32), "num_samples": np.int32(N)},
               _SEEDS),
        Sample({"logits": np.log(np.array([[0.1, 0.2, 0.3, 0.4]])), "num_samples": np.int32(N)},
               {"output_dtype": tx.int32, **_SEEDS}, note="float64, int32 output"),
        Sample({"logits": np.array([[0.0, -np.inf, 1.0]], np.float32), "num_samples": np.int32(5000)}, _SEEDS,
               note="-inf is never drawn"),
        Sample({"logits": np.zeros((2, 3), np.float32), "num_samples": np.int32(0)}, _SEEDS, note="no samples"),
    ], check=_check_multinomial, cross_check=False, errors=[
        ErrorSample({"logits": np.zeros((4,), np.float32), "num_samples": np.int32(2)}, match=r"rank|matrix"),
        ErrorSample({"logits": np.zeros((1, 2), np.float32), "num_samples": np.int32(-1)}, match=r"nonnegative"),
    ]),
    OpEntry("StatelessRandomUniformV2", _stateless_samples(), check=_check_uniform, errors=_BAD_STATELESS),
    OpEntry("StatelessRandomNormalV2", _stateless_samples(), check=_check_normal, errors=_BAD_STATELESS,
            rtol=1e-5, atol=1e-5),
    # The rejection sampler's candidate-to-element assignment is ours, not TensorFlow's.
    OpEntry("StatelessTruncatedNormalV2", _stateless_samples(), check=_check_truncated, cross_check=False,
            errors=_BAD_STATELESS),
    OpEntry("StatelessRandomUniformIntV2", _stateless_int_samples(), check=_check_uniform_int, errors=[
        ErrorSample({**_stateless_inputs(_shape(4)), "minval": np.int32(5), "maxval": np.int32(5)},
                    match="minval < maxval"),
        ErrorSample({**_stateless_inputs(_shape(4)), "minval": np.array([1, 2], np.int32), "maxval": np.int32(5)},
                    match="rank|scalar"),
    ]),
    OpEntry("StatelessRandomUniformFullIntV2", _stateless_full_int_samples(), check=_check_full_int,
            errors=_BAD_STATELESS),
]
