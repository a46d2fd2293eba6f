"""Seeds and the stateless samplers every distribution draws from.

Note [Seeds]: every sample comes from a stateless op keyed by a shape-[2] int32 seed tensor, so the
same seed gives the same values eagerly, in a graph and inside ``tx.while_loop`` (where the seed
is a loop variable, split each iteration). ``sample(seed=...)`` accepts None (a fresh seed from
tx's stateful generator, which ``tx.random.set_seed`` makes reproducible), a Python int (always
the same draws), or a shape-[2] integer tensor (a stateless seed, as TFP's).
"""

import numbers

import numpy as np

import tensorflux as tx

from tensorflux_probability.internal.core_features import require

_INT32_MAX = 2**31 - 1


def sanitize_seed(seed, salt=None):
    """A shape-[2] int32 seed tensor from None, an int, or a shape-[2] integer value (Note [Seeds]);
    ``salt`` (a string) derives a distinct stream for a distinct purpose."""
    if seed is None:
        seed = fresh_seed()
    elif isinstance(seed, (numbers.Integral, np.integer)):
        seed = tx.constant([int(seed) % (2**31), int(seed) // (2**31) % (2**31)], dtype=tx.int32)
    else:
        seed = tx.convert_to_tensor(seed)
        if seed.dtype not in (tx.int32, tx.int64):
            raise TypeError("a seed must be None, an int or a shape-[2] integer tensor; got dtype %s"
                            % seed.dtype.name)
        if seed.dtype == tx.int64:
            seed = tx.cast(seed, tx.int32)
        if seed.shape.rank is not None and seed.shape.as_list() not in ([2], [None]):
            raise ValueError("a stateless seed has shape [2], got %s" % (seed.shape,))
    if salt is not None:
        seed = tx.random.experimental.stateless_fold_in(seed, _salt_value(salt))
    return seed


def fresh_seed(op_seed=None):
    """A new shape-[2] stateless seed from tx's stateful generator at every run (also each run of
    a traced function); ``op_seed`` makes the sequence reproducible, as an op-level seed does."""
    return tx.random.uniform([2], minval=-_INT32_MAX, maxval=_INT32_MAX, dtype=tx.int32, seed=op_seed)


def _salt_value(salt):
    h = 0
    for ch in salt.encode("utf-8"):
        h = (h * 131 + ch) % _INT32_MAX
    return h


def split_seed(seed, n=2, salt=None):
    """``n`` independent seeds derived from ``seed`` (each a shape-[2] int32 tensor)."""
    seed = sanitize_seed(seed, salt)
    return tx.unstack(tx.random.experimental.stateless_split(seed, n), num=n)


def normal(shape, seed, dtype=tx.float32):
    """Standard normal values of ``shape`` from ``seed``."""
    return tx.random.stateless_normal(shape, seed=sanitize_seed(seed), dtype=dtype)


def uniform(shape, seed, dtype=tx.float32, minval=0.0, maxval=1.0):
    """Uniform values in [minval, maxval) of ``shape`` from ``seed``."""
    return tx.random.stateless_uniform(shape, seed=sanitize_seed(seed), minval=minval, maxval=maxval, dtype=dtype)


def uniform_open(shape, seed, dtype=tx.float32):
    """Uniform values in (0, 1): [0, 1) with 0 replaced by the smallest positive normal number, so
    logs of them are finite."""
    u = uniform(shape, seed, dtype)
    tiny = np.finfo(tx.as_dtype(dtype).as_numpy_dtype).tiny
    return tx.maximum(u, tx.constant(tiny, dtype=dtype))


def gamma(shape, concentration, seed, dtype=tx.float32):
    """Gamma(concentration, rate 1) values of ``shape`` (which ends with concentration's
    broadcast shape), from core's stateless_gamma (implicitly reparameterised in concentration)."""
    fn = require("random.stateless_gamma", "sampling a Gamma-based distribution")
    return fn(shape, seed=sanitize_seed(seed), alpha=concentration, dtype=dtype)


def poisson(shape, rate, seed, dtype=tx.float32):
    """Poisson(rate) counts of ``shape`` as ``dtype``, from core's stateless_poisson."""
    fn = require("random.stateless_poisson", "sampling a Poisson-based distribution")
    return fn(shape, seed=sanitize_seed(seed), lam=rate, dtype=dtype)


def binomial(shape, counts, probs, seed, dtype=tx.float32):
    """Binomial(counts, probs) values of ``shape`` as ``dtype``, from core's stateless_binomial."""
    fn = require("random.stateless_binomial", "sampling a Binomial-based distribution")
    return fn(shape, seed=sanitize_seed(seed), counts=counts, probs=probs, output_dtype=dtype)
