"""Dataset.random and Dataset.sample_from_datasets: tf.data's values and choices for the same seeds
(Note [Random source], Note [Sampling datasets]); the pipelines harness covers resume and debug."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd

tf = pytest.importorskip("tensorflow")


def _values(ds, n=None):
    return [np.asarray(v).tolist() for v in (ds if n is None else ds.take(n))]


def _both(build, n=None):
    return _values(build(txd.Dataset), n), _values(build(tf.data.Dataset), n)


@pytest.mark.parametrize("seed", [0, 5, -3, 2**31 - 1, 2**40 + 5])
def test_random_words_equal_tf_data(seed):
    ours, theirs = _both(lambda D: D.random(seed=seed), 1030)  # past one generated run of words
    assert ours == theirs


def test_random_under_a_global_seed_equals_tf_data():
    got = {}
    for m, D in ((tx, txd.Dataset), (tf, tf.data.Dataset)):
        m.random.set_seed(11)
        got[m.__name__] = [_values(D.random(), 4), _values(D.random(), 4), _values(D.random(seed=3), 4)]
        m.random.set_seed(None)
    assert got["tensorflux"] == got["tensorflow"]


def test_unseeded_random_differs_between_datasets_and_repeats_within_one():
    ds = txd.Dataset.random()
    assert _values(ds, 8) == _values(ds, 8)
    assert _values(txd.Dataset.random(), 8) != _values(ds, 8)


def test_rerandomized_iterations_and_epochs_equal_tf_data():
    got = {}
    for D in (txd.Dataset, tf.data.Dataset):
        ds = D.random(seed=42, rerandomize_each_iteration=True)
        got[D.__module__] = [_values(ds, 3), _values(ds, 3), _values(ds.take(2).repeat(3))]
    ours, theirs = got.values()
    assert ours == theirs and ours[0] != ours[1]


def test_random_spec_and_cardinality():
    ds = txd.Dataset.random(seed=1)
    assert ds.element_spec == tx.TensorSpec([], tx.int64)
    assert ds.cardinality() == txd.INFINITE_CARDINALITY
    assert all(0 <= v < 2**32 for v in _values(ds, 100))


@pytest.mark.parametrize("weights", [None, [0.5, 0.25, 0.25], [0.0, 1.0, 2.0], np.array([0.2, 0.3, 0.5], np.float32)])
@pytest.mark.parametrize("stop", [False, True])
def test_sample_from_datasets_equals_tf_data(weights, stop):
    def build(D):
        return D.sample_from_datasets([D.range(6), D.range(100, 120), D.range(200, 203)], weights=weights, seed=13,
                                      stop_on_empty_dataset=stop)

    ours, theirs = _both(build)
    assert ours == theirs


def test_sample_from_datasets_with_a_weights_dataset_or_tensor_equals_tf_data():
    def weights_dataset(D):
        w = D.from_tensor_slices(np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]], np.float32)).repeat()
        return D.sample_from_datasets([D.range(10), D.range(100, 110)], weights=w, seed=8)

    def weights_tensor(D):
        m = tx if D is txd.Dataset else tf
        w = m.constant([0.0, 1.0], m.float64)  # a tensor's zero weights stay (lists' are dropped)
        return D.sample_from_datasets([D.range(10), D.range(100, 110)], weights=w, seed=8, stop_on_empty_dataset=True)

    for build in (weights_dataset, weights_tensor):
        ours, theirs = _both(build)
        assert ours == theirs


def test_sample_from_datasets_drops_zero_weights_and_returns_a_single_dataset():
    only = txd.Dataset.range(3)
    assert txd.Dataset.sample_from_datasets([only]) is only
    assert txd.Dataset.sample_from_datasets([txd.Dataset.range(3), only], weights=[0.0, 1.0]) is only
    ours, theirs = _both(lambda D: D.sample_from_datasets([D.range(3), D.range(5)], weights=[0.0, 0.0]))
    assert ours == theirs == []


def test_sample_from_datasets_errors_like_tf_data():
    d = [txd.Dataset.range(3), txd.Dataset.range(4)]
    with pytest.raises(ValueError, match="should not be empty"):
        txd.Dataset.sample_from_datasets([])
    with pytest.raises(ValueError, match="same length as `datasets`"):
        txd.Dataset.sample_from_datasets(d, weights=[1.0])
    with pytest.raises(ValueError, match="compatible with `\\[len\\(datasets\\)\\]`"):
        txd.Dataset.sample_from_datasets(d, weights=tx.constant([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="`weights` type must be either"):
        txd.Dataset.sample_from_datasets(d, weights=[1, 2])
    with pytest.raises(TypeError, match="compatible element specs"):
        txd.Dataset.sample_from_datasets([txd.Dataset.range(3), txd.Dataset.from_tensors(1.0)])
    tfd = [tf.data.Dataset.range(3), tf.data.Dataset.range(4)]
    with pytest.raises(TypeError, match="`weights` type must be either"):
        tf.data.Dataset.sample_from_datasets(tfd, weights=[1, 2])


def test_sample_from_datasets_cardinality():
    def build(D, stop):
        return D.sample_from_datasets([D.range(3), D.range(5).repeat()], seed=1, stop_on_empty_dataset=stop)

    assert build(txd.Dataset, False).cardinality() == build(tf.data.Dataset, False).cardinality() == -1
    # Stopping at range(3)'s end makes the output finite; tf.data still says infinite (-1).
    assert build(txd.Dataset, True).cardinality() == txd.UNKNOWN_CARDINALITY
    assert len(list(build(txd.Dataset, True))) == len(list(build(tf.data.Dataset, True)))
