"""LAMB: the paper's update in NumPy, optax.lamb, the core test kit."""

import numpy as np

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_lamb(lr, b1=0.9, b2=0.999, eps=1e-6, wd=0.0):
    def step(param, grad, state, t):
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * grad
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * grad ** 2
        r = (state["m"] / (1 - b1 ** t)) / (np.sqrt(state["v"] / (1 - b2 ** t)) + eps) + wd * param
        ratio = np.linalg.norm(param) / np.linalg.norm(r)
        return param - lr * ratio * r
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.LAMB(0.05, 0.8, 0.99, 1e-6, weight_decay=0.1),
                                    numpy_lamb(0.05, 0.8, 0.99, 1e-6, 0.1), steps=5)


def test_matches_optax():
    import optax
    optim_checks.check_matches_optax(lambda: txa.optimizers.LAMB(0.01, weight_decay=0.01),
                                     lambda: optax.lamb(0.01, eps=1e-6, weight_decay=0.01))


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.LAMB(0.05), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.LAMB(0.01), str(tmp_path / "ckpt"))
