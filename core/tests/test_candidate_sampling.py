"""tx.random.stateless_categorical, the candidate samplers and tx.nn.compute_accidental_hits:
deterministic outputs against TensorFlow (skipped without it), sampled ones by range and
distribution against NumPy's exact probabilities."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def _tf():
    return pytest.importorskip("tensorflow")


TRUE = np.array([[1, 3], [2, 0], [9, 9]], np.int64)


def _log_uniform(range_max):
    k = np.arange(range_max, dtype=np.float64)
    return np.log((k + 2) / (k + 1)) / np.log(range_max + 1)


# -- stateless_categorical -------------------------------------------------------------------------

@pytest.mark.parametrize("batch,classes,samples,seed", [(1, 3, 20, [3, 4]), (2, 3, 20, [3, 4]), (4, 10, 30, [7, -3]),
                                                        (3, 1, 5, [0, 0]), (2, 6, 0, [1, 1])])
def test_stateless_categorical_equals_tensorflow(batch, classes, samples, seed):
    tf = _tf()
    logits = np.random.default_rng(batch * 10 + classes).normal(size=(batch, classes)).astype(np.float32)
    got = tx.random.stateless_categorical(logits, samples, seed=seed)
    want = tf.random.stateless_categorical(logits, samples, seed=seed)
    assert got.dtype == tx.int64 and got.shape == [batch, samples]
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(tx.random.stateless_categorical(logits, samples, seed=seed).numpy(), got.numpy())


def test_stateless_categorical_int32_infinite_logits_and_distribution():
    with np.errstate(divide="ignore"):
        logits = np.log(np.array([[0.2, 0.0, 0.8], [0.5, 0.5, 0.0]]))
    out = tx.random.stateless_categorical(logits, 20000, seed=[5, 6], dtype=tx.int32)
    assert out.dtype == tx.int32
    counts = np.stack([np.bincount(row, minlength=3) for row in out.numpy()]) / 20000
    assert counts[0, 1] == 0 and counts[1, 2] == 0
    np.testing.assert_allclose(counts, [[0.2, 0.0, 0.8], [0.5, 0.5, 0.0]], atol=0.015)


def test_stateless_categorical_errors():
    with pytest.raises(ValueError, match="logits must be 2-D"):
        tx.random.stateless_categorical([0.0, 1.0], 3, seed=[1, 2])
    with pytest.raises(ValueError, match="dtype must be int32 or int64"):
        tx.random.stateless_categorical([[0.0, 1.0]], 3, seed=[1, 2], dtype=tx.float32)
    with pytest.raises(ValueError, match="num_samples must be >= 0"):
        tx.random.stateless_categorical([[0.0, 1.0]], -1, seed=[1, 2])


# -- expected counts (deterministic without unique) --------------------------------------------------

SAMPLERS = [
    ("uniform_candidate_sampler", {"range_max": 10}),
    ("log_uniform_candidate_sampler", {"range_max": 10}),
    ("fixed_unigram_candidate_sampler", {"range_max": 10, "unigrams": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]}),
    ("fixed_unigram_candidate_sampler", {"range_max": 10, "unigrams": [3, 1, 4, 1, 5, 9, 2, 6, 5], "distortion": 0.75,
                                         "num_reserved_ids": 1}),
    ("fixed_unigram_candidate_sampler", {"range_max": 10, "unigrams": list(range(1, 21)), "num_shards": 2,
                                         "shard": 1}),
]


@pytest.mark.parametrize("fn,kwargs", SAMPLERS)
def test_expected_counts_equal_tensorflows(fn, kwargs):
    tf = _tf()
    sampled, got_true, got_sampled = getattr(tx.random, fn)(TRUE, 2, 7, False, seed=1, **kwargs)
    _, want_true, _ = getattr(tf.random, fn)(TRUE, 2, 7, False, seed=1, **kwargs)
    np.testing.assert_allclose(got_true.numpy(), want_true.numpy(), rtol=1e-6)
    # The sampled candidates differ from TensorFlow's; their expected counts are the same function
    # of the value, which TensorFlow's true_expected_count computes for the values we sampled.
    assert got_sampled.dtype == tx.float32 and got_sampled.shape == [7]
    _, want_sampled, _ = getattr(tf.random, fn)(sampled.numpy().reshape(7, 1), 1, 7, False, seed=1, **kwargs)
    np.testing.assert_allclose(got_sampled.numpy(), want_sampled.numpy().reshape(7), rtol=1e-6)


def test_fixed_unigram_vocab_file_matches_unigrams(tmp_path):
    tf = _tf()
    path = tmp_path / "vocab.csv"
    path.write_text("".join("w%d,%d\n" % (i, c) for i, c in enumerate([5, 1, 3, 7])))
    _, got, _ = tx.random.fixed_unigram_candidate_sampler(TRUE % 4, 2, 3, False, 4, vocab_file=str(path))
    _, want, _ = tf.random.fixed_unigram_candidate_sampler(TRUE % 4, 2, 3, False, 4, vocab_file=str(path))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_all_candidate_sampler_equals_tensorflow():
    tf = _tf()
    for got, want in zip(tx.random.all_candidate_sampler(TRUE % 5, 2, 5, True),
                         tf.random.all_candidate_sampler(TRUE % 5, 2, 5, True)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.dtype.name == want.dtype.name
    assert tx.nn.all_candidate_sampler is tx.random.all_candidate_sampler


# -- unique sampling: distinct values, expected counts of one consistent num_tries -----------------------

@pytest.mark.parametrize("fn,kwargs", SAMPLERS)
def test_unique_sampling_is_consistent(fn, kwargs):
    probs = {"uniform_candidate_sampler": np.full(10, 0.1), "log_uniform_candidate_sampler": _log_uniform(10)}.get(fn)
    for seed in range(5):
        s, t, e = getattr(tx.random, fn)(TRUE, 2, 6, True, seed=seed, **kwargs)
        s = s.numpy()
        assert s.dtype == np.int64 and len(set(s.tolist())) == 6 and s.min() >= 0 and s.max() < 10
        if probs is None:
            continue
        p = np.concatenate([probs[s], probs[TRUE.reshape(-1)]]).astype(np.float32)
        counts = np.concatenate([e.numpy(), t.numpy().reshape(-1)])
        if np.allclose(counts, p * 6, rtol=1e-6):
            continue  # num_tries == num_sampled
        tries = np.log1p(-counts.astype(np.float64)) / np.log1p(-p.astype(np.float64))
        assert np.all(np.abs(tries - np.round(tries[0])) < 1e-2) and round(tries[0]) > 6


def test_unique_uniform_num_tries_has_the_coupon_collector_mean():
    # Drawing 6 distinct of 10 uniformly takes sum 10 / (10 - i) tries on average (i < 6).
    tries = []
    for seed in range(400):
        _, t, _ = tx.random.uniform_candidate_sampler([[0]], 1, 6, True, 10, seed=seed)
        c = float(t.numpy()[0, 0])
        tries.append(6 if abs(c - 0.6) < 1e-6 else round(np.log1p(-c) / np.log1p(-0.1)))
    mean = sum(10 / (10 - i) for i in range(6))
    var = sum((i / 10) / (1 - i / 10) ** 2 for i in range(6))
    assert abs(np.mean(tries) - mean) < 5 * np.sqrt(var / 400)


def test_unique_first_candidate_follows_the_distribution():
    probs = _log_uniform(6)
    first = [int(tx.random.log_uniform_candidate_sampler([[0]], 1, 3, True, 6, seed=s)[0][0]) for s in range(600)]
    freq = np.bincount(first, minlength=6) / 600
    assert np.all(np.abs(freq - probs) < 5 * np.sqrt(probs * (1 - probs) / 600))


@pytest.mark.parametrize("fn,kwargs", SAMPLERS)
def test_sampling_with_replacement_follows_the_distribution(fn, kwargs):
    weights = {"uniform_candidate_sampler": np.full(10, 0.1), "log_uniform_candidate_sampler": _log_uniform(10)}.get(fn)
    if weights is None:
        w = np.array(kwargs["unigrams"], np.float64)
        if "num_shards" in kwargs:
            w = w[1::2]
        w = np.concatenate([np.zeros(kwargs.get("num_reserved_ids", 0)), w ** kwargs.get("distortion", 1.0)])
        weights = w / w.sum()
    s, _, _ = getattr(tx.random, fn)(TRUE, 2, 20000, False, seed=4, **kwargs)
    freq = np.bincount(s.numpy(), minlength=10) / 20000
    assert s.numpy().min() >= 0 and s.numpy().max() < 10
    np.testing.assert_allclose(freq, weights, atol=5 * np.sqrt(0.25 / 20000))


def test_sampler_errors():
    with pytest.raises(ValueError, match="range is too small"):
        tx.random.uniform_candidate_sampler(TRUE, 2, 11, True, 10)
    with pytest.raises(ValueError, match=r"true_classes must be \[batch_size, num_true=3\]"):
        tx.random.log_uniform_candidate_sampler(TRUE, 3, 2, False, 10)
    with pytest.raises(ValueError, match="must equal the number of weights"):
        tx.random.fixed_unigram_candidate_sampler(TRUE, 2, 2, False, 10, unigrams=[1, 2])
    with pytest.raises(ValueError, match="vocab_file or unigrams must be given"):
        tx.random.fixed_unigram_candidate_sampler(TRUE, 2, 2, False, 10)
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"`true_candidate` out of range \[0, 5\), received 9"):
        tx.random.all_candidate_sampler(TRUE, 2, 5, True)
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"out of range \[0, 8\), received -1"):
        tx.random.uniform_candidate_sampler([[-1]], 1, 2, False, 8)
    with pytest.raises(ValueError, match="fewer than num_sampled"):
        tx.random.fixed_unigram_candidate_sampler(TRUE % 4, 2, 3, True, 4, unigrams=[1, 0, 0, 1])


# -- compute_accidental_hits -------------------------------------------------------------------------

@pytest.mark.parametrize("true,sampled", [([[1, 4], [2, 5], [4, 4]], [4, 0, 2, 4]), ([[7, 8]], [1, 2, 3]),
                                          ([[0, 1], [1, 0]], [1, 0])])
def test_compute_accidental_hits_equals_tensorflow(true, sampled):
    tf = _tf()
    got = tx.nn.compute_accidental_hits(np.array(true, np.int64), np.array(sampled, np.int64), num_true=2)
    want = tf.nn.compute_accidental_hits(np.array(true, np.int64), np.array(sampled, np.int64), num_true=2)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
        assert g.dtype.name == w.dtype.name


def test_compute_accidental_hits_in_a_graph():
    with tx.Graph().as_default():
        true = tx.placeholder(tx.int64, [None, 2])
        i, ids, w = tx.nn.compute_accidental_hits(true, tx.constant([3, 5], tx.int64), num_true=2)
        with tx.Session() as sess:
            got = sess.run([i, ids], {true: [[5, 1], [3, 5]]})
    assert [g.tolist() for g in got] == [[0, 1, 1], [1, 0, 1]]


def test_sampler_range_checked_when_the_graph_runs():
    with tx.Graph().as_default():
        true = tx.placeholder(tx.int64, [None, 1])
        s, t, _ = tx.random.uniform_candidate_sampler(true, 1, 3, False, 8)
        with tx.Session() as sess:
            assert sess.run(t, {true: [[7]]}).tolist() == [[np.float32(3 / 8)]]
            with pytest.raises(tx.errors.InvalidArgumentError, match="out of range"):
                sess.run(t, {true: [[8]]})
