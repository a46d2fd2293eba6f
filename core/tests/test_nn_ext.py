"""tx.nn's extended functions (activations, softmax on any axis, normalization, moments,
weighted losses, embedding lookup, 1-D/3-D/N-d convolution and pooling, transposed, atrous,
depthwise and separable convolutions, block rearrangements, LRN) against NumPy/SciPy, their
gradients against finite differences, and their errors (which name the op)."""

import math

import numpy as np
import pytest
import scipy.special

import tensorflux as tx

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(11)


def _r(*shape, dtype=np.float64, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def _grad(fn, *xs, dy=None):
    """d sum(fn(*xs) * dy) / d xs by tape (dy: ones when None)."""
    ts = [tx.constant(x) for x in xs]
    with tx.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        y = fn(*ts)
    out = tape.gradient(y, ts, output_gradients=None if dy is None else tx.constant(dy))
    return [np.asarray(g.numpy()) for g in out]


def _numeric(fn, *xs, dy=None, eps=1e-6):
    """Central differences of sum(fn(*xs) * dy) with respect to each x."""
    def f(*vals):
        y = np.asarray(fn(*[tx.constant(v) for v in vals]).numpy(), np.float64)
        return float((y * (1.0 if dy is None else dy)).sum())
    grads = []
    for i, x in enumerate(xs):
        g = np.zeros_like(x, np.float64)
        for idx in np.ndindex(x.shape):
            hi, lo = [v.copy() for v in xs], [v.copy() for v in xs]
            hi[i][idx] += eps
            lo[i][idx] -= eps
            g[idx] = (f(*hi) - f(*lo)) / (2 * eps)
        grads.append(g)
    return grads


def _check_grad(fn, *xs, rtol=1e-5, atol=1e-7, dy=None):
    for got, want in zip(_grad(fn, *xs, dy=dy), _numeric(fn, *xs, dy=dy)):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------- activations and special functions


def test_erfc_erfinv_match_scipy():
    x = np.linspace(-5, 9, 301)
    for dt, rtol in ((np.float32, 2e-6), (np.float64, 1e-14)):
        np.testing.assert_allclose(tx.math.erfc(x.astype(dt)).numpy(), scipy.special.erfc(x.astype(dt)),
                                   rtol=rtol * 10, atol=1e-37)
    y = np.concatenate([np.linspace(-0.9999, 0.9999, 401), [1 - 1e-12, -(1 - 1e-15), 1e-300, 0.5]])
    np.testing.assert_allclose(tx.math.erfinv(y).numpy(), scipy.special.erfinv(y), rtol=1e-13)
    y32 = np.linspace(-0.9999, 0.9999, 401).astype(np.float32)
    np.testing.assert_allclose(tx.math.erfinv(y32).numpy(), scipy.special.erfinv(y32.astype(np.float64)), rtol=3e-6,
                               atol=1e-7)
    special = np.array([1.0, -1.0, 1.5, -2.0, np.nan, 0.0], np.float32)
    np.testing.assert_array_equal(tx.math.erfinv(special).numpy(), [np.inf, -np.inf, np.nan, np.nan, np.nan, 0.0])


def test_erfc_erfinv_gradients():
    _check_grad(tx.math.erfc, _r(7))
    _check_grad(tx.math.erfinv, _r(7, low=-0.9, high=0.9), rtol=1e-5)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu(approximate):
    x = _r(4, 5, low=-5, high=5)
    if approximate:
        want = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    else:
        want = 0.5 * x * (1 + scipy.special.erf(x / math.sqrt(2)))
    np.testing.assert_allclose(tx.nn.gelu(x, approximate=approximate).numpy(), want, rtol=1e-12)
    _check_grad(lambda t: tx.nn.gelu(t, approximate=approximate), x)


def test_silu_swish_log_sigmoid():
    x = _r(3, 4, low=-30, high=30)
    sig = scipy.special.expit
    np.testing.assert_allclose(tx.nn.silu(x).numpy(), x * sig(x), rtol=1e-12)
    np.testing.assert_allclose(tx.nn.swish(x, beta=0.5).numpy(), x * sig(0.5 * x), rtol=1e-12)
    np.testing.assert_allclose(tx.nn.log_sigmoid(x).numpy(), -np.logaddexp(0, -x), rtol=1e-12)
    np.testing.assert_allclose(tx.math.log_sigmoid(np.float32([-200.0, 200.0])).numpy(), [-200.0, 0.0])
    _check_grad(lambda t: tx.nn.silu(t, beta=1.5), _r(6))
    _check_grad(tx.nn.log_sigmoid, _r(6))


# ---------------------------------------------------------------------------- softmax, normalization, moments


@pytest.mark.parametrize("axis", [0, 1, -2, 2, -1])
def test_softmax_and_log_softmax_on_any_axis(axis):
    x = _r(2, 3, 4, low=-5, high=5)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    want = e / e.sum(axis=axis, keepdims=True)
    np.testing.assert_allclose(tx.nn.softmax(x, axis=axis).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(tx.nn.log_softmax(x, axis=axis).numpy(), np.log(want), rtol=1e-12, atol=1e-12)
    dy = _r(2, 3, 4)
    _check_grad(lambda t: tx.nn.softmax(t, axis=axis), x, dy=dy)
    _check_grad(lambda t: tx.nn.log_softmax(t, axis=axis), x, dy=dy)


@pytest.mark.parametrize("shape,axis", [((5,), -1), ((4, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1)])
def test_softmax_cross_entropy_on_any_axis(shape, axis):
    x = _r(*shape, low=-5, high=5)
    p = _r(*shape, low=0, high=1)
    p /= p.sum(axis=axis, keepdims=True)
    lse = np.log(np.exp(x).sum(axis=axis, keepdims=True))
    want = (p * (lse - x)).sum(axis=axis)
    got = tx.nn.softmax_cross_entropy_with_logits(p, x, axis=axis)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    _check_grad(lambda t: tx.nn.softmax_cross_entropy_with_logits(p, t, axis=axis), x,
                dy=_r(*want.shape) if want.shape else None)


def test_softmax_axis_out_of_range():
    with pytest.raises(ValueError, match="softmax.*axis 3"):
        tx.nn.softmax(_r(2, 3), axis=3)


@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]])
def test_l2_normalize(axis):
    x = _r(3, 4)
    norm = np.sqrt(np.maximum((x ** 2).sum(axis=None if axis is None else tuple(np.atleast_1d(axis)), keepdims=True),
                              1e-12))
    np.testing.assert_allclose(tx.nn.l2_normalize(x, axis=axis).numpy(), x / norm, rtol=1e-12)
    _check_grad(lambda t: tx.nn.l2_normalize(t, axis=axis), x, dy=_r(3, 4))
    np.testing.assert_array_equal(tx.nn.l2_normalize(np.zeros(3), epsilon=1e-4).numpy(), np.zeros(3))


def test_moments_weighted_moments_normalize_moments():
    x = _r(4, 5, 3)
    w = _r(4, 5, 1, low=0, high=2)
    mean, var = tx.nn.moments(x, axes=[0, 1])
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 1)), rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), x.var((0, 1)), rtol=1e-12)
    m, v = tx.nn.weighted_moments(x, [0, 1], w, keepdims=True)
    wm = (w * x).sum((0, 1), keepdims=True) / np.broadcast_to(w, x.shape).sum((0, 1), keepdims=True)
    wv = (w * (x - wm) ** 2).sum((0, 1), keepdims=True) / np.broadcast_to(w, x.shape).sum((0, 1), keepdims=True)
    np.testing.assert_allclose(m.numpy(), wm, rtol=1e-12)
    np.testing.assert_allclose(v.numpy(), wv, rtol=1e-12)
    m0, v0 = tx.nn.weighted_moments(x, [0], np.zeros((4, 5, 3)))
    np.testing.assert_array_equal(m0.numpy(), np.zeros((5, 3)))
    np.testing.assert_array_equal(v0.numpy(), np.zeros((5, 3)))
    _check_grad(lambda t: tx.nn.weighted_moments(t, [0, 1], w)[1], x, dy=_r(3))
    shift = 0.5
    counts, mss, vss = 20.0, (x - shift).sum((0, 1)), ((x - shift) ** 2).sum((0, 1))
    nm, nv = tx.nn.normalize_moments(counts, mss, vss, shift)
    np.testing.assert_allclose(nm.numpy(), x.mean((0, 1)), rtol=1e-12)
    np.testing.assert_allclose(nv.numpy(), x.var((0, 1)), rtol=1e-10)
    nm2, _ = tx.nn.normalize_moments(counts, x.sum((0, 1)), (x ** 2).sum((0, 1)), None)
    np.testing.assert_allclose(nm2.numpy(), x.mean((0, 1)), rtol=1e-12)


def test_batch_normalization():
    x, mean, var, off, sc = _r(4, 3), _r(3), _r(3, low=0.5, high=2), _r(3), _r(3)
    want = (x - mean) / np.sqrt(var + 1e-3) * sc + off
    np.testing.assert_allclose(tx.nn.batch_normalization(x, mean, var, off, sc, 1e-3).numpy(), want, rtol=1e-12)


def test_weighted_cross_entropy_with_logits():
    x, z = _r(4, 3, low=-50, high=50), _r(4, 3, low=0, high=1)
    q = 2.5
    want = -(q * z * np.log(scipy.special.expit(x)) + (1 - z) * np.log(scipy.special.expit(-x)))
    np.testing.assert_allclose(tx.nn.weighted_cross_entropy_with_logits(z, x, q).numpy(), want, rtol=1e-10)
    _check_grad(lambda t: tx.nn.weighted_cross_entropy_with_logits(z, t, q), _r(4, 3))
    with pytest.raises(ValueError, match="same shape"):
        tx.nn.weighted_cross_entropy_with_logits(_r(2, 3), _r(3, 2), 1.0)


# ---------------------------------------------------------------------------- embedding lookup


def test_embedding_lookup_single_and_partitioned():
    table = _r(10, 3)
    ids = np.array([[0, 9, 4], [3, 3, 7]], np.int32)
    np.testing.assert_array_equal(tx.nn.embedding_lookup(table, ids).numpy(), table[ids])
    mod_parts = [table[p::3] for p in range(3)]  # id i lives in partition i % 3 at row i // 3
    got = tx.nn.embedding_lookup(mod_parts, ids, partition_strategy="mod").numpy()
    np.testing.assert_array_equal(got, table[ids])
    div_parts = [table[0:4], table[4:7], table[7:10]]  # 10 ids over 3 partitions: 4, 3, 3
    np.testing.assert_array_equal(tx.nn.embedding_lookup(div_parts, ids).numpy(), table[ids])
    clipped = tx.nn.embedding_lookup(table, ids, max_norm=0.5).numpy()
    rows = table[ids]
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    np.testing.assert_allclose(clipped, rows * 0.5 / np.maximum(norms, 0.5), rtol=1e-12)
    g, = _grad(lambda t: tx.nn.embedding_lookup(t, ids), table)
    want = np.zeros_like(table)
    np.add.at(want, ids.reshape(-1), 1.0)
    np.testing.assert_array_equal(g, want)


def test_embedding_lookup_errors():
    table = _r(4, 2)
    with pytest.raises(tx.errors.InvalidArgumentError, match="Gather"):
        tx.nn.embedding_lookup(table, np.array([4], np.int32))
    with pytest.raises(tx.errors.InvalidArgumentError, match="ids outside their partition"):
        tx.nn.embedding_lookup([table[0::2], table[1::2]], np.array([5], np.int32), partition_strategy="mod")
    # "div" partitions whose sizes do not follow its layout (the larger ones first): an id that
    # falls past its partition's end is named, with the layout, instead of failing inside Gather.
    uneven = [table[0:1], table[1:4]]  # "div" expects 2 and 2 rows
    for bad in ([1], [4], [-1]):
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"partition sizes \[1, 3\]; 'div' puts ids"):
            tx.nn.embedding_lookup(uneven, np.array(bad, np.int32))
    np.testing.assert_array_equal(tx.nn.embedding_lookup(uneven, np.array([0, 2], np.int32)).numpy(),
                                  table[[0, 1]])
    with pytest.raises(ValueError, match="partition_strategy"):
        tx.nn.embedding_lookup(table, np.array([0], np.int32), partition_strategy="x")
    with pytest.raises(TypeError, match="int32 or int64"):
        tx.nn.embedding_lookup(table, np.array([0.0]))


# ---------------------------------------------------------------------------- convolution references


def _conv_nd_ref(x, w, strides, padding, dilations):
    """Channels-last N-d convolution (x [N, *S, C], w [*K, C, O]) in float64."""
    n = x.ndim - 2
    sp, k = x.shape[1:-1], w.shape[:n]
    outs, pads = [], []
    for i in range(n):
        eff = (k[i] - 1) * dilations[i] + 1
        if padding == "VALID":
            outs.append((sp[i] - eff + strides[i]) // strides[i])
            pads.append(0)
        else:
            o = (sp[i] + strides[i] - 1) // strides[i]
            outs.append(o)
            pads.append(max(0, (o - 1) * strides[i] + eff - sp[i]) // 2)
    xp = np.zeros([x.shape[0]] + [pads[i] + outs[i] * strides[i] + k[i] * dilations[i] + sp[i] for i in range(n)]
                  + [x.shape[-1]])
    xp[(slice(None),) + tuple(slice(pads[i], pads[i] + sp[i]) for i in range(n))] = x
    y = np.zeros([x.shape[0]] + outs + [w.shape[-1]])
    for tap in np.ndindex(*k):
        sl = tuple(slice(tap[i] * dilations[i], tap[i] * dilations[i] + outs[i] * strides[i], strides[i])
                   for i in range(n))
        y += xp[(slice(None),) + sl] @ w[tap]
    return y


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride,dilation", [(1, 1), (2, 1), (1, 2)])
def test_conv1d(padding, stride, dilation):
    x, w = _r(2, 9, 3), _r(3, 3, 4)
    want = _conv_nd_ref(x, w, [stride], padding, [dilation])
    np.testing.assert_allclose(tx.nn.conv1d(x, w, stride, padding, dilations=dilation).numpy(), want, rtol=1e-12)
    got_ncw = tx.nn.conv1d(x.transpose(0, 2, 1), w, stride, padding, data_format="NCW", dilations=dilation)
    np.testing.assert_allclose(got_ncw.numpy(), want.transpose(0, 2, 1), rtol=1e-12)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv3d_and_gradients(padding):
    x, w = _r(1, 4, 5, 4, 2), _r(2, 3, 2, 2, 3)
    want = _conv_nd_ref(x, w, [1, 2, 1], padding, [1, 1, 1])
    np.testing.assert_allclose(tx.nn.conv3d(x, w, [1, 1, 2, 1, 1], padding).numpy(), want, rtol=1e-12)
    ncdhw = tx.nn.conv3d(x.transpose(0, 4, 1, 2, 3), w, [1, 1, 1, 2, 1], padding, data_format="NCDHW")
    np.testing.assert_allclose(ncdhw.numpy(), want.transpose(0, 4, 1, 2, 3), rtol=1e-12)
    _check_grad(lambda a, b: tx.nn.conv3d(a, b, [1, 1, 2, 1, 1], padding), _r(1, 3, 4, 3, 2), _r(2, 2, 2, 2, 2),
                dy=None, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n,padding,rates", [(1, "SAME", [2]), (2, "SAME", [2, 3]), (2, "VALID", [3, 2]),
                                             (3, "SAME", [2, 1, 2]), (2, "SAME", [1, 1])])
def test_convolution_dilated_matches_reference(n, padding, rates):
    x = _r(*([2] + [7, 8, 6][:n] + [2]))
    w = _r(*([3, 2, 2][:n] + [2, 3]))
    want = _conv_nd_ref(x, w, [1] * n, padding, rates)
    got = tx.nn.convolution(x, w, padding=padding, dilations=rates)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-11, atol=1e-12)
    _check_grad(lambda a, b: tx.nn.convolution(a, b, padding=padding, dilations=rates),
                _r(*([1] + [5, 4, 4][:n] + [1])), _r(*([2, 2, 2][:n] + [1, 2])), rtol=1e-6, atol=1e-8)


def test_convolution_strided_and_errors():
    x, w = _r(2, 8, 8, 3), _r(3, 3, 3, 2)
    np.testing.assert_allclose(tx.nn.convolution(x, w, strides=2, padding="SAME").numpy(),
                               _conv_nd_ref(x, w, [2, 2], "SAME", [1, 1]), rtol=1e-12)
    with pytest.raises(ValueError, match="strides > 1"):
        tx.nn.convolution(x, w, strides=2, dilations=2)
    with pytest.raises(ValueError, match="data_format"):
        tx.nn.convolution(x, w, data_format="NWC")


def test_atrous_conv2d():
    x, w = _r(1, 9, 9, 2), _r(3, 3, 2, 2)
    for rate in (1, 2, 3):
        np.testing.assert_allclose(tx.nn.atrous_conv2d(x, w, rate, "SAME").numpy(),
                                   _conv_nd_ref(x, w, [1, 1], "SAME", [rate, rate]), rtol=1e-11, atol=1e-12)
    with pytest.raises(ValueError, match="rate"):
        tx.nn.atrous_conv2d(x, w, 0, "SAME")


def _depthwise_ref(x, w, strides, padding, rates):
    c, m = w.shape[2], w.shape[3]
    outs = [_conv_nd_ref(x[..., i:i + 1], w[:, :, i:i + 1, :], strides, padding, rates) for i in range(c)]
    return np.concatenate(outs, axis=-1).reshape(outs[0].shape[:-1] + (c * m,))


@pytest.mark.parametrize("rates", [[1, 1], [2, 2]])
def test_depthwise_and_separable_conv2d(rates):
    x, dw, pw = _r(2, 7, 7, 3), _r(3, 3, 3, 2), _r(1, 1, 6, 4)
    want = _depthwise_ref(x, dw, [1, 1], "SAME", rates)
    got = tx.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME", dilations=rates)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-11, atol=1e-12)
    sep = tx.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME", dilations=rates)
    np.testing.assert_allclose(sep.numpy(), want @ pw[0, 0], rtol=1e-11, atol=1e-12)
    _check_grad(lambda a, b, c: tx.nn.separable_conv2d(a, b, c, [1, 1, 1, 1], "VALID", dilations=rates),
                _r(1, 6, 6, 2), _r(2, 2, 2, 1), _r(1, 1, 2, 2), rtol=1e-6, atol=1e-8)


def _transpose_check(fn_fwd, fn_t, x_shape, y_shape, w):
    """conv_transpose is the adjoint of conv: <conv(x), y> == <x, conv_transpose(y)>."""
    x, y = _r(*x_shape), _r(*y_shape)
    lhs = (fn_fwd(x, w).numpy() * y).sum()
    rhs = (x * fn_t(y, w).numpy()).sum()
    np.testing.assert_allclose(lhs, rhs, rtol=1e-11)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv_transposes_are_adjoints(padding):
    w1 = _r(3, 2, 4)
    out1 = _conv_nd_ref(np.zeros((2, 9, 2)), w1, [2], padding, [1]).shape
    _transpose_check(lambda x, w: tx.nn.conv1d(x, w, 2, padding),
                     lambda y, w: tx.nn.conv1d_transpose(y, w, [2, 9, 2], 2, padding), (2, 9, 2), out1, w1)
    w2 = _r(3, 2, 2, 3)
    out2 = _conv_nd_ref(np.zeros((1, 7, 8, 2)), w2, [2, 1], padding, [1, 1]).shape
    _transpose_check(lambda x, w: tx.nn.conv2d(x, w, [1, 2, 1, 1], padding),
                     lambda y, w: tx.nn.conv2d_transpose(y, w, [1, 7, 8, 2], [1, 2, 1, 1], padding), (1, 7, 8, 2),
                     out2, w2)
    out2d = _conv_nd_ref(np.zeros((1, 7, 8, 2)), w2, [1, 1], padding, [2, 2]).shape
    _transpose_check(lambda x, w: tx.nn.conv2d(x, w, 1, padding, dilations=2),
                     lambda y, w: tx.nn.conv2d_transpose(y, w, [1, 7, 8, 2], 1, padding, dilations=2), (1, 7, 8, 2),
                     out2d, w2)
    w3 = _r(2, 2, 3, 2, 3)
    out3 = _conv_nd_ref(np.zeros((1, 5, 4, 6, 2)), w3, [2, 1, 2], padding, [1, 1, 1]).shape
    _transpose_check(lambda x, w: tx.nn.conv3d(x, w, [1, 2, 1, 2, 1], padding),
                     lambda y, w: tx.nn.conv3d_transpose(y, w, [1, 5, 4, 6, 2], [1, 2, 1, 2, 1], padding),
                     (1, 5, 4, 6, 2), out3, w3)


def test_conv3d_transpose_gradients():
    y, w = _r(1, 2, 2, 2, 3), _r(2, 2, 2, 2, 3)
    _check_grad(lambda a, b: tx.nn.conv3d_transpose(a, b, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1], "SAME"), y, w,
                rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------------- pooling


def _pool_ref(x, window, strides, padding, kind):
    n = x.ndim - 2
    sp = x.shape[1:-1]
    outs, pads = [], []
    for i in range(n):
        if padding == "VALID":
            outs.append((sp[i] - window[i] + strides[i]) // strides[i])
            pads.append(0)
        else:
            o = (sp[i] + strides[i] - 1) // strides[i]
            outs.append(o)
            pads.append(max(0, (o - 1) * strides[i] + window[i] - sp[i]) // 2)
    y = np.zeros([x.shape[0]] + outs + [x.shape[-1]])
    for o in np.ndindex(*outs):
        sl = tuple(slice(max(o[i] * strides[i] - pads[i], 0), min(o[i] * strides[i] - pads[i] + window[i], sp[i]))
                   for i in range(n))
        win = x[(slice(None),) + sl]
        axes = tuple(range(1, n + 1))
        y[(slice(None),) + o] = win.max(axis=axes) if kind == "MAX" else win.mean(axis=axes)
    return y


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("kind", ["MAX", "AVG"])
def test_pools(n, padding, kind):
    dt = np.float32 if (kind == "MAX" and n == 3) else np.float64
    x = _r(*([2] + [7, 6, 5][:n] + [3]), dtype=dt)
    window, strides = [3, 2, 2][:n], [2, 1, 2][:n]
    want = _pool_ref(x.astype(np.float64), window, strides, padding, kind)
    fns = {("MAX", 1): tx.nn.max_pool1d, ("MAX", 2): tx.nn.max_pool2d, ("MAX", 3): tx.nn.max_pool3d,
           ("AVG", 1): tx.nn.avg_pool1d, ("AVG", 2): tx.nn.avg_pool2d, ("AVG", 3): tx.nn.avg_pool3d}
    tol = 1e-6 if dt == np.float32 else 1e-12
    np.testing.assert_allclose(fns[(kind, n)](x, window, strides, padding).numpy(), want, rtol=tol)
    generic = tx.nn.max_pool if kind == "MAX" else tx.nn.avg_pool
    np.testing.assert_allclose(generic(x, window, strides, padding).numpy(), want, rtol=tol)
    np.testing.assert_allclose(tx.nn.pool(x, window, kind, strides, padding).numpy(), want, rtol=tol)
    perm = [0, n + 1] + list(range(1, n + 1))
    fmt = {1: "NCW", 2: "NCHW", 3: "NCDHW"}[n]
    got = fns[(kind, n)](x.transpose(perm), window, strides, padding, data_format=fmt).numpy()
    np.testing.assert_allclose(got, want.transpose(perm), rtol=tol)


def test_avg_pool3d_gradient():
    _check_grad(lambda t: tx.nn.avg_pool3d(t, [2, 2, 3], [1, 2, 2], "SAME"), _r(1, 3, 4, 5, 2), rtol=1e-6, atol=1e-8)


def test_max_pool3d_gradient_matches_finite_differences():
    # float32 only (as TensorFlow's kernel); distinct, well-separated values keep the argmax stable.
    x = (RNG.permutation(60).reshape(1, 3, 4, 5, 1) * 0.1).astype(np.float32)
    dy = _r(1, 2, 2, 3, 1).astype(np.float32)
    got, = _grad(lambda t: tx.nn.max_pool3d(t, 2, 2, "SAME"), x, dy=dy)
    want, = _numeric(lambda t: tx.nn.max_pool3d(t, 2, 2, "SAME"), x, dy=dy.astype(np.float64), eps=1e-2)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_dilated_pool():
    x = _r(2, 9, 8, 2)
    for kind in ("MAX", "AVG"):
        got = tx.nn.pool(x, [2, 3], kind, padding="VALID", dilations=[2, 2]).numpy()
        # A dilated window is an undilated one over the input subsampled by the rates.
        want = np.zeros((2, 7, 4, 2))
        for i in range(7):
            for j in range(4):
                win = x[:, i:i + 3:2, j:j + 5:2, :]
                want[:, i, j] = win.max(axis=(1, 2)) if kind == "MAX" else win.mean(axis=(1, 2))
        np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="SAME"):
        tx.nn.pool(x, [2, 2], "MAX", padding="SAME", dilations=[2, 2])
    with pytest.raises(ValueError, match="strides > 1"):
        tx.nn.pool(x, [2, 2], "MAX", strides=[2, 2], dilations=[2, 2])
    with pytest.raises(ValueError, match="pooling_type"):
        tx.nn.pool(x, [2, 2], "MIN")


# ---------------------------------------------------------------------------- block rearrangements and LRN


def test_space_batch_depth_round_trips_and_gradients():
    x = _r(2, 5, 4, 3)
    s2b = tx.nn.space_to_batch(x, [2, 2], [[1, 0], [0, 2]])
    assert s2b.shape == (8, 3, 3, 3)
    np.testing.assert_array_equal(tx.nn.batch_to_space(s2b, [2, 2], [[1, 0], [0, 2]]).numpy(), x)
    d = tx.nn.space_to_depth(_r(2, 4, 6, 3), 2)
    assert d.shape == (2, 2, 3, 12)
    y = _r(2, 4, 6, 3)
    np.testing.assert_array_equal(tx.nn.depth_to_space(tx.nn.space_to_depth(y, 2), 2).numpy(), y)
    _check_grad(lambda t: tx.nn.space_to_batch(t, [2, 2], [[1, 0], [0, 2]]), _r(1, 3, 2, 2), dy=_r(4, 2, 2, 2))
    _check_grad(lambda t: tx.nn.depth_to_space(t, 2), _r(1, 2, 2, 8), dy=_r(1, 4, 4, 2))


def test_space_batch_depth_errors_name_the_op():
    with pytest.raises(tx.errors.InvalidArgumentError, match="SpaceToBatchND.*divisible"):
        tx.nn.space_to_batch(_r(1, 5, 4, 1), [2, 2], [[0, 0], [0, 0]])
    with pytest.raises(tx.errors.InvalidArgumentError, match="SpaceToBatchND.*>= 1"):
        tx.nn.space_to_batch(_r(1, 4, 4, 1), [0, 2], [[0, 0], [0, 0]])
    with pytest.raises(tx.errors.InvalidArgumentError, match="SpaceToBatchND.*non-negative"):
        tx.nn.space_to_batch(_r(1, 4, 4, 1), [2, 2], [[-2, 0], [0, 0]])
    with pytest.raises(tx.errors.InvalidArgumentError, match="BatchToSpaceND.*divisible"):
        tx.nn.batch_to_space(_r(3, 2, 2, 1), [2, 2], [[0, 0], [0, 0]])
    with pytest.raises(tx.errors.InvalidArgumentError, match="SpaceToDepth.*divisible"):
        tx.nn.space_to_depth(_r(1, 3, 4, 1), 2)
    with pytest.raises(tx.errors.InvalidArgumentError, match="DepthToSpace.*divisible"):
        tx.nn.depth_to_space(_r(1, 2, 2, 6), 2)
    with pytest.raises(Exception, match="block_size"):
        tx.nn.depth_to_space(_r(1, 2, 2, 4), 1)


def test_conv3d_and_pool3d_errors_name_the_op():
    with pytest.raises(tx.errors.InvalidArgumentError, match="Conv3D"):
        tx.nn.conv3d(_r(1, 4, 4, 4, 3), _r(2, 2, 2, 2, 4), 1, "SAME")
    with pytest.raises(tx.errors.InvalidArgumentError, match="Conv3D.*negative"):
        tx.nn.conv3d(_r(1, 1, 4, 4, 3), _r(3, 2, 2, 3, 4), 1, "VALID")
    with pytest.raises(tx.errors.InvalidArgumentError, match="Conv3DBackpropInputV2.*out_backprop"):
        tx.nn.conv3d_transpose(_r(1, 2, 2, 2, 2), _r(2, 2, 2, 3, 2), [1, 4, 4, 4, 3], 1, "VALID")
    with pytest.raises(tx.errors.InvalidArgumentError, match="MaxPool3D.*negative"):
        tx.nn.max_pool3d(_r(1, 1, 4, 4, 1, dtype=np.float32), 3, 1, "VALID")
    with pytest.raises(tx.errors.InvalidArgumentError, match="AvgPool3D|rank"):
        tx.nn.avg_pool3d(_r(4, 4, 4, 1), 2, 2, "VALID")


def _lrn_np(x, r, bias, alpha, beta):
    sq = x.astype(np.float64) ** 2
    s = np.stack([sq[..., max(0, j - r):j + r + 1].sum(-1) for j in range(x.shape[-1])], -1)
    return x / (bias + alpha * s) ** beta


def test_lrn_forward():
    x = _r(2, 3, 3, 8, dtype=np.float32)
    np.testing.assert_allclose(tx.nn.lrn(x, 2, 1.5, 0.3, 0.75).numpy(), _lrn_np(x, 2, 1.5, 0.3, 0.75), rtol=1e-5)
    np.testing.assert_allclose(tx.nn.local_response_normalization(x).numpy(), _lrn_np(x, 5, 1.0, 1.0, 0.5), rtol=1e-5)
    with pytest.raises(tx.errors.InvalidArgumentError, match="LRN.*depth_radius"):
        tx.nn.lrn(x, -1)


def test_lrn_gradient_matches_finite_differences():
    # LRN has float32 kernels only (as TensorFlow); differences of the float64 reference instead.
    x = _r(1, 2, 2, 6, dtype=np.float32)
    dy = _r(1, 2, 2, 6)
    got, = _grad(lambda t: tx.nn.lrn(t, 2, 1.5, 0.3, 0.75), x, dy=dy.astype(np.float32))
    x64 = x.astype(np.float64)
    want = np.zeros_like(x64)
    for idx in np.ndindex(x.shape):
        hi, lo = x64.copy(), x64.copy()
        hi[idx] += 1e-6
        lo[idx] -= 1e-6
        want[idx] = ((_lrn_np(hi, 2, 1.5, 0.3, 0.75) - _lrn_np(lo, 2, 1.5, 0.3, 0.75)) * dy).sum() / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_second_derivatives_of_lrn_and_max_pool3d_are_explicit_errors():
    x = tx.constant(_r(1, 2, 2, 4, dtype=np.float32))
    for fn, what in ((lambda t: tx.nn.lrn(t, 1), "LRN"), (lambda t: tx.nn.max_pool3d(tx.reshape(t, [1, 2, 2, 4, 1]),
                                                                                       2, 1, "SAME"), "MaxPool3D")):
        with tx.GradientTape() as outer:
            outer.watch(x)
            with tx.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            g = inner.gradient(y, x)
        with pytest.raises(tx.errors.UnimplementedError, match=what):
            outer.gradient(g, x)


def test_huge_sizes_are_errors_not_overflows():
    i64 = lambda v: tx.constant(np.array(v, np.int64))  # noqa: E731
    x = np.zeros((1, 4, 4, 1), np.float32)
    with pytest.raises(tx.errors.InvalidArgumentError, match="SpaceToBatchND.*too large"):
        tx.nn.space_to_batch(x, i64([2 ** 40, 2]), i64([[0, 0], [0, 0]]))
    with pytest.raises(tx.errors.InvalidArgumentError, match="SpaceToBatchND.*too large"):
        tx.nn.space_to_batch(x, i64([2, 2]), i64([[2 ** 62, 2 ** 62], [0, 0]]))
    with pytest.raises(tx.errors.InvalidArgumentError, match="BatchToSpaceND.*too large"):
        tx.nn.batch_to_space(np.zeros((4, 4, 4, 1), np.float32), i64([2, 2]), i64([[2 ** 62, 2 ** 62], [0, 0]]))
    with pytest.raises(tx.errors.InvalidArgumentError, match="DepthToSpace.*too large"):
        tx.nn.depth_to_space(x, 2 ** 40)
    with pytest.raises(tx.errors.InvalidArgumentError, match="Conv3D.*too large"):
        tx.nn.conv3d(np.zeros((1, 4, 4, 4, 1)), np.zeros((2, 2, 2, 1, 1)), 1, "SAME", dilations=[1, 2 ** 40, 1, 1, 1])


def _ctc_brute(logits, labels, label_length, logit_length, blank):
    """Per-entry -log p over all alignments (brute force), batch-major logits [B, T, C]."""
    import itertools
    out = []
    for b in range(logits.shape[0]):
        t = int(logit_length[b])
        lab = tuple(int(v) for v in labels[b, :label_length[b]])
        x = logits[b, :t].astype(np.float64)
        logp = x - scipy.special.logsumexp(x, axis=1, keepdims=True)
        total = []
        for path in itertools.product(range(logits.shape[2]), repeat=t):
            col, prev = [], None
            for k in path:
                if k != blank and k != prev:
                    col.append(k)
                prev = k
            if tuple(col) == lab:
                total.append(sum(logp[i, k] for i, k in enumerate(path)))
        out.append(-scipy.special.logsumexp(total))
    return np.array(out)


@pytest.mark.parametrize("blank_index", [None, 3, -1, 1])
def test_ctc_loss_matches_brute_force(blank_index):
    logits = _r(2, 5, 4)  # batch-major
    labels = np.array([[0, 2, 2], [1, 0, 0]], np.int32)
    label_length, logit_length = np.array([3, 1], np.int32), np.array([5, 4], np.int32)
    blank = 0 if blank_index is None else blank_index % 4
    labels = np.where(labels >= blank, labels + 1, labels) if blank != 3 else labels  # labels avoid the blank
    got = tx.nn.ctc_loss(labels, logits, label_length, logit_length, logits_time_major=False,
                         blank_index=blank_index).numpy()
    np.testing.assert_allclose(got, _ctc_brute(logits, labels, label_length, logit_length, blank), rtol=1e-10)
    tm = tx.nn.ctc_loss(labels, logits.transpose(1, 0, 2), label_length, logit_length, blank_index=blank_index)
    np.testing.assert_allclose(tm.numpy(), got, rtol=1e-12)


def test_ctc_loss_gradient_matches_finite_differences():
    labels = np.array([[0, 1, 1], [2, 0, 0]], np.int32)
    lab_len, log_len = np.array([3, 2], np.int32), np.array([5, 4], np.int32)
    _check_grad(lambda t: tx.nn.ctc_loss(labels, t, lab_len, log_len, blank_index=3), _r(5, 2, 4),
                dy=np.array([0.7, -1.3]), rtol=1e-5, atol=1e-7)


def test_ctc_loss_errors():
    with pytest.raises(tx.errors.InvalidArgumentError, match="CTCLoss.*Not enough time"):
        tx.nn.ctc_loss(np.array([[0, 1, 1, 2]], np.int32), _r(3, 1, 4), [4], [3], blank_index=3)
    with pytest.raises(tx.errors.InvalidArgumentError, match="CTCLoss.*sequence_length"):
        tx.nn.ctc_loss(np.array([[0]], np.int32), _r(3, 1, 4), [1], [4], blank_index=3)
    with pytest.raises(ValueError, match="blank_index"):
        tx.nn.ctc_loss(np.array([[0]], np.int32), _r(3, 1, 4), [1], [3], blank_index=4)
    x = tx.constant(_r(5, 1, 4))
    with tx.GradientTape() as outer:
        outer.watch(x)
        with tx.GradientTape() as inner:
            inner.watch(x)
            loss = tx.nn.ctc_loss(np.array([[0, 1]], np.int32), x, [2], [5], blank_index=3)
        g = inner.gradient(loss, x)
    with pytest.raises(tx.errors.InvalidArgumentError, match="second derivative of ctc_loss"):
        outer.gradient(g, x)
