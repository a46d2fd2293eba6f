"""Lion: the fused kernel and its composed twin against a NumPy reference, each other and optax;
the core test kit (one step, trajectory, convergence, slot checkpoints); bad input."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

from tensorflux_addons import _native


def numpy_lion(learning_rate, beta_1=0.9, beta_2=0.99, weight_decay=0.0):
    """One Lion step in NumPy (the paper's Algorithm 2), for tx.optimizers.testing."""
    def step(param, grad, state, t):
        m = state.get("m", np.zeros_like(param))
        c = beta_1 * m + (1 - beta_1) * grad
        state["m"] = beta_2 * m + (1 - beta_2) * grad
        return param - learning_rate * (np.sign(c) + weight_decay * param)
    return step


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "composed"])
@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_steps_match_the_numpy_reference(fused, weight_decay):
    testing.check_against_reference(
        lambda: txa.optimizers.Lion(learning_rate=0.03, beta_1=0.8, beta_2=0.95, weight_decay=weight_decay,
                                    fused=fused),
        numpy_lion(0.03, 0.8, 0.95, weight_decay), steps=6)


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "composed"])
def test_converges_and_slots_round_trip_through_a_checkpoint(fused, tmp_path):
    make = lambda: txa.optimizers.Lion(learning_rate=0.01, weight_decay=0.0, fused=fused)  # noqa: E731
    testing.check_converges_on_quadratic(
        lambda: txa.optimizers.Lion(learning_rate=tx.optimizers.schedules.exponential_decay(0.3, 50, 0.5),
                                    fused=fused), steps=400)
    testing.check_slot_checkpoint_round_trip(make, str(tmp_path / "ckpt.safetensors"))


def _trajectory(make, dtype, steps=8, seed=3):
    rng = np.random.default_rng(seed)
    w = tx.Variable(rng.standard_normal((5, 7)).astype(dtype))
    b = tx.Variable(rng.standard_normal(7).astype(dtype))
    opt = make()
    out = []
    for _ in range(steps):
        grads = [tx.constant(rng.standard_normal(v.shape.as_list()).astype(dtype)) for v in (w, b)]
        opt.apply_gradients(zip(grads, [w, b]))
        out.append((w.numpy().copy(), b.numpy().copy()))
    return out, opt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_and_composed_agree_eagerly(dtype):
    make = lambda fused: lambda: txa.optimizers.Lion(0.01, 0.9, 0.99, weight_decay=0.05, fused=fused)  # noqa: E731
    fused, opt_f = _trajectory(make(True), dtype)
    composed, opt_c = _trajectory(make(False), dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    for (wf, bf), (wc, bc) in zip(fused, composed):
        np.testing.assert_allclose(wf, wc, rtol=tol, atol=tol)
        np.testing.assert_allclose(bf, bc, rtol=tol, atol=tol)
    assert opt_f.get_slot_names() == opt_c.get_slot_names() == ["0_scale_by_lion/m"]
    assert int(opt_f.iterations.numpy()) == 8


def test_matches_optax_over_many_steps():
    optax = pytest.importorskip("optax")
    jnp = pytest.importorskip("jax.numpy")
    rng = np.random.default_rng(7)
    init = rng.standard_normal((4, 6))
    grads = [rng.standard_normal((4, 6)) for _ in range(20)]
    for fused in (True, False):
        v = tx.Variable(init.astype(np.float32))
        opt = txa.optimizers.Lion(learning_rate=0.02, beta_1=0.9, beta_2=0.99, weight_decay=0.01, fused=fused)
        reference = optax.lion(learning_rate=0.02, b1=0.9, b2=0.99, weight_decay=0.01)
        params = jnp.asarray(init, jnp.float32)
        state = reference.init(params)
        for g in grads:
            opt.apply_gradients([(tx.constant(g.astype(np.float32)), v)])
            updates, state = reference.update(jnp.asarray(g, jnp.float32), state, params)
            params = optax.apply_updates(params, updates)
            np.testing.assert_allclose(v.numpy(), np.asarray(params), rtol=2e-6, atol=2e-6)


def test_inside_tx_function_and_graph_mode():
    w = tx.Variable([1.0, -1.0, 3.0])
    opt = txa.optimizers.Lion(learning_rate=0.5)

    @tx.function
    def train_step():
        with tx.GradientTape() as tape:
            loss = tx.reduce_sum(w * w)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

    train_step()
    train_step()
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0, 2.0])
    with tx.Graph().as_default() as g:
        v = tx.Variable([2.0])
        train = txa.optimizers.Lion(learning_rate=0.25).minimize(tx.reduce_sum(v * v), [v])
        assert [op.type for op in g.get_operations()].count("AddonsResourceApplyLion") == 1  # the fused kernel
        with tx.Session() as s:
            s.run(tx.global_variables_initializer())
            for _ in range(3):
                s.run(train)
            np.testing.assert_allclose(s.run(v.value()), [1.25])


def test_bad_input():
    with pytest.raises(ValueError, match=r"learning_rate must be a scalar, got a value of shape \[2\]"):
        txa.optimizers.Lion(learning_rate=np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="beta_1 and beta_2 must lie in"):
        txa.optimizers.Lion(beta_1=1.5)
    with pytest.raises(TypeError, match="must be a number"):
        txa.optimizers.Lion(weight_decay="0.1")
    ints = tx.Variable([1, 2])
    with pytest.raises(TypeError, match="optimizers need a floating-point variable"):
        txa.optimizers.Lion().apply_gradients([(tx.constant([1, 1]), ints)])
    w = tx.Variable([1.0, 2.0])
    opt = txa.optimizers.Lion(learning_rate=lambda step: tx.constant([0.1, 0.1]))
    with pytest.raises(ValueError, match=r"learning_rate \(the schedule's value\) must be a scalar"):
        opt.apply_gradients([(tx.constant([1.0, 1.0]), w)])


def test_kernel_checks_its_inputs_and_the_context_survives():
    kernel = _native.ops().addons_resource_apply_lion
    w, m = tx.Variable([1.0, 2.0]), tx.Variable([0.0, 0.0])
    one = tx.constant(0.1)
    with pytest.raises(tx.errors.InvalidArgumentError, match="lr must be a scalar, got a tensor of rank 1"):
        kernel(w.handle, m.handle, tx.constant([0.1, 0.1]), one, one, one, tx.constant([1.0, 1.0]))
    with pytest.raises(tx.errors.InvalidArgumentError, match="var and grad do not have the same shape"):
        kernel(w.handle, m.handle, one, one, one, one, tx.constant([1.0, 1.0, 1.0]))
    d = tx.Variable(tx.constant([0.0, 0.0], tx.float64))
    with pytest.raises(tx.errors.InvalidArgumentError, match="m holds float64 values but grad is float32"):
        kernel(w.handle, d.handle, one, one, one, one, tx.constant([1.0, 1.0]))
    kernel(w.handle, m.handle, one, tx.constant(0.9), tx.constant(0.99), tx.constant(0.0), tx.constant([1.0, -1.0]))
    np.testing.assert_allclose(w.numpy(), [0.9, 2.1])
    np.testing.assert_allclose(m.numpy(), [0.01, -0.01], rtol=1e-6)
