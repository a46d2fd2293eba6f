"""tx.GradientTape and tx.custom_gradient: eager gradients recorded in the engine, checked against
closed forms, finite differences and graph-mode tx.gradients."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def test_gradient_of_a_polynomial_and_higher_orders():
    x = tx.constant(3.0)
    with tx.GradientTape() as t3:
        t3.watch(x)
        with tx.GradientTape() as t2:
            t2.watch(x)
            with tx.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    assert (float(dy), float(d2y), float(d3y)) == (27.0, 18.0, 6.0)


def test_variables_are_watched_when_read():
    w = tx.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    b = tx.Variable([0.5, -0.5], name="b")
    frozen = tx.Variable([1.0, 1.0], trainable=False)
    with tx.GradientTape() as tape:
        y = tx.matmul(tx.ones([1, 2]), w) + b + frozen
        loss = tx.reduce_sum(y * y)
    gw, gb = tape.gradient(loss, [w, b])
    # y = [4, 6] + b + 1 = [5.5, 6.5] -> dloss/dy = 2y = [11, 13]
    np.testing.assert_allclose(gb.numpy(), [11.0, 13.0])
    np.testing.assert_allclose(gw.numpy(), [[11.0, 13.0], [11.0, 13.0]])
    assert tape.watched_variables() == [w, b]


def test_watch_accessed_variables_false_and_explicit_watch():
    v = tx.Variable(2.0)
    with tx.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    with tx.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * v
    assert float(tape.gradient(y, v)) == 4.0


def test_non_persistent_tape_is_used_up_persistent_is_not():
    x = tx.constant([1.0, 2.0])
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.reduce_sum(x * x)
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        tape.gradient(y, x)
    with tx.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tx.reduce_sum(x * x)
        z = tx.reduce_sum(tx.exp(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), np.exp([1.0, 2.0]), rtol=1e-6)


def test_stop_recording_output_gradients_unconnected_and_structures():
    x = tx.constant([1.0, 2.0])
    u = tx.constant(5.0)
    with tx.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 3.0
        with tape.stop_recording():
            z = x * x  # not recorded
    assert tape.gradient(z, x) is None
    np.testing.assert_allclose(tape.gradient(y, x, output_gradients=tx.constant([1.0, 10.0])).numpy(), [3.0, 30.0])
    grads = tape.gradient(y, {"x": x, "u": u})
    assert grads["u"] is None and grads["x"].numpy().tolist() == [3.0, 3.0]
    zero = tape.gradient(y, u, unconnected_gradients=tx.UnconnectedGradients.ZERO)
    assert float(zero) == 0.0


def test_integer_sources_and_integer_targets_get_no_gradient():
    i = tx.constant([1, 2])
    with tx.GradientTape(persistent=True) as tape:
        tape.watch(i)
        f = tx.cast(i, tx.float32) * 2.0
        j = i * 2
    assert tape.gradient(f, i) is None
    assert tape.gradient(j, i) is None  # as TensorFlow (it once raised InvalidArgumentError here)


def test_jacobian_and_batch_jacobian():
    x = tx.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tx.constant([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])
    with tx.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tx.tanh(tx.matmul(x, w))  # [2, 3]
    jac = tape.jacobian(y, x)
    assert jac.shape == tx.TensorShape([2, 3, 2, 2])
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == tx.TensorShape([2, 3, 2])
    sech2 = 1.0 - np.tanh(x.numpy() @ w.numpy()) ** 2  # [2, 3]
    want = sech2[:, :, None] * w.numpy().T[None, :, :]
    np.testing.assert_allclose(bj.numpy(), want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(jac.numpy()[0, :, 0, :], want[0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(jac.numpy()[0, :, 1, :], 0.0)
    with tx.GradientTape() as once:
        once.watch(x)
        y = x * 2.0
    np.testing.assert_allclose(once.jacobian(y, x).numpy(), 2.0 * np.eye(4).reshape(2, 2, 2, 2))
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to compute one set"):
        once.jacobian(y, x)


def test_eager_gradients_equal_graph_gradients_for_an_mlp():
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((8, 5)).astype(np.float32)
    yv = rng.integers(0, 3, 8).astype(np.int32)
    w1v = rng.standard_normal((5, 7)).astype(np.float32) * 0.3
    w2v = rng.standard_normal((7, 3)).astype(np.float32) * 0.3

    def model(w1, w2, x, y):
        h = tx.nn.relu(tx.matmul(x, w1))
        return tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=tx.matmul(h, w2)))

    w1, w2 = tx.Variable(w1v), tx.Variable(w2v)
    with tx.GradientTape() as tape:
        loss = model(w1, w2, tx.constant(xv), tx.constant(yv))
    eager = [g.numpy() for g in tape.gradient(loss, [w1, w2])]
    g = tx.Graph()
    with g.as_default():
        gw1, gw2 = tx.constant(w1v), tx.constant(w2v)
        graph_grads = tx.gradients(model(gw1, gw2, tx.constant(xv), tx.constant(yv)), [gw1, gw2])
        graph = tx.Session().run(graph_grads)
    for a, b in zip(eager, graph):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_custom_gradient():
    @tx.custom_gradient
    def log1pexp(x):
        e = tx.exp(x)

        def grad(dy):
            return dy * (1.0 - 1.0 / (1.0 + e))

        return tx.math.log(1.0 + e), grad

    x = tx.constant([0.0, 100.0])
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 1.0])  # naive autodiff gives NaN at 100

    @tx.custom_gradient
    def clip_grad(x):
        return tx.identity(x), lambda dy: tx.clip_by_value(dy, -0.1, 0.1)

    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.reduce_sum(clip_grad(x) * 5.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.1, 0.1])

    @tx.custom_gradient
    def broken(x):
        return x * 2.0, lambda dy: (dy, dy)

    with tx.GradientTape() as tape:
        tape.watch(x)
        y = broken(x)
    with pytest.raises(tx.errors.InvalidArgumentError, match="custom gradient"):
        tape.gradient(y, x)
    assert float(tx.reduce_sum(x)) == 100.0  # still usable


def test_errors():
    x = tx.constant(1.0)
    tape = tx.GradientTape()
    with pytest.raises(RuntimeError, match="never entered"):
        tape.gradient(x, x)
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(TypeError):
        tape.gradient(y, [np.ones(2)])
    with tx.Graph().as_default():  # a tape in a graph builds gradient ops (symbolic)
        x = tx.constant(3.0)
        with tx.GradientTape() as tape:
            y = x * x
        assert tx.Session().run(tape.gradient(y, x)) == 6.0
        with pytest.raises(NotImplementedError, match="stop_recording"):
            with tape.stop_recording():
                pass


def test_optimizer_minimize_in_eager_mode_converges():
    w = tx.Variable([5.0, -3.0])
    opt = tx.optimizers.Adam(0.3)
    for _ in range(200):
        opt.minimize(lambda: tx.reduce_sum((w - tx.constant([1.0, 2.0])) ** 2), var_list=[w])
    np.testing.assert_allclose(w.numpy(), [1.0, 2.0], atol=1e-2)
    assert int(opt.iterations.numpy()) == 200
    with pytest.raises(TypeError, match="callable"):
        opt.minimize(tx.constant(1.0), var_list=[w])
    with tx.GradientTape() as tape:
        loss = tx.reduce_sum(w * w)
    opt.minimize(loss, var_list=[w], tape=tape)


def test_integer_targets_contribute_nothing_as_in_tensorflow():
    tf = pytest.importorskip("tensorflow")
    got = {}
    for m in (tf, tx):
        x, xf = m.constant(3), m.constant([1.0, 2.0])
        with m.GradientTape(persistent=True) as t:
            t.watch(x)
            t.watch(xf)
            y = m.cast(x, m.float32) * 2.0
            pair = [m.reduce_sum(xf * 2), m.cast(xf, m.int32)]
            whole = m.cast(xf, m.int32)
        got[m.__name__] = [t.gradient(y, x), t.gradient(pair, xf).numpy().tolist(), t.gradient(whole, xf),
                           t.gradient(whole, xf, unconnected_gradients="zero").numpy().tolist()]

        @m.function
        def symbolic(a):
            return m.gradients([m.cast(a, m.int32), m.reduce_sum(a * 3.0)], [a])[0], m.gradients(m.cast(a, m.int32), a)

        both, alone = symbolic(m.constant([1.0, 2.0]))
        got[m.__name__] += [both.numpy().tolist(), alone]
    assert got["tensorflux"] == got["tensorflow"] == [None, [2.0, 2.0], None, [0.0, 0.0], [3.0, 3.0], [None]]
