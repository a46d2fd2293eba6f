"""A dynamic RNN built with tx.while_loop (tanh cell, 50 steps, batch 16, hidden 64): its gradients
equal those of the same RNN unrolled in Python, it trains, and the same holds inside tx.function
with GradientTape. Gradients flow through the engine's While gradient (Note [While gradients])."""

import numpy as np
import pytest

import tensorflux as tx

T, B, D, H = 50, 16, 8, 64  # time steps, batch, input size, hidden size


def _data(dtype=np.float64):
    rng = np.random.RandomState(7)
    return {"xs": rng.randn(T, B, D).astype(dtype), "y": rng.randn(B, H).astype(dtype) * 0.5,
            "w": (rng.randn(D, H) * 0.3).astype(dtype), "u": (rng.randn(H, H) * 0.1).astype(dtype),
            "b": np.zeros(H, dtype)}


def _cell(x_t, h, w, u, b):
    return tx.tanh(tx.matmul(x_t, w) + tx.matmul(h, u) + b)


def _rnn_loop(xs, h0, w, u, b):
    def body(t, h):
        return t + 1, _cell(tx.gather(xs, t), h, w, u, b)

    _, h_last = tx.while_loop(lambda t, h: t < T, body, [tx.constant(0), h0])
    return h_last


def _rnn_unrolled(xs, h0, w, u, b):
    h = h0
    for t in range(T):
        h = _cell(xs[t], h, w, u, b)
    return h


def _loss(h, y):
    return tx.reduce_mean(tx.square(h - y))


def test_while_loop_rnn_gradients_equal_unrolled():
    d = _data()
    xs = tx.placeholder(tx.float64, [T, B, D])
    y = tx.constant(d["y"])
    w, u, b = tx.constant(d["w"]), tx.constant(d["u"]), tx.constant(d["b"])
    h0 = tx.zeros([B, H], tx.float64)
    loss_loop = _loss(_rnn_loop(xs, h0, w, u, b), y)
    loss_unrolled = _loss(_rnn_unrolled(xs, h0, w, u, b), y)
    g_loop = tx.gradients(loss_loop, [w, u, b, xs])
    g_unrolled = tx.gradients(loss_unrolled, [w, u, b, xs])
    assert any(op.type in ("While", "StatelessWhile") for op in tx.get_default_graph().get_operations())
    with tx.Session() as sess:
        a, b_ = sess.run([[loss_loop] + g_loop, [loss_unrolled] + g_unrolled], {xs: d["xs"]})
    for got, want, what in zip(a, b_, ["loss", "dW", "dU", "db", "dxs"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-10, err_msg=what)
        assert np.abs(want).max() > 0 or what == "loss"


def test_while_loop_rnn_trains():
    d = _data(np.float32)
    xs = tx.constant(d["xs"])
    y = tx.constant(d["y"])
    w, u, b = tx.Variable(d["w"]), tx.Variable(d["u"]), tx.Variable(d["b"])
    loss = _loss(_rnn_loop(xs, tx.zeros([B, H]), w, u, b), y)
    train = tx.optimizers.Adam(0.01).minimize(loss)
    with tx.Session() as sess:
        sess.run(tx.compat.v1.global_variables_initializer() if hasattr(tx.compat.v1, "global_variables_initializer")
                 else tx.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(30):
            sess.run(train)
        last = sess.run(loss)
    assert last < 0.7 * first, (first, last)


@pytest.mark.eager
def test_while_loop_rnn_in_tx_function_matches_eager_unrolled():
    d = _data()
    xs, y = tx.constant(d["xs"]), tx.constant(d["y"])
    w, u, b = tx.Variable(d["w"]), tx.Variable(d["u"]), tx.Variable(d["b"])

    @tx.function
    def loss_loop():
        return _loss(_rnn_loop(xs, tx.zeros([B, H], tx.float64), w, u, b), y)

    with tx.GradientTape() as tape:
        lv = loss_loop()
    g_loop = tape.gradient(lv, [w, u, b])
    with tx.GradientTape() as tape:
        lu = _loss(_rnn_unrolled(xs, tx.zeros([B, H], tx.float64), w, u, b), y)
    g_unrolled = tape.gradient(lu, [w, u, b])
    np.testing.assert_allclose(lv.numpy(), lu.numpy(), rtol=1e-12)
    for got, want in zip(g_loop, g_unrolled):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-10)
