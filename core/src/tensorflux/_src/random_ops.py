"""Random sampling ops (tx.random.*), thin over the generated wrappers, with TensorFlow-1-style
graph-level and op-level seeds.

Note [Seeds]: every stateful random op carries a (seed, seed2) pair derived as TensorFlow's
``random_seed.get_seed`` derives it: with a graph seed (``set_seed``) and an op seed, the pair is
(graph seed, op seed); with only a graph seed, the op seed counts the graph's seeded ops so far
(0, 1, ...; so a program rebuilt identically gets identical values); with only an op seed, the
graph seed is DEFAULT_GRAPH_SEED; with neither, (0, 0), which the kernel replaces by a seed from the
OS. Both seeds are taken modulo 2**31 - 1, and a (0, 0) pair becomes (0, 2**31 - 1) so that it
stays deterministic. Eagerly (TensorFlow
2), the global seed lives in the process, op seeds without one are drawn from a generator seeded
by it, and setting it drops the cached kernels, so the same seed repeats the same values.

Note [Stateless seeds]: the stateless ops take ``seed``, a shape-[2] integer, and derive the
Philox key and counter from it as TensorFlow's StatelessRandomGetKeyCounter does: the two seeds,
as unsigned 64-bit words, form the 128-bit counter (seed[0] low) of one Philox4x32-10 block under
the fixed key (0x3ec8f720, 0x02461e29); the block's words 0-1 become the 64-bit key and words 2-3
the high 64 bits of the counter (low 64 bits 0). Scrambling means no part of the seed needs to be
strong; matching the derivation makes ``stateless_uniform``/``stateless_normal`` give the same
values as ``tf.random.stateless_uniform``/``stateless_normal`` (whose CPU algorithm is Philox).
A seed known when the graph is built (a Python/NumPy value, an eager tensor or a Const) is
scrambled here in Python; a seed computed at run time (a loop variable, a function argument, the
output of ``stateless_split``) goes through the StatelessRandomGetKeyCounter op, which makes the
same derivation in the engine (Note [Seed scrambling] in kernels/cpu/stateless_random.cc), so a
sampler inside ``tx.while_loop`` can draw fresh values each iteration from a seed it carries.
"""

import numbers
import random as pyrandom

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import graph as _graph
from tensorflux._src import context
from tensorflux._src.constant_op import constant, convert_to_tensor, holds_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_ALG_PHILOX = 1


class _EagerSeed:
    """The global seed of eager execution and the generator of op seeds drawn from it."""

    seed = None
    rng = None


def set_seed(seed):
    """Sets the global seed, from which random ops made afterwards derive their seeds (Note
    [Seeds]); ``None`` clears it. Eagerly, as in TensorFlow 2, it also restarts the sequences:
    the same seed gives the same random values again.

    >>> tx.random.set_seed(42)
    >>> a = tx.random.uniform([3])
    >>> tx.random.set_seed(42)
    >>> bool(tx.reduce_all(a == tx.random.uniform([3])))
    True
    """
    if context.executing_eagerly():
        _EagerSeed.seed = None if seed is None else int(seed)
        _EagerSeed.rng = None if seed is None else pyrandom.Random(int(seed))
        context.clear_kernel_cache()  # stateful random kernels restart from their seeds
        return
    _graph.get_default_graph().seed = None if seed is None else int(seed)


def get_seed(op_seed):
    """The (seed, seed2) pair for an op made now in the default graph, or eagerly (Note [Seeds])."""
    if context.executing_eagerly():
        graph_seed = _EagerSeed.seed
        if graph_seed is not None and op_seed is None:
            op_seed = _EagerSeed.rng.randint(0, _MAXINT32)
    else:
        g = _graph.get_default_graph()
        graph_seed = getattr(g, "seed", None)
        if graph_seed is not None and op_seed is None:
            op_seed = getattr(g, "_seeded_ops", 0)
            g._seeded_ops = op_seed + 1
    if graph_seed is not None:
        seeds = (int(graph_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        return 0, 0
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def compat_get_seed(op_seed):
    """``tx.compat.v1.get_seed``: the (seed, seed2) pair of get_seed, or (None, None) where neither a
    graph seed nor an op seed is set, as TensorFlow returns."""
    seeds = get_seed(op_seed)
    return (None, None) if seeds == (0, 0) else seeds


def _shape_tensor(shape):
    if isinstance(shape, _TENSORS):
        return shape
    if isinstance(shape, (list, tuple)) and holds_tensor(shape):
        return convert_to_tensor(shape)
    arr = np.asarray(shape if not hasattr(shape, "as_list") else shape.as_list())
    if arr.dtype.kind not in "iu" and arr.size > 0:
        raise TypeError("shape must hold integers, got %r" % (shape,))
    arr = arr.astype(np.int64 if arr.size and np.abs(arr).max() > _MAXINT32 else np.int32).reshape(-1)
    return constant(arr, name="shape")


def _is_number(x, value):
    return isinstance(x, numbers.Number) and not isinstance(x, bool) and x == value


def _affine(rnd, scale, shift, dtype):
    """rnd * scale + shift, skipping the identity parts when they are Python numbers."""
    if not _is_number(scale, 1):
        rnd = gen_ops.mul(rnd, convert_to_tensor(scale, dtype=dtype, name="scale") if not isinstance(scale, _TENSORS)
                          else scale)
    if not _is_number(shift, 0):
        rnd = gen_ops.add_v2(rnd, convert_to_tensor(shift, dtype=dtype, name="shift") if not isinstance(shift, _TENSORS)
                             else shift)
    return rnd


def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    """Values drawn uniformly from [minval, maxval) (maxval defaults to 1 for floats; integer
    dtypes need maxval and use RandomUniformInt)."""
    dtype = _dtypes.as_dtype(dtype)
    seed1, seed2 = get_seed(seed)
    shape_t = _shape_tensor(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError("Must specify maxval for integer dtype %s" % dtype.name)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        return gen_ops.random_uniform_int(shape_t, lo, hi, seed=seed1, seed2=seed2, name=name or "random_uniform")
    if not dtype.is_floating:
        raise ValueError("uniform supports float and integer dtypes, got %s" % dtype.name)
    rnd = gen_ops.random_uniform(shape_t, dtype=dtype, seed=seed1, seed2=seed2, name=name or "random_uniform")
    if maxval is None:
        maxval = 1
    if _is_number(minval, 0) and _is_number(maxval, 1):
        return rnd
    lo = minval if isinstance(minval, _TENSORS) else convert_to_tensor(minval, dtype=dtype, name="min")
    hi = maxval if isinstance(maxval, _TENSORS) else convert_to_tensor(maxval, dtype=dtype, name="max")
    return gen_ops.add_v2(gen_ops.mul(rnd, gen_ops.sub(hi, lo)), lo)


def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Values drawn from the normal distribution N(mean, stddev**2)."""
    dtype = _dtypes.as_dtype(dtype)
    seed1, seed2 = get_seed(seed)
    rnd = gen_ops.random_standard_normal(_shape_tensor(shape), dtype=dtype, seed=seed1, seed2=seed2,
                                         name=name or "random_normal")
    return _affine(rnd, stddev, mean, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    """Normal values conditioned on lying within two standard deviations of the mean."""
    dtype = _dtypes.as_dtype(dtype)
    seed1, seed2 = get_seed(seed)
    rnd = gen_ops.truncated_normal(_shape_tensor(shape), dtype=dtype, seed=seed1, seed2=seed2,
                                   name=name or "truncated_normal")
    return _affine(rnd, stddev, mean, dtype)


def shuffle(value, seed=None, name=None):
    """``value`` with its first dimension randomly permuted."""
    seed1, seed2 = get_seed(seed)
    value = value if isinstance(value, _TENSORS) else convert_to_tensor(value)
    return gen_ops.random_shuffle(value, seed=seed1, seed2=seed2, name=name)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices, ``num_samples`` per row of ``logits`` [batch, classes], drawn with
    probabilities softmax(row); ``dtype`` is int64 (default) or int32."""
    seed1, seed2 = get_seed(seed)
    logits = logits if isinstance(logits, _TENSORS) else convert_to_tensor(logits)
    n = num_samples if isinstance(num_samples, _TENSORS) else convert_to_tensor(num_samples, dtype=_dtypes.int32)
    return gen_ops.multinomial(logits, n, seed=seed1, seed2=seed2,
                               output_dtype=_dtypes.as_dtype(dtype or _dtypes.int64), name=name)


_MASK32 = 0xFFFFFFFF
_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)


def _philox4x32(counter, key):
    """One Philox4x32-10 block (the engine's generator, here for the seed derivation only)."""
    c, k = list(counter), list(key)
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & _MASK32, (p0 >> 32) ^ c[3] ^ k[1], p0 & _MASK32]
        k = [(k[0] + 0x9E3779B9) & _MASK32, (k[1] + 0xBB67AE85) & _MASK32]
    return c


def static_seed(seed):
    """The value of ``seed`` when it is known while building (not a tensor, an eager tensor or a
    Const), else None."""
    if not isinstance(seed, _TENSORS):
        return seed
    if hasattr(seed, "numpy"):
        return seed.numpy()
    return seed.op.get_attr("value") if seed.op.type == "Const" else None


def _check_seed_tensor(seed):
    if seed.dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError("seed must be a shape-[2] int32 or int64 tensor, got dtype %s" % seed.dtype.name)
    if seed.shape.rank is not None and seed.shape.as_list() not in ([2], [None]):
        raise ValueError("seed must be a shape-[2] integer value, got shape %s" % (seed.shape,))
    return seed


def key_counter_from_seed(seed):
    """(key, counter) as uint64 arrays of shapes [1] and [2] from a shape-[2] integer seed known
    while building (Note [Stateless seeds])."""
    value = static_seed(seed)
    if value is None:
        raise TypeError("%s is computed at run time; use the tensors of key_counter_tensors" % seed.name)
    arr = np.asarray(value)
    if arr.shape != (2,) or arr.dtype.kind not in "iu":
        raise ValueError("seed must be a shape-[2] integer value, got %r" % (seed,))
    s0, s1 = (int(v) % 2**64 for v in arr)
    mix = _philox4x32([s0 & _MASK32, s0 >> 32, s1 & _MASK32, s1 >> 32], _SCRAMBLE_KEY)
    key = np.array([mix[0] | mix[1] << 32], np.uint64)
    counter = np.array([0, mix[2] | mix[3] << 32], np.uint64)
    return key, counter


def key_counter_tensors(seed):
    """(key, counter) uint64 tensors for the V2 stateless ops: constants when ``seed`` is known while
    building, else the outputs of StatelessRandomGetKeyCounter (Note [Stateless seeds])."""
    if isinstance(seed, _TENSORS) and static_seed(seed) is None:
        return tuple(gen_ops.stateless_random_get_key_counter(_check_seed_tensor(seed)))
    key, counter = key_counter_from_seed(seed)
    return (constant(key, dtype=_dtypes.uint64, name="key"), constant(counter, dtype=_dtypes.uint64, name="counter"))


_key_counter = key_counter_tensors


def _stateless(gen_fn, shape, seed, dtype, name):
    dtype = _dtypes.as_dtype(dtype)
    key, counter = _key_counter(seed)
    alg = constant(np.int32(_ALG_PHILOX), name="alg")
    return gen_fn(_shape_tensor(shape), key, counter, alg, dtype=dtype, name=name)


_FULL_INT = (_dtypes.int32, _dtypes.int64, _dtypes.uint32, _dtypes.uint64)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
    """Uniform values in [minval, maxval) determined by ``seed`` (shape [2]) alone; integer
    dtypes (int32, int64) need ``maxval`` (TensorFlow's StatelessRandomUniformIntV2), or both bounds
    None for integers over the dtype's whole range (also uint32, uint64: StatelessRandomUniformFullIntV2)."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype in _FULL_INT and minval is None and maxval is None:
        return _stateless(gen_ops.stateless_random_uniform_full_int_v2, shape, seed, dtype,
                          name or "stateless_random_uniform")
    if dtype in (_dtypes.int32, _dtypes.int64):
        if maxval is None:
            raise ValueError("stateless_uniform: maxval must be given for integer dtype %s" % dtype.name)
        key, counter = _key_counter(seed)
        alg = constant(np.int32(_ALG_PHILOX), name="alg")
        lo = minval if isinstance(minval, _TENSORS) else convert_to_tensor(minval, dtype=dtype, name="min")
        hi = maxval if isinstance(maxval, _TENSORS) else convert_to_tensor(maxval, dtype=dtype, name="max")
        return gen_ops.stateless_random_uniform_int_v2(_shape_tensor(shape), key, counter, alg, lo, hi,
                                                       name=name or "stateless_random_uniform")
    if not dtype.is_floating:
        raise ValueError("stateless_uniform supports float, int32 and int64 dtypes (and uint32, uint64 with "
                         "minval and maxval None), got %s" % dtype.name)
    rnd = _stateless(gen_ops.stateless_random_uniform_v2, shape, seed, dtype, name or "stateless_random_uniform")
    if maxval is None:
        maxval = 1
    if _is_number(minval, 0) and _is_number(maxval, 1):
        return rnd
    lo = minval if isinstance(minval, _TENSORS) else convert_to_tensor(minval, dtype=dtype, name="min")
    hi = maxval if isinstance(maxval, _TENSORS) else convert_to_tensor(maxval, dtype=dtype, name="max")
    return gen_ops.add_v2(gen_ops.mul(rnd, gen_ops.sub(hi, lo)), lo)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
    """Normal values N(mean, stddev**2) determined by ``seed`` (shape [2]) alone."""
    rnd = _stateless(gen_ops.stateless_random_normal_v2, shape, seed, dtype, name or "stateless_random_normal")
    return _affine(rnd, stddev, mean, _dtypes.as_dtype(dtype))


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
    """Truncated normal values (within two stddev of the mean) determined by ``seed`` alone."""
    rnd = _stateless(gen_ops.stateless_truncated_normal_v2, shape, seed, dtype,
                     name or "stateless_truncated_normal")
    return _affine(rnd, stddev, mean, _dtypes.as_dtype(dtype))
