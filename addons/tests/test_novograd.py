"""NovoGrad: the paper's update in NumPy (layer-wise second moment), optax.novograd, the core kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_novograd(lr, b1, b2, eps, wd):
    def step(param, grad, state, t):
        n2 = np.sum(grad ** 2)
        state["v"] = n2 if t == 1 else b2 * state["v"] + (1 - b2) * n2
        d = grad / (np.sqrt(state["v"]) + eps) + wd * param
        state["m"] = d if t == 1 else b1 * state["m"] + d
        return param - lr * state["m"]
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.NovoGrad(0.05, 0.9, 0.3, 1e-6, weight_decay=0.01),
                                    numpy_novograd(0.05, 0.9, 0.3, 1e-6, 0.01), steps=5)


def test_matches_optax():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(lambda: txa.optimizers.NovoGrad(0.01, weight_decay=0.001),
                                     lambda: optax.novograd(0.01, eps=1e-6, weight_decay=0.001))


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.NovoGrad(0.05, beta_1=0.5), steps=600)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.NovoGrad(0.01), str(tmp_path / "ckpt"))
