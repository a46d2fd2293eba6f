"""Experimental random APIs (``tx.random.experimental``, like ``tf.random.experimental``), and
Tensorflux's ``keyed_draws``: a traced function's random samplers drawing from a key input."""

from tensorflux._src.keyed_random import STATEFUL_RANDOM_OPS, KeyedDraws, keyed_draws
from tensorflux._src.random_generator import (Algorithm, Generator, create_rng_state, get_global_generator,
                                              set_global_generator, stateless_fold_in, stateless_split)

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator",
           "stateless_fold_in", "stateless_split",
           # Tensorflux's own (Note [Keyed draws]): not in tf.random.experimental
           "KeyedDraws", "STATEFUL_RANDOM_OPS", "keyed_draws"]
