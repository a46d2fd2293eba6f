"""ConditionalGradient (Frank-Wolfe): the update in NumPy for both norm balls, feasibility, the
tensorflow-addons parameterisation, the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing


def numpy_frank_wolfe(gamma, radius, ord, eps=1e-7):  # noqa: A002
    def step(param, grad, state, t):
        if ord == "fro":
            s = -radius * grad / (np.linalg.norm(grad) + eps)
        else:
            u, _, vt = np.linalg.svd(grad)
            s = -radius * np.outer(u[:, 0], vt[0])
        return (1 - gamma) * param + gamma * s
    return step


def test_matches_frank_wolfe_in_the_frobenius_ball():
    testing.check_against_reference(lambda: txa.optimizers.ConditionalGradient(0.3, radius=2.0),
                                    numpy_frank_wolfe(0.3, 2.0, "fro"), steps=5)


def test_matches_frank_wolfe_in_the_nuclear_ball():
    testing.check_against_reference(lambda: txa.optimizers.ConditionalGradient(0.3, radius=2.0, ord="nuclear"),
                                    numpy_frank_wolfe(0.3, 2.0, "nuclear"), steps=5, shapes=((3, 4), (2, 2)))


def test_iterates_stay_in_the_ball_and_solve_a_constrained_problem():
    target = np.array([3.0, -4.0])    # the closest point of the unit ball is target / 5
    w = tx.Variable([0.0, 0.0], dtype=tx.float64)
    opt = txa.optimizers.ConditionalGradient(lambda step: 2.0 / (tx.cast(step, tx.float64) + 2.0), radius=1.0)
    for _ in range(300):
        opt.minimize(lambda: tx.reduce_sum(tx.square(w - target)), var_list=[w])
        assert np.linalg.norm(w.numpy()) <= 1.0 + 1e-12
    np.testing.assert_allclose(w.numpy(), target / 5, atol=1e-2)


def test_tensorflow_addons_parameterisation():
    # tfa: var -= (1 - lr_tfa) * (var + lambda_ * g / (||g|| + eps)), i.e. gamma = 1 - lr_tfa
    w = tx.Variable([1.0, 2.0])
    txa.optimizers.ConditionalGradient(1 - 0.9, radius=0.5).apply_gradients([(tx.constant([3.0, 4.0]), w)])
    want = np.array([1.0, 2.0]) - 0.1 * (np.array([1.0, 2.0]) + 0.5 * np.array([3.0, 4.0]) / 5.0)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-6)


def test_errors_and_checkpoints(tmp_path):
    with pytest.raises(ValueError, match="ord must be 'fro' or 'nuclear'"):
        txa.optimizers.ConditionalGradient(ord="l1")
    v = tx.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"ord='nuclear'\) needs 2-D variables, got shape \[2\]"):
        txa.optimizers.ConditionalGradient(ord="nuclear").apply_gradients([(tx.constant([1.0, 1.0]), v)])
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.ConditionalGradient(0.1), str(tmp_path / "c"))
