"""Static shapes from the engine's shape inference, TensorShape, DType and constant conversion."""

import numpy as np
import pytest

import tensorflux as tx


def test_static_shapes_from_shape_inference():
    x = tx.placeholder(tx.float32, shape=[None, 784])
    w = tx.constant(np.zeros((784, 10), np.float32))
    y = tx.matmul(x, w)
    assert y.shape == [None, 10]
    assert y.shape.as_list() == [None, 10]
    assert y.shape.rank == 2
    assert tx.nn.bias_add(y, tx.constant(np.zeros(10, np.float32))).shape == [None, 10]
    assert tx.matmul(w, x, transpose_a=True, transpose_b=True).shape == [10, None]
    assert tx.reduce_sum(y, axis=1).shape == [None]
    assert tx.reduce_mean(y, axis=[0, 1], keepdims=True).shape == [1, 1]
    assert tx.reduce_sum(y).shape == []
    assert tx.reshape(w, [-1, 5]).shape == [1568, 5]
    assert tx.constant([[1, 2, 3]]).shape == (1, 3)
    assert tx.add(tx.constant(np.zeros((4, 1))), tx.constant(np.zeros(3))).shape == [4, 3]


def test_unknown_rank():
    x = tx.placeholder(tx.float32)
    assert x.shape.rank is None
    assert x.shape.dims is None
    assert str(x.shape) == "<unknown>"
    with pytest.raises(ValueError):
        x.shape.as_list()
    # Summing every axis of an unknown-rank tensor still gives a scalar.
    assert tx.reduce_sum(x).shape == []
    with pytest.raises(ValueError, match="rank"):
        tx.reduce_sum(x, keepdims=True)


def test_shape_errors_surface_at_construction_naming_the_node():
    a = tx.constant(np.zeros((2, 3), np.float32))
    b = tx.constant(np.zeros((4, 5), np.float32))
    with pytest.raises(tx.errors.InvalidArgumentError) as info:
        tx.matmul(a, b, name="bad_matmul")
    assert info.value.node_name == "bad_matmul"
    assert "bad_matmul" in str(info.value)
    assert info.value.error_code == tx.errors.INVALID_ARGUMENT


def test_set_shape_refines_and_rejects():
    x = tx.placeholder(tx.float32, shape=[None, 3])
    x.set_shape([8, None])
    assert x.shape == [8, 3]
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([8, 4])
    with pytest.raises(ValueError):
        x.set_shape([8])
    y = tx.identity(x)
    assert y.shape == [8, 3]


def test_tensor_shape_api():
    s = tx.TensorShape([2, None, 3])
    assert s.rank == 2 + 1 and len(s) == 3
    assert s.dims == [2, None, 3] and s[0] == 2 and s[1] is None and s[1:] == [None, 3]
    assert not s.is_fully_defined() and s.num_elements() is None
    assert s.is_compatible_with([2, 5, 3]) and not s.is_compatible_with([2, 5])
    assert s.merge_with([None, 4, 3]) == [2, 4, 3]
    assert s == (2, None, 3) and s != [2, 1, 3]
    assert repr(s) == "TensorShape([2, None, 3])" and str(s) == "(2, None, 3)"
    assert tx.TensorShape([]).num_elements() == 1
    assert tx.TensorShape(None).rank is None
    assert tx.TensorShape([4]).concatenate([5]) == [4, 5]
    with pytest.raises(ValueError):
        s.merge_with([3, None, 3])
    assert hash(tx.TensorShape([1, 2])) == hash(tx.TensorShape((1, 2)))


@pytest.mark.parametrize("name,enum,np_type", [
    ("float32", 1, np.float32), ("float64", 2, np.float64), ("int32", 3, np.int32), ("uint8", 4, np.uint8),
    ("int16", 5, np.int16), ("int8", 6, np.int8), ("complex64", 8, np.complex64), ("int64", 9, np.int64),
    ("bool", 10, np.bool_), ("uint16", 17, np.uint16), ("complex128", 18, np.complex128),
    ("float16", 19, np.float16), ("uint32", 22, np.uint32), ("uint64", 23, np.uint64),
])
def test_dtypes(name, enum, np_type):
    d = getattr(tx, name)
    assert d.name == name and d.as_datatype_enum == enum
    assert d.as_numpy_dtype is np_type
    assert tx.as_dtype(name) is d and tx.as_dtype(enum) is d
    assert tx.as_dtype(np_type) is d and tx.as_dtype(np.dtype(np_type)) is d
    assert d == name and d == np_type and hash(d) == enum
    assert repr(d) == "tx." + name


def test_dtype_properties_and_errors():
    assert tx.float32.is_floating and not tx.float32.is_integer
    assert tx.uint8.is_unsigned and tx.uint8.is_integer and tx.int8.min == -128
    assert tx.complex64.real_dtype is tx.float32 and tx.complex64.is_complex
    assert tx.bool.is_bool and tx.float16.size == 2 and tx.bfloat16.size == 2
    assert tx.as_dtype(float) is tx.float32 and tx.as_dtype("half") is tx.float16
    assert tx.bfloat16.name == "bfloat16" and tx.as_dtype(14) is tx.bfloat16
    assert tx.float32 != tx.float64 and tx.float32 != "not a dtype"
    with pytest.raises(TypeError):
        tx.as_dtype("float33")
    with pytest.raises(TypeError):
        tx.as_dtype(99)
    with pytest.raises(TypeError):
        tx.as_dtype(None)
    assert tx.float64 != None  # noqa: E711 (np.dtype(None) is float64; a DType is never None)


@pytest.mark.parametrize("value,dtype,shape", [
    (1.5, tx.float32, []),
    (3, tx.int32, []),
    (2 ** 40, tx.int64, []),
    (True, tx.bool, []),
    ([1, 2.5], tx.float32, [2]),
    ([[1, 2], [3, 4]], tx.int32, [2, 2]),
    ([], tx.float32, [0]),
    (np.float64(1.0), tx.float64, []),
    (np.arange(6, dtype=np.int64).reshape(2, 3), tx.int64, [2, 3]),
    (1 + 2j, tx.complex128, []),
])
def test_constant_dtype_inference(sess, value, dtype, shape):
    c = tx.constant(value)
    assert c.dtype == dtype and c.shape == shape
    np.testing.assert_array_equal(sess.run(c), np.asarray(value))


def test_constant_with_dtype_and_shape(sess):
    assert sess.run(tx.constant(3, dtype=tx.float64)).dtype == np.float64
    np.testing.assert_array_equal(sess.run(tx.constant(7.0, shape=[2, 3])), np.full((2, 3), 7.0, np.float32))
    np.testing.assert_array_equal(sess.run(tx.constant([1, 2, 3, 4], shape=[2, 2])), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(sess.run(tx.constant(np.array([1.7, -2.2]), dtype=tx.int32)), [1, -2])
    with pytest.raises(TypeError, match="Expected int32"):
        tx.constant(2.5, dtype=tx.int32)
    with pytest.raises(TypeError, match="Expected bool"):
        tx.constant(1, dtype=tx.bool)
    with pytest.raises(TypeError, match="Expected uint8"):
        tx.constant(300, dtype=tx.uint8)
    with pytest.raises(TypeError, match="shape"):
        tx.constant([1, 2, 3], shape=[2, 2])
    with pytest.raises(TypeError, match="only numbers"):
        tx.constant({"not": "a tensor"})
    assert tx.constant("text").dtype == tx.string  # text makes string tensors (test_strings.py)
    with pytest.raises(ValueError):
        tx.constant([[1, 2], [3]])


def test_constant_copies_its_value(sess):
    value = np.ones(4, np.float32)
    c = tx.constant(value)
    value[:] = 5.0
    np.testing.assert_array_equal(sess.run(c), np.ones(4, np.float32))


def test_cast(sess):
    x = tx.constant([1.7, -2.5])
    assert tx.cast(x, tx.float32) is x
    y = tx.cast(x, tx.int32)
    assert y.op.type == "Cast" and y.dtype == tx.int32
    np.testing.assert_array_equal(sess.run(y), [1, -2])
    np.testing.assert_array_equal(sess.run(tx.cast([1, 0, 2], tx.bool)), [True, False, True])


def test_zeros_and_ones_of_bool_are_false_and_true(sess):
    """tf.zeros/tf.ones (and the _like forms) accept tf.bool: False and True, as TensorFlow."""
    np.testing.assert_array_equal(sess.run(tx.zeros([2], tx.bool)), [False, False])
    np.testing.assert_array_equal(sess.run(tx.ones([2, 1], tx.bool)), [[True], [True]])
    np.testing.assert_array_equal(sess.run(tx.ones_like(tx.constant([1, 2]), dtype=tx.bool)), [True, True])
    np.testing.assert_array_equal(sess.run(tx.zeros_like(tx.constant([1.0]), dtype=tx.bool)), [False])
