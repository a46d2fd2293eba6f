"""Gradients of whole models: second order on activations, a Hessian-vector product of an MLP
loss checked against finite differences of its gradient, and (with tensorflow-cpu installed)
gradients of an MLP with softmax cross-entropy and of a CNN with batch norm equal TensorFlow's."""

import numpy as np
import pytest

import tensorflux as tx


def _mlp(lib, nn, x, params, act):
    h = x
    for i in range(0, len(params), 2):
        h = nn.bias_add(lib.matmul(h, params[i]), params[i + 1])
        if i + 2 < len(params):
            h = act(h)
    return h


def _mlp_params(rng, sizes, dtype):
    out = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        out += [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(dtype), (rng.standard_normal(b) * 0.1).astype(dtype)]
    return out


@pytest.mark.parametrize("act", ["tanh", "sigmoid", "softplus", "elu"])
def test_second_derivative_of_activations(act):
    xv = np.linspace(-2.0, 2.0, 9)
    with tx.Graph().as_default():
        x = tx.constant(xv)
        y = getattr(tx.nn, act)(x) if hasattr(tx.nn, act) else getattr(tx.math, act)(x)
        (dx,) = tx.gradients(y, x)
        (ddx,) = tx.gradients(dx, x)
        with tx.Session() as s:
            got = s.run(ddx)
    f = {"tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "softplus": lambda v: np.log1p(np.exp(v)),
         "elu": lambda v: np.where(v > 0, v, np.expm1(v))}[act]
    h = 1e-4
    numeric = (f(xv + h) - 2 * f(xv) + f(xv - h)) / h**2
    mask = np.abs(xv) > 1e-3 if act == "elu" else np.ones_like(xv, bool)  # elu'' jumps at 0
    np.testing.assert_allclose(got[mask], numeric[mask], rtol=1e-5, atol=1e-5)


def test_hessian_vector_product_of_mlp_loss():
    rng = np.random.default_rng(0)
    sizes = [5, 7, 3]
    pv = _mlp_params(rng, sizes, np.float64)
    xv = rng.standard_normal((6, 5))
    yv = rng.integers(0, 3, 6).astype(np.int32)
    vv = [rng.standard_normal(p.shape) for p in pv]
    with tx.Graph().as_default():
        params = [tx.placeholder(tx.float64, p.shape) for p in pv]
        vs = [tx.constant(v) for v in vv]
        logits = _mlp(tx, tx.nn, tx.constant(xv), params, tx.tanh)
        loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=tx.constant(yv), logits=logits))
        grads = tx.gradients(loss, params)
        dot = tx.add_n([tx.reduce_sum(g * v) for g, v in zip(grads, vs)])
        hvp = tx.gradients(dot, params)
        with tx.Session() as s:
            def grad_at(values):
                return s.run(grads, dict(zip(params, values)))
            got = s.run(hvp, dict(zip(params, pv)))
            eps = 1e-5
            plus = grad_at([p + eps * v for p, v in zip(pv, vv)])
            minus = grad_at([p - eps * v for p, v in zip(pv, vv)])
    for g, a, b in zip(got, plus, minus):
        np.testing.assert_allclose(g, (a - b) / (2 * eps), rtol=1e-5, atol=1e-7)


_SECOND_ORDER_CASES = {
    "matmul": lambda x, c: tx.reduce_sum(tx.square(tx.matmul(x, c))),
    "batch_matmul": lambda x, c: tx.reduce_sum(tx.tanh(tx.linalg.matmul(tx.reshape(x, [2, 2, 3]),
                                                                          tx.reshape(c, [1, 3, 4])))),
    "mean_and_sum": lambda x, c: tx.reduce_mean(tx.square(tx.reduce_sum(x * x, axis=1))),
    "max": lambda x, c: tx.reduce_sum(tx.square(tx.reduce_max(x, axis=0))),
    "exp_log_div": lambda x, c: tx.reduce_sum(tx.exp(x) / (1.0 + tx.math.log(1.0 + x * x))),
    "pow_sqrt": lambda x, c: tx.reduce_sum(tx.pow(tx.sqrt(x * x + 1.0), 3.0)),
    "softmax": lambda x, c: tx.reduce_sum(tx.nn.softmax(x) * tx.transpose(c)),
    "log_softmax": lambda x, c: tx.reduce_sum(tx.nn.log_softmax(x) * tx.square(tx.transpose(c))),
    "relu_square": lambda x, c: tx.reduce_sum(tx.square(tx.nn.relu(x))),
    "sigmoid_tanh": lambda x, c: tx.reduce_sum(tx.sigmoid(x) * tx.tanh(x)),
}


@pytest.mark.parametrize("case", sorted(_SECOND_ORDER_CASES))
def test_hessian_vector_products(case):
    """H v via tx.gradients twice equals the central difference of the gradient along v."""
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((4, 3)) + 0.1
    cv = rng.standard_normal((3, 4))
    vv = rng.standard_normal((4, 3))
    with tx.Graph().as_default():
        x = tx.placeholder(tx.float64, [4, 3])
        f = _SECOND_ORDER_CASES[case](x, tx.constant(cv))
        (g,) = tx.gradients(f, x)
        (hv,) = tx.gradients(tx.reduce_sum(g * tx.constant(vv)), x)
        with tx.Session() as s:
            got = s.run(hv, {x: xv})
            eps = 1e-5
            numeric = (s.run(g, {x: xv + eps * vv}) - s.run(g, {x: xv - eps * vv})) / (2 * eps)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("is_training", [True, False])
def test_fused_batch_norm_gradients_match_composite(is_training):
    """FusedBatchNormV3 has no float64 kernel (as in TensorFlow): its float32 gradients must equal
    those of the same normalization composed from float64 primitives (whose gradients the
    conformance table checks against finite differences)."""
    rng = np.random.default_rng(4)
    xv = rng.standard_normal((3, 4, 5, 2)) * 2 + 1
    sv, ov = rng.standard_normal(2) + 1.5, rng.standard_normal(2)
    mv, vv = rng.standard_normal(2), rng.random(2) + 0.5
    wv = rng.standard_normal((3, 4, 5, 2))
    eps = 1e-3

    def grads(dtype, fused):
        with tx.Graph().as_default():
            x, scale, offset = (tx.constant(v.astype(dtype)) for v in (xv, sv, ov))
            mean, var = tx.constant(mv.astype(dtype)), tx.constant(vv.astype(dtype))
            if fused:
                y, _, _ = tx.nn.fused_batch_norm(x, scale, offset, mean=None if is_training else mean,
                                                 variance=None if is_training else var, epsilon=eps,
                                                 is_training=is_training)
            else:
                if is_training:
                    mean, var = tx.nn.moments(x, axes=[0, 1, 2])
                y = tx.nn.batch_normalization(x, mean, var, offset, scale, eps)
            loss = tx.reduce_sum(y * tx.constant(wv.astype(dtype)))
            with tx.Session() as s:
                return s.run(tx.gradients(loss, [x, scale, offset]))

    for a, b in zip(grads(np.float32, True), grads(np.float64, False)):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4)


# ------------------------------------------------------------------------------------ TensorFlow

tf = pytest.importorskip("tensorflow")


def _tf_grads(build, feeds):
    g = tf.Graph()
    with g.as_default():
        loss, params, placeholders = build(tf.compat.v1, tf.nn)
        grads = tf.compat.v1.gradients(loss, params)
        with tf.compat.v1.Session(graph=g) as s:
            return s.run(grads, dict(zip(placeholders, feeds)))


def _tx_grads(build, feeds):
    with tx.Graph().as_default():
        loss, params, placeholders = build(tx, tx.nn)
        grads = tx.gradients(loss, params)
        with tx.Session() as s:
            return s.run(grads, dict(zip(placeholders, feeds)))


def test_mlp_softmax_xent_gradients_match_tensorflow():
    rng = np.random.default_rng(1)
    pv = _mlp_params(rng, [12, 16, 16, 4], np.float32)
    xv = rng.standard_normal((8, 12)).astype(np.float32)
    labels = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 8)]

    def build(lib, nn):
        x = lib.placeholder(lib.float32, [None, 12])
        y = lib.placeholder(lib.float32, [None, 4])
        params = [lib.constant(p) for p in pv]
        logits = _mlp(lib, nn, x, params, nn.relu)
        loss = lib.reduce_mean(nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        return loss, params, [x, y]

    for a, b in zip(_tx_grads(build, [xv, labels]), _tf_grads(build, [xv, labels])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_cnn_with_batch_norm_gradients_match_tensorflow():
    rng = np.random.default_rng(2)
    w1 = (rng.standard_normal((3, 3, 2, 4)) * 0.3).astype(np.float32)
    scale = (1 + 0.1 * rng.standard_normal(4)).astype(np.float32)
    offset = (0.1 * rng.standard_normal(4)).astype(np.float32)
    w2 = (rng.standard_normal((4 * 4 * 4, 3)) * 0.1).astype(np.float32)
    xv = rng.standard_normal((5, 8, 8, 2)).astype(np.float32)
    yv = rng.integers(0, 3, 5).astype(np.int32)

    def build(lib, nn):
        x = lib.placeholder(lib.float32, [None, 8, 8, 2])
        y = lib.placeholder(lib.int32, [None])
        params = [lib.constant(v) for v in (w1, scale, offset, w2)]
        h = nn.conv2d(x, params[0], strides=[1, 1, 1, 1], padding="SAME")
        h, _, _ = (tx.nn.fused_batch_norm if lib is tx else tf.compat.v1.nn.fused_batch_norm)(
            h, params[1], params[2], epsilon=1e-3, is_training=True)
        h = nn.max_pool2d(nn.relu(h), ksize=2, strides=2, padding="VALID")
        logits = lib.matmul(lib.reshape(h, [-1, 4 * 4 * 4]), params[3])
        loss = lib.reduce_mean(nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        return loss, params, [x, y]

    for a, b in zip(_tx_grads(build, [xv, yv]), _tf_grads(build, [xv, yv])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
