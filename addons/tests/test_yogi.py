"""Yogi: the paper's update in NumPy, optax.yogi, the core test kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_yogi(lr, b1, b2, eps, v0=1e-6):
    def step(param, grad, state, t):
        state["m"] = b1 * state.get("m", v0) + (1 - b1) * grad
        v = state.get("v", v0)
        state["v"] = v - (1 - b2) * np.sign(v - grad ** 2) * grad ** 2
        return param - lr * (state["m"] / (1 - b1 ** t)) / (np.sqrt(state["v"] / (1 - b2 ** t)) + eps)
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.Yogi(0.05, 0.8, 0.9, 1e-3),
                                    numpy_yogi(0.05, 0.8, 0.9, 1e-3), steps=5)


def test_matches_optax():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(lambda: txa.optimizers.Yogi(0.01), lambda: optax.yogi(0.01))


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.Yogi(0.1), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.Yogi(0.01), str(tmp_path / "ckpt"))
