"""Every pipeline of pipelines.py against tf.data itself, element by element, with element_spec and
cardinality (skipped where TensorFlow is not installed)."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import PIPELINES, assert_same_elements, flat_values

tf = pytest.importorskip("tensorflow")


def _tx_elements(ds):
    return [flat_values(tx.nest, e) for e in ds]


def _tf_elements(ds):
    return [flat_values(tf.nest, e) for e in ds]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_same_elements_as_tf_data(name):
    ours, theirs = PIPELINES[name](txd.Dataset, tx), PIPELINES[name](tf.data.Dataset, tf)
    assert_same_elements(_tx_elements(ours), _tf_elements(theirs))


def _dims(shape):
    """A shape as a list, None when its rank is unknown (a py_function's output)."""
    return None if shape.rank is None else shape.as_list()


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_same_element_spec_and_cardinality_as_tf_data(name):
    ours, theirs = PIPELINES[name](txd.Dataset, tx), PIPELINES[name](tf.data.Dataset, tf)
    got = [(s.dtype.name, _dims(s.shape)) for s in tx.nest.flatten(ours.element_spec)]
    want = [(s.dtype.name, _dims(s.shape)) for s in tf.nest.flatten(theirs.element_spec)]
    assert got == want
    assert int(ours.cardinality()) == int(theirs.cardinality())


@pytest.mark.parametrize("n,count", [(5, None), (0, None), (5, 0), (5, 3)])
def test_cardinality_of_repeat_take_skip_matches_tf(n, count):
    for build in (lambda D: D.range(n).repeat(count), lambda D: D.range(n).repeat(count).take(7),
                  lambda D: D.range(n).repeat(count).skip(2), lambda D: D.range(n).filter(lambda x: x > 1).take(2),
                  lambda D: D.range(n).batch(2), lambda D: D.range(n).repeat(count).batch(2, drop_remainder=True)):
        assert int(build(txd.Dataset).cardinality()) == int(build(tf.data.Dataset).cardinality())


def test_cardinality_of_unbatch_matches_tf():
    for build in (lambda D: D.from_tensor_slices(np.zeros((3, 2, 4))).unbatch(),
                  lambda D: D.from_tensor_slices((np.zeros((3, 2)), np.ones((3, 2, 5)))).unbatch(),
                  lambda D: D.range(10).batch(3).unbatch(),  # a last short batch: unknown
                  lambda D: D.range(10).batch(3, drop_remainder=True).unbatch(),
                  lambda D: D.from_tensors(np.zeros((0, 2))).unbatch(),
                  lambda D: D.from_tensors(np.zeros((2, 2))).repeat().unbatch()):
        assert int(build(txd.Dataset).cardinality()) == int(build(tf.data.Dataset).cardinality())


def test_constants_match_tf():
    assert txd.INFINITE_CARDINALITY == tf.data.INFINITE_CARDINALITY
    assert txd.UNKNOWN_CARDINALITY == tf.data.UNKNOWN_CARDINALITY
    assert txd.AUTOTUNE == tf.data.AUTOTUNE


def test_shuffle_is_a_permutation_within_the_buffer_window():
    # tf.data's algorithm: the element at output position i comes from the first i + buffer_size inputs.
    out = [int(x) for x in txd.Dataset.range(200).shuffle(10, seed=7)]
    assert sorted(out) == list(range(200))
    assert all(v < i + 10 for i, v in enumerate(out))
    assert out != list(range(200))
    assert [int(x) for x in txd.Dataset.range(20).shuffle(1, seed=7)] == list(range(20))


def test_reshuffle_each_iteration_as_tf():
    ds = txd.Dataset.range(30).shuffle(30, seed=1)
    first, second = [int(x) for x in ds], [int(x) for x in ds]
    assert sorted(first) == sorted(second) and first != second
    fixed = txd.Dataset.range(30).shuffle(30, seed=1, reshuffle_each_iteration=False)
    assert [int(x) for x in fixed] == [int(x) for x in fixed]
    again = [int(x) for x in txd.Dataset.range(30).shuffle(30, seed=1)]  # a rebuilt pipeline repeats itself
    assert again == first


def test_len_and_numpy_iterator():
    ds = txd.Dataset.from_tensor_slices(np.arange(6).reshape(3, 2))
    assert len(ds) == 3
    assert [a.tolist() for a in ds.as_numpy_iterator()] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TypeError, match="infinite"):
        len(ds.repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(ds.filter(lambda x: True))


def test_reduce_matches_tf():
    def build(D):
        return D.range(1, 11).map(lambda x: x * 2)
    ours = build(txd.Dataset).reduce(np.int64(0), lambda s, x: s + x)
    theirs = build(tf.data.Dataset).reduce(np.int64(0), lambda s, x: s + x)
    assert int(ours) == int(theirs) == 110


def test_get_next_raises_out_of_range_at_the_end():
    it = iter(txd.Dataset.range(1))
    assert int(it.get_next()) == 0
    with pytest.raises(tx.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()


def test_global_shuffle_is_a_permutation_that_reshuffles_and_needs_random_access():
    ds = txd.Dataset.range(1000).global_shuffle(seed=3)
    first, second = [int(x) for x in ds], [int(x) for x in ds]
    assert sorted(first) == sorted(second) == list(range(1000))
    assert first != second and first != list(range(1000))
    assert [int(x) for x in txd.Dataset.range(1000).global_shuffle(seed=3)] == first
    fixed = txd.Dataset.range(50).global_shuffle(seed=3, reshuffle_each_iteration=False)
    assert [int(x) for x in fixed] == [int(x) for x in fixed]
    for n in (1, 2, 3, 5, 17):
        assert sorted(int(x) for x in txd.Dataset.range(n).global_shuffle(seed=1)) == list(range(n))
    with pytest.raises(tx.errors.InvalidArgumentError, match="random-access source"):
        txd.Dataset.range(5).map(lambda x: x).global_shuffle()
