"""Lookahead: the paper's update in NumPy around AdamW (its weight decay kept), the core kit."""

import numpy as np

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

from test_decoupled import numpy_adamw


def numpy_lookahead(inner, k, alpha):
    def step(param, grad, state, t):
        if "slow" not in state:
            state["slow"] = param.copy()
        fast = inner(param, grad, state, t)
        if t % k:
            return fast
        state["slow"] = state["slow"] + alpha * (fast - state["slow"])
        return state["slow"].copy()
    return step


def test_matches_the_paper_and_keeps_the_weight_decay():
    const = lambda t: 0.05  # noqa: E731
    testing.check_against_reference(
        lambda: txa.optimizers.Lookahead(txa.optimizers.AdamW(0.05, weight_decay=0.2), sync_period=3,
                                         slow_step_size=0.6),
        numpy_lookahead(numpy_adamw(const, 0.2), 3, 0.6), steps=7)


def test_weight_decay_of_the_wrapped_optimizer_acts():
    # zero gradients: only decoupled decay moves the fast weights, and so the slow ones
    w = tx.Variable([1.0, -1.0])
    opt = txa.optimizers.Lookahead(txa.optimizers.SGDW(0.1, weight_decay=0.5, momentum=0.0), sync_period=2,
                                   slow_step_size=1.0)
    for _ in range(2):
        opt.apply_gradients([(tx.constant([0.0, 0.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.95 ** 2, -0.95 ** 2], rtol=1e-6)
    np.testing.assert_allclose(opt.get_slot(w, "slow").numpy(), w.numpy())


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.Lookahead(tx.optimizers.Adam(0.2)), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.Lookahead(tx.optimizers.Adam(0.01), 2),
                                             str(tmp_path / "c"))
