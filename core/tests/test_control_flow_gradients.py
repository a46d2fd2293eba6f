"""Gradients of the functional control-flow ops (If, Case, While) built from library functions.

The engine differentiates them (csrc/tensorflux/gradients/cond_grad.cc, while_grad.cc): these
tests compare with central differences and NumPy, check that the forward loop runs once when its
gradient is fetched with it (Note [Replaced loops]), and cover nested loops, captured variables,
tx.function with GradientTape, and a While op run eagerly under a tape.
"""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import functions
from tensorflux._src.generated import gen_ops


def _fn(name, types, body):
    """A library function of placeholders of `types` (unknown shapes) returning body(*args)."""
    g = tx.Graph()
    with g.as_default():
        args = [tx.placeholder(t, name="a%d" % i) for i, t in enumerate(types)]
        outs = body(*args)
    return functions.graph_to_function(g, name, args, list(outs))


def _matvec(w, h):
    return tx.reshape(tx.matmul(w, tx.reshape(h, [-1, 1])), [-1])


def _numeric_grad(f, x, eps=1e-6):
    x = np.array(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


STEPS = 5
LOOP_TYPES = [tx.int32, tx.float64, tx.float64]
RNN_COND = _fn("rnn_cond", LOOP_TYPES, lambda k, h, w: [k < tx.constant(STEPS)])
RNN_BODY = _fn("rnn_body", LOOP_TYPES, lambda k, h, w: [k + tx.constant(1), tx.tanh(_matvec(w, h)), w])


def _rnn_ref(h, w, steps=STEPS):
    for _ in range(steps):
        h = np.tanh(w @ h)
    return float((h * h).sum())


@pytest.mark.parametrize("op", [gen_ops.stateless_while, gen_ops.while_])
def test_while_gradient_matches_central_differences(op):
    rng = np.random.RandomState(0)
    h0v, wv = rng.randn(3), rng.randn(3, 3) * 0.5
    h0 = tx.placeholder(tx.float64, [3])
    w = tx.placeholder(tx.float64, [3, 3])
    out = op([tx.constant(0), h0, w], cond=RNN_COND, body=RNN_BODY)
    loss = tx.reduce_sum(out[1] * out[1])
    dh, dw = tx.gradients(loss, [h0, w])
    (dh_only,) = tx.gradients(loss, [h0])  # the captured w then carries no gradient through the loop
    with tx.Session() as sess:
        lv, dhv, dwv, dh_only_v = sess.run([loss, dh, dw, dh_only], {h0: h0v, w: wv})
    np.testing.assert_allclose(dh_only_v, dhv, rtol=1e-13)
    assert lv == pytest.approx(_rnn_ref(h0v, wv), rel=1e-12)
    np.testing.assert_allclose(dhv, _numeric_grad(lambda h: _rnn_ref(h, wv), h0v), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(dwv, _numeric_grad(lambda m: _rnn_ref(h0v, m), wv), rtol=1e-6, atol=1e-9)


def test_while_gradient_with_zero_iterations_passes_gradients_through():
    h0 = tx.constant(np.array([1.0, -2.0]))
    w = tx.constant(np.eye(2))
    out = gen_ops.stateless_while([tx.constant(STEPS), h0, w], cond=RNN_COND, body=RNN_BODY)
    dh, dw = tx.gradients(tx.reduce_sum(out[1] * out[1]), [h0, w])
    with tx.Session() as sess:
        dhv, dwv = sess.run([dh, dw])
    np.testing.assert_allclose(dhv, [2.0, -4.0])
    np.testing.assert_allclose(dwv, np.zeros((2, 2)))


def test_forward_loop_runs_once_when_its_gradient_is_fetched():
    """The body bumps a counter variable: fetching loss and gradient runs the loop once, not twice."""
    types = [tx.int32, tx.float64, tx.resource]

    def body(k, x, counter):
        bump = gen_ops.assign_add_variable_op(counter, tx.constant(1.0, tx.float64))
        with tx.control_dependencies([bump]):
            return [k + tx.constant(1), tx.sin(x), tx.identity(counter)]

    cond = _fn("count_cond", types, lambda k, x, c: [k < tx.constant(4)])
    body_fn = _fn("count_body", types, body)
    counter = tx.Variable(0.0, dtype=tx.float64)
    x = tx.placeholder(tx.float64, [])
    out = gen_ops.while_([tx.constant(0), x, counter.handle], cond=cond, body=body_fn)
    (dx,) = tx.gradients(out[1], [x])
    with tx.Session() as sess:
        sess.run(counter.initializer)
        yv, dxv = sess.run([out[1], dx], {x: 0.3})
        assert sess.run(counter.read_value()) == 4.0
        y = 0.3
        d = 1.0
        for _ in range(4):
            d *= np.cos(y)
            y = np.sin(y)
        assert yv == pytest.approx(y, rel=1e-12)
        assert dxv == pytest.approx(d, rel=1e-12)
        sess.run(out[1], {x: 0.3})  # the loss alone runs the plain loop
        assert sess.run(counter.read_value()) == 8.0


def test_nested_while_gradient():
    inner_types = [tx.int32, tx.float64, tx.float64]
    inner_cond = _fn("inner_cond", inner_types, lambda j, h, w: [j < tx.constant(3)])
    inner_body = _fn("inner_body", inner_types, lambda j, h, w: [j + tx.constant(1), tx.tanh(_matvec(w, h)), w])

    def outer_body(k, h, w):
        r = gen_ops.stateless_while([tx.constant(0), h * tx.constant(1.5, tx.float64), w], cond=inner_cond,
                                    body=inner_body)
        return [k + tx.constant(1), r[1], w]

    outer_cond = _fn("outer_cond", inner_types, lambda k, h, w: [k < tx.constant(2)])
    outer = _fn("outer_body", inner_types, outer_body)
    rng = np.random.RandomState(1)
    h0v, wv = rng.randn(3), rng.randn(3, 3) * 0.6
    h0 = tx.placeholder(tx.float64, [3])
    w = tx.placeholder(tx.float64, [3, 3])
    out = gen_ops.stateless_while([tx.constant(0), h0, w], cond=outer_cond, body=outer)
    dh, dw = tx.gradients(tx.reduce_sum(out[1] * out[1]), [h0, w])

    def ref(h, m):
        for _ in range(2):
            h = h * 1.5
            for _ in range(3):
                h = np.tanh(m @ h)
        return float((h * h).sum())

    with tx.Session() as sess:
        dhv, dwv = sess.run([dh, dw], {h0: h0v, w: wv})
    np.testing.assert_allclose(dhv, _numeric_grad(lambda h: ref(h, wv), h0v), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(dwv, _numeric_grad(lambda m: ref(h0v, m), wv), rtol=1e-6, atol=1e-9)


def test_while_gradient_reaches_a_variable_read_in_the_body():
    types = [tx.int32, tx.float64, tx.resource]
    cond = _fn("var_cond", types, lambda k, x, v: [k < tx.constant(3)])
    body = _fn("var_body", types, lambda k, x, v: [k + tx.constant(1),
                                                    x * gen_ops.read_variable_op(v, dtype=tx.float64), v])
    v = tx.Variable(np.array([2.0, 3.0]))
    x = tx.constant(np.array([1.0, -1.0]))
    out = gen_ops.stateless_while([tx.constant(0), x, v.handle], cond=cond, body=body)
    (dv,) = tx.gradients(tx.reduce_sum(out[1]), [v.handle])
    with tx.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(dv), 3 * np.array([1.0, -1.0]) * np.array([2.0, 3.0]) ** 2)


BRANCH_TYPES = [tx.float64, tx.float64, tx.float64]
THEN = _fn("then_xy", BRANCH_TYPES, lambda x, y, z: [x * y])
ELSE = _fn("else_z", BRANCH_TYPES, lambda x, y, z: [tx.sin(z)])
THIRD = _fn("third_xz", BRANCH_TYPES, lambda x, y, z: [x * x * z])


@pytest.mark.parametrize("pred", [True, False])
@pytest.mark.parametrize("op", [gen_ops.stateless_if, gen_ops.if_])
def test_if_gradient_has_zeros_for_inputs_the_taken_branch_does_not_read(op, pred):
    x, y, z = (tx.constant(np.array([v, v + 1.0])) for v in (0.5, 2.0, -1.0))
    out = op(tx.constant(pred), [x, y, z], Tout=[tx.float64], then_branch=THEN, else_branch=ELSE)
    grads = tx.gradients(tx.reduce_sum(out[0]), [x, y, z])
    with tx.Session() as sess:
        dx, dy, dz = sess.run(grads)
    if pred:
        expected = [[2.0, 3.0], [0.5, 1.5], [0.0, 0.0]]
    else:
        expected = [[0.0, 0.0], [0.0, 0.0], np.cos([-1.0, 0.0])]
    for got, want in zip((dx, dy, dz), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("index", [0, 1, 2, 7])
def test_case_gradient(index):
    x, y, z = (tx.constant(v, tx.float64) for v in (0.5, 2.0, -1.0))
    out = gen_ops.stateless_case(tx.constant(index), [x, y, z], Tout=[tx.float64], branches=[THEN, ELSE, THIRD])
    grads = tx.gradients(out[0], [x, y, z])
    with tx.Session() as sess:
        got = sess.run(grads)
    expected = {0: [2.0, 0.5, 0.0], 1: [0.0, 0.0, np.cos(-1.0)], 2: [2 * 0.5 * -1.0, 0.0, 0.25]}[min(index, 2)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_second_order_gradient_through_if():
    x = tx.constant(1.5, tx.float64)
    out = gen_ops.stateless_if(tx.constant(True), [x, x, x], Tout=[tx.float64], then_branch=THIRD,
                               else_branch=ELSE)
    (dx,) = tx.gradients(out[0], [x])
    (ddx,) = tx.gradients(dx, [x])
    with tx.Session() as sess:
        assert sess.run(dx) == pytest.approx(3 * 1.5 ** 2)  # d(x^3)
        assert sess.run(ddx) == pytest.approx(6 * 1.5)


@pytest.mark.eager
def test_while_in_tx_function_with_gradient_tape():
    w = tx.constant(np.array([[0.5, -0.2], [0.1, 0.4]]))

    @tx.function
    def f(h):
        out = gen_ops.stateless_while([tx.constant(0), h, w], cond=RNN_COND, body=RNN_BODY)
        return tx.reduce_sum(out[1] * out[1])

    h = tx.constant(np.array([0.3, -0.7]))
    with tx.GradientTape() as tape:
        tape.watch(h)
        loss = f(h)
    dh = tape.gradient(loss, h)
    np.testing.assert_allclose(dh.numpy(), _numeric_grad(lambda v: _rnn_ref(v, w.numpy()), h.numpy()), rtol=1e-6)


@pytest.mark.eager
def test_eager_while_op_under_gradient_tape():
    w = tx.constant(np.array([[0.5, -0.2], [0.1, 0.4]]))
    h = tx.constant(np.array([0.3, -0.7]))
    with tx.GradientTape() as tape:
        tape.watch([h, w])
        out = gen_ops.stateless_while([tx.constant(0), h, w], cond=RNN_COND, body=RNN_BODY)
        loss = tx.reduce_sum(out[1] * out[1])
    dh, dw = tape.gradient(loss, [h, w])
    np.testing.assert_allclose(dh.numpy(), _numeric_grad(lambda v: _rnn_ref(v, w.numpy()), h.numpy()), rtol=1e-6)
    np.testing.assert_allclose(dw.numpy(), _numeric_grad(lambda m: _rnn_ref(h.numpy(), m), w.numpy()), rtol=1e-6)


def test_tx_while_loop_under_control_dependency_runs_forward_once():
    """tx.while_loop with a stateful body inside tx.control_dependencies: the accumulating loop
    stands in for it and waits for the same control inputs."""
    counter = tx.Variable(0.0, dtype=tx.float64)
    x = tx.placeholder(tx.float64, [])
    marker = tx.Variable(0.0, dtype=tx.float64)
    first = marker.assign(5.0)

    def body(k, y):
        with tx.control_dependencies([counter.assign_add(1.0)]):
            return k + 1, tx.sin(y) + marker.read_value() * 0.0

    with tx.control_dependencies([first]):
        _, y = tx.while_loop(lambda k, y: k < 3, body, [tx.constant(0), x])
    (dx,) = tx.gradients(y, [x])
    with tx.Session() as sess:
        sess.run([counter.initializer, marker.initializer])
        sess.run([y, dx], {x: 0.2})
        assert sess.run(counter.read_value()) == 3.0
        assert sess.run(marker.read_value()) == 5.0


def test_while_loop_gradient_with_maximum_iterations_and_a_cond_inside():
    """y <- y * 1.1 + sin(y) while y < 100, at most 4 times, through tx.cond in the body."""
    x = tx.placeholder(tx.float64, [])

    def body(y):
        return tx.cond(y > 0.5, lambda: y * 1.1 + tx.sin(y), lambda: y * 3.0)

    y = tx.while_loop(lambda y: y < 100.0, body, [x], maximum_iterations=4)[0]
    (dx,) = tx.gradients(y, [x])

    def ref(v):
        for _ in range(4):
            if v >= 100.0:
                break
            v = v * 1.1 + np.sin(v) if v > 0.5 else v * 3.0
        return v

    with tx.Session() as sess:
        for x0 in (0.2, 0.7, 2.0):
            yv, dxv = sess.run([y, dx], {x: x0})
            assert yv == pytest.approx(ref(x0), rel=1e-12)
            assert dxv == pytest.approx(_numeric_grad(ref, np.float64(x0)), rel=1e-6)


@pytest.mark.eager
def test_cond_and_switch_case_gradients_inside_tx_function():
    @tx.function
    def f(x, i):
        a = tx.cond(tx.reduce_sum(x) > 0, lambda: tx.reduce_sum(x * x), lambda: tx.reduce_sum(tx.exp(x)))
        b = tx.switch_case(i, [lambda: tx.reduce_sum(x), lambda: tx.reduce_sum(x * 3.0)])
        return a + b

    for xv, iv, want in ((np.array([1.0, 2.0]), 0, 2 * np.array([1.0, 2.0]) + 1),
                         (np.array([-1.0, -2.0]), 1, np.exp([-1.0, -2.0]) + 3)):
        x = tx.constant(xv)
        with tx.GradientTape() as tape:
            tape.watch(x)
            y = f(x, tx.constant(iv))
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-12)


def test_second_order_gradient_through_while_is_a_clear_error():
    x = tx.placeholder(tx.float64, [])
    y = tx.while_loop(lambda k, y: k < 3, lambda k, y: (k + 1, y * y), [tx.constant(0), x])[1]
    (dx,) = tx.gradients(y, [x])
    with pytest.raises(tx.errors.UnimplementedError, match="second-order gradients through a While loop"):
        tx.gradients(dx, [x])
    with tx.Session() as sess:  # the graph stays usable
        assert sess.run(dx, {x: 1.5}) == pytest.approx(8 * 1.5 ** 7)


@pytest.mark.eager
@pytest.mark.parametrize("pred", [True, False])
def test_eager_if_op_under_gradient_tape(pred):
    x, y, z = (tx.constant(np.array([v, v + 1.0])) for v in (0.5, 2.0, -1.0))
    with tx.GradientTape() as tape:
        tape.watch([x, y, z])
        out = gen_ops.stateless_if(tx.constant(pred), [x, y, z], Tout=[tx.float64], then_branch=THEN,
                                   else_branch=ELSE)
        loss = tx.reduce_sum(out[0])
    dx, dy, dz = tape.gradient(loss, [x, y, z])
    if pred:
        np.testing.assert_allclose(dx.numpy(), [2.0, 3.0])
        np.testing.assert_allclose(dy.numpy(), [0.5, 1.5])
        np.testing.assert_allclose(dz.numpy(), [0.0, 0.0])
    else:
        np.testing.assert_allclose(dz.numpy(), np.cos([-1.0, 0.0]))
        np.testing.assert_allclose(dx.numpy(), [0.0, 0.0])


def test_gradient_of_a_while_loop_inside_a_cond_branch():
    x = tx.placeholder(tx.float64, [])

    def loop():
        return tx.while_loop(lambda k, y: k < 3, lambda k, y: (k + 1, tx.sin(y) * 2.0), [tx.constant(0), x])[1]

    y = tx.cond(x > 0.0, loop, lambda: x * x)
    (dx,) = tx.gradients(y, [x])

    def ref(v):
        if v > 0:
            for _ in range(3):
                v = np.sin(v) * 2.0
            return v
        return v * v

    with tx.Session() as sess:
        for x0 in (0.4, -0.3):
            assert sess.run(dx, {x: x0}) == pytest.approx(_numeric_grad(ref, np.float64(x0)), rel=1e-6)
