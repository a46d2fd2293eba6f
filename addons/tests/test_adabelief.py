"""AdaBelief: the paper's update in NumPy, optax.adabelief, the core test kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_adabelief(lr, b1, b2, eps=1e-16):
    def step(param, grad, state, t):
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * grad
        state["s"] = b2 * state.get("s", 0.0) + (1 - b2) * (grad - state["m"]) ** 2 + eps
        return param - lr * (state["m"] / (1 - b1 ** t)) / (np.sqrt(state["s"] / (1 - b2 ** t)) + eps)
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.AdaBelief(0.02, 0.8, 0.95),
                                    numpy_adabelief(0.02, 0.8, 0.95), steps=5)


def test_matches_optax():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(lambda: txa.optimizers.AdaBelief(0.01),
                                     lambda: optax.adabelief(0.01), rtol=1e-4, atol=1e-5)


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.AdaBelief(0.1), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.AdaBelief(0.01), str(tmp_path / "ckpt"))
