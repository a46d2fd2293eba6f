"""MultiOptimizer: each group as its own optimizer would (NumPy and optax.multi_transform), slots
only where used, errors, the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks
from test_lamb import numpy_lamb


def test_groups_match_their_own_optimizers():
    sgd = lambda p, g, s, t: p - 0.1 * g  # noqa: E731
    lamb = numpy_lamb(0.05, wd=0.1)
    ref = lambda p, g, s, t: (lamb if p.ndim == 2 else sgd)(p, g, s, t)  # noqa: E731
    testing.check_against_reference(lambda: txa.optimizers.MultiOptimizer(
        [(txa.optimizers.LAMB(0.05, weight_decay=0.1), lambda v: v.shape.rank == 2),
         (tx.optimizers.SGD(0.1), lambda v: True)]), ref, steps=4)


def test_matches_optax_multi_transform():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(
        lambda: txa.optimizers.MultiOptimizer([(txa.optimizers.Yogi(0.02), lambda v: v.shape.rank == 2),
                                               (txa.optimizers.AdamW(0.01, weight_decay=0.1), lambda v: True)]),
        lambda: optax.multi_transform({"m": optax.yogi(0.02), "b": optax.adamw(0.01, weight_decay=0.1)},
                                      ["m", "b"]))


def test_slots_exist_only_in_their_group_and_unmatched_variables_are_refused():
    w, b, c = tx.Variable(np.ones((3, 2), np.float32)), tx.Variable([1.0, 2.0]), tx.Variable([0.0])
    opt = txa.optimizers.MultiOptimizer([(tx.optimizers.Adam(0.1), [w]), (tx.optimizers.SGD(0.1, 0.9), b)])
    opt.apply_gradients([(tx.ones([3, 2]), w), (tx.constant([1.0, 1.0]), b)])
    assert opt.get_slot(w, "0/0_scale_by_adam/m").shape.as_list() == [3, 2]
    assert opt.get_slot(b, "0/0_scale_by_adam/m").shape.as_list() == [0]
    assert opt.get_slot(b, "1/0_trace/trace").shape.as_list() == [2]
    with pytest.raises(ValueError, match=r"variable .* is in none of the 2 groups"):
        opt.apply_gradients([(tx.constant([1.0]), c)])
    with pytest.raises(ValueError, match="at least one"):
        txa.optimizers.MultiOptimizer([])


def test_converges_and_checkpoints(tmp_path):
    make = lambda: txa.optimizers.MultiOptimizer([(tx.optimizers.Adam(0.01), lambda v: v.shape.rank == 2),  # noqa
                                                  (txa.optimizers.Lion(0.01), lambda v: True)])
    testing.check_slot_checkpoint_round_trip(make, str(tmp_path / "c"))
    testing.check_converges_on_quadratic(lambda: txa.optimizers.MultiOptimizer([(tx.optimizers.SGD(0.05),
                                                                                  lambda v: True)]), steps=300)
