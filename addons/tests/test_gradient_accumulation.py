"""Gradient accumulation: k small steps equal one step on the mean gradient (NumPy), optax.MultiSteps,
the wrapped optimizer's state advancing only on the k-th call, the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_accumulated_adam(lr, k, b1=0.9, b2=0.999, eps=1e-8):
    def step(param, grad, state, t):
        state.setdefault("grads", []).append(grad)
        if t % k:
            return param
        g = np.mean(state.pop("grads"), axis=0)
        n = t // k
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * g
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * g ** 2
        return param - lr * (state["m"] / (1 - b1 ** n)) / (np.sqrt(state["v"] / (1 - b2 ** n)) + eps)
    return step


def test_matches_the_mean_gradient_steps():
    testing.check_against_reference(lambda: txa.optimizers.GradientAccumulation(txa.optimizers.AdamW(
        0.05, weight_decay=0.0), every_k=3), numpy_accumulated_adam(0.05, 3), steps=9)


def test_matches_optax_multisteps():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(
        lambda: txa.optimizers.GradientAccumulation(txa.optimizers.LAMB(0.01), every_k=2),
        lambda: optax.MultiSteps(optax.lamb(0.01, eps=1e-6), every_k_schedule=2), steps=8)


def test_the_wrapped_state_moves_only_when_applied():
    w = tx.Variable([1.0, 2.0])
    opt = txa.optimizers.GradientAccumulation(tx.optimizers.SGD(0.1, momentum=0.9), every_k=2)
    opt.apply_gradients([(tx.constant([1.0, 1.0]), w)])
    trace = opt.get_slot(w, "inner/0_trace/trace")
    np.testing.assert_allclose(trace.numpy(), [0.0, 0.0])
    np.testing.assert_allclose(w.numpy(), [1.0, 2.0])
    opt.apply_gradients([(tx.constant([3.0, 3.0]), w)])
    np.testing.assert_allclose(trace.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(w.numpy(), [0.8, 1.8])
    np.testing.assert_allclose(opt.get_slot(w, "acc").numpy(), [0.0, 0.0])


def test_errors_convergence_and_checkpoints(tmp_path):
    with pytest.raises(ValueError, match="every_k must be a positive integer, got 0"):
        txa.optimizers.GradientAccumulation(tx.optimizers.SGD(0.1), every_k=0)
    with pytest.raises(TypeError, match="expected a tx.optimizers.Optimizer or GradientTransformation"):
        txa.optimizers.GradientAccumulation("sgd", every_k=2)
    testing.check_converges_on_quadratic(
        lambda: txa.optimizers.GradientAccumulation(tx.optimizers.SGD(0.05), every_k=2), steps=400)
    testing.check_slot_checkpoint_round_trip(
        lambda: txa.optimizers.GradientAccumulation(tx.optimizers.Adam(0.01), every_k=2), str(tmp_path / "c"))
