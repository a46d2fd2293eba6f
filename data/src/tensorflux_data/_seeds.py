"""Per-element seeds for random ops inside pipeline functions (Note [Element seeds])."""

# Note [Element seeds]: a map function that calls tx.random.uniform/normal/truncated_normal would,
# traced as is, hold stateful random kernels whose draws depend on which thread ran which element
# first (tensorflow#44491). Instead, while a pipeline function is traced (or, in debug mode, run),
# those three names of tx.random are swapped for the stateless Philox ops (tx.raw_ops'
# StatelessRandom*V2) fed by an extra uint64[1] input, the element's Philox key: a hash of the
# iterator's seed word (the pipeline seed option, this node's fingerprint and the iteration key)
# and the element's position. The k-th random call of the function uses the counter (0, k), so its
# calls draw disjoint streams. The values then depend on the element's position alone: the same at
# any thread count, in debug mode, and after a restore. (The key is an input because core's
# tx.random.stateless_* need seeds known when the graph is built.) The swap is process-wide for
# the length of one trace, under a lock.

import contextlib
import hashlib
import threading

import numpy as np

import tensorflux as tx

_NAMES = ("uniform", "normal", "truncated_normal")
_lock = threading.RLock()
_MASK = (1 << 64) - 1


class _Source:
    def __init__(self, key):
        self.key, self.calls = key, 0

    def next(self):
        """(key, counter) tensors of the next random call."""
        k, self.calls = self.calls, self.calls + 1
        key = self.key if self.key is not None else tx.constant(np.zeros([1], np.uint64))
        return key, tx.constant(np.array([0, k], np.uint64))


def _float(dtype):
    dtype = tx.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("random ops in a pipeline function support float dtypes and integer uniform, got %s"
                         % dtype.name)
    return dtype


def _stateless(src):
    def uniform(shape, minval=0, maxval=None, dtype=tx.float32, seed=None, name=None):
        key, counter = src.next()
        dtype = tx.as_dtype(dtype)
        if dtype in (tx.int32, tx.int64):
            if maxval is None:
                raise ValueError("uniform: maxval must be given for integer dtype %s" % dtype.name)
            return tx.raw_ops.StatelessRandomUniformIntV2(shape=shape, key=key, counter=counter, alg=1,
                                                          minval=tx.cast(minval, dtype), maxval=tx.cast(maxval, dtype))
        rnd = tx.raw_ops.StatelessRandomUniformV2(shape=shape, key=key, counter=counter, alg=1, dtype=_float(dtype))
        return rnd * (tx.cast(1 if maxval is None else maxval, dtype) - tx.cast(minval, dtype)) + tx.cast(minval, dtype)

    def normal(shape, mean=0.0, stddev=1.0, dtype=tx.float32, seed=None, name=None):
        key, counter = src.next()
        rnd = tx.raw_ops.StatelessRandomNormalV2(shape=shape, key=key, counter=counter, alg=1, dtype=_float(dtype))
        return rnd * tx.cast(stddev, dtype) + tx.cast(mean, dtype)

    def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=tx.float32, seed=None, name=None):
        key, counter = src.next()
        rnd = tx.raw_ops.StatelessTruncatedNormalV2(shape=shape, key=key, counter=counter, alg=1,
                                                    dtype=_float(dtype))
        return rnd * tx.cast(stddev, dtype) + tx.cast(mean, dtype)

    return {"uniform": uniform, "normal": normal, "truncated_normal": truncated_normal}


@contextlib.contextmanager
def element_seeds(key):
    """While active, tx.random's stateful samplers draw from the Philox ``key`` (a uint64[1]
    tensor; None: a fixed one); yields the source, whose ``calls`` counts the random calls made."""
    src = _Source(key)
    with _lock:
        saved = {n: getattr(tx.random, n) for n in _NAMES}
        for n, f in _stateless(src).items():
            setattr(tx.random, n, f)
        try:
            yield src
        finally:
            for n, f in saved.items():
                setattr(tx.random, n, f)


def iterator_seed(ctx, node):
    """The first seed word of ``node``'s functions in one (sub)iteration (Note [Element seeds])."""
    text = repr((ctx.options.seed, node._fingerprint(), ctx.key)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little") >> 2


def _mix(z):
    """SplitMix64's finaliser: a bijective scramble of a 64-bit word."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def keyed_word(key, counter):
    """Word ``counter`` of the stream keyed by ``key``: Mix(key ^ Mix(counter)) (csrc's KeyedWord)."""
    return _mix(key ^ _mix(counter))


def element_seed(seed0, index):
    """The Philox key (uint64[1]) of element ``index`` of an iterator with seed word ``seed0``."""
    return np.array([keyed_word(seed0, index)], np.uint64)


# Note [Shuffle draws]: a shuffle draws its buffer indices from a counter-based stream, the same in
# both engines (csrc/shuffle.cc): its key is a hash of the node's seed and, with
# reshuffle_each_iteration, the iteration key (so every epoch has its own order, deterministically);
# word c of the stream is keyed_word(key, c). A draw below n takes the next word x and returns
# x % n, skipping (rarely: with probability below n / 2**64) words x < 2**64 % n, so every index is
# equally likely. The generator's state is the count of words taken: a state saves (key, count).


def shuffle_key(seed, key):
    """The stream key of a shuffle with ``seed`` in the (sub)iteration ``key`` (() when it does not
    reshuffle) (Note [Shuffle draws])."""
    text = repr((int(seed), tuple(int(k) for k in key))).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def draw(key, count, n):
    """(index below ``n`` >= 1, words taken then): the draw from word ``count`` on of stream ``key``."""
    threshold = (1 << 64) % n
    while True:
        x = keyed_word(key, count)
        count += 1
        if x >= threshold:
            return x % n, count
