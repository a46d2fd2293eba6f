"""Op functions and Tensor operators, checked against NumPy."""

import numpy as np
import pytest

import tensorflux as tx

A = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], np.float32)
B = np.array([[0.5, 1.0, -1.5], [2.0, -2.5, 3.0]], np.float32)


@pytest.fixture
def ab():
    return tx.constant(A, name="a"), tx.constant(B, name="b")


def test_binary_operators(sess, ab):
    a, b = ab
    s, d, m, q = a + b, a - b, a * b, a / b
    assert [t.op.type for t in (s, d, m, q)] == ["AddV2", "Sub", "Mul", "RealDiv"]
    assert [t.op.name for t in (s, d, m, q)] == ["add", "sub", "mul", "truediv"]
    out = sess.run([s, d, m, q, -a])
    for got, want in zip(out, [A + B, A - B, A * B, A / B, -A]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    mm = a @ tx.constant(B.T)
    assert mm.op.type == "MatMul" and mm.op.name == "matmul"
    np.testing.assert_allclose(sess.run(mm), A @ B.T, rtol=1e-6)


def test_python_scalars_take_the_tensor_dtype(sess, ab):
    a, _ = ab
    for expr, want in [(a + 1, A + 1), (1 + a, 1 + A), (a - 2, A - 2), (2 - a, 2 - A), (a * 3, A * 3),
                       (3 * a, 3 * A), (a / 4, A / 4), (4 / a, 4 / A)]:
        assert expr.dtype == tx.float32
        np.testing.assert_allclose(sess.run(expr), want, rtol=1e-6)
    y = 2.0 * a
    assert y.op.inputs[0].op.name == y.op.name + "/x"  # converted in the op's name scope, as TF names it
    i = tx.constant([1, 2, 3])
    assert (i * 2).dtype == tx.int32
    with pytest.raises(TypeError, match="Expected int32"):
        i * 2.5


def test_numpy_operands(sess, ab):
    a, _ = ab
    left = np.ones((2, 3), np.float32) + a  # NumPy defers to the Tensor operators
    assert isinstance(left, tx.Tensor)
    np.testing.assert_allclose(sess.run(left), A + 1)
    np.testing.assert_allclose(sess.run(a * np.float32(2)), A * 2)


def test_broadcasting(sess, ab):
    a, _ = ab
    row = tx.constant([10.0, 20.0, 30.0])
    np.testing.assert_allclose(sess.run(a + row), A + [10, 20, 30])
    col = tx.constant([[1.0], [2.0]])
    np.testing.assert_allclose(sess.run(a * col), A * [[1], [2]])


def test_integer_division_is_true_division(sess):
    i = tx.constant([7, 8, 9])
    q = i / 2
    assert q.dtype == tx.float64
    np.testing.assert_allclose(sess.run(q), [3.5, 4.0, 4.5])
    assert tx.divide(tx.constant(np.array([3], np.int8)), tx.constant(np.array([2], np.int8))).dtype == tx.float32


def test_tensor_is_hashable_and_not_a_bool_or_iterable(ab):
    a, b = ab
    assert len({a, b, a}) == 2 and {a: 1}[a] == 1
    assert a == a and a != b
    with pytest.raises(TypeError, match="bool"):
        bool(a)
    with pytest.raises(TypeError, match="bool"):
        if a:
            pass
    with pytest.raises(TypeError, match="Iterating"):
        list(a)
    with pytest.raises(TypeError, match="NumPy array"):
        np.asarray(a)


def test_math_functions(sess, ab):
    a, b = ab
    ops = [tx.add(a, b), tx.subtract(a, b), tx.multiply(a, b), tx.divide(a, b)]
    assert [t.op.name for t in ops] == ["Add", "Sub", "Mul", "truediv"]
    for got, want in zip(sess.run(ops), [A + B, A - B, A * B, A / B]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert tx.add(a, b, name="total").op.name == "total"


def test_matmul_transposes(sess, ab):
    a, b = ab
    np.testing.assert_allclose(sess.run(tx.matmul(a, b, transpose_b=True)), A @ B.T, rtol=1e-6)
    np.testing.assert_allclose(sess.run(tx.matmul(a, b, transpose_a=True)), A.T @ B, rtol=1e-6)
    big = np.random.default_rng(0).standard_normal((64, 96)).astype(np.float32)
    np.testing.assert_allclose(sess.run(tx.matmul(big, big.T)), big @ big.T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, False), (1, True), ([0, 1], False),
                                           (-1, False)])
def test_reductions(sess, ab, axis, keepdims):
    a, _ = ab
    s = tx.reduce_sum(a, axis=axis, keepdims=keepdims)
    m = tx.reduce_mean(a, axis=axis, keepdims=keepdims)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    np.testing.assert_allclose(sess.run(s), A.sum(axis=np_axis, keepdims=keepdims), rtol=1e-6)
    np.testing.assert_allclose(sess.run(m), A.mean(axis=np_axis, keepdims=keepdims), rtol=1e-6)
    assert s.shape == A.sum(axis=np_axis, keepdims=keepdims).shape


def test_reduction_of_unknown_rank(sess):
    p = tx.placeholder(tx.float32)
    np.testing.assert_allclose(sess.run(tx.reduce_sum(p), {p: A}), A.sum(), rtol=1e-6)
    np.testing.assert_allclose(sess.run(tx.reduce_mean(p), {p: A}), A.mean(), rtol=1e-6)


def test_reduction_axis_as_tensor(sess, ab):
    a, _ = ab
    axis = tx.placeholder(tx.int32, shape=[])
    s = tx.reduce_sum(a, axis=axis)
    np.testing.assert_allclose(sess.run(s, {axis: 1}), A.sum(axis=1), rtol=1e-6)


def test_reshape_identity_cast(sess, ab):
    a, _ = ab
    np.testing.assert_array_equal(sess.run(tx.reshape(a, [3, -1])), A.reshape(3, 2))
    np.testing.assert_array_equal(sess.run(tx.reshape(a, tx.constant([6]))), A.reshape(6))
    np.testing.assert_array_equal(sess.run(tx.identity(a)), A)
    np.testing.assert_array_equal(sess.run(tx.cast(a, tx.int64)), A.astype(np.int64))
    with pytest.raises(tx.errors.InvalidArgumentError):
        tx.reshape(a, [4, 2])


def test_nn(sess, ab):
    a, _ = ab
    np.testing.assert_array_equal(sess.run(tx.nn.relu(a)), np.maximum(A, 0))
    e = np.exp(A - A.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(sess.run(tx.nn.softmax(a)), e / e.sum(axis=-1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(sess.run(tx.nn.softmax(a, axis=1)), e / e.sum(axis=-1, keepdims=True), rtol=1e-6)
    e0 = np.exp(A - A.max(axis=0, keepdims=True))
    np.testing.assert_allclose(sess.run(tx.nn.softmax(a, axis=0)), e0 / e0.sum(axis=0, keepdims=True), rtol=1e-6)
    bias = np.array([1.0, 2.0, 3.0], np.float32)
    out = tx.nn.bias_add(a, bias)
    assert out.op.type == "BiasAdd" and out.op.get_attr("data_format") == b"NHWC"
    np.testing.assert_allclose(sess.run(out), A + bias)
    nchw = tx.nn.bias_add(tx.constant(np.ones((1, 3, 2), np.float32)), bias, data_format="NCW")
    assert nchw.op.get_attr("data_format") == b"NCHW"
    np.testing.assert_allclose(sess.run(nchw), np.ones((1, 3, 2)) + bias[None, :, None])
    with pytest.raises(ValueError):
        tx.nn.bias_add(a, bias, data_format="HWCN")


def test_no_op_with_control_dependencies_as_target(sess):
    p = tx.placeholder(tx.float32, shape=[], name="p")
    check = tx.identity(p)
    with tx.control_dependencies([check]):
        group = tx.no_op(name="group")
    assert sess.run(group, {p: 1.0}) is None
    with pytest.raises(tx.errors.InvalidArgumentError, match="\\[p\\]"):
        sess.run(group)  # the dependency runs, so its unfed placeholder is reported


def test_convert_to_tensor(ab):
    a, _ = ab
    assert tx.convert_to_tensor(a) is a
    assert tx.convert_to_tensor([1, 2]).dtype == tx.int32
    assert tx.convert_to_tensor([1, 2], dtype=tx.float64).dtype == tx.float64
    with pytest.raises(ValueError, match="requested dtype int32"):
        tx.convert_to_tensor(a, dtype=tx.int32)
