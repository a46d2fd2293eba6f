"""Shared fixtures of the tensorflux-probability tests: float64 tolerances and a skip for core
functions a given tensorflux does not have yet (Note [Core functions] in internal/core_features.py)."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux_probability.internal import core_features


def needs_core(*dotted):
    """A skip mark naming the core functions (``"math.igamma"``, ...) this tensorflux lacks."""
    missing = [d for d in dotted if not core_features.has(d)]
    return pytest.mark.skipif(bool(missing), reason="tensorflux lacks tx.%s (core addition pending)" %
                              ", tx.".join(missing))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def value(t):
    """A tensor's (or a list of them) NumPy value."""
    if isinstance(t, (list, tuple)):
        return [value(x) for x in t]
    return np.asarray(tx.convert_to_tensor(t).numpy())
