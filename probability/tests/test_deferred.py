"""DeferredTensor and TransformedVariable convert to tensors (tx.convert_to_tensor, ops) with the
transform applied at each use, and gradients reach the underlying variable."""

import numpy as np

import tensorflux as tx
import tensorflux_probability as txp


def test_deferred_tensor_converts_with_the_current_value():
    v = tx.Variable(0.0)
    d = txp.util.DeferredTensor(v, tx.math.softplus)
    np.testing.assert_allclose(tx.convert_to_tensor(d).numpy(), np.log(2.0), rtol=1e-6)
    v.assign(1.0)  # recomputed at each use
    np.testing.assert_allclose(tx.exp(d).numpy(), 1.0 + np.e, rtol=1e-6)
    np.testing.assert_allclose((tx.constant(1.0) + d).numpy(), 1.0 + np.log1p(np.e), rtol=1e-6)


def test_gradient_through_a_converted_transformed_variable():
    s = txp.util.TransformedVariable(2.0, txp.bijectors.Exp())
    with tx.GradientTape() as tape:
        loss = tx.square(tx.convert_to_tensor(s))  # s^2 = exp(2u), d/du = 2 exp(2u) = 8
    (grad,) = tape.gradient(loss, s.trainable_variables)
    np.testing.assert_allclose(grad.numpy(), 8.0, rtol=1e-5)


def test_conversion_inside_a_function_and_to_a_requested_dtype():
    s = txp.util.TransformedVariable(np.float64(3.0), txp.bijectors.Softplus())
    out = tx.function(lambda x: x * tx.convert_to_tensor(s, dtype=tx.float64))(tx.constant(2.0, tx.float64))
    np.testing.assert_allclose(out.numpy(), 6.0, rtol=1e-6)
