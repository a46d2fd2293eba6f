"""The tx / tx.math functions of test_math_ext.py against TensorFlow on the same inputs (skipped
when TensorFlow is not installed)."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(11)
X = RNG.normal(size=(3, 4, 5)) * 3
POS = RNG.uniform(0.2, 4.0, size=(3, 4))
UNIT = RNG.uniform(-0.95, 0.95, size=(6,))
INTS = RNG.integers(-4, 5, size=(4, 6)).astype(np.int32)
NANS = np.array([[3.0, np.nan, 1.0, -np.inf, np.nan, -2.0, 1.0, 0.0, -0.0],
                 [np.inf, 2.0, np.nan, 2.0, -1.0, 5.0, np.nan, -0.0, 0.0]], np.float32)
SORTED = np.sort(RNG.integers(0, 10, size=(2, 7)), axis=1).astype(np.float64)
VALUES = RNG.integers(-1, 11, size=(2, 4)).astype(np.float64)


def _same(a, b, rtol=1e-6, atol=1e-9):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, rtol, atol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    if a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


CASES = {
    "asin": lambda m: m.math.asin(UNIT), "acos": lambda m: m.math.acos(UNIT), "atan": lambda m: m.math.atan(X),
    "sinh": lambda m: m.math.sinh(X), "cosh": lambda m: m.math.cosh(X), "asinh": lambda m: m.math.asinh(X),
    "acosh": lambda m: m.math.acosh(POS + 1), "atanh": lambda m: m.math.atanh(UNIT),
    "atan2": lambda m: m.math.atan2(X, X[::-1]), "rint": lambda m: m.math.rint(X),
    "lgamma": lambda m: m.math.lgamma(X), "digamma": lambda m: m.math.digamma(X),
    "bessel": lambda m: [m.math.bessel_i0e(X * 10), m.math.bessel_i1e(X * 10), m.math.bessel_i0(X),
                         m.math.bessel_i1(X)],
    "ndtri_erfcinv": lambda m: [m.math.ndtri(POS / 5), m.math.erfcinv(POS / 3)],
    "polygamma": lambda m: m.math.polygamma(np.floor(POS), POS),
    "zeta": lambda m: m.math.zeta(POS + 1, POS), "is_inf": lambda m: m.math.is_inf(np.array([np.inf, 1.0, -np.inf])),
    "xlogy": lambda m: m.math.xlogy(np.round(X[0, :3, :4]), POS),
    "xlog1py": lambda m: m.math.xlog1py(np.round(X[0, :3, :4]), POS),
    "xdivy": lambda m: m.math.xdivy(np.round(X[0, :3, :4]), POS),
    "divide_no_nan": lambda m: m.math.divide_no_nan(X[0], np.round(X[1])),
    "multiply_no_nan": lambda m: m.math.multiply_no_nan(X[0], np.round(X[1])),
    "reciprocal_no_nan": lambda m: m.math.reciprocal_no_nan(np.round(X[1])),
    "nextafter": lambda m: m.math.nextafter(X[0].astype(np.float32), X[1].astype(np.float32)),
    "log_sigmoid": lambda m: m.math.log_sigmoid(X),
    "scalar_mul": lambda m: m.math.scalar_mul(3.0, X),
    "reduce_logsumexp": lambda m: [m.math.reduce_logsumexp(X), m.math.reduce_logsumexp(X, axis=[0, -1],
                                                                                         keepdims=True)],
    "reduce_variance": lambda m: [m.math.reduce_variance(X, axis=1), m.math.reduce_variance(X)],
    "reduce_std": lambda m: m.math.reduce_std(X, axis=-1, keepdims=True),
    "reduce_euclidean_norm": lambda m: [m.math.reduce_euclidean_norm(X, axis=0),
                                        m.math.reduce_euclidean_norm(np.array([3, 4], np.int32))],
    "count_nonzero": lambda m: [m.math.count_nonzero(np.round(X), axis=1), m.math.count_nonzero(INTS)],
    "cumprod": lambda m: [m.math.cumprod(POS, axis=1, exclusive=True), m.math.cumprod(POS, reverse=True)],
    "cumulative_logsumexp": lambda m: m.math.cumulative_logsumexp(X, axis=2, exclusive=True, reverse=True),
    "polyval": lambda m: m.math.polyval([np.float64(1.0), np.float64(-2.0), np.float64(0.5)], X[0]),
    "accumulate_n": lambda m: m.math.accumulate_n([X, X, X]),
    "l2_normalize": lambda m: m.math.l2_normalize(X, axis=1),
    "clip_by_norm": lambda m: [m.clip_by_norm(X, 1.5), m.clip_by_norm(X, 1.5, axes=[1, 2])],
    "clip_by_global_norm": lambda m: list(m.clip_by_global_norm([X, POS], 2.0)[0]) + [
        m.clip_by_global_norm([X, POS], 2.0)[1]],
    "sort": lambda m: [m.sort(INTS), m.sort(X, axis=1, direction="DESCENDING")],
    "argsort": lambda m: [m.argsort(INTS, stable=True), m.argsort(INTS, axis=0, direction="DESCENDING", stable=True)],
    "searchsorted": lambda m: [m.searchsorted(SORTED, VALUES), m.searchsorted(SORTED, VALUES, side="right")],
    "roll": lambda m: m.roll(X, shift=[2, -1], axis=[0, 2]),
    "repeat": lambda m: [m.repeat(INTS, 2), m.repeat(INTS, [1, 0, 2, 3], axis=0)],
    "linspace": lambda m: [m.linspace(0.0, 1.0, 7), m.linspace([0.0, 1.0], [2.0, -1.0], 5, axis=-1),
                           m.linspace(1, 5, 3)],
    "eye": lambda m: [m.eye(3), m.eye(2, 4, batch_shape=[3], dtype=m.int32)],
    "meshgrid": lambda m: m.meshgrid([1, 2, 3], [4, 5], indexing="xy")
    + m.meshgrid([1, 2], [3, 4, 5], [6], indexing="ij"),
    "sequence_mask": lambda m: [m.sequence_mask([1, 3, 0], 4), m.sequence_mask([[1], [2]], dtype=m.float32)],
    "tensor_scatter_nd_update": lambda m: m.tensor_scatter_nd_update(POS, [[0], [2]], POS[:2] * 7),
    "tensor_scatter_nd_sub": lambda m: m.tensor_scatter_nd_sub(POS, [[0, 1], [2, 2], [0, 1]], [1.0, 2.0, 3.0]),
    "invert_permutation": lambda m: m.math.invert_permutation([3, 0, 2, 1]),
    "unsorted_segment": lambda m: [getattr(m.math, "unsorted_segment_" + k)(POS, [0, 2, 0], 4)
                                   for k in ("sum", "mean", "sqrt_n", "max", "min", "prod")],
    "unsorted_segment_int": lambda m: [getattr(m.math, "unsorted_segment_" + k)(INTS, [1, -1, 1, 0], 3)
                                       for k in ("sum", "max", "min", "prod")],
    "segment": lambda m: [getattr(m.math, "segment_" + k)(POS, [0, 0, 2]) for k in ("sum", "mean", "max", "min",
                                                                                       "prod")],
    "sparse_segment": lambda m: [getattr(m.sparse, "segment_" + k)(POS, [2, 0, 2, 1], [0, 0, 1, 3])
                                 for k in ("sum", "mean", "sqrt_n")] + [
        m.sparse.segment_sum(POS, [2, 0], [0, 1], num_segments=4)],
    "tensor_scatter_nd_min_max": lambda m: [m.tensor_scatter_nd_min(POS, [[0], [2], [0]], POS * 0.5 + 1),
                                            m.tensor_scatter_nd_max(INTS, [[1, 1], [3, 0]], [7, -9])],
    "boolean_mask": lambda m: [m.boolean_mask(X, X[..., 0] > 0), m.boolean_mask(X, [True, False, True, True, False],
                                                                                  axis=2)],
    "dynamic_partition": lambda m: m.dynamic_partition(POS, [2, 0, 2], 3),
    "dynamic_stitch": lambda m: m.dynamic_stitch([[0, 2], [1, 2]], [POS[:2], POS[1:]]),
    "unravel_index": lambda m: m.unravel_index([5, 11, 0], [3, 4]),
    "reverse_sequence": lambda m: m.reverse_sequence(X, [2, 4, 1], seq_axis=1, batch_axis=0),
    "histogram": lambda m: [m.histogram_fixed_width(X, np.array([-2.0, 2.0]), nbins=7),
                            m.histogram_fixed_width_bins(X, np.array([-2.0, 2.0]), nbins=7)],
    "truncate": lambda m: [m.truncatediv(INTS, INTS * 0 + 3), m.truncatemod(INTS, INTS * 0 - 3),
                           m.truncatediv(X, 0.7), m.truncatemod(X, 0.7), m.realdiv(X, 0.7)],
    "lbeta": lambda m: m.math.lbeta(POS),
    "monotone": lambda m: [m.math.is_non_decreasing(SORTED), m.math.is_strictly_increasing(SORTED),
                           m.math.is_non_decreasing(np.arange(5.0))],
    "zero_fraction": lambda m: m.math.zero_fraction(INTS),
    # TensorFlow's CPU kernel has only the max, last-axis case.
    "approx_k": lambda m: list(m.math.approx_max_k(X.astype(np.float32), 3)),
    "softmax_softsign": lambda m: [m.math.softmax(X), m.math.softsign(X)],
    "map_fn": lambda m: m.map_fn(lambda r: m.reduce_sum(r * r), X),
    "scan": lambda m: [m.scan(lambda a, e: a * 0.5 + e, X), m.scan(lambda a, e: a + e, X, reverse=True)],
    "foldl": lambda m: m.foldl(lambda a, e: a * 0.5 + e, X),
    "foldr": lambda m: m.foldr(lambda a, e: a * 0.5 + e, X, initializer=m.constant(np.ones((4, 5)))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tensorflow(case):
    got = CASES[case](tx)
    want = CASES[case](tf)
    to_np = (lambda v: [np.asarray(t) for t in v]) if isinstance(got, (list, tuple)) else np.asarray
    _same(to_np(got), to_np(want), rtol=1e-6 if case not in ("polygamma", "zeta", "digamma", "lgamma") else 1e-9,
          atol=1e-9 if case != "ndtri_erfcinv" else 1e-7)


def test_sort_with_nan_is_numpys_order():
    # TensorFlow's sort of values with NaN is not sorted (its TopK comparator is not an order on
    # NaN: [3, nan, 1, -inf, nan, -2, ...] comes back as [-inf, 1, 3, nan, nan, -2, ...]); here
    # NaN is above every number, so ascending order ends with the NaNs as in NumPy (and as
    # TensorFlow gives for short inputs), descending order starts with them, and ties (0.0 and
    # -0.0 included) keep their order.
    for axis in (0, 1):
        np.testing.assert_array_equal(tx.sort(NANS, axis=axis).numpy(), np.sort(NANS, axis=axis))
        np.testing.assert_array_equal(tx.argsort(NANS, axis=axis).numpy(), np.argsort(NANS, axis=axis, kind="stable"))
        flipped = np.flip(np.sort(NANS, axis=axis), axis=axis)  # NaN first, then descending
        np.testing.assert_array_equal(tx.sort(NANS, axis=axis, direction="DESCENDING").numpy(), flipped)
    assert np.signbit(tx.sort(NANS).numpy()[0, 3])  # -0.0 at its place among the ties


def test_sign_of_negative_zero_is_positive_zero_as_in_tensorflow():
    x = np.array([-0.0, 0.0, np.nan, -2.5, 3.0], np.float32)
    for dtype in ("float16", "float32", "float64"):
        got, want = tx.sign(x.astype(dtype)).numpy(), tf.sign(x.astype(dtype)).numpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_gradients_match_tensorflow():
    fns = {
        "asin": lambda m, x: m.math.asin(x * 0.3), "acosh": lambda m, x: m.math.acosh(x * x + 1.5),
        "atanh": lambda m, x: m.math.atanh(x * 0.3), "lgamma": lambda m, x: m.math.lgamma(x * x + 0.5),
        "digamma": lambda m, x: m.math.digamma(x * x + 0.5),
        "xlogy": lambda m, x: m.math.xlogy(x, x * x + 1.0), "atan2": lambda m, x: m.math.atan2(x, x * 2.0 + 5.0),
        "logsumexp": lambda m, x: m.math.reduce_logsumexp(x, axis=1),
        "std": lambda m, x: m.math.reduce_std(x, axis=0), "clip_by_norm": lambda m, x: m.clip_by_norm(x, 0.5),
        "sort": lambda m, x: m.sort(x, axis=0) * np.arange(4.0)[:, None],
        "roll": lambda m, x: m.roll(x, 1, 1) * np.arange(5.0), "repeat": lambda m, x: m.repeat(x, [1, 2, 0, 1], 0),
        "unsorted_segment_max": lambda m, x: m.math.unsorted_segment_max(x, [0, 1, 0, 1], 2),
        "map_fn": lambda m, x: m.map_fn(lambda r: m.reduce_sum(r * r * r), x),
        "scan": lambda m, x: m.scan(lambda a, e: a * e, x),
        "bessel_i0e": lambda m, x: m.math.bessel_i0e(x * 3.0),
        "bessel_i1e": lambda m, x: m.math.bessel_i1e(x * 3.0),
        "segment_prod": lambda m, x: m.math.segment_prod(x, [0, 0, 1, 1]),
        "segment_max": lambda m, x: m.math.segment_max(x, [0, 0, 0, 2]),
        "sparse_segment_sqrt_n": lambda m, x: m.sparse.segment_sqrt_n(x, [3, 1, 1], [0, 0, 2]),
        "scatter_max": lambda m, x: m.tensor_scatter_nd_max(x, [[1], [3]], x[:2] * 0.5),
        "boolean_mask": lambda m, x: m.boolean_mask(x, x > 0) * 3.0,
        "reverse_sequence": lambda m, x: m.reverse_sequence(x, [2, 5, 0, 3], seq_axis=1, batch_axis=0) * x,
        "scatter_update": lambda m, x: m.tensor_scatter_nd_update(x * x, [[1], [3]], x[:2] * 3.0),
    }
    x = RNG.uniform(-1.0, 1.0, size=(4, 5))
    for name, fn in fns.items():
        xt, xf = tx.constant(x), tf.constant(x)
        with tx.GradientTape() as t1:
            t1.watch(xt)
            y1 = tx.reduce_sum(fn(tx, xt))
        with tf.GradientTape() as t2:
            t2.watch(xf)
            y2 = tf.reduce_sum(fn(tf, xf))
        np.testing.assert_allclose(np.asarray(t1.gradient(y1, xt)), t2.gradient(y2, xf).numpy(), rtol=1e-7,
                                   atol=1e-10, err_msg=name)


def test_unique_bincount_confusion_matrix_match_tensorflow():
    x = np.array([4, 1, 4, 2, 1, 1, 7], np.int64)
    for ours, theirs in ((tx.unique(x), tf.unique(x)), (tx.unique_with_counts(x, out_idx=tx.int64),
                                                       tf.unique_with_counts(x, out_idx=tf.int64))):
        _same([np.asarray(t) for t in ours], [t.numpy() for t in theirs])
    arr = np.array([1, 1, 3, 5, 0], np.int32)
    w = np.array([0.5, 1.0, 2.0, 3.0, 4.0], np.float32)
    for kw in ({}, {"minlength": 8}, {"maxlength": 3}, {"weights": w}, {"binary_output": True}):
        _same(np.asarray(tx.math.bincount(arr, **kw)), tf.math.bincount(arr, **kw).numpy())
    rows = np.array([[1, 1], [3, 0]], np.int32)
    _same(np.asarray(tx.math.bincount(rows, axis=-1)), tf.math.bincount(rows, axis=-1).numpy())
    labels, preds = np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 1, 1])
    _same(np.asarray(tx.math.confusion_matrix(labels, preds)), tf.math.confusion_matrix(labels, preds).numpy())
