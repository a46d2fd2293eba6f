"""SAM: the paper's two-step update in NumPy, optax.contrib.sam, same-loss steps with minimize,
the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def test_alternating_steps_match_numpy():
    # odd steps ascend by rho * g / ||g|| (one norm over both variables), even ones apply SGD from
    # the remembered point; the kit's gradients are drawn here again to know each step's norm
    rho, lr = 0.3, 0.1
    rng = np.random.default_rng(0)
    _ = [rng.standard_normal(s) for s in testing.SHAPES]          # the kit's initial values
    norms = [np.sqrt(sum(np.sum(rng.standard_normal(s) ** 2) for s in testing.SHAPES)) for _ in range(4)]

    def ref(param, grad, state, t):
        if t % 2:
            state["cache"] = param.copy()
            return param + rho * grad / norms[t - 1]
        return state["cache"] - lr * grad
    testing.check_against_reference(lambda: txa.optimizers.SAM(tx.optimizers.SGD(lr), rho=rho), ref, steps=4)


def test_matches_optax_sam():
    optax = pytest.importorskip("optax")
    contrib = pytest.importorskip("optax.contrib")

    def adv():
        return optax.chain(contrib.normalize(), optax.sgd(0.05))
    optim_checks.check_matches_optax(lambda: txa.optimizers.SAM(txa.optimizers.AdamW(0.01, weight_decay=0.0),
                                                                rho=0.05),
                                     lambda: contrib.sam(optax.adam(0.01), adv(), sync_period=2), steps=8)


def test_minimize_takes_both_halves_on_one_loss():
    w = tx.Variable([3.0, 4.0])
    opt = txa.optimizers.SAM(tx.optimizers.SGD(0.1), rho=0.5)
    for _ in range(2):
        opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    want = np.array([3.0, 4.0])
    for _ in range(2):
        g = 2 * want
        want = want - 0.1 * 2 * (want + 0.5 * g / np.linalg.norm(g))
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-6)
    assert int(opt.iterations.numpy()) == 4


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.SAM(tx.optimizers.SGD(0.05), rho=0.01), steps=600)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.SAM(tx.optimizers.Adam(0.01)),
                                             str(tmp_path / "c"), steps=4)
