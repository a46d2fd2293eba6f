"""MADGRAD: the paper's dual-averaging update in NumPy, optax.contrib.madgrad, the core kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_madgrad(lr, momentum, wd=0.0, eps=1e-6):
    def step(param, grad, state, t):
        grad = grad + wd * param
        lam = (lr + eps) * np.sqrt(t)
        x0 = state.setdefault("x0", param.copy())
        state["s"] = state.get("s", 0.0) + lam * grad
        state["nu"] = state.get("nu", 0.0) + lam * grad ** 2
        z = x0 - state["s"] / (np.cbrt(state["nu"]) + eps)
        return momentum * param + (1 - momentum) * z
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.MADGRAD(0.05, 0.8, weight_decay=0.01),
                                    numpy_madgrad(0.05, 0.8, 0.01), steps=5)


def test_matches_optax():
    contrib = pytest.importorskip("optax.contrib")
    optim_checks.check_matches_optax(lambda: txa.optimizers.MADGRAD(0.01, weight_decay=0.001),
                                     lambda: contrib.madgrad(0.01, weight_decay=0.001), rtol=1e-4, atol=1e-5)


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.MADGRAD(0.1), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.MADGRAD(0.01), str(tmp_path / "ckpt"))
