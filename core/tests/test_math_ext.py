"""The tx / tx.math functions beyond the core set, against NumPy and SciPy, in graph and eager
mode: special functions, statistics, sorting, array constructors, segment reductions, clipping
and the higher-order functions (map_fn, scan, foldl, foldr, vectorized_map). Edge cases: empty
tensors, rank 0, negative axes, integer dtypes; bad input gives errors naming the op."""

import numpy as np
import pytest
import scipy.special as sp

import tensorflux as tx


@pytest.fixture(params=["graph", "eager"])
def mode(request):
    if request.param == "eager":
        tx.compat.v1.enable_eager_execution()
    return request.param


def run(structure):
    """Evaluates a tensor or a nested list/tuple/dict of tensors in the current mode."""
    flat, rebuild = _flatten(structure)
    if tx.executing_eagerly():
        values = [np.asarray(t) for t in flat]
    else:
        with tx.Session() as s:
            values = s.run(flat)
    return rebuild(values)


def _flatten(s):
    if isinstance(s, dict):
        keys = sorted(s)
        parts = [_flatten(s[k]) for k in keys]
    elif isinstance(s, (list, tuple)):
        keys = None
        parts = [_flatten(v) for v in s]
    else:
        return [s], lambda vals: vals[0]
    flat, sizes = [], []
    for f, _ in parts:
        flat.extend(f)
        sizes.append(len(f))

    def rebuild(vals):
        out, i = [], 0
        for (_, rb), n in zip(parts, sizes):
            out.append(rb(vals[i:i + n]))
            i += n
        return dict(zip(keys, out)) if keys is not None else type(s)(out) if not hasattr(s, "_fields") else \
            type(s)(*out)
    return flat, rebuild


def grad(f, *xs):
    """d sum(f(*xs)) / d xs for NumPy inputs, in the current mode."""
    ts = [tx.constant(x) for x in xs]
    if tx.executing_eagerly():
        with tx.GradientTape() as tape:
            for t in ts:
                tape.watch(t)
            y = tx.reduce_sum(f(*ts))
        return [np.asarray(g) for g in tape.gradient(y, ts)]
    return run(tx.gradients(tx.reduce_sum(f(*ts)), ts))


def numeric_grad(f, *xs, eps=1e-6):
    """Central differences of sum(f) in float64 NumPy."""
    out = []
    for k, x in enumerate(xs):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            hi = [v.copy() for v in xs]
            lo = [v.copy() for v in xs]
            hi[k][idx] += eps
            lo[k][idx] -= eps
            g[idx] = (np.sum(f(*hi)) - np.sum(f(*lo))) / (2 * eps)
        out.append(g)
    return out


RNG = np.random.default_rng(7)


# Element-wise special functions.

@pytest.mark.parametrize("name,ref,low,high", [
    ("asin", np.arcsin, -0.9, 0.9), ("acos", np.arccos, -0.9, 0.9), ("atan", np.arctan, -5, 5),
    ("sinh", np.sinh, -3, 3), ("cosh", np.cosh, -3, 3), ("asinh", np.arcsinh, -5, 5),
    ("acosh", np.arccosh, 1.1, 5), ("atanh", np.arctanh, -0.9, 0.9), ("lgamma", sp.gammaln, 0.1, 6),
    ("digamma", sp.psi, 0.3, 6)])
def test_unary_special_values_and_gradients(mode, name, ref, low, high):
    x = RNG.uniform(low, high, size=(3, 4))
    fn = getattr(tx.math, name)
    np.testing.assert_allclose(run(fn(tx.constant(x))), ref(x), rtol=1e-10)
    np.testing.assert_allclose(run(fn(tx.constant(x.astype(np.float32)))), ref(x).astype(np.float32), rtol=1e-5)
    (g,) = grad(fn, x)
    (expected,) = numeric_grad(ref, x)
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7)


def test_trig_functions_are_top_level_too():
    for name in ("asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "atan2"):
        assert getattr(tx, name) is getattr(tx.math, name)


def test_gamma_family_poles_and_domains(mode):
    x = np.array([0.0, -1.0, -2.5, np.inf, np.nan, 30.0])
    got_lg, got_dg = run([tx.math.lgamma(x), tx.math.digamma(x)])
    np.testing.assert_allclose(got_lg, [np.inf, np.inf, sp.gammaln(-2.5), np.inf, np.nan, sp.gammaln(30.0)])
    np.testing.assert_allclose(got_dg, [np.nan, np.nan, sp.psi(-2.5), np.inf, np.nan, sp.psi(30.0)], rtol=1e-12)
    a = np.array([0.0, 1.0, 2.0, 3.0, 1.5, -1.0])
    x = np.array([2.0, 2.0, 0.5, -1.5, 2.0, 2.0])
    got = run(tx.math.polygamma(a, x))
    np.testing.assert_allclose(got[:4], sp.polygamma([0, 1, 2, 3], x[:4]), rtol=1e-10)
    assert np.isnan(got[4:]).all()
    s = np.array([2.0, 3.5, 1.0, 0.5, 2.0])
    q = np.array([1.0, 0.7, 1.0, 1.0, -2.0])
    got = run(tx.math.zeta(s, q))
    np.testing.assert_allclose(got[:2], sp.zeta(s[:2], q[:2]), rtol=1e-12)
    assert got[2] == np.inf and np.isnan(got[3]) and got[4] == np.inf


def test_gamma_family_gradients(mode):
    x = RNG.uniform(0.5, 3.0, size=(5,))
    a = np.array([1.0, 2.0, 0.0, 3.0, 1.0])
    (gx,) = grad(lambda t: tx.math.polygamma(tx.constant(a), t), x)
    np.testing.assert_allclose(gx, sp.polygamma((a + 1).astype(int), x), rtol=1e-9)
    s = RNG.uniform(1.5, 4.0, size=(5,))
    (gq,) = grad(lambda t: tx.math.zeta(tx.constant(s), t), x)
    np.testing.assert_allclose(gq, -s * sp.zeta(s + 1, x), rtol=1e-9)
    (gd,) = grad(tx.math.digamma, x)
    np.testing.assert_allclose(gd, sp.polygamma(1, x), rtol=1e-9)


def test_xlogy_family_and_no_nan_ops(mode):
    x = np.array([0.0, 0.0, 0.0, 1.0, 2.0, -1.0])
    y = np.array([np.nan, 0.0, -1.0, 0.0, np.inf, np.nan])
    with np.errstate(all="ignore"):
        got = run([tx.math.xlogy(x, y), tx.math.xlog1py(x, y), tx.math.xdivy(x, y)])
    np.testing.assert_array_equal(got[0], [0, 0, 0, -np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(got[1], [0, 0, 0, 0, np.inf, np.nan])
    np.testing.assert_array_equal(got[2], [0, 0, 0, np.inf, 0, np.nan])
    a = np.array([1.0, np.nan, np.inf, 3.0], np.float32)
    b = np.array([0.0, 0.0, 0.0, 2.0], np.float32)
    got = run([tx.math.divide_no_nan(a, b), tx.math.multiply_no_nan(a, b), tx.math.reciprocal_no_nan(b)])
    np.testing.assert_array_equal(got[0], [0, 0, 0, 1.5])
    np.testing.assert_array_equal(got[1], [0, 0, 0, 6])
    np.testing.assert_array_equal(got[2], [0, 0, 0, 0.5])


def test_binary_special_gradients(mode):
    x = RNG.uniform(-2, 2, size=(2, 3))
    y = RNG.uniform(0.5, 2, size=(3,))  # broadcast: the gradient of y is reduced
    cases = [(tx.math.xlogy, lambda a, b: a * np.log(b)), (tx.math.xdivy, lambda a, b: a / b),
             (tx.math.xlog1py, lambda a, b: a * np.log1p(b)), (tx.math.divide_no_nan, lambda a, b: a / b),
             (tx.math.multiply_no_nan, lambda a, b: a * b), (tx.math.atan2, np.arctan2)]
    for fn, ref in cases:
        got = grad(fn, x, y)
        expected = numeric_grad(lambda a, b: ref(a, b), x, y)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-7, err_msg=fn.__name__)


def test_rint_is_inf_nextafter_log_sigmoid_scalar_mul(mode):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, np.inf, -np.inf, np.nan], np.float32)
    rint, isinf = run([tx.math.rint(x), tx.math.is_inf(x)])
    np.testing.assert_array_equal(rint, np.rint(x))
    np.testing.assert_array_equal(isinf, np.isinf(x))
    a, b = np.array([1.0, 1.0, 0.0], np.float32), np.array([2.0, 0.0, -1.0], np.float32)
    np.testing.assert_array_equal(run(tx.math.nextafter(a, b)), np.nextafter(a, b))
    z = np.array([-100.0, -1.0, 0.0, 3.0, 100.0])
    np.testing.assert_allclose(run(tx.math.log_sigmoid(z)), -np.logaddexp(0, -z), rtol=1e-12)
    np.testing.assert_allclose(run(tx.math.scalar_mul(2.5, z)), 2.5 * z)
    with pytest.raises(ValueError, match="0-D"):
        tx.math.scalar_mul([1.0, 2.0], z)


# Reductions and scans.

@pytest.mark.parametrize("axis", [None, 0, -1, [0, 2]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_statistics_match_numpy(mode, axis, keepdims):
    x = RNG.normal(size=(3, 4, 5)) * 10
    ax = tuple(axis) if isinstance(axis, list) else axis
    got = run([tx.math.reduce_logsumexp(x, axis, keepdims), tx.math.reduce_variance(x, axis, keepdims),
               tx.math.reduce_std(x, axis, keepdims), tx.math.reduce_euclidean_norm(x, axis, keepdims),
               tx.math.count_nonzero(np.round(x / 10), axis, keepdims)])
    np.testing.assert_allclose(got[0], sp.logsumexp(x, axis=ax, keepdims=keepdims), rtol=1e-12)
    np.testing.assert_allclose(got[1], np.var(x, axis=ax, keepdims=keepdims), rtol=1e-12)
    np.testing.assert_allclose(got[2], np.std(x, axis=ax, keepdims=keepdims), rtol=1e-12)
    np.testing.assert_allclose(got[3], np.sqrt(np.sum(x * x, axis=ax, keepdims=keepdims)), rtol=1e-12)
    np.testing.assert_array_equal(got[4], np.count_nonzero(np.round(x / 10), axis=ax, keepdims=keepdims))
    assert got[4].dtype == np.int64


def test_logsumexp_is_stable_and_handles_infinities(mode):
    x = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0]])
    np.testing.assert_allclose(run(tx.reduce_logsumexp(x, axis=1)), [1000 + np.log(2), -np.inf, np.inf])
    (g,) = grad(lambda t: tx.reduce_logsumexp(t, axis=1), np.array([[1.0, 2.0, 3.0]]))
    np.testing.assert_allclose(g, sp.softmax([[1.0, 2.0, 3.0]], axis=1), rtol=1e-12)


def test_statistics_of_integers_and_empty_inputs(mode):
    with pytest.raises(TypeError, match="reduce_variance.*floating"):
        tx.math.reduce_variance(tx.constant([1, 2]))
    assert run(tx.math.reduce_euclidean_norm(tx.constant([3, 4]))) == 5
    assert run(tx.math.count_nonzero(tx.constant([True, False, True]))) == 2
    empty = np.zeros((0, 3))
    np.testing.assert_array_equal(run(tx.math.reduce_logsumexp(empty, axis=0)), [-np.inf] * 3)
    np.testing.assert_array_equal(run(tx.math.count_nonzero(empty, axis=0)), [0, 0, 0])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_and_cumulative_logsumexp(mode, exclusive, reverse):
    x = RNG.uniform(0.5, 2, size=(3, 4))

    def scan_ref(f, ident, v, axis):
        v = np.flip(v, axis) if reverse else v
        out = f(v, axis=axis)
        if exclusive:
            pad = np.full_like(np.take(out, [0], axis=axis), ident)
            out = np.concatenate([pad, np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out

    got = run([tx.math.cumprod(x, axis=1, exclusive=exclusive, reverse=reverse),
               tx.math.cumulative_logsumexp(x, axis=-1, exclusive=exclusive, reverse=reverse)])
    np.testing.assert_allclose(got[0], scan_ref(np.cumprod, 1.0, x, 1), rtol=1e-12)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(got[1], np.log(scan_ref(np.cumsum, 0.0, np.exp(x), 1)), rtol=1e-12)


def test_polyval_accumulate_n_l2_normalize(mode):
    x = np.array([-1.0, 0.5, 2.0])
    got = run([tx.math.polyval([2.0, -3.0, 1.0], x), tx.math.polyval([], x),
               tx.math.accumulate_n([x, 2 * x, 3 * x]), tx.math.l2_normalize(np.array([[3.0, 4.0], [0, 0]]), 1)])
    np.testing.assert_allclose(got[0], np.polyval([2.0, -3.0, 1.0], x))
    np.testing.assert_array_equal(got[1], [0, 0, 0])
    np.testing.assert_allclose(got[2], 6 * x)
    np.testing.assert_allclose(got[3], [[0.6, 0.8], [0, 0]])
    with pytest.raises(ValueError, match="non-empty list"):
        tx.math.accumulate_n([])


# Clipping.

def test_clip_by_norm_and_global_norm(mode):
    t = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(run(tx.clip_by_norm(t, 2.5)), t * 2.5 / 5)
    np.testing.assert_allclose(run(tx.clip_by_norm(t, 2.5, axes=[1])), [[1.5, 2.0], [0, 0]])
    np.testing.assert_allclose(run(tx.clip_by_norm(t, 10.0)), t)
    a, b = np.array([3.0, 0.0]), np.array([[4.0]])
    (ca, none, cb), norm = tx.clip_by_global_norm([a, None, b], 1.0)
    assert none is None
    got = run([ca, cb, norm])
    np.testing.assert_allclose(got[2], 5.0)
    np.testing.assert_allclose(got[0], a / 5)
    np.testing.assert_allclose(got[1], b / 5)
    (nan_out,), _ = tx.clip_by_global_norm([np.array([np.inf, 1.0])], 1.0)
    assert np.isnan(run(nan_out)).all()


# Sorting and searching.

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_sort_and_argsort_are_stable(mode, dtype, axis):
    x = RNG.integers(-3, 4, size=(4, 6, 3)).astype(dtype)  # many ties
    got = run([tx.sort(x, axis=axis), tx.sort(x, axis=axis, direction="DESCENDING"),
               tx.argsort(x, axis=axis, stable=True), tx.argsort(x, axis=axis, direction="DESCENDING")])
    np.testing.assert_array_equal(got[0], np.sort(x, axis=axis))
    np.testing.assert_array_equal(got[1], -np.sort(-x, axis=axis))
    np.testing.assert_array_equal(got[2], np.argsort(x, axis=axis, kind="stable"))
    np.testing.assert_array_equal(got[3], np.argsort(-x, axis=axis, kind="stable"))


def test_sort_integer_extremes_and_errors(mode):
    x = np.array([0, np.iinfo(np.int32).min, np.iinfo(np.int32).max, -1], np.int32)
    np.testing.assert_array_equal(run(tx.sort(x)), np.sort(x))
    with pytest.raises(ValueError, match="direction"):
        tx.sort(x, direction="UP")
    with pytest.raises(ValueError, match="axis"):
        tx.argsort(x, axis=1)
    with pytest.raises(ValueError, match="scalar"):
        tx.sort(tx.constant(1.0))


def test_sort_gradient(mode):
    x = np.array([[3.0, 1.0, 2.0]])
    (g,) = grad(lambda t: tx.sort(t) * tx.constant(np.array([[1.0, 10.0, 100.0]])), x)
    np.testing.assert_array_equal(g, [[100.0, 1.0, 10.0]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(mode, side):
    seq = np.sort(RNG.integers(0, 10, size=(3, 8)), axis=1).astype(np.float32)
    vals = RNG.integers(-1, 11, size=(3, 5)).astype(np.float32)
    got = run(tx.searchsorted(seq, vals, side=side))
    expected = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.int32
    with pytest.raises(ValueError, match="side"):
        tx.searchsorted(seq, vals, side="middle")


# Array constructors and rearrangements.

@pytest.mark.parametrize("shift,axis", [(1, 0), (-2, 1), (7, -1), ([1, -1], [0, 1]), ([2, 3], [1, 1])])
def test_roll(mode, shift, axis):
    x = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(run(tx.roll(x, shift, axis)), np.roll(x, shift, axis))


def test_roll_tensor_shift_empty_and_gradient(mode):
    x = np.arange(5.0)
    np.testing.assert_array_equal(run(tx.roll(x, tx.constant(2), 0)), np.roll(x, 2))
    np.testing.assert_array_equal(run(tx.roll(np.zeros((0, 2)), 1, 0)), np.zeros((0, 2)))
    (g,) = grad(lambda t: tx.roll(t, 1, 0) * tx.constant(np.arange(5.0)), x)
    np.testing.assert_array_equal(g, np.roll(np.arange(5.0), -1))
    with pytest.raises(tx.errors.InvalidArgumentError, match="same size"):
        run(tx.roll(x, [1, 2], [0]))
    with pytest.raises(tx.errors.InvalidArgumentError, match="Roll.*out of range|out of range.*Roll"):
        run(tx.roll(x, 1, 1))


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 0), ([1, 0, 2], 0), ([2, 1], 1), ([0, 0], -1), (0, 1)])
def test_repeat(mode, repeats, axis):
    x = np.arange(6).reshape(3, 2)
    np.testing.assert_array_equal(run(tx.repeat(x, repeats, axis)), np.repeat(x, repeats, axis))


def test_linspace(mode):
    np.testing.assert_allclose(run(tx.linspace(0.0, 1.0, 5)), np.linspace(0, 1, 5).astype(np.float32))
    got = run(tx.linspace(1, 5, 3))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(run(tx.linspace(2.0, 3.0, 1)), [2.0])
    assert run(tx.linspace(2.0, 3.0, 0)).shape == (0,)
    start, stop = np.array([0.0, 1.0]), np.array([1.0, 3.0])
    np.testing.assert_allclose(run(tx.linspace(start, stop, 4, axis=1)), np.linspace(start, stop, 4, axis=1))
    np.testing.assert_allclose(run(tx.linspace(start, stop, 4)), np.linspace(start, stop, 4))
    assert run(tx.linspace(0.1, 0.7, 7))[-1] == np.float32(0.7)


def test_eye_and_meshgrid(mode):
    np.testing.assert_array_equal(run(tx.eye(3)), np.eye(3, dtype=np.float32))
    got = run(tx.eye(2, 3, batch_shape=[2], dtype=tx.int32))
    np.testing.assert_array_equal(got, np.broadcast_to(np.eye(2, 3, dtype=np.int32), (2, 2, 3)))
    for indexing in ("xy", "ij"):
        got = run(tx.meshgrid([1, 2, 3], [4, 5], indexing=indexing))
        for g, e in zip(got, np.meshgrid([1, 2, 3], [4, 5], indexing=indexing)):
            np.testing.assert_array_equal(g, e)
    got = run(tx.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="xy"))
    for g, e in zip(got, np.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="xy")):
        np.testing.assert_array_equal(g, e)
    with pytest.raises(ValueError, match="indexing"):
        tx.meshgrid([1], indexing="yx")


def test_sequence_mask(mode):
    got = run([tx.sequence_mask([1, 3], 4), tx.sequence_mask([[1], [2]]), tx.sequence_mask([0, 2], dtype=tx.float32)])
    np.testing.assert_array_equal(got[0], [[1, 0, 0, 0], [1, 1, 1, 0]])
    assert got[0].dtype == np.bool_
    np.testing.assert_array_equal(got[1], [[[True, False]], [[True, True]]])
    np.testing.assert_array_equal(got[2], [[0.0, 0.0], [1.0, 1.0]])
    with pytest.raises(TypeError, match="integers"):
        tx.sequence_mask([1.0, 2.0])


def test_tensor_scatter_nd_family(mode):
    t = np.arange(8.0).reshape(4, 2)
    idx = np.array([[1], [3]])
    up = np.array([[10.0, 20.0], [30.0, 40.0]])
    got = run([tx.tensor_scatter_nd_update(t, idx, up), tx.tensor_scatter_nd_add(t, idx, up),
               tx.tensor_scatter_nd_sub(t, idx, up)])
    expected = t.copy()
    expected[[1, 3]] = up
    np.testing.assert_array_equal(got[0], expected)
    expected = t.copy()
    expected[[1, 3]] += up
    np.testing.assert_array_equal(got[1], expected)
    expected = t.copy()
    expected[[1, 3]] -= up
    np.testing.assert_array_equal(got[2], expected)
    gt, gu = grad(lambda a, b: tx.tensor_scatter_nd_update(a, tx.constant(idx), b), t, up)
    np.testing.assert_array_equal(gt, [[1, 1], [0, 0], [1, 1], [0, 0]])
    np.testing.assert_array_equal(gu, np.ones((2, 2)))


def test_invert_permutation(mode):
    np.testing.assert_array_equal(run(tx.math.invert_permutation([2, 0, 3, 1])), [1, 3, 0, 2])


# Segment reductions.

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_unsorted_segment_reductions(mode, dtype):
    data = RNG.integers(-5, 6, size=(6, 2)).astype(dtype)
    ids = np.array([0, 2, 0, -1, 2, 1])
    n = 4  # segment 3 is empty; id -1 is dropped
    got = run({k: getattr(tx.math, "unsorted_segment_" + k)(data, ids, n)
               for k in ("sum", "max", "min", "prod")})
    for k, np_fn, empty in (("sum", np.sum, 0), ("max", np.max, None), ("min", np.min, None), ("prod", np.prod, 1)):
        for s in range(n):
            rows = data[ids == s]
            if len(rows):
                np.testing.assert_array_equal(got[k][s], np_fn(rows, axis=0), err_msg=k)
        if empty is not None:
            np.testing.assert_array_equal(got[k][3], [empty, empty])
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    np.testing.assert_array_equal(got["max"][3], [info.min] * 2)
    np.testing.assert_array_equal(got["min"][3], [info.max] * 2)
    if np.dtype(dtype).kind == "f":
        got = run([tx.math.unsorted_segment_mean(data, ids, n), tx.math.unsorted_segment_sqrt_n(data, ids, n)])
        for s, c in ((0, 2), (1, 1), (2, 2)):
            np.testing.assert_allclose(got[0][s], data[ids == s].sum(0) / c, rtol=1e-6)
            np.testing.assert_allclose(got[1][s], data[ids == s].sum(0) / np.sqrt(c), rtol=1e-6)
        np.testing.assert_array_equal(got[0][3], [0, 0])


def test_unsorted_segment_max_gradient_and_bad_ids(mode):
    data = np.array([1.0, 5.0, 3.0, 2.0])
    (g,) = grad(lambda t: tx.math.unsorted_segment_max(t, tx.constant([0, 0, 1, 1]), 2), data)
    np.testing.assert_array_equal(g, [0, 1, 1, 0])
    with pytest.raises(tx.errors.InvalidArgumentError, match="UnsortedSegmentMax"):
        run(tx.math.unsorted_segment_max(data, np.array([0, 5, 1, 1]), 2))
    with pytest.raises(tx.errors.InvalidArgumentError, match="UnsortedSegmentSum"):
        run(tx.math.unsorted_segment_mean(data, np.array([0, 2, 1, 1]), 2))


# Higher-order functions.

def test_map_fn_nested_structures_and_signature(mode):
    x = np.arange(6.0).reshape(3, 2)
    y = np.array([1, 2, 3])
    out = tx.map_fn(lambda e: {"s": tx.reduce_sum(e[0]) * tx.cast(e[1], tx.float64), "d": e[0] * 2.0}, (x, y))
    got = run(out)
    np.testing.assert_allclose(got["s"], x.sum(1) * y)
    np.testing.assert_allclose(got["d"], x * 2)
    got = run(tx.map_fn(lambda e: tx.cast(e, tx.int32), x, fn_output_signature=tx.int32))
    np.testing.assert_array_equal(got, x.astype(np.int32))
    with pytest.raises(TypeError, match="fn_output_signature"):
        tx.map_fn(lambda e: e, x, fn_output_signature=tx.int32)
    empty = run(tx.map_fn(lambda e: e * 2.0, np.zeros((0, 2)), fn_output_signature=tx.TensorSpec([2], tx.float64)))
    assert empty.shape == (0, 2)
    with pytest.raises(ValueError, match="scalars"):
        tx.map_fn(lambda e: e, tx.constant(1.0))


def test_map_fn_gradient_and_captures(mode):
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    w = np.array([2.0, -1.0])
    gx, gw = grad(lambda a, b: tx.map_fn(lambda r: tx.reduce_sum(r * b) ** 2, a), x, w)
    s = x @ w
    np.testing.assert_allclose(gx, 2 * s[:, None] * w[None, :])
    np.testing.assert_allclose(gw, (2 * s[:, None] * x).sum(0))
    np.testing.assert_allclose(run(tx.vectorized_map(lambda r: r * r, x)), x * x)


def test_scan_foldl_foldr(mode):
    x = np.array([1.0, 2.0, 3.0, 4.0])
    two, ten = tx.constant(2.0, dtype=tx.float64), tx.constant(10.0, dtype=tx.float64)
    got = run([tx.scan(lambda a, e: a + e, x), tx.scan(lambda a, e: a * e, x, initializer=two),
               tx.scan(lambda a, e: a + e, x, reverse=True), tx.foldl(lambda a, e: a - e, x),
               tx.foldr(lambda a, e: a - e, x), tx.foldl(lambda a, e: a + e, x, initializer=ten)])
    np.testing.assert_array_equal(got[0], np.cumsum(x))
    np.testing.assert_array_equal(got[1], 2 * np.cumprod(x))
    np.testing.assert_array_equal(got[2], np.cumsum(x[::-1])[::-1])
    assert got[3] == 1 - 2 - 3 - 4
    assert got[4] == 4 - 3 - 2 - 1
    assert got[5] == 20
    # Nested accumulators and elements: Fibonacci-like pairs.
    a, b = tx.scan(lambda acc, e: (acc[1], acc[0] + acc[1] + e[0] * e[1]), (x, x),
                   initializer=(tx.constant(0.0, tx.float64), tx.constant(1.0, tx.float64)))
    got_a, got_b = run([a, b])
    ea, eb, exp_a, exp_b = 0.0, 1.0, [], []
    for v in x:
        ea, eb = eb, ea + eb + v * v
        exp_a.append(ea)
        exp_b.append(eb)
    np.testing.assert_array_equal(got_a, exp_a)
    np.testing.assert_array_equal(got_b, exp_b)
    with pytest.raises(ValueError, match="no initializer"):
        tx.foldl(lambda a, e: a + e, np.zeros((0,)))


def test_scan_gradient(mode):
    x = np.array([1.0, 2.0, 3.0])
    (g,) = grad(lambda t: tx.scan(lambda a, e: a * e, t), x)
    # d/dx_k of sum_i prod_{j<=i} x_j
    expected = numeric_grad(lambda v: np.cumprod(v), x)[0]
    np.testing.assert_allclose(g, expected, rtol=1e-6)


# Unique and histograms.

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_unique_and_unique_with_counts(mode, dtype):
    x = np.array([4, 1, 4, 2, 1, 1, 7], dtype)
    y, idx = run(tx.unique(x))
    y2, idx2, count = run(tx.unique_with_counts(x, out_idx=tx.int64))
    np.testing.assert_array_equal(y, [4, 1, 2, 7])
    np.testing.assert_array_equal(idx, [0, 1, 0, 2, 1, 1, 3])
    assert idx.dtype == np.int32 and idx2.dtype == np.int64 and y.dtype == dtype
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(count, [2, 3, 1, 1])
    y, idx = run(tx.unique(np.zeros((0,), dtype)))
    assert y.shape == (0,) and idx.shape == (0,)
    with pytest.raises((tx.errors.InvalidArgumentError, ValueError), match="1D"):
        run(tx.unique(np.zeros((2, 2), dtype)))


def test_bincount_and_confusion_matrix(mode):
    arr = np.array([1, 1, 3, 5, 0])
    got = run([tx.math.bincount(arr), tx.math.bincount(arr, minlength=8), tx.math.bincount(arr, maxlength=4),
               tx.math.bincount(arr, weights=np.array([0.5, 1.0, 2.0, 3.0, 4.0])),
               tx.math.bincount(np.array([[1, 1], [3, 0]]), axis=-1),
               tx.math.bincount(arr, binary_output=True), tx.math.bincount(np.zeros((0,), np.int32))])
    np.testing.assert_array_equal(got[0], np.bincount(arr))
    assert got[0].dtype == np.int32
    np.testing.assert_array_equal(got[1], np.bincount(arr, minlength=8))
    np.testing.assert_array_equal(got[2], [1, 2, 0, 1])
    np.testing.assert_allclose(got[3], np.bincount(arr, weights=[0.5, 1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(got[4], [[0, 2, 0, 0], [1, 0, 0, 1]])
    np.testing.assert_array_equal(got[5], np.minimum(np.bincount(arr), 1))
    assert got[6].shape == (0,)
    with pytest.raises(tx.errors.InvalidArgumentError, match="DenseBincount"):
        run(tx.math.bincount(np.array([1, -2, 3]), minlength=4))
    with pytest.raises(tx.errors.InvalidArgumentError, match="same size"):
        run(tx.math.bincount(arr, weights=np.ones(3)))
    labels, preds = np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 1, 1])
    cm = run(tx.math.confusion_matrix(labels, preds))
    expected = np.zeros((3, 3), np.int32)
    np.add.at(expected, (labels, preds), 1)
    np.testing.assert_array_equal(cm, expected)
    cm = run(tx.math.confusion_matrix(labels, preds, num_classes=4, weights=np.arange(5.0), dtype=tx.float64))
    expected = np.zeros((4, 4))
    np.add.at(expected, (labels, preds), np.arange(5.0))
    np.testing.assert_array_equal(cm, expected)


def test_sorted_segment_reductions(mode):
    data = np.array([[1.0, 2.0], [3.0, -4.0], [5.0, 6.0], [0.5, 0.25]])
    ids = np.array([0, 0, 2, 2])
    got = run({k: getattr(tx.math, "segment_" + k)(data, ids) for k in ("sum", "mean", "max", "min", "prod")})
    np.testing.assert_array_equal(got["sum"], [[4, -2], [0, 0], [5.5, 6.25]])
    np.testing.assert_array_equal(got["mean"], [[2, -1], [0, 0], [2.75, 3.125]])
    np.testing.assert_array_equal(got["max"], [[3, 2], [0, 0], [5, 6]])
    np.testing.assert_array_equal(got["min"], [[1, -4], [0, 0], [0.5, 0.25]])
    np.testing.assert_array_equal(got["prod"], [[3, -8], [1, 1], [2.5, 1.5]])
    (g,) = grad(lambda t: tx.math.segment_prod(t, tx.constant(ids)), data)
    np.testing.assert_allclose(g, [[3, -4], [1, 2], [0.5, 0.25], [5, 6]])
    for bad, match in (([0, 2, 1, 3], "not increasing"), ([-1, 0, 0, 0], ">= 0")):
        ids_t = tx.constant(np.array(bad)) if mode == "eager" else tx.compat.v1.placeholder(tx.int64, [4])
        with pytest.raises(tx.errors.InvalidArgumentError, match=match) as info:
            out = tx.math.segment_sum(data, ids_t)
            if mode == "graph":
                with tx.Session() as s:
                    s.run(out, {ids_t: np.array(bad)})
        assert "SegmentSum" in str(info.value)


def test_tensor_scatter_nd_min_max(mode):
    t = np.array([[1.0, 5.0], [3.0, -1.0], [0.0, 2.0]])
    idx = np.array([[0], [2], [0]])
    up = np.array([[2.0, 4.0], [-1.0, 3.0], [0.5, 6.0]])
    got = run([tx.tensor_scatter_nd_min(t, idx, up), tx.tensor_scatter_nd_max(t, idx, up)])
    np.testing.assert_array_equal(got[0], [[0.5, 4.0], [3.0, -1.0], [-1.0, 2.0]])
    np.testing.assert_array_equal(got[1], [[2.0, 6.0], [3.0, -1.0], [0.0, 3.0]])
    with pytest.raises(tx.errors.InvalidArgumentError, match="TensorScatterMax"):
        run(tx.tensor_scatter_nd_max(t, np.array([[7]]), up[:1]))


def test_sparse_segment_reductions(mode):
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    idx, ids = np.array([0, 2, 2]), np.array([0, 0, 2])
    got = run([tx.sparse.segment_sum(data, idx, ids), tx.sparse.segment_mean(data, idx, ids),
               tx.sparse.segment_sqrt_n(data, idx, ids), tx.sparse.segment_sum(data, idx, ids,
                                                                                           num_segments=5)])
    np.testing.assert_allclose(got[0], [[6, 8], [0, 0], [5, 6]])
    np.testing.assert_allclose(got[1], [[3, 4], [0, 0], [5, 6]])
    np.testing.assert_allclose(got[2], [[6 / np.sqrt(2), 8 / np.sqrt(2)], [0, 0], [5, 6]])
    np.testing.assert_allclose(got[3], np.concatenate([got[0], np.zeros((2, 2))]))
    (g,) = grad(lambda t: tx.sparse.segment_mean(t, tx.constant(idx), tx.constant(ids)), data)
    np.testing.assert_allclose(g, [[0.5, 0.5], [0, 0], [1.5, 1.5]])
    with pytest.raises(tx.errors.InvalidArgumentError, match="SparseSegmentSum"):
        run(tx.sparse.segment_sum(data, np.array([0, 9, 2]), ids))


# Partitioning and index arithmetic.

def test_dynamic_partition_and_stitch(mode):
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    parts = np.array([1, 0, 1, 2])
    got = run(tx.dynamic_partition(data, parts, 3))
    for i in range(3):
        np.testing.assert_array_equal(got[i], data[parts == i])
    idx = [np.array([0, 3]), np.array([[1], [2]]), np.array([3])]
    vals = [np.array([[1.0], [2.0]]), np.array([[[3.0]], [[4.0]]]), np.array([[9.0]])]
    np.testing.assert_array_equal(run(tx.dynamic_stitch(idx, vals)), [[1.0], [3.0], [4.0], [9.0]])


def test_unravel_index_reverse_sequence_histograms(mode):
    np.testing.assert_array_equal(run(tx.unravel_index([5, 7, 0], [3, 4])), np.unravel_index([5, 7, 0], (3, 4)))
    np.testing.assert_array_equal(run(tx.unravel_index(22, [2, 3, 4])), np.unravel_index(22, (2, 3, 4)))
    x = np.arange(12).reshape(2, 3, 2)
    got = run(tx.reverse_sequence(x, [2, 3], seq_axis=1, batch_axis=0))
    expected = x.copy()
    expected[0, :2] = x[0, 1::-1]
    expected[1] = x[1, ::-1]
    np.testing.assert_array_equal(got, expected)
    got = run(tx.reverse_sequence(x.transpose(1, 0, 2), [2, 3], seq_axis=0, batch_axis=1))
    np.testing.assert_array_equal(got, expected.transpose(1, 0, 2))
    v = np.array([-1.0, 0.0, 0.5, 1.0, 5.0, 0.3])
    got = run([tx.histogram_fixed_width_bins(v, [0.0, 1.0], nbins=4), tx.histogram_fixed_width(v, [0.0, 1.0], 4)])
    np.testing.assert_array_equal(got[0], [0, 0, 2, 3, 3, 1])
    np.testing.assert_array_equal(got[1], [2, 1, 1, 2])


def test_truncating_division(mode):
    a, b = np.array([-7, 7, -7, 7]), np.array([2, 2, -2, -2])
    got = run([tx.truncatediv(a, b), tx.truncatemod(a, b), tx.truncatediv(a * 1.0, b * 1.0),
               tx.truncatemod(a * 1.0, b * 1.0), tx.realdiv(a * 1.0, b * 1.0)])
    np.testing.assert_array_equal(got[0], np.trunc(a / b).astype(int))
    np.testing.assert_array_equal(got[1], np.fmod(a, b))
    np.testing.assert_array_equal(got[2], np.trunc(a / b))
    np.testing.assert_array_equal(got[3], np.fmod(a * 1.0, b * 1.0))
    np.testing.assert_array_equal(got[4], a / b)


def test_lbeta_monotonicity_zero_fraction_approx_k(mode):
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(run(tx.math.lbeta(x)), sp.betaln(x[:, 0], x[:, 1]), rtol=1e-12)
    got = run([tx.math.is_non_decreasing([1, 1, 2]), tx.math.is_strictly_increasing([1, 1, 2]),
               tx.math.is_strictly_increasing([[1, 2], [3, 4]]), tx.math.is_non_decreasing([5]),
               tx.math.zero_fraction(np.array([0.0, 1.0, 0.0, 2.0]))])
    assert got[:4] == [True, False, True, True]
    assert got[4] == 0.5 and got[4].dtype == np.float32
    v = np.array([[1.0, 5.0, 3.0], [4.0, 0.0, 2.0]])
    mx, mi = run([list(tx.math.approx_max_k(v, 2)), list(tx.math.approx_min_k(v, 1, reduction_dimension=0))])
    np.testing.assert_array_equal(mx[0], [[5, 3], [4, 2]])
    np.testing.assert_array_equal(mx[1], [[1, 2], [0, 2]])
    np.testing.assert_array_equal(mi[0], [[1, 0, 2]])
    np.testing.assert_array_equal(mi[1], [[0, 1, 1]])


def test_bessel_functions_and_inverse_normal(mode):
    x = np.array([-800.0, -30.0, -3.0, -0.5, 0.0, 0.5, 3.0, 30.0, 600.0])
    got = run([tx.math.bessel_i0e(x), tx.math.bessel_i1e(x)])
    np.testing.assert_allclose(got[0], sp.i0e(x), rtol=1e-12)
    np.testing.assert_allclose(got[1], sp.i1e(x), rtol=1e-12)
    small = np.array([-3.0, 0.0, 1.0, 20.0])
    got = run([tx.math.bessel_i0(small), tx.math.bessel_i1(small)])
    np.testing.assert_allclose(got[0], sp.i0(small), rtol=1e-12)
    np.testing.assert_allclose(got[1], sp.i1(small), rtol=1e-12)
    g0, = grad(tx.math.bessel_i0e, x[1:-1])
    g1, = grad(tx.math.bessel_i1e, np.array([-2.0, 0.0, 1.5]))
    np.testing.assert_allclose(g0, numeric_grad(sp.i0e, x[1:-1])[0], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g1, [numeric_grad(sp.i1e, np.array([v]))[0][0] for v in (-2.0, 0.0, 1.5)], rtol=1e-5)
    p = np.array([1e-6, 0.01, 0.3, 0.5, 0.9, 0.999])
    got = run([tx.math.ndtri(p), tx.math.erfcinv(p)])
    np.testing.assert_allclose(got[0], sp.ndtri(p), rtol=1e-9)
    np.testing.assert_allclose(got[1], sp.erfcinv(p), rtol=1e-9)
