"""Random sampling: ``tx.random.uniform``, ``normal``, ``truncated_normal``, ``shuffle``,
``categorical``, the ``stateless_*`` variants and ``set_seed`` (seeds work like TensorFlow's)."""

from tensorflux._src.random_ops import (categorical, normal, set_seed, shuffle, stateless_normal,
                                        stateless_truncated_normal, stateless_uniform, truncated_normal, uniform)

__all__ = ["categorical", "normal", "set_seed", "shuffle", "stateless_normal", "stateless_truncated_normal",
           "stateless_uniform", "truncated_normal", "uniform"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
