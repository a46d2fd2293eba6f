"""SGDW and AdamW with decoupled decay schedules: the paper's updates in NumPy, torch.optim.AdamW
and optax.adamw, the core test kit, and the decay following its own schedule."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_sgdw(lr, wd, momentum, eta=None):
    def step(param, grad, state, t):
        state["m"] = momentum * state.get("m", 0.0) + lr(t - 1) * grad
        return param - state["m"] - (eta or lr)(t - 1) * wd * param
    return step


def numpy_adamw(lr, wd, b1=0.9, b2=0.999, eps=1e-8, eta=None):
    def step(param, grad, state, t):
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * grad
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * grad ** 2
        adam = (state["m"] / (1 - b1 ** t)) / (np.sqrt(state["v"] / (1 - b2 ** t)) + eps)
        return param - lr(t - 1) * adam - (eta or lr)(t - 1) * wd * param
    return step


def cosine(step):
    return 0.5 * (1 + np.cos(np.pi * np.minimum(step, 10) / 10))


def tx_cosine(step):
    return 0.5 * (1 + tx.cos(np.pi * tx.minimum(tx.cast(step, tx.float64), 10.0) / 10))


def test_sgdw_matches_the_paper_with_a_decay_schedule():
    lr = lambda t: 0.1 * 0.9 ** t  # noqa: E731
    testing.check_against_reference(
        lambda: txa.optimizers.SGDW(lambda s: 0.1 * tx.pow(tx.constant(0.9, tx.float64), tx.cast(s, tx.float64)),
                                    weight_decay=0.05, decay_schedule=tx_cosine),
        numpy_sgdw(lr, 0.05, 0.9, eta=cosine), steps=5)


def test_adamw_matches_the_paper():
    const = lambda t: 0.01  # noqa: E731
    testing.check_against_reference(lambda: txa.optimizers.AdamW(0.01, weight_decay=0.1),
                                    numpy_adamw(const, 0.1), steps=5)
    testing.check_against_reference(lambda: txa.optimizers.AdamW(0.01, weight_decay=0.1, decay_schedule=tx_cosine),
                                    numpy_adamw(const, 0.1, eta=cosine), steps=5)


def test_adamw_matches_optax_and_torch():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(lambda: txa.optimizers.AdamW(0.01, weight_decay=0.05),
                                     lambda: optax.adamw(0.01, weight_decay=0.05))
    torch = pytest.importorskip("torch")
    init, grads = optim_checks.random_problem(10)
    ours = optim_checks.trajectory(lambda: txa.optimizers.AdamW(0.01, weight_decay=0.05), init, grads)
    params = [torch.tensor(v, requires_grad=True) for v in init]
    opt = torch.optim.AdamW(params, lr=0.01, weight_decay=0.05, eps=1e-8)
    for step, got in zip(grads, ours):
        for p, g in zip(params, step):
            p.grad = torch.tensor(g)
        opt.step()
        for p, x in zip(params, got):
            np.testing.assert_allclose(x, p.detach().numpy(), rtol=2e-5, atol=2e-6)


def test_decay_is_decoupled_from_the_gradient_and_masked():
    w, b = tx.Variable([2.0, -2.0]), tx.Variable([1.0])
    opt = txa.optimizers.SGDW(0.1, weight_decay=0.5, momentum=0.0, mask=lambda v: v.shape.rank == 2 or v is w)
    opt.apply_gradients([(tx.constant([0.0, 0.0]), w), (tx.constant([0.0]), b)])   # zero gradients: decay only
    np.testing.assert_allclose(w.numpy(), [1.9, -1.9])
    np.testing.assert_allclose(b.numpy(), [1.0])


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.SGDW(0.05, weight_decay=1e-4), steps=300)
    testing.check_converges_on_quadratic(lambda: txa.optimizers.AdamW(0.1, weight_decay=1e-4), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.AdamW(0.01), str(tmp_path / "a"))
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.SGDW(0.01), str(tmp_path / "s"))


def test_fused_adamw_equals_the_chain():
    """Note [Fused AdamW]: the two kernels per variable give the chain's trajectory, with a decay
    schedule and a mask that leaves the bias undecayed."""
    mask = lambda v: len(v.shape) == 2  # noqa: E731
    results = []
    for fused in (True, False):
        w, b = tx.Variable([[1.0, -2.0], [0.5, 3.0]]), tx.Variable([3.0, -1.0])
        opt = txa.optimizers.AdamW(0.05, weight_decay=0.2, decay_schedule=lambda step: 0.5, mask=mask, fused=fused)
        for i in range(4):
            opt.apply_gradients([(tx.constant([[0.5, -0.25], [1.0, 0.1]]) * (i + 1), w),
                                 (tx.constant([0.3, -0.7]), b)])
        results.append((w.numpy(), b.numpy()))
    for fused_value, chain_value in zip(*results):
        np.testing.assert_allclose(fused_value, chain_value, rtol=2e-5)  # float32, another rounding order
