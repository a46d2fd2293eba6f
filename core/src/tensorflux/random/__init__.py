"""Random sampling: ``tx.random.uniform``, ``normal``, ``truncated_normal``, ``shuffle``,
``categorical``, ``gamma``, ``poisson``, the ``stateless_*`` variants (binomial too) and ``set_seed``
(seeds work like TensorFlow's), and ``Generator`` with the global generator (state in a variable,
TensorFlow 2's tf.random.Generator)."""

from tensorflux._src.random_generator import Algorithm, Generator, get_global_generator, set_global_generator
from tensorflux._src.random_generator import create_rng_state
from tensorflux._src.random_generator import stateless_fold_in as fold_in
from tensorflux._src.random_generator import stateless_split as split
from tensorflux._src.random_ops import (categorical, normal, set_seed, shuffle, stateless_normal,
                                        stateless_truncated_normal, stateless_uniform, truncated_normal, uniform)
from tensorflux._src.random_dists import (gamma, poisson, stateless_binomial, stateless_gamma,
                                          stateless_poisson)
from tensorflux._src.candidate_sampling import (all_candidate_sampler, fixed_unigram_candidate_sampler,
                                                log_uniform_candidate_sampler, uniform_candidate_sampler)
from tensorflux._src.stateless_categorical import stateless_categorical
# `as experimental`: a re-export (tx.random.experimental, a submodule that __all__ does not list).
from tensorflux.random import experimental as experimental

__all__ = ["Algorithm", "Generator", "categorical", "get_global_generator", "normal",
           "set_global_generator", "set_seed", "shuffle", "stateless_normal", "stateless_truncated_normal",
           "stateless_uniform", "truncated_normal", "uniform",
           "gamma", "poisson", "stateless_binomial", "stateless_gamma", "stateless_poisson",
           "create_rng_state", "fold_in", "split",
           "all_candidate_sampler", "fixed_unigram_candidate_sampler", "log_uniform_candidate_sampler",
           "uniform_candidate_sampler", "stateless_categorical"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
