"""Sample-data helpers for conformance entries: deterministic arrays of a given dtype."""

from __future__ import annotations

import numpy as np

FLOATS = (np.float32, np.float64)
INTS = (np.int32, np.int64)
NUMBERS = FLOATS + INTS


def rand(shape, dtype=np.float32, low=-3.0, high=3.0, seed=0) -> np.ndarray:
    """Uniform values in [low, high) (integers for integer dtypes), reproducible by `seed`."""
    rng = np.random.default_rng(seed + hash(tuple(np.atleast_1d(shape).tolist())) % 1000)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def positive(shape, dtype=np.float32, seed=0) -> np.ndarray:
    """Values away from zero (safe divisors): in [0.5, 3] for floats, [1, 5] for integers."""
    return rand(shape, dtype, 0.5, 3.0, seed) if np.dtype(dtype).kind == "f" else rand(shape, dtype, 1, 5, seed)


# Shape pairs that exercise NumPy broadcasting, scalars and zero-size tensors.
BROADCAST_SHAPES = [((), ()), ((4,), ()), ((), (3,)), ((2, 3), (2, 3)), ((2, 1, 3), (4, 3)), ((5, 1), (1, 6)),
                    ((0, 3), (1, 3)), ((2, 3, 4), (4,))]
