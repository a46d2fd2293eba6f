"""tx.lookup (StaticHashTable, StaticVocabularyTable, MutableHashTable, KeyValueTensorInitializer,
tx.compat.v1.tables_initializer) in eager mode, in tx.function and in graph mode, against
tf.lookup where TensorFlow is installed; the op-level rules are the conformance entries'."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def _static(keys=("cat", "dog"), values=(3, 7), default=-1):
    return tx.lookup.StaticHashTable(tx.lookup.KeyValueTensorInitializer(list(keys), list(values),
                                                                         value_dtype=tx.int64), default)


def test_static_hash_table_eager():
    table = _static()
    np.testing.assert_array_equal(table.lookup(tx.constant(["dog", "eel", "cat"])).numpy(), [7, -1, 3])
    np.testing.assert_array_equal(table[tx.constant([["cat"], ["x"]])].numpy(), [[3], [-1]])
    assert int(table.size()) == 2 and table.key_dtype == tx.string and table.value_dtype == tx.int64
    keys, values = table.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(b"cat", 3), (b"dog", 7)]
    assert table.initializer is None  # filled at creation


def test_two_eager_tables_are_distinct():
    a, b = _static(values=(1, 2)), _static(values=(5, 6))
    assert int(a.lookup(tx.constant("cat"))) == 1 and int(b.lookup(tx.constant("cat"))) == 5


def test_table_in_function_is_captured():
    table = _static()

    @tx.function
    def double(words):
        return table.lookup(words) * 2

    np.testing.assert_array_equal(double(tx.constant(["dog", "z"])).numpy(), [14, -2])

    @tx.function
    def made_inside(words):  # created once, outside the traced graph (TensorFlow 2's lifting)
        inner = _static(values=(10, 20))
        return inner.lookup(words)

    np.testing.assert_array_equal(made_inside(tx.constant(["cat"])).numpy(), [10])


def test_graph_mode_needs_tables_initializer():
    with tx.Graph().as_default():
        table = _static()
        ids = table.lookup(tx.constant(["dog", "x"]))
        with tx.Session() as sess:
            with pytest.raises(tx.errors.FailedPreconditionError, match="Table not initialized"):
                sess.run(ids)
            sess.run(tx.compat.v1.tables_initializer())
            np.testing.assert_array_equal(sess.run(ids), [7, -1])
            sess.run(table.initializer)  # filling again does nothing
            assert sess.run(table.size()) == 2


def test_sparse_keys():
    st = tx.SparseTensor(indices=[[0, 1], [2, 0]], values=tx.constant(["dog", "q"]), dense_shape=[3, 2])
    out = _static().lookup(st)
    assert isinstance(out, tx.SparseTensor)
    np.testing.assert_array_equal(out.values.numpy(), [7, -1])


def test_mutable_hash_table():
    table = tx.lookup.experimental.MutableHashTable(tx.int64, tx.float32, default_value=-1.0)
    table.insert(tx.constant([1, 2, 3], tx.int64), tx.constant([0.5, 1.5, 2.5]))
    table.insert(tx.constant([2], tx.int64), tx.constant([9.0]))
    table.remove(tx.constant([3, 4], tx.int64))
    np.testing.assert_array_equal(table.lookup(tx.constant([1, 2, 3], tx.int64)).numpy(), [0.5, 9.0, -1.0])
    assert int(table.size()) == 2


def test_errors_leave_the_context_usable():
    table = _static()
    with pytest.raises(TypeError, match="must be string, received: int32"):
        table.lookup(tx.constant([1]))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Expected shape \[\] or \[2\] for default value"):
        tx.raw_ops.LookupTableFindV2(table_handle=table.resource_handle, keys=tx.constant(["a", "b"]),
                                     default_value=tx.constant([1, 2, 3], tx.int64))
    with pytest.raises(tx.errors.FailedPreconditionError, match="different value for same key"):
        _static(keys=("a", "a"), values=(1, 2))
    with pytest.raises(tx.errors.InvalidArgumentError, match="cannot map float keys"):
        tx.raw_ops.HashTableV2(key_dtype=tx.float32, value_dtype=tx.int64)
    with pytest.raises(ValueError, match="num_oov_buckets must be > 0"):
        tx.lookup.StaticVocabularyTable(tx.lookup.KeyValueTensorInitializer(["a"], [0], value_dtype=tx.int64), 0)
    np.testing.assert_array_equal(table.lookup(tx.constant(["cat"])).numpy(), [3])


@pytest.fixture(scope="module")
def tensorflow():
    return pytest.importorskip("tensorflow")


@pytest.mark.parametrize("key_kind", ["string", "int64"])
def test_static_vocabulary_table_matches_tensorflow(tensorflow, key_kind):
    vocab = ["the", "cat", "sat"] if key_kind == "string" else [10, 20, 30]
    probe = ["cat", "dog", "the", "zebra", "", "mat"] if key_kind == "string" else [20, 7, 10, -5, 0, 123456789]
    dtype = tx.string if key_kind == "string" else tx.int64
    ours = tx.lookup.StaticVocabularyTable(
        tx.lookup.KeyValueTensorInitializer(vocab, list(range(3)), key_dtype=dtype, value_dtype=tx.int64), 4)
    theirs = tensorflow.lookup.StaticVocabularyTable(
        tensorflow.lookup.KeyValueTensorInitializer(vocab, list(range(3)), key_dtype=tensorflow.as_dtype(dtype.name),
                                                    value_dtype=tensorflow.int64), 4)
    got = ours.lookup(tx.constant(probe, dtype)).numpy()
    want = theirs.lookup(tensorflow.constant(probe, tensorflow.as_dtype(dtype.name))).numpy()
    np.testing.assert_array_equal(got, want)
    assert int(ours.size()) == int(theirs.size()) == 7


def test_static_hash_table_matches_tensorflow(tensorflow):
    keys, values = [5, -3, 1 << 40], [0.25, 1.5, -2.0]
    probe = np.array([[1 << 40, 7], [-3, 5]], np.int64)
    ours = tx.lookup.StaticHashTable(tx.lookup.KeyValueTensorInitializer(keys, values, key_dtype=tx.int64), 9.0)
    theirs = tensorflow.lookup.StaticHashTable(
        tensorflow.lookup.KeyValueTensorInitializer(keys, values, key_dtype=tensorflow.int64), 9.0)
    np.testing.assert_array_equal(ours.lookup(tx.constant(probe)).numpy(), theirs.lookup(tensorflow.constant(probe)))
