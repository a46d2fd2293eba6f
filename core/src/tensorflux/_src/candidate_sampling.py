"""Candidate samplers for sampled losses (``tx.random``/``tx.nn``: uniform, log-uniform, fixed
unigram, all) and ``tx.nn.compute_accidental_hits``, over existing random and array ops
(Note [Candidate sampling])."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import context as _context
from tensorflux._src import errors as _errors
from tensorflux._src.array_ops import reshape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.gather_ops import top_k, where
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope, control_dependencies
from tensorflux._src.random_ops import categorical, uniform
from tensorflux._src.check_ops import Assert

# Note [Candidate sampling]
# A sampler with probabilities p over [0, range_max) draws ``num_sampled`` candidates: with
# replacement, or (unique=True) as TensorFlow does, by drawing with replacement until
# ``num_sampled`` distinct values appeared, keeping them in order of first appearance, after
# ``num_tries`` draws. The expected count of a value v is p(v) * num_sampled, or with unique
# sampling -expm1(num_tries * log1p(-p(v))) (the chance v appears in num_tries draws), for the
# sampled and the true classes alike; all computed in float32.
# Unique sampling here draws the same joint distribution without a rejection loop: the order of
# first appearances is successive sampling without replacement (Gumbel top-k over log p), and
# between the i-th and (i+1)-th new value the draws that repeat an earlier one are geometric with
# failure probability S_i (the mass of the first i values), so num_tries = num_sampled + the sum of
# those geometric counts. The Gumbel draw reads a key for every one of the range_max values, so a
# unique draw costs O(range_max) where TensorFlow's rejection loop costs O(num_tries).


def _int64(x, name):
    return x if isinstance(x, _TENSORS) and x.dtype == _dtypes.int64 else gen_ops.cast(
        x if isinstance(x, _TENSORS) else convert_to_tensor(x, name=name), DstT=_dtypes.int64)


def _check(true_classes, num_true, num_sampled, unique, range_max, what):
    true_classes = _int64(true_classes, "true_classes")
    shape = true_classes.shape
    if shape.rank is not None and (shape.rank != 2 or (shape[1] is not None and shape[1] != num_true)):
        raise ValueError("%s: true_classes must be [batch_size, num_true=%d], got shape %s" % (what, num_true, shape))
    if num_sampled < 0:
        raise ValueError("%s: num_sampled must be >= 0, got %d" % (what, num_sampled))
    if range_max is not None and range_max < 1 and what != "all_candidate_sampler":
        raise ValueError("%s: range_max must be positive, got %d" % (what, range_max))
    if unique and range_max is not None and num_sampled > range_max:
        raise ValueError("%s: Sampler's range is too small (range_max=%d) to draw %d unique candidates"
                         % (what, range_max, num_sampled))
    return true_classes if range_max is None else _in_range(true_classes, range_max)


def _in_range(true_classes, range_max):
    """``true_classes``, checked to lie in [0, range_max) (InvalidArgumentError as TensorFlow's,
    eagerly at once, in a graph when it runs)."""
    message = "`true_candidate` out of range [0, %d)" % range_max
    bad = gen_ops.logical_or(gen_ops.less(true_classes, convert_to_tensor(np.int64(0))),
                             gen_ops.greater_equal(true_classes, convert_to_tensor(np.int64(range_max))))
    if _context.executing_eagerly():
        values = true_classes.numpy()[bad.numpy()]
        if values.size:
            raise _errors.InvalidArgumentError(None, None, "%s, received %d" % (message, values[0]))
        return true_classes
    check = Assert(gen_ops.logical_not(gen_ops.any(bad, convert_to_tensor([0, 1]))), [message + ", received",
                                                                                      true_classes])
    with control_dependencies([check]):
        return gen_ops.identity(true_classes)


def _expected(p, num_sampled, num_tries):
    """TensorFlow's expected counts (float32) for probabilities ``p`` (float32)."""
    if num_tries is None:
        return gen_ops.mul(p, convert_to_tensor(np.float32(num_sampled)))
    tries = gen_ops.cast(num_tries, DstT=_dtypes.float32)
    unique_count = gen_ops.neg(gen_ops.expm1(gen_ops.mul(tries, gen_ops.log1p(gen_ops.neg(p)))))
    same = gen_ops.equal(num_tries, convert_to_tensor(np.int64(num_sampled)))
    return gen_ops.select_v2(same, gen_ops.mul(p, convert_to_tensor(np.float32(num_sampled))), unique_count)


def _unique_from(log_p, prob64_fn, range_max, num_sampled, seed):
    """(candidates, num_tries): ``num_sampled`` distinct values by Gumbel top-k over ``log_p``
    [range_max] (float64; None for uniform) and the number of with-replacement draws that took,
    given the float64 probabilities ``prob64_fn(ids)`` (Note [Candidate sampling])."""
    u = uniform([range_max + num_sampled], minval=np.finfo(np.float64).tiny, maxval=1.0, dtype=_dtypes.float64,
                seed=seed)
    keys = gen_ops.neg(gen_ops.log(gen_ops.neg(gen_ops.log(
        gen_ops.slice(u, convert_to_tensor([0]), convert_to_tensor([range_max]))))))
    if log_p is not None:
        keys = gen_ops.add_v2(log_p, keys)
    _, picked = top_k(keys, k=num_sampled, sorted=True)
    picked = gen_ops.cast(picked, DstT=_dtypes.int64)
    picked_p = prob64_fn(picked)
    mass_before = gen_ops.cumsum(picked_p, convert_to_tensor(0), exclusive=True)  # S_i
    v = gen_ops.slice(u, convert_to_tensor([range_max]), convert_to_tensor([num_sampled]))
    # failures ~ Geometric(success 1 - S_i): floor(log v / log S_i); none when S_i == 0.
    positive = gen_ops.greater(mass_before, convert_to_tensor(0.0, dtype=_dtypes.float64))
    safe_mass = gen_ops.select_v2(positive, mass_before, gen_ops.ones_like(mass_before))
    fails = gen_ops.floor(gen_ops.div(gen_ops.log(v), gen_ops.log(safe_mass)))
    fails = gen_ops.select_v2(positive, fails, gen_ops.zeros_like(fails))
    num_tries = gen_ops.add_v2(gen_ops.cast(gen_ops.sum(fails, convert_to_tensor(0)), DstT=_dtypes.int64),
                               convert_to_tensor(np.int64(num_sampled)))
    return picked, num_tries


def _finish(sampled, num_tries, prob_fn, true_classes, num_sampled):
    true_expected = _expected(prob_fn(true_classes), num_sampled, num_tries)
    sampled_expected = _expected(prob_fn(sampled), num_sampled, num_tries)
    return (gen_ops.identity(sampled, name="sampled_candidates"),
            gen_ops.identity(true_expected, name="true_expected_count"),
            gen_ops.identity(sampled_expected, name="sampled_expected_count"))


def _table_sampler(probs, true_classes, num_sampled, unique, seed):
    """Sampling from an explicit float64 probability vector ``probs`` (NumPy) [range_max]."""
    probs_t = convert_to_tensor(probs)
    with np.errstate(divide="ignore"):
        log_p = convert_to_tensor(np.log(probs))
    if unique:
        sampled, num_tries = _unique_from(log_p, lambda ids: gen_ops.gather_v2(probs_t, ids, convert_to_tensor(0)),
                                          probs.size, num_sampled, seed)
    else:
        sampled = reshape(categorical(gen_ops.expand_dims(log_p, convert_to_tensor(0)), num_sampled, seed=seed),
                          [num_sampled])
        num_tries = None
    p32 = convert_to_tensor(probs.astype(np.float32))
    return _finish(sampled, num_tries, lambda ids: gen_ops.gather_v2(p32, ids, convert_to_tensor(0)), true_classes,
                   num_sampled)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """(sampled_candidates int64 [num_sampled], true_expected_count float32 [batch, num_true],
    sampled_expected_count float32 [num_sampled]): candidates drawn uniformly from
    [0, range_max), distinct when ``unique``, with their expected counts (Note [Candidate sampling]).

    >>> s, t, e = tx.random.uniform_candidate_sampler([[1], [2]], 1, 4, False, 8, seed=1)
    >>> s.shape, t.numpy().tolist(), e.numpy().tolist()
    (TensorShape([4]), [[0.5], [0.5]], [0.5, 0.5, 0.5, 0.5])
    """
    with name_scope(name or "UniformCandidateSampler"):
        true_classes = _check(true_classes, num_true, num_sampled, unique, range_max, "uniform_candidate_sampler")
        p = convert_to_tensor(np.float32(1.0 / range_max))
        p64 = convert_to_tensor(np.float64(1.0 / range_max))
        if unique:
            sampled, num_tries = _unique_from(None, lambda ids: gen_ops.fill(gen_ops.shape(ids), p64), range_max,
                                              num_sampled, seed)
        else:
            sampled, num_tries = uniform([num_sampled], 0, range_max, dtype=_dtypes.int64, seed=seed), None
        return _finish(sampled, num_tries, lambda ids: gen_ops.fill(gen_ops.shape(ids), p), true_classes,
                       num_sampled)


def _log_uniform_probs64(ids, range_max):
    """p(k) = log((k + 2) / (k + 1)) / log(range_max + 1), in float64."""
    k = gen_ops.cast(ids, DstT=_dtypes.float64)
    one = convert_to_tensor(1.0, dtype=_dtypes.float64)
    return gen_ops.div(gen_ops.log(gen_ops.div(gen_ops.add_v2(k, gen_ops.add_v2(one, one)), gen_ops.add_v2(k, one))),
                       convert_to_tensor(np.log(range_max + 1.0)))


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Like uniform_candidate_sampler, with the log-uniform (Zipfian) distribution
    p(k) = log((k + 2) / (k + 1)) / log(range_max + 1), which suits classes sorted by
    decreasing frequency.

    >>> _, t, _ = tx.random.log_uniform_candidate_sampler([[0]], 1, 2, False, 3, seed=1)
    >>> round(float(t[0, 0]), 6)
    1.0
    """
    with name_scope(name or "LogUniformCandidateSampler"):
        true_classes = _check(true_classes, num_true, num_sampled, unique, range_max,
                              "log_uniform_candidate_sampler")
        probs64 = lambda ids: _log_uniform_probs64(ids, range_max)  # noqa: E731
        if unique:
            every = gen_ops.range(convert_to_tensor(np.int64(0)), convert_to_tensor(np.int64(range_max)),
                                  convert_to_tensor(np.int64(1)))
            sampled, num_tries = _unique_from(gen_ops.log(probs64(every)), probs64, range_max, num_sampled, seed)
        else:
            # Inverse CDF: floor(exp(u * log(range_max + 1))) - 1, folded into the range.
            u = uniform([num_sampled], dtype=_dtypes.float64, seed=seed)
            value = gen_ops.sub(gen_ops.floor(gen_ops.exp(gen_ops.mul(u, convert_to_tensor(np.log(range_max + 1.0))))),
                                convert_to_tensor(1.0, dtype=_dtypes.float64))
            sampled = gen_ops.floor_mod(gen_ops.cast(value, DstT=_dtypes.int64), convert_to_tensor(np.int64(range_max)))
            num_tries = None
        return _finish(sampled, num_tries, lambda ids: gen_ops.cast(probs64(ids), DstT=_dtypes.float32), true_classes,
                       num_sampled)


def _unigram_weights(vocab_file, unigrams, distortion, num_reserved_ids, num_shards, shard):
    """The (sharded, distorted) weights of TensorFlow's FixedUnigramSampler: reserved ids weigh 0,
    then one weight per unigram (or per line of ``vocab_file``, its last comma-separated field)."""
    if vocab_file and unigrams:
        raise ValueError("fixed_unigram_candidate_sampler: give vocab_file or unigrams, not both")
    if vocab_file:
        with open(vocab_file) as f:
            unigrams = [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]
    if not unigrams:
        raise ValueError("fixed_unigram_candidate_sampler: vocab_file or unigrams must be given")
    if not 0 <= shard < num_shards:
        raise ValueError("fixed_unigram_candidate_sampler: shard %d is not in [0, num_shards=%d)" % (shard, num_shards))
    weights = []
    for word_id in range(num_reserved_ids + len(unigrams)):
        if word_id % num_shards == shard:
            weights.append(0.0 if word_id < num_reserved_ids else
                           float(unigrams[word_id - num_reserved_ids]) ** distortion)
    return np.array(weights, np.float64)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """Like uniform_candidate_sampler, with p(k) proportional to ``unigrams[k] ** distortion``
    (counts from ``unigrams`` or ``vocab_file``; ``num_reserved_ids`` leading ids of weight 0;
    ``num_shards``/``shard`` keep every num_shards-th id), as TensorFlow's FixedUnigramSampler.

    >>> _, t, _ = tx.random.fixed_unigram_candidate_sampler([[0]], 1, 4, False, 2, unigrams=[1, 3], seed=1)
    >>> float(t[0, 0])
    1.0
    """
    with name_scope(name or "FixedUnigramCandidateSampler"):
        true_classes = _check(true_classes, num_true, num_sampled, unique, range_max,
                              "fixed_unigram_candidate_sampler")
        weights = _unigram_weights(vocab_file, list(unigrams), distortion, num_reserved_ids, num_shards, shard)
        if weights.size != range_max:
            raise ValueError("fixed_unigram_candidate_sampler: range_max (%d) must equal the number of weights "
                             "(%d: reserved ids plus unigrams, in this shard)" % (range_max, weights.size))
        if unique and np.count_nonzero(weights) < num_sampled:
            raise ValueError("fixed_unigram_candidate_sampler: only %d ids have positive weight, fewer than "
                             "num_sampled=%d unique candidates" % (np.count_nonzero(weights), num_sampled))
        return _table_sampler(weights / weights.sum(), true_classes, num_sampled, unique, seed)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """The candidates 0, 1, ..., num_sampled - 1 (every class, when num_sampled is the number of
    classes) with expected counts of 1: exact, not sampled; ``unique`` and ``seed`` are unused.

    >>> s, t, e = tx.random.all_candidate_sampler([[2]], 1, 3, True)
    >>> s.numpy().tolist(), t.numpy().tolist(), e.numpy().tolist()
    ([0, 1, 2], [[1.0]], [1.0, 1.0, 1.0])
    """
    del unique, seed
    with name_scope(name or "AllCandidateSampler"):
        true_classes = _check(true_classes, num_true, num_sampled, False, num_sampled, "all_candidate_sampler")
        sampled = convert_to_tensor(np.arange(num_sampled, dtype=np.int64))
        one = convert_to_tensor(np.float32(1.0))
        return _finish(sampled, None, lambda ids: gen_ops.fill(gen_ops.shape(ids), one), true_classes, 1)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(indices int32, ids int64, weights float32): for each row i and true class of
    ``true_classes`` [batch, num_true] that also occurs in ``sampled_candidates``, the row, that
    class's (last) position among the sampled candidates, and weight -FLT_MAX, in row-major
    order; add them to sampled logits to ignore accidental hits.

    >>> i, ids, w = tx.nn.compute_accidental_hits([[1, 4], [2, 5]], [4, 0, 2], num_true=2)
    >>> i.numpy().tolist(), ids.numpy().tolist(), bool(w[0] == -np.finfo(np.float32).max)
    ([0, 1], [0, 2], True)
    """
    del seed
    with name_scope(name or "ComputeAccidentalHits"):
        true_classes = _check(true_classes, num_true, 0, False, None, "compute_accidental_hits")
        sampled = _int64(sampled_candidates, "sampled_candidates")
        if sampled.shape.rank is not None and sampled.shape.rank != 1:
            raise ValueError("compute_accidental_hits: sampled_candidates must be 1-D, got shape %s" % sampled.shape)
        hit = gen_ops.equal(gen_ops.expand_dims(true_classes, convert_to_tensor(2)), reshape(sampled, [1, 1, -1]))
        n = gen_ops.cast(gen_ops.size(sampled), DstT=_dtypes.int64)
        from_end = gen_ops.arg_max(gen_ops.cast(gen_ops.reverse_v2(hit, convert_to_tensor([2])), DstT=_dtypes.int32),
                                   convert_to_tensor(2), output_type=_dtypes.int64)
        last = gen_ops.sub(gen_ops.sub(n, convert_to_tensor(np.int64(1))), from_end)
        coords = where(gen_ops.any(hit, convert_to_tensor(2)))
        indices = gen_ops.cast(gen_ops.strided_slice(coords, convert_to_tensor([0, 0]), convert_to_tensor([0, 1]),
                                                     convert_to_tensor([1, 1]), begin_mask=1, end_mask=1,
                                                     shrink_axis_mask=2), DstT=_dtypes.int32)
        ids = gen_ops.gather_nd(last, coords)
        weights = gen_ops.fill(gen_ops.shape(ids), convert_to_tensor(np.float32(-np.finfo(np.float32).max)))
        return indices, ids, weights

