"""``tx.random.experimental.keyed_draws``: stateful random samplers built as stateless ops drawing
from a caller's Philox key, while a function is traced (Note [Keyed draws])."""

# Note [Keyed draws]: a traced function that calls a random sampler holds stateful random kernels,
# whose draws depend on how often, and in which order across threads, the kernels ran before. An
# input pipeline that runs one function per element on several threads wants each element's draws
# to depend on the element alone (tensorflux-data's Note [Element seeds]). While keyed_draws(key) is
# active in a thread, the op wrappers of core's stateful random ops (RandomUniform,
# RandomUniformInt, RandomStandardNormal, TruncatedNormal, RandomShuffle, Multinomial, RandomGamma,
# RandomPoissonV2, SampleDistortedBoundingBoxV2) build stateless Philox ops in that thread instead,
# keyed by `key` (a uint64[1] tensor, typically a function input). Swapping the op wrappers rather
# than the public names covers every public sampler that builds these ops (tx.random.uniform,
# normal, truncated_normal, shuffle, categorical, gamma, poisson, the candidate samplers through
# categorical, tx.image.random_* and sample_distorted_bounding_box, tx.nn.dropout, Keras
# initializers and layers), and the public functions keep their argument checks, dtype rules and
# shapes: only the stream differs. The k-th draw in the scope uses the counter (0, k) (the ops that
# take a shape-[2] seed, StatelessRandomPoisson, StatelessSampleDistortedBoundingBox and
# categorical's stateless form, the seed (key as int64, k)), so the draws of one function are
# disjoint streams. There is no stateless shuffle kernel: a shuffle sorts the first dimension by
# 64-bit StatelessRandomUniformFullIntV2 keys (a uniform permutation but for ties, with probability
# below n**2 / 2**65). The wrappers are installed on the generated-ops module while any thread has a
# scope open and build the stateless ops only in threads with an open scope; other threads get the
# stateful ops. Ops built outside the wrappers (a tx.raw_ops.RandomUniform call) stay stateful:
# STATEFUL_RANDOM_OPS names the op types a caller may look for in the traced graph.

import contextlib
import threading

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import bitcast
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.context import executing_eagerly
from tensorflux._src.generated import gen_ops
from tensorflux._src.sort_ops import argsort
from tensorflux._src.stateless_categorical import stateless_categorical
from tensorflux._src.tensor_utils import get_static_value

# Op types whose kernels keep random state (Note [Keyed draws]).
STATEFUL_RANDOM_OPS = frozenset("""
RandomUniform RandomUniformInt RandomStandardNormal TruncatedNormal ParameterizedTruncatedNormal RandomShuffle
RandomGamma RandomPoisson RandomPoissonV2 Multinomial RandomCrop SampleDistortedBoundingBox
SampleDistortedBoundingBoxV2 UniformCandidateSampler LogUniformCandidateSampler LearnedUnigramCandidateSampler
FixedUnigramCandidateSampler ThreadUnsafeUnigramCandidateSampler AllCandidateSampler StatefulUniform
StatefulUniformInt StatefulUniformFullInt StatefulStandardNormal StatefulStandardNormalV2 StatefulTruncatedNormal
StatefulRandomBinomial NonDeterministicInts
""".split())

_local = threading.local()  # .sources: the stack of this thread's open scopes
_install_lock = threading.Lock()
_installed = {"count": 0, "saved": {}}


class KeyedDraws:
    """The draws of one keyed_draws scope: ``calls`` counts the random ops built so far."""

    def __init__(self, key):
        self.key, self.calls = key, 0

    def next(self):
        """(key, counter) tensors of the next random op."""
        k, self.calls = self.calls, self.calls + 1
        key = self.key if self.key is not None else constant(np.zeros([1], np.uint64))
        return key, constant(np.array([0, k], np.uint64))

    def next_seed(self):
        """The shape-[2] int64 seed of the next random op, for the stateless ops that take one."""
        k = self.calls
        key, _ = self.next()
        return gen_ops.concat_v2([bitcast(key, _dtypes.int64), constant(np.array([k], np.int64))], 0)


def _full_shape(shape, params):
    """``shape`` followed by the shape of ``params`` (a stateful sampler's output shape), as a constant
    when both are known while building, so the output's static shape is the stateful op's."""
    shape = convert_to_tensor(shape)
    head = get_static_value(shape)
    if head is not None and params.shape.is_fully_defined():
        return constant(np.concatenate([np.asarray(head).reshape(-1), params.shape.as_list()]).astype(
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
    value = convert_to_tensor(value)
    key, counter = src.next()
    if value.shape.rank == 0:
        return gen_ops.identity(value, name=name)  # RandomShuffle returns a scalar as is
    n = gen_ops.slice(gen_ops.shape(value, out_type=_dtypes.int32), constant([0]), constant([1]))
    draws = gen_ops.stateless_random_uniform_full_int_v2(n, key, counter, 1, dtype=_dtypes.int64)
    out = gen_ops.gather_v2(value, argsort(draws, stable=True), 0, name=name)
    if not executing_eagerly():
        out.set_shape(value.shape)  # RandomShuffle's static shape
    return out


def _multinomial(src, logits, num_samples, seed=0, seed2=0, output_dtype=_dtypes.int64, name=None):
    logits = convert_to_tensor(logits)
    out = stateless_categorical(logits, num_samples, src.next_seed(), dtype=output_dtype, name=name)
    n = get_static_value(num_samples)
    rows = logits.shape.as_list()[0] if logits.shape.rank is not None else None
    if not executing_eagerly():
        out.set_shape([rows, None if n is None else int(n)])  # Multinomial's static shape
    return out


def _gamma(src, shape, alpha, seed=0, seed2=0, name=None):
    key, counter = src.next()
    alpha = convert_to_tensor(alpha)
    return gen_ops.stateless_random_gamma_v3(_full_shape(shape, alpha), key, counter, 1, alpha, name=name)


def _poisson_v2(src, shape, rate, seed=0, seed2=0, dtype=_dtypes.int64, name=None):
    rate = convert_to_tensor(rate)
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
    """The generated wrapper while scopes are open: the stateless op in a thread with an open scope."""
    def op(*args, **kwargs):
        sources = getattr(_local, "sources", None)
        if not sources:
            return stateful(*args, **kwargs)
        return stateless(sources[-1], *args, **kwargs)
    op.__name__, op.__doc__ = stateful.__name__, stateful.__doc__
    return op


@contextlib.contextmanager
def keyed_draws(key=None):
    """While active in this thread, core's stateful random samplers build stateless Philox ops
    drawing from ``key`` (a uint64[1] tensor; None: a fixed key), the k-th with counter (0, k);
    yields a KeyedDraws whose ``calls`` counts them (Note [Keyed draws]).

    >>> @tx.function
    ... def draw(key):
    ...     with tx.random.experimental.keyed_draws(key):
    ...         return tx.random.uniform([2])
    >>> key = tx.constant([7], tx.uint64)
    >>> bool(tx.reduce_all(draw(key) == draw(key)))
    True
    """
    src = KeyedDraws(key)
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
