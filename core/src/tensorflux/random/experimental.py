"""Experimental random APIs (``tx.random.experimental``, like ``tf.random.experimental``)."""

from tensorflux._src.random_generator import (Algorithm, Generator, create_rng_state, get_global_generator,
                                              set_global_generator, stateless_fold_in, stateless_split)

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator",
           "stateless_fold_in", "stateless_split"]
