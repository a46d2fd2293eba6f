"""The optimizer test kit (``tx.optimizers.testing``): the checks every optimizer, built-in or
contributed (tensorflux-addons), should pass."""

from tensorflux._src.optim.testing import (SHAPES, check_against_reference, check_converges_on_quadratic,
                                           check_slot_checkpoint_round_trip)

__all__ = ["SHAPES", "check_against_reference", "check_converges_on_quadratic", "check_slot_checkpoint_round_trip"]
