"""RAdam: the paper's update in NumPy (through the switch at rho_t = 5), optax.radam, the core kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_radam(lr, b1, b2, eps=1e-8):
    rho_inf = 2 / (1 - b2) - 1

    def step(param, grad, state, t):
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * grad
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * grad ** 2
        m_hat = state["m"] / (1 - b1 ** t)
        rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho < 5:
            return param - lr * m_hat
        r = np.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        return param - lr * r * m_hat / (np.sqrt(state["v"] / (1 - b2 ** t)) + eps)
    return step


def test_matches_the_paper_before_and_after_the_switch():
    # with beta_2 = 0.9, rho_t first reaches 5 at t = 6
    testing.check_against_reference(lambda: txa.optimizers.RAdam(0.05, 0.8, 0.9), numpy_radam(0.05, 0.8, 0.9), steps=9)


def test_matches_optax():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(lambda: txa.optimizers.RAdam(0.01, beta_2=0.95),
                                     lambda: optax.radam(0.01, b2=0.95), steps=15)


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.RAdam(0.1, beta_2=0.99), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.RAdam(0.01, beta_2=0.9), str(tmp_path / "ckpt"),
                                             steps=4)
