"""Samplers of parameterized distributions (``tx.random.gamma``, ``poisson`` and the stateless
``stateless_gamma``, ``stateless_poisson``, ``stateless_binomial``), with TensorFlow's names,
signatures and shape rules.

Note [Sampler streams]: the kernels give output element i (parameters varying fastest in memory)
its own Philox stream, advanced by a fixed block budget per element, and draw with TensorFlow's
algorithms in its order (Marsaglia-Tsang for Gamma, Knuth and Hormann's PTRS for Poisson,
inversion and BTRS for binomial). The stateless forms derive the stream from the seed as
TensorFlow does (Note [Stateless seeds] in random_ops.py), so they give TensorFlow's values; the
stateful forms match TensorFlow in distribution only (their seeds reach the stream differently).
"""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.random_ops import _ALG_PHILOX, _key_counter, _shape_tensor, get_seed


def _param(value, dtype, name):
    """``value`` as a tensor of ``dtype`` (a tensor must already have it)."""
    return value if isinstance(value, _TENSORS) and value.dtype == dtype else convert_to_tensor(
        value if isinstance(value, _TENSORS) else np.asarray(value, dtype.as_numpy_dtype), dtype=dtype, name=name)


def _alpha_and_beta(alpha, beta, dtype):
    """alpha broadcast against beta, and beta (1 when None), both of ``dtype``."""
    alpha = _param(alpha, dtype, "alpha")
    beta = _param(1 if beta is None else beta, dtype, "beta")
    if beta.shape.rank == 0:
        return alpha, beta
    return gen_ops.add_v2(alpha, gen_ops.zeros_like(beta)), beta  # alpha broadcast against beta


def _scale_gamma(rnd, beta, dtype):
    """rnd / beta, at least the dtype's smallest normal number (TensorFlow's guard against 0)."""
    tiny = constant(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype)
    return gen_ops.maximum(tiny, gen_ops.real_div(rnd, beta))


def gamma(shape, alpha, beta=None, dtype=_dtypes.float32, seed=None, name=None):
    """Samples Gamma(alpha, rate beta): ``shape`` samples for each of the broadcast alpha and
    beta, so the result has shape ``shape + broadcast(alpha, beta).shape``; differentiable in
    alpha and beta (implicit reparameterization).

    >>> tx.random.gamma([4], alpha=[0.5, 2.0], seed=1).shape
    TensorShape([4, 2])
    """
    dtype = _dtypes.as_dtype(dtype)
    with name_scope(name or "random_gamma"):
        alpha, beta = _alpha_and_beta(alpha, beta, dtype)
        seed1, seed2 = get_seed(seed)
        rnd = gen_ops.random_gamma(_shape_tensor(shape), alpha, seed=seed1, seed2=seed2)
        return _scale_gamma(rnd, beta, dtype)


def poisson(shape, lam, dtype=_dtypes.float32, seed=None, name=None):
    """Samples Poisson(lam): ``shape`` samples for each rate, so the result has shape
    ``shape + lam.shape``; ``dtype`` (float or integer) is the samples' type.

    >>> tx.random.poisson([3], lam=[1.0, 20.0], seed=1).shape
    TensorShape([3, 2])
    """
    with name_scope(name or "random_poisson"):
        lam = lam if isinstance(lam, _TENSORS) else convert_to_tensor(lam, name="lam")
        seed1, seed2 = get_seed(seed)
        return gen_ops.random_poisson_v2(_shape_tensor(shape), lam, dtype=_dtypes.as_dtype(dtype), seed=seed1,
                                         seed2=seed2)


def _seed_tensor(seed):
    return seed if isinstance(seed, _TENSORS) else convert_to_tensor(np.asarray(seed), name="seed")


def stateless_gamma(shape, seed, alpha, beta=None, dtype=_dtypes.float32, name=None):
    """Gamma(alpha, rate beta) samples of shape ``shape`` (which ends with the broadcast shape of
    alpha and beta) determined by ``seed`` (shape [2]) alone: TensorFlow's values for the same
    seed; differentiable in alpha and beta.

    >>> x = tx.random.stateless_gamma([2, 3], seed=[1, 2], alpha=[1.0, 2.0, 3.0])
    >>> x.shape
    TensorShape([2, 3])
    """
    dtype = _dtypes.as_dtype(dtype)
    with name_scope(name or "stateless_random_gamma"):
        alpha, beta = _alpha_and_beta(alpha, beta, dtype)
        key, counter = _key_counter(seed)
        alg = constant(np.int32(_ALG_PHILOX), name="alg")
        rnd = gen_ops.stateless_random_gamma_v3(_shape_tensor(shape), key, counter, alg, alpha)
        return _scale_gamma(rnd, beta, dtype)


def stateless_poisson(shape, seed, lam, dtype=_dtypes.int32, name=None):
    """Poisson(lam) samples of shape ``shape`` (which ends with lam's shape) determined by
    ``seed`` (shape [2]) alone: TensorFlow's values for the same seed.

    >>> tx.random.stateless_poisson([2], seed=[1, 2], lam=[3.0, 30.0]).dtype
    tx.int32
    """
    with name_scope(name or "stateless_random_poisson"):
        lam = lam if isinstance(lam, _TENSORS) else convert_to_tensor(lam, name="lam")
        return gen_ops.stateless_random_poisson(_shape_tensor(shape), _seed_tensor(seed), lam,
                                                dtype=_dtypes.as_dtype(dtype))


def stateless_binomial(shape, seed, counts, probs, output_dtype=_dtypes.int32, name=None):
    """Binomial(counts, probs) samples of shape ``shape`` (which ends with the broadcast shape of
    counts and probs) determined by ``seed`` (shape [2]) alone: TensorFlow's values for the same
    seed.

    >>> tx.random.stateless_binomial([2], seed=[1, 2], counts=[10.0, 20.0], probs=[0.5, 0.5]).shape
    TensorShape([2])
    """
    with name_scope(name or "stateless_random_binomial"):
        probs = probs if isinstance(probs, _TENSORS) else convert_to_tensor(probs, name="probs")
        counts = counts if isinstance(counts, _TENSORS) else _param(counts, probs.dtype, "counts")
        return gen_ops.stateless_random_binomial(_shape_tensor(shape), _seed_tensor(seed), counts, probs,
                                                 dtype=_dtypes.as_dtype(output_dtype))
