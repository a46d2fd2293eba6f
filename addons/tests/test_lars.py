"""LARS: the paper's update in NumPy, optax.lars, the core test kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_lars(lr, wd, tc, momentum):
    def step(param, grad, state, t):
        d = grad + wd * param
        local = tc * np.linalg.norm(param) / np.linalg.norm(d)
        state["v"] = momentum * state.get("v", 0.0) + lr * local * d
        return param - state["v"]
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.LARS(0.5, weight_decay=0.01, trust_coefficient=0.02),
                                    numpy_lars(0.5, 0.01, 0.02, 0.9), steps=5)


def test_matches_optax():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(lambda: txa.optimizers.LARS(0.3, weight_decay=1e-3, nesterov=True),
                                     lambda: optax.lars(0.3, weight_decay=1e-3, nesterov=True))


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.LARS(2.0, trust_coefficient=0.02), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.LARS(0.5), str(tmp_path / "ckpt"))
