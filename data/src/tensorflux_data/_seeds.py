"""Per-element seeds for random ops inside pipeline functions (Note [Element seeds])."""

# Note [Element seeds]: a pipeline function that calls a random sampler would, traced as is, hold
# stateful random kernels whose draws depend on which thread ran which element first
# (tensorflow#44491). Instead, a pipeline function is traced (or, in debug mode, run) inside core's
# tx.random.experimental.keyed_draws(key) (core's Note [Keyed draws]): every stateful sampler core
# builds (tx.random.uniform, normal, truncated_normal, shuffle, categorical, gamma, poisson, the
# candidate samplers, tx.image.random_* and sample_distorted_bounding_box, tx.nn.dropout, Keras
# initializers and layers) becomes a stateless Philox op fed by an extra uint64[1] input, the
# element's Philox key: a hash of the iterator's seed word (the pipeline seed option, this node's
# fingerprint and the iteration key) and the element's position. The k-th random op of the
# function draws the k-th stream of that key. The values then depend on the element's position
# alone: the same at any thread count, in debug mode, and after a restore. (The key is an input
# because core's tx.random.stateless_* need seeds known when the graph is built, or derive them
# through an op.) Ops that remain stateful (a direct tx.raw_ops.RandomUniform call, one of
# tx.random.experimental.STATEFUL_RANDOM_OPS) make a deterministic pipeline fail when it starts
# iterating (stateful_random_ops and check_node_random in _functions.py), rather than give values
# that depend on timing.

import hashlib

import numpy as np

import tensorflux as tx

_MASK = (1 << 64) - 1

def element_seeds(key):
    """A context in which this thread's random samplers draw from the Philox ``key`` (a uint64[1]
    tensor; None: a fixed one); it yields the draws, whose ``calls`` counts the random ops built."""
    return tx.random.experimental.keyed_draws(key)


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
