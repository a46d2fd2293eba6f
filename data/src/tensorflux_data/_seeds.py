"""Per-element seeds for random ops inside pipeline functions (Note [Element seeds])."""

# Note [Element seeds]: a pipeline function that calls a random sampler would, traced as is, hold
# stateful random kernels whose draws depend on which thread ran which element first
# (tensorflow#44491). Instead, while a pipeline function is traced (or, in debug mode, run), the
# Python wrappers of core's stateful random ops (gen_ops: RandomUniform, RandomUniformInt,
# RandomStandardNormal, TruncatedNormal, RandomShuffle, Multinomial, RandomGamma, RandomPoissonV2,
# SampleDistortedBoundingBoxV2) build stateless Philox ops instead, fed by an extra uint64[1] input,
# the element's Philox key: a hash of the iterator's seed word (the pipeline seed option, this node's
# fingerprint and the iteration key) and the element's position. Swapping the op wrappers rather
# than tx.random's names covers every public sampler that builds these ops (tx.random.uniform,
# normal, truncated_normal, shuffle, categorical, gamma, poisson, the candidate samplers through
# categorical, tx.image.random_* and sample_distorted_bounding_box, tx.nn.dropout, Keras
# initializers and layers), and the public functions keep their own argument checks, dtype rules
# and shapes: only the stream differs. The k-th random call of the function uses the counter
# (0, k) (the ops that take a shape-[2] seed, StatelessRandomPoisson, StatelessSampleDistortedBoundingBox
# and categorical's stateless form, the seed (key as int64, k)), so its calls draw disjoint streams.
# The values then depend on the element's position alone: the same at any thread count, in debug
# mode, and after a restore. (The key is an input because core's tx.random.stateless_* need seeds
# known when the graph is built, or derive them through an op.) Core has no stateless shuffle
# kernel: a shuffle sorts the first dimension by 64-bit StatelessRandomUniformFullIntV2 keys (a
# uniform permutation but for ties, with probability below n**2 / 2**65). The swap lasts one trace:
# the wrappers are installed on gen_ops while any thread traces, and build the stateless ops only
# in the threads whose trace is active (the others get the stateful ops, as outside pipelines).
# Ops that remain stateful (a direct tx.raw_ops.RandomUniform call, a wrapper imported by name) make
# a deterministic pipeline fail when it starts iterating (stateful_random_ops and check_node_random
# in _functions.py), rather than give values that depend on timing.

import contextlib
import hashlib
import threading

import numpy as np

import tensorflux as tx
from tensorflux._src.generated import gen_ops

_MASK = (1 << 64) - 1
_local = threading.local()  # .sources: the stack of this thread's active _Source
_install_lock = threading.Lock()
_installed = {"count": 0, "saved": {}}

# Op types whose kernels keep random state (Note [Element seeds]): what a deterministic pipeline's
# functions must not hold.
STATEFUL_RANDOM = frozenset("""
RandomUniform RandomUniformInt RandomStandardNormal TruncatedNormal ParameterizedTruncatedNormal RandomShuffle
RandomGamma RandomPoisson RandomPoissonV2 Multinomial RandomCrop SampleDistortedBoundingBox
SampleDistortedBoundingBoxV2 UniformCandidateSampler LogUniformCandidateSampler LearnedUnigramCandidateSampler
FixedUnigramCandidateSampler ThreadUnsafeUnigramCandidateSampler AllCandidateSampler StatefulUniform
StatefulUniformInt StatefulUniformFullInt StatefulStandardNormal StatefulStandardNormalV2 StatefulTruncatedNormal
StatefulRandomBinomial NonDeterministicInts
""".split())


class _Source:
    def __init__(self, key):
        self.key, self.calls = key, 0

    def next(self):
        """(key, counter) tensors of the next random call."""
        k, self.calls = self.calls, self.calls + 1
        key = self.key if self.key is not None else tx.constant(np.zeros([1], np.uint64))
        return key, tx.constant(np.array([0, k], np.uint64))

    def next_seed(self):
        """The shape-[2] int64 seed of the next random call, for the ops that take one."""
        k = self.calls
        key, _ = self.next()
        return gen_ops.concat_v2([tx.bitcast(key, tx.int64), tx.constant(np.array([k], np.int64))], 0)


def _full_shape(shape, params):
    """``shape`` followed by the shape of ``params`` (a stateful sampler's output shape), as a constant
    when both are known while building, so the output's static shape is the stateful op's."""
    shape = tx.convert_to_tensor(shape)
    head = tx.get_static_value(shape)
    if head is not None and params.shape.is_fully_defined():
        return tx.constant(np.concatenate([np.asarray(head).reshape(-1), params.shape.as_list()]).astype(
            shape.dtype.as_numpy_dtype))
    return gen_ops.concat_v2([shape, gen_ops.shape(params, out_type=shape.dtype)], 0)


def _uniform(src, shape, dtype, seed=0, seed2=0, name=None):
    key, counter = src.next()
    return gen_ops.stateless_random_uniform_v2(shape, key, counter, 1, dtype=dtype, name=name)


def _uniform_int(src, shape, minval, maxval, seed=0, seed2=0, name=None):
    key, counter = src.next()
    return gen_ops.stateless_random_uniform_int_v2(shape, key, counter, 1, minval, maxval, name=name)


def _normal(src, shape, dtype, seed=0, seed2=0, name=None):
    key, counter = src.next()
    return gen_ops.stateless_random_normal_v2(shape, key, counter, 1, dtype=dtype, name=name)


def _truncated_normal(src, shape, dtype, seed=0, seed2=0, name=None):
    key, counter = src.next()
    return gen_ops.stateless_truncated_normal_v2(shape, key, counter, 1, dtype=dtype, name=name)


def _shuffle(src, value, seed=0, seed2=0, name=None):
    value = tx.convert_to_tensor(value)
    key, counter = src.next()
    if value.shape.rank == 0:
        return tx.identity(value, name=name)  # RandomShuffle returns a scalar as is
    n = gen_ops.slice(gen_ops.shape(value, out_type=tx.int32), tx.constant([0]), tx.constant([1]))
    draws = gen_ops.stateless_random_uniform_full_int_v2(n, key, counter, 1, dtype=tx.int64)
    out = gen_ops.gather_v2(value, tx.argsort(draws, stable=True), 0, name=name)
    if not tx.executing_eagerly():
        out.set_shape(value.shape)  # RandomShuffle's static shape
    return out


def _multinomial(src, logits, num_samples, seed=0, seed2=0, output_dtype=tx.int64, name=None):
    logits = tx.convert_to_tensor(logits)
    out = tx.random.stateless_categorical(logits, num_samples, src.next_seed(), dtype=output_dtype, name=name)
    n = tx.get_static_value(num_samples)
    rows = logits.shape.as_list()[0] if logits.shape.rank is not None else None
    if not tx.executing_eagerly():
        out.set_shape([rows, None if n is None else int(n)])  # Multinomial's static shape
    return out


def _gamma(src, shape, alpha, seed=0, seed2=0, name=None):
    key, counter = src.next()
    alpha = tx.convert_to_tensor(alpha)
    return gen_ops.stateless_random_gamma_v3(_full_shape(shape, alpha), key, counter, 1, alpha, name=name)


def _poisson_v2(src, shape, rate, seed=0, seed2=0, dtype=tx.int64, name=None):
    rate = tx.convert_to_tensor(rate)
    return gen_ops.stateless_random_poisson(_full_shape(shape, rate), src.next_seed(), rate, dtype=dtype, name=name)


def _bounding_box(src, image_size, bounding_boxes, min_object_covered, seed=0, seed2=0, **kwargs):
    out = gen_ops.stateless_sample_distorted_bounding_box(image_size, bounding_boxes, min_object_covered,
                                                          src.next_seed(), **kwargs)
    return gen_ops._SampleDistortedBoundingBoxV2Output(*out)  # the stateful op's structure


_STATELESS = {"random_uniform": _uniform, "random_uniform_int": _uniform_int, "random_standard_normal": _normal,
              "truncated_normal": _truncated_normal, "random_shuffle": _shuffle, "multinomial": _multinomial,
              "random_gamma": _gamma, "random_poisson_v2": _poisson_v2,
              "sample_distorted_bounding_box_v2": _bounding_box}


def _dispatcher(stateful, stateless):
    """gen_ops' wrapper while traces run: the stateless op in a thread with an active source."""
    def op(*args, **kwargs):
        sources = getattr(_local, "sources", None)
        if not sources:
            return stateful(*args, **kwargs)
        return stateless(sources[-1], *args, **kwargs)
    op.__name__, op.__doc__ = stateful.__name__, stateful.__doc__
    return op


@contextlib.contextmanager
def element_seeds(key):
    """While active in this thread, core's stateful random ops are built as stateless ones drawing
    from the Philox ``key`` (a uint64[1] tensor; None: a fixed one); yields the source, whose
    ``calls`` counts the random calls made (Note [Element seeds])."""
    src = _Source(key)
    with _install_lock:
        if _installed["count"] == 0:
            saved = _installed["saved"] = {n: getattr(gen_ops, n) for n in _STATELESS}
            for n, f in _STATELESS.items():
                setattr(gen_ops, n, _dispatcher(saved[n], f))
        _installed["count"] += 1
    sources = _local.__dict__.setdefault("sources", [])
    sources.append(src)
    try:
        yield src
    finally:
        sources.pop()
        with _install_lock:
            _installed["count"] -= 1
            if _installed["count"] == 0:
                for n, f in _installed["saved"].items():
                    setattr(gen_ops, n, f)


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
