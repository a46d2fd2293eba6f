"""Muon: Newton-Schulz against the SVD's orthogonal factor, the update in NumPy, optax.contrib.muon
(matrices and the AdamW fallback), the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing
from tensorflux_addons.optimizers.muon import NS_COEFFICIENTS, newton_schulz

import optim_checks


def numpy_newton_schulz(x, steps=5, eps=1e-8):
    a, b, c = NS_COEFFICIENTS
    if x.shape[0] > x.shape[1]:
        return numpy_newton_schulz(x.T, steps, eps).T
    x = x / (np.linalg.norm(x) + eps)
    for _ in range(steps):
        g = x @ x.T
        x = a * x + (b * g + c * g @ g) @ x
    return x


def numpy_muon(lr, beta=0.95, b1=0.9, b2=0.999, eps=1e-8, wd=0.0):
    def step(param, grad, state, t):
        beta_ = beta if param.ndim == 2 else b1
        state["m"] = beta_ * state.get("m", 0.0) + (1 - beta_) * grad
        n = beta_ * state["m"] / (1 - beta_ ** (t + 1)) + (1 - beta_) * grad / (1 - beta_ ** t)
        if param.ndim == 2:
            u = numpy_newton_schulz(n) * max(1.0, param.shape[1] / param.shape[0]) ** 0.5
        else:
            state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * grad ** 2
            u = n / (np.sqrt(state["v"] / (1 - b2 ** t)) + eps)
        return param - lr * (u + wd * param)
    return step


@pytest.mark.parametrize("shape", [(6, 4), (4, 6)])
def test_newton_schulz_approximates_the_orthogonal_factor(shape):
    x = np.random.default_rng(1).standard_normal(shape)
    got = newton_schulz(tx.constant(x)).numpy()
    np.testing.assert_allclose(got, numpy_newton_schulz(x), rtol=1e-10, atol=1e-12)
    singular = np.linalg.svd(got, compute_uv=False)
    assert np.all((singular > 0.6) & (singular < 1.25)), singular   # near 1: about U V^T
    u, _, vt = np.linalg.svd(x, full_matrices=False)
    assert np.sum(got * (u @ vt)) / np.linalg.norm(u @ vt) ** 2 > 0.8


def test_matches_the_reference():
    testing.check_against_reference(lambda: txa.optimizers.Muon(0.05, weight_decay=0.01, adam_weight_decay=0.01),
                                    numpy_muon(0.05, wd=0.01), steps=5, rtol=1e-5, atol=1e-8)


def test_matches_optax():
    contrib = pytest.importorskip("optax.contrib")
    optim_checks.check_matches_optax(lambda: txa.optimizers.Muon(0.02, weight_decay=0.01),
                                     lambda: contrib.muon(0.02, weight_decay=0.01), rtol=1e-4, atol=2e-5)


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.Muon(tx.optimizers.schedules.exponential_decay(
        0.3, 50, 0.5)), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.Muon(0.01), str(tmp_path / "ckpt"))
