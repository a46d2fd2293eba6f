"""tx.nn's extended functions against TensorFlow (skipped without it): the same inputs through
tf.nn and tx.nn, forward values and gradients (tf.GradientTape vs tx.GradientTape)."""

import numpy as np
import pytest

import tensorflux as tx
import tf_oracle

tf = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(5)


def _r(*shape, dtype=np.float32, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def _compare(tx_fn, tf_fn, *xs, rtol=1e-5, atol=1e-6, grads=True):
    """Forward values and input gradients (for a random output cotangent) agree."""
    tf_in = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for t in tf_in:
            tape.watch(t)
        want = tf_oracle.call(tf_fn, *tf_in)
    tx_in = [tx.constant(x) for x in xs]
    with tx.GradientTape() as ttape:
        for t in tx_in:
            ttape.watch(t)
        got = tx_fn(*tx_in)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol)
    if not grads:
        return
    dy = RNG.uniform(-1, 1, size=want.shape).astype(want.dtype.as_numpy_dtype)
    want_g = tf_oracle.call(tape.gradient, want, tf_in, output_gradients=tf.constant(dy))
    got_g = ttape.gradient(got, tx_in, output_gradients=tx.constant(dy))
    for x, g, w in zip(xs, got_g, want_g):
        # None (not connected) compares as zeros; TensorFlow's IndexedSlices as dense.
        w = np.zeros_like(x) if w is None else tf.convert_to_tensor(w).numpy()
        g = np.zeros_like(x) if g is None else g.numpy()
        np.testing.assert_allclose(g, w, rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_erfc_erfinv(dt):
    _compare(tx.math.erfc, tf.math.erfc, _r(50, dtype=dt, low=-4, high=6))
    _compare(tx.math.erfinv, tf.math.erfinv, _r(50, dtype=dt, low=-0.99, high=0.99), rtol=1e-5)


@pytest.mark.parametrize("approximate", [False, True])
def test_gelu(approximate):
    _compare(lambda x: tx.nn.gelu(x, approximate), lambda x: tf.nn.gelu(x, approximate), _r(4, 6, low=-5, high=5))


def test_silu_swish_log_sigmoid():
    x = _r(4, 6, low=-20, high=20)
    _compare(tx.nn.silu, tf.nn.silu, x)
    _compare(lambda t: tx.nn.swish(t, beta=0.7), lambda t: tf.nn.silu(t, beta=0.7), x)
    _compare(tx.nn.log_sigmoid, tf.math.log_sigmoid, x)


@pytest.mark.parametrize("axis", [0, 1, -2, -1])
def test_softmax_log_softmax_axis(axis):
    x = _r(3, 4, 5, low=-5, high=5)
    _compare(lambda t: tx.nn.softmax(t, axis=axis), lambda t: tf.nn.softmax(t, axis=axis), x)
    _compare(lambda t: tx.nn.log_softmax(t, axis=axis), lambda t: tf.nn.log_softmax(t, axis=axis), x)


@pytest.mark.parametrize("shape,axis", [((5,), -1), ((4, 5), 0), ((2, 3, 4), 1)])
def test_softmax_cross_entropy_axis(shape, axis):
    p = _r(*shape, low=0, high=1)
    p /= p.sum(axis=axis, keepdims=True)
    _compare(lambda t: tx.nn.softmax_cross_entropy_with_logits(p, t, axis=axis),
             lambda t: tf.nn.softmax_cross_entropy_with_logits(p, t, axis=axis), _r(*shape, low=-5, high=5))


@pytest.mark.parametrize("axis", [None, 0, [0, 1]])
def test_l2_normalize(axis):
    _compare(lambda t: tx.nn.l2_normalize(t, axis), lambda t: tf.math.l2_normalize(t, axis), _r(3, 4))


def test_moments_family():
    x, w = _r(4, 5, 3), _r(4, 5, 1, low=0, high=2)
    for i in range(2):
        _compare(lambda t: tx.nn.moments(t, [0, 1])[i], lambda t: tf.nn.moments(t, [0, 1])[i], x)
        _compare(lambda t: tx.nn.weighted_moments(t, [0, 1], w, keepdims=True)[i],
                 lambda t: tf.nn.weighted_moments(t, [0, 1], w, keepdims=True)[i], x)
        _compare(lambda c, m, v: tx.nn.normalize_moments(c, m, v, 0.3)[i],
                 lambda c, m, v: tf.nn.normalize_moments(c, m, v, 0.3)[i], np.float32(20), _r(3), _r(3, low=1, high=3))


def test_weighted_cross_entropy():
    z = _r(4, 3, low=0, high=1)
    _compare(lambda x: tx.nn.weighted_cross_entropy_with_logits(z, x, 2.5),
             lambda x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.5), _r(4, 3, low=-10, high=10))


def test_embedding_lookup():
    ids = np.array([[0, 9, 4], [3, 3, 7]], np.int32)
    _compare(lambda p: tx.nn.embedding_lookup(p, ids), lambda p: tf.nn.embedding_lookup(p, ids), _r(10, 3))
    _compare(lambda p: tx.nn.embedding_lookup(p, ids, max_norm=0.8),
             lambda p: tf.nn.embedding_lookup(p, ids, max_norm=0.8), _r(10, 3))
    _compare(lambda a, b, c: tx.nn.embedding_lookup([a, b, c], ids),
             lambda a, b, c: tf.nn.embedding_lookup([a, b, c], ids), _r(4, 3), _r(3, 3), _r(3, 3))
    mod = tf.compat.v1.nn.embedding_lookup
    _compare(lambda a, b, c: tx.nn.embedding_lookup([a, b, c], ids, partition_strategy="mod"),
             lambda a, b, c: mod([a, b, c], ids, partition_strategy="mod"), _r(4, 3), _r(3, 3), _r(3, 3))


@pytest.mark.parametrize("fmt", ["NWC", "NCW"])
@pytest.mark.parametrize("stride,dilation,padding", [(1, 1, "SAME"), (2, 1, "VALID"), (1, 2, "SAME")])
def test_conv1d(fmt, stride, dilation, padding):
    # TensorFlow's CPU Conv2D has no NCHW kernel: NCW is compared with its NWC result transposed.
    def tf_fn(x, w):
        if fmt == "NWC":
            return tf.nn.conv1d(x, w, stride, padding, fmt, dilation)
        return tf.transpose(tf.nn.conv1d(tf.transpose(x, [0, 2, 1]), w, stride, padding, "NWC", dilation), [0, 2, 1])

    x = _r(2, 9, 3) if fmt == "NWC" else _r(2, 3, 9)
    _compare(lambda a, w: tx.nn.conv1d(a, w, stride, padding, fmt, dilation), tf_fn, x, _r(3, 3, 4), rtol=1e-4)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides,dilations", [(1, 1), ([1, 2, 1, 2, 1], 1), (1, [1, 2, 1, 2, 1])])
def test_conv3d(padding, strides, dilations):
    _compare(lambda x, w: tx.nn.conv3d(x, w, strides, padding, dilations=dilations),
             lambda x, w: tf.nn.conv3d(x, w, [1, 1, 1, 1, 1] if strides == 1 else strides, padding,
                                       dilations=[1, 1, 1, 1, 1] if dilations == 1 else dilations),
             _r(2, 5, 6, 5, 2), _r(2, 3, 2, 2, 3), rtol=1e-4)


@pytest.mark.parametrize("n,padding,rates", [(1, "SAME", [2]), (2, "SAME", [2, 3]), (2, "VALID", [3, 2]),
                                             (3, "SAME", [2, 1, 2]), (2, "VALID", [1, 1])])
def test_convolution(n, padding, rates):
    x = _r(*([2] + [7, 8, 6][:n] + [2]))
    w = _r(*([3, 2, 2][:n] + [2, 3]))
    _compare(lambda a, b: tx.nn.convolution(a, b, padding=padding, dilations=rates),
             lambda a, b: tf.nn.convolution(a, b, padding=padding, dilations=rates), x, w, rtol=1e-4)


def test_atrous_depthwise_separable():
    x = _r(1, 9, 9, 2)
    _compare(lambda a, b: tx.nn.atrous_conv2d(a, b, 2, "SAME"), lambda a, b: tf.nn.atrous_conv2d(a, b, 2, "SAME"),
             x, _r(3, 3, 2, 3), rtol=1e-4)
    for rates in ([1, 1], [2, 2]):
        _compare(lambda a, b: tx.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "SAME", dilations=rates),
                 lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "SAME", dilations=rates), x, _r(3, 3, 2, 2),
                 rtol=1e-4)
        _compare(lambda a, b, c: tx.nn.separable_conv2d(a, b, c, [1, 1, 1, 1], "VALID", dilations=rates),
                 lambda a, b, c: tf.nn.separable_conv2d(a, b, c, [1, 1, 1, 1], "VALID", dilations=rates), x,
                 _r(2, 2, 2, 2), _r(1, 1, 4, 3), rtol=1e-4)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv_transposes(padding):
    y1 = tf.nn.conv1d(_r(2, 9, 2), _r(3, 2, 4), 2, padding)
    _compare(lambda a, b: tx.nn.conv1d_transpose(a, b, [2, 9, 2], 2, padding),
             lambda a, b: tf.nn.conv1d_transpose(a, b, [2, 9, 2], 2, padding), y1.numpy(), _r(3, 2, 4), rtol=1e-4)
    y2 = tf.nn.conv2d(_r(1, 7, 8, 2), _r(3, 2, 2, 3), [1, 2, 1, 1], padding)
    _compare(lambda a, b: tx.nn.conv2d_transpose(a, b, [1, 7, 8, 2], [1, 2, 1, 1], padding),
             lambda a, b: tf.nn.conv2d_transpose(a, b, [1, 7, 8, 2], [1, 2, 1, 1], padding), y2.numpy(),
             _r(3, 2, 2, 3), rtol=1e-4)
    y3 = tf.nn.conv3d(_r(1, 5, 4, 6, 2), _r(2, 2, 3, 2, 3), [1, 2, 1, 2, 1], padding)
    _compare(lambda a, b: tx.nn.conv3d_transpose(a, b, [1, 5, 4, 6, 2], [1, 2, 1, 2, 1], padding),
             lambda a, b: tf.nn.conv3d_transpose(a, b, [1, 5, 4, 6, 2], [1, 2, 1, 2, 1], padding), y3.numpy(),
             _r(2, 2, 3, 2, 3), rtol=1e-4)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pools(n, padding):
    x = RNG.permutation(2 * 7 * 6 * 5 * 3)[:2 * [7, 42, 210][n - 1] * 3].reshape([2] + [7, 6, 5][:n] + [3])
    x = (x * 0.01).astype(np.float32)  # distinct values: no ties in max windows
    window, strides = [3, 2, 2][:n], [2, 1, 2][:n]
    for kind in ("MAX", "AVG"):
        tx_fn = {"MAX": tx.nn.max_pool, "AVG": tx.nn.avg_pool}[kind]
        tf_fn = {"MAX": tf.nn.max_pool, "AVG": tf.nn.avg_pool}[kind]
        fmt = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]  # TensorFlow's eager MaxPool3D gradient needs it spelled out
        _compare(lambda t: tx_fn(t, window, strides, padding),
                 lambda t: tf_fn(t, window, strides, padding, data_format=fmt), x)
        _compare(lambda t: tx.nn.pool(t, window, kind, strides, padding),
                 lambda t: tf.nn.pool(t, window, kind, strides, padding, data_format=fmt), x)


@pytest.mark.parametrize("kind", ["MAX", "AVG"])
def test_dilated_pool(kind):
    x = (RNG.permutation(2 * 9 * 8 * 2).reshape(2, 9, 8, 2) * 0.01 - 1.5).astype(np.float32)
    _compare(lambda t: tx.nn.pool(t, [2, 3], kind, padding="VALID", dilations=[2, 2]),
             lambda t: tf.nn.pool(t, [2, 3], kind, padding="VALID", dilations=[2, 2]), x)
    for fn in (tx.nn.pool, tf.nn.pool):  # both refuse SAME with dilation
        with pytest.raises(ValueError, match="SAME"):
            fn(x, [2, 3], kind, padding="SAME", dilations=[2, 2])


def test_block_rearrangements():
    _compare(lambda t: tx.nn.space_to_batch(t, [2, 3], [[1, 0], [0, 1]]),
             lambda t: tf.nn.space_to_batch(t, [2, 3], [[1, 0], [0, 1]]), _r(2, 3, 5, 2))
    _compare(lambda t: tx.nn.batch_to_space(t, [2, 3], [[1, 0], [0, 2]]),
             lambda t: tf.batch_to_space(t, [2, 3], [[1, 0], [0, 2]]), _r(12, 2, 2, 3))
    _compare(lambda t: tx.nn.space_to_depth(t, 2), lambda t: tf.nn.space_to_depth(t, 2), _r(2, 4, 6, 3))
    _compare(lambda t: tx.nn.depth_to_space(t, 3), lambda t: tf.nn.depth_to_space(t, 3), _r(1, 2, 2, 18))


@pytest.mark.parametrize("args", [(5, 1.0, 1.0, 0.5), (2, 2.0, 0.5, 0.75), (0, 1.0, 1.0, 1.0)])
def test_lrn(args):
    _compare(lambda t: tx.nn.lrn(t, *args), lambda t: tf.nn.lrn(t, *args), _r(2, 3, 3, 9), rtol=1e-4)


@pytest.mark.parametrize("blank_index", [None, -1, 2])
@pytest.mark.parametrize("time_major", [True, False])
def test_ctc_loss(blank_index, time_major):
    labels = np.array([[1, 3, 3, 4], [2, 1, 0, 0], [4, 0, 0, 0]], np.int32)
    blank = {None: 0, -1: 5, 2: 2}[blank_index]
    labels = np.where(labels == blank, (blank + 1) % 6 or 1, labels).astype(np.int32)  # no label is the blank
    label_length, logit_length = np.array([4, 2, 1], np.int32), np.array([8, 6, 3], np.int32)
    logits = _r(8, 3, 6) if time_major else _r(3, 8, 6)
    _compare(lambda t: tx.nn.ctc_loss(labels, t, label_length, logit_length, time_major, blank_index=blank_index),
             lambda t: tf.nn.ctc_loss(labels, t, label_length, logit_length, time_major, blank_index=blank_index),
             logits, rtol=1e-4, atol=1e-5)
