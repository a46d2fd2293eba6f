"""tx.gradients: semantics (fan-out, grad_ys, stop_gradients, unconnected xs, names), errors,
second order and Hessian-vector products, and agreement with TensorFlow on composite graphs."""

import numpy as np
import pytest

import tensorflux as tx


def _run(fetches, feed=None):
    with tx.Session() as s:
        return s.run(fetches, feed)


@pytest.fixture(autouse=True)
def _fresh_graph():
    g = tx.Graph()
    with g.as_default():
        yield g


def test_fan_out_gradients_are_summed():
    x = tx.constant([1.0, 2.0, 3.0])
    y = x * x + x * 3.0 + x
    (dx,) = tx.gradients(y, [x])
    np.testing.assert_allclose(_run(dx), 2 * np.array([1.0, 2.0, 3.0]) + 4.0)
    assert any(op.type == "AddN" for op in tx.get_default_graph().get_operations())


def test_several_ys_and_grad_ys():
    x = tx.constant([1.0, 2.0])
    y1, y2 = x * 2.0, x * x
    dx = tx.gradients([y1, y2], x, grad_ys=[tx.constant([1.0, 10.0]), None])[0]
    np.testing.assert_allclose(_run(dx), [2.0 + 2.0, 20.0 + 4.0])


def test_grad_ys_python_values_are_converted():
    x = tx.constant([1.0, 2.0])
    (dx,) = tx.gradients(x * 3.0, x, grad_ys=[[2.0, 5.0]])
    np.testing.assert_allclose(_run(dx), [6.0, 15.0])


def test_unconnected_none_and_zero():
    x, z = tx.constant([1.0, 2.0]), tx.constant([[1.0], [4.0]])
    y = x * 2.0
    assert tx.gradients(y, [x, z])[1] is None
    dz = tx.gradients(y, [z], unconnected_gradients="zero")[0]
    np.testing.assert_array_equal(_run(dz), np.zeros((2, 1)))
    dz = tx.gradients(y, [z], unconnected_gradients=tx.UnconnectedGradients.ZERO)[0]
    assert dz.shape.as_list() == [2, 1]
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tx.gradients(y, [z], unconnected_gradients="ones")


def test_stop_gradients_match_tensorflow_semantics():
    a = tx.constant(0.0)
    b = 2.0 * a
    da, db = tx.gradients(a + b, [a, b], stop_gradients=[a, b])
    assert _run([da, db]) == [1.0, 1.0]
    da, db = tx.gradients(a + b, [a, b])
    assert _run([da, db]) == [3.0, 1.0]


def test_stop_gradient_op_blocks_and_x_may_be_y():
    x = tx.constant([2.0])
    y = x * tx.stop_gradient(x)
    np.testing.assert_allclose(_run(tx.gradients(y, x)[0]), [2.0])
    np.testing.assert_allclose(_run(tx.gradients(x, x)[0]), [1.0])


def test_integer_paths_give_none():
    x = tx.constant([1, 2], dtype=tx.int32)
    y = tx.cast(x, tx.float32) * 2.0
    assert tx.gradients(y, [x]) == [None]


def test_names_live_under_the_prefix():
    x = tx.constant([1.0])
    g1 = tx.gradients(x * x, x)[0]
    g2 = tx.gradients(x * x, x, name="my_grads")[0]
    g3 = tx.gradients(x * x, x)[0]
    assert g1.op.name.startswith("gradients/")
    assert g2.op.name.startswith("my_grads/")
    assert g3.op.name.startswith("gradients_1/")
    with tx.name_scope("outer"):
        g4 = tx.gradients(x * x, x)[0]
    assert g4.op.name.startswith("outer/gradients/")


def test_errors_are_clear_and_the_graph_stays_usable():
    g = tx.get_default_graph()
    x = tx.constant([1.0, 2.0])
    xi = tx.constant([1, 2])
    assert tx.gradients(xi * 2, xi) == [None]  # an int32 y contributes nothing, as in TensorFlow
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"grad_ys\[0\].*double.*float"):
        tx.gradients(x * 2.0, x, grad_ys=[tx.constant([1.0, 1.0], dtype=tx.float64)])
    with pytest.raises(tx.errors.InvalidArgumentError, match="shape"):
        tx.gradients(x * 2.0, x, grad_ys=[tx.constant([1.0, 1.0, 1.0])])
    other = tx.Graph()
    with other.as_default():
        y_other = tx.constant([1.0]) * 2.0
    with pytest.raises(ValueError, match="different graph"):
        tx.gradients(y_other, [x])
    with pytest.raises(TypeError, match="xs"):
        tx.gradients(x * 2.0, [np.ones(2)])
    with pytest.raises(tx.errors.InvalidArgumentError, match="Gradient explicitly disabled. Reason: nope"):
        tx.gradients(_prevent(x, "nope") * 2.0, x)
    assert g.get_operations()  # still usable
    np.testing.assert_allclose(_run(tx.gradients(x * 5.0, x)[0]), [5.0, 5.0])


def _prevent(x, message):
    from tensorflux._src.generated import gen_ops
    return gen_ops.prevent_gradient(x, message=message)


def test_gradients_through_unknown_shapes():
    x = tx.placeholder(tx.float32, [None, 3])
    b = tx.constant([1.0, 2.0, 3.0])
    y = tx.reduce_mean(x * b + b)
    (dx,) = tx.gradients(y, x)
    xv = np.ones((4, 3), np.float32)
    np.testing.assert_allclose(_run(dx, {x: xv}), np.tile([1.0, 2.0, 3.0], (4, 1)) / 12, rtol=1e-6)


def test_second_order_of_polynomial():
    x = tx.constant([1.5, -2.0], dtype=tx.float64)
    y = x * x * x
    (dx,) = tx.gradients(y, x)
    (ddx,) = tx.gradients(dx, x)
    np.testing.assert_allclose(_run(ddx), 6 * np.array([1.5, -2.0]))


def test_unimplemented_second_derivatives_say_so():
    x = tx.constant(np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1))
    y = tx.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID")
    (dx,) = tx.gradients(tx.reduce_sum(y * y), x)
    with pytest.raises(tx.errors.UnimplementedError, match="MaxPoolGrad.*second derivative of MaxPool"):
        tx.gradients(dx, x)
