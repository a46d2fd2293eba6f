"""Schedule-Free AdamW: the paper's update in NumPy, optax.contrib.schedule_free_adamw (with
warmup), the evaluation point, the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def numpy_schedule_free(lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, power=2.0):
    def step(y, grad, state, t):
        z = state.setdefault("z", y.copy())
        state["max_lr"] = max(state.get("max_lr", 0.0), lr)
        w = state["max_lr"] ** power
        state["wsum"] = state.get("wsum", 0.0) + w
        c = w / state["wsum"]
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * grad ** 2
        z_new = z - lr * (grad / (np.sqrt(state["v"] / (1 - b2 ** t)) + eps) + wd * y)
        x = (y - (1 - b1) * z) / b1
        x = (1 - c) * x + c * z_new
        state["z"] = z_new
        return b1 * x + (1 - b1) * z_new
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.ScheduleFreeAdamW(0.05, beta_1=0.8, weight_decay=0.01),
                                    numpy_schedule_free(0.05, b1=0.8, wd=0.01), steps=5)


def test_matches_optax_with_warmup():
    contrib = pytest.importorskip("optax.contrib")
    optim_checks.check_matches_optax(lambda: txa.optimizers.ScheduleFreeAdamW(0.01, warmup_steps=4),
                                     lambda: contrib.schedule_free_adamw(0.01, warmup_steps=4), steps=10)


def test_eval_point_and_errors():
    w = tx.Variable([2.0, -1.0])
    opt = txa.optimizers.ScheduleFreeAdamW(0.1)
    for _ in range(3):
        opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    z = opt.get_slot(w, "z").numpy()
    x = opt.eval_value(w).numpy()
    np.testing.assert_allclose(0.9 * x + 0.1 * z, w.numpy(), rtol=1e-6)
    opt.assign_eval_params([w])
    np.testing.assert_allclose(w.numpy(), x)
    with pytest.raises(ValueError, match=r"beta_1 must lie in \(0, 1\]"):
        txa.optimizers.ScheduleFreeAdamW(beta_1=0.0)
    with pytest.raises(TypeError, match="learning_rate must be a number, not a schedule"):
        txa.optimizers.ScheduleFreeAdamW(lambda s: 0.1)


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.ScheduleFreeAdamW(0.2), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.ScheduleFreeAdamW(0.01), str(tmp_path / "c"))
