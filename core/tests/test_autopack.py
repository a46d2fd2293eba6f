"""convert_to_tensor stacks lists holding tensors with Pack, as TensorFlow's autopacking does:
shapes built from tensors inside tx.function and graphs, gradients through such lists, and a
tx.function returning a captured eager tensor unchanged — each compared with TensorFlow."""
import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager  # graph-mode cases build their own tx.Graph


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def _fill_dynamic(lib):
    @lib.function
    def f(n):
        return lib.fill([n, 2], 1.5)

    return f(lib.constant(3)).numpy()


def test_fill_with_a_tensor_dimension_in_a_function(tf):
    np.testing.assert_array_equal(_fill_dynamic(tx), _fill_dynamic(tf))
    assert _fill_dynamic(tx).shape == (3, 2)


def _zeros_and_normal(lib):
    @lib.function
    def f(x):
        n = lib.shape(x)[0]
        return lib.zeros([n, 1]), lib.random.normal([2, n], seed=1), lib.reshape(x, [n, -1])

    z, r, reshaped = f(lib.constant([1.0, 2.0, 3.0, 4.0]))
    return z.numpy(), tuple(r.shape), reshaped.numpy()


def test_zeros_and_random_shapes_from_tensors(tf):
    z, shape, reshaped = _zeros_and_normal(tx)
    tz, tshape, treshaped = _zeros_and_normal(tf)
    np.testing.assert_array_equal(z, tz)
    np.testing.assert_array_equal(reshaped, treshaped)
    assert shape == tshape == (2, 4)


def test_mixed_nested_list_in_a_graph_is_packed_with_the_tensor_dtype():
    g = tx.Graph()
    with g.as_default():
        a = tx.placeholder(tx.int64, shape=[])
        t = tx.convert_to_tensor([[a, 2], [3, 4]])
        assert t.dtype == tx.int64 and t.shape.as_list() == [2, 2]
        assert t.op.type == "Pack"
        with tx.Session() as s:
            np.testing.assert_array_equal(s.run(t, {a: 7}), [[7, 2], [3, 4]])


def test_mixed_list_matches_tensorflow_dtype_and_values(tf):
    out = tx.function(lambda x: tx.convert_to_tensor([x, 2.0, [x][0] * 3.0]))(tx.constant(1.5)).numpy()
    ref = tf.function(lambda x: tf.convert_to_tensor([x, 2.0, [x][0] * 3.0]))(tf.constant(1.5)).numpy()
    np.testing.assert_array_equal(out, ref)
    assert out.dtype == ref.dtype == np.float32


def _grad_through_list(lib):
    x = lib.constant(2.0)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = lib.convert_to_tensor([x, 3.0 * x, 1.0])
        loss = lib.reduce_sum(y * y)
    return loss.numpy(), tape.gradient(loss, x).numpy()


def test_gradient_flows_through_an_eager_list_of_tensors(tf):
    loss, grad = _grad_through_list(tx)
    tloss, tgrad = _grad_through_list(tf)
    np.testing.assert_allclose(loss, tloss)
    np.testing.assert_allclose(grad, tgrad)
    assert grad == pytest.approx(40.0)  # d/dx (x^2 + 9x^2 + 1) at 2


def test_list_of_a_variable_and_numbers(tf):
    v, tv = tx.Variable(4.0), tf.Variable(4.0)
    np.testing.assert_array_equal(tx.convert_to_tensor([v, 1.0]).numpy(), tf.convert_to_tensor([tv, 1.0]).numpy())


def test_mismatched_dtypes_in_a_list_raise_as_in_tensorflow(tf):
    with pytest.raises(Exception):  # noqa: B017 - TensorFlow raises InvalidArgumentError from Pack
        tf.convert_to_tensor([tf.constant(1), tf.constant(2.0)])
    with pytest.raises((TypeError, ValueError), match="dtype"):
        tx.convert_to_tensor([tx.constant(1), tx.constant(2.0)])


def _return_captured(lib):
    c = lib.constant([1.0, 2.0])

    @lib.function
    def f(x):
        return c, x + c

    a, b = f(lib.constant(1.0))
    return a.numpy(), b.numpy()


def test_function_returns_a_captured_eager_tensor_unchanged(tf):
    a, b = _return_captured(tx)
    ta, tb = _return_captured(tf)
    np.testing.assert_array_equal(a, ta)
    np.testing.assert_array_equal(b, tb)


def test_function_returning_a_captured_tensor_is_differentiable():
    c = tx.constant(3.0)
    f = tx.function(lambda x: (c, x * c))
    x = tx.constant(2.0)
    with tx.GradientTape() as tape:
        tape.watch(x)
        _, y = f(x)
    assert tape.gradient(y, x).numpy() == pytest.approx(3.0)
