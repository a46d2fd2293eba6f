"""Adafactor: the paper's factored update in NumPy, optax.adafactor (factored and not), the core kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing
from tensorflux_addons.optimizers.adafactor import factored_dims

import optim_checks


def numpy_adafactor(lr, decay=0.8, eps1=1e-30, clip=1.0, eps2=1e-3, min_dim=128):
    def step(param, grad, state, t):
        beta = 1 - t ** -decay
        g2 = grad ** 2 + eps1
        f = factored_dims(param.shape, min_dim)
        if f is None:
            state["v"] = beta * state.get("v", 0.0) + (1 - beta) * g2
            u = grad / np.sqrt(state["v"])
        else:
            d1, d0 = f
            state["r"] = beta * state.get("r", 0.0) + (1 - beta) * g2.mean(axis=d0, keepdims=True)
            state["c"] = beta * state.get("c", 0.0) + (1 - beta) * g2.mean(axis=d1, keepdims=True)
            u = grad / np.sqrt(state["r"] * state["c"] / state["r"].mean(axis=d1, keepdims=True))
        u = u / max(1.0, np.sqrt(np.mean(u ** 2)) / clip)
        return param - lr * max(eps2, np.sqrt(np.mean(param ** 2))) * u
    return step


def test_factored_dims_pick_the_two_largest_axes():
    assert factored_dims((256, 512), 128) == (0, 1)
    assert factored_dims((512, 3, 256), 128) == (2, 0)
    assert factored_dims((512, 100), 128) is None and factored_dims((512,), 128) is None


def test_matches_the_paper_factored_and_not():
    for min_dim in (2, 128):   # (2, 4) is factored with min_dim 2; nothing is with 128
        testing.check_against_reference(lambda: txa.optimizers.Adafactor(0.05, min_dim_size_to_factor=min_dim),
                                        numpy_adafactor(0.05, min_dim=min_dim), steps=5)


def test_matches_optax():
    optax = pytest.importorskip("optax")
    for min_dim in (4, 128):
        optim_checks.check_matches_optax(lambda: txa.optimizers.Adafactor(0.01, min_dim_size_to_factor=min_dim),
                                         lambda: optax.adafactor(0.01, min_dim_size_to_factor=min_dim))


def test_the_factored_slots_are_small(tmp_path):
    import tensorflux as tx
    w = tx.Variable(np.ones((256, 300), np.float32))
    opt = txa.optimizers.Adafactor(0.01)
    opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    shapes = {name: opt.get_slot(w, name).shape.as_list() for name in opt.get_slot_names()}
    assert shapes == {"0_scale_by_factored_rms/v": [1], "0_scale_by_factored_rms/v_col": [300],
                      "0_scale_by_factored_rms/v_row": [256]}
    testing.check_converges_on_quadratic(lambda: txa.optimizers.Adafactor(0.1), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.Adafactor(0.01, min_dim_size_to_factor=2),
                                             str(tmp_path / "ckpt"))
