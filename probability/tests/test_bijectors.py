"""Bijectors: inverse(forward(x)) = x, and log-det-Jacobians equal log|det| of the Jacobian
computed by autodiff (float64), event-rank errors, caching."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_probability as txp

from conftest import value

tfb = txp.bijectors


def c(x):
    return tx.constant(np.asarray(x, np.float64))


def jacobian(fn, x):
    """d fn(x) / dx flattened to [out, in] by one gradient per output entry (float64)."""
    x = c(x)
    rows = []
    n_out = int(np.prod(value(fn(x)).shape))
    for k in range(n_out):
        with tx.GradientTape() as tape:
            tape.watch(x)
            y = tx.reshape(fn(x), [-1])[k]
        g = tape.gradient(y, x)
        rows.append(np.zeros(value(x).size) if g is None else value(g).reshape(-1))
    return np.stack(rows)


TRIL = np.array([[1.5, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.2, 2.0]])
# name -> (bijector, a point x in its domain (one event), event_ndims)
CASES = {
    "Identity": (lambda: tfb.Identity(), [0.3, -1.2], 1),
    "Exp": (lambda: tfb.Exp(), [0.3, -1.2], 1),
    "Log": (lambda: tfb.Log(), [0.3, 1.2], 1),
    "Softplus": (lambda: tfb.Softplus(), [0.3, -1.2], 1),
    "Sigmoid": (lambda: tfb.Sigmoid(), [0.3, -1.2], 1),
    "Tanh": (lambda: tfb.Tanh(), [0.3, -1.2], 1),
    "Scale": (lambda: tfb.Scale(c([2.0, -0.5])), [0.3, -1.2], 1),
    "Shift": (lambda: tfb.Shift(c([2.0, -0.5])), [0.3, -1.2], 1),
    "ScaleMatvecTriL": (lambda: tfb.ScaleMatvecTriL(c(TRIL)), [0.3, -1.2, 0.7], 1),
    "SoftmaxCentered": (lambda: tfb.SoftmaxCentered(), [0.3, -1.2], 1),
    "Permute": (lambda: tfb.Permute([2, 0, 1]), [0.3, -1.2, 0.7], 1),
    "Blockwise": (lambda: tfb.Blockwise([tfb.Exp(), tfb.Softplus()], [1, 2]), [0.3, -1.2, 0.7], 1),
    "Chain": (lambda: tfb.Chain([tfb.Shift(c(1.0)), tfb.Scale(c(2.0)), tfb.Tanh()]), [0.3, -1.2], 1),
    "Invert": (lambda: tfb.Invert(tfb.Softplus()), [0.3, 1.2], 1),
    "Reshape": (lambda: tfb.Reshape([2, 2], [4]), [0.3, -1.2, 0.7, 2.0], 1),
    "Transpose": (lambda: tfb.Transpose([1, 0]), [[0.3, -1.2], [0.7, 2.0]], 2),
    "CholeskyOuterProduct": (lambda: tfb.CholeskyOuterProduct(), TRIL, 2),
}


def _volume(j_rows, fn, x, bijector):
    """log|det J| of the map restricted to free coordinates (SoftmaxCentered: the first K-1
    outputs, plus the simplex's area term; CholeskyOuterProduct: lower-triangular inputs to
    lower-triangular outputs)."""
    name = type(bijector).__name__
    if name == "SoftmaxCentered":  # TFP's convention: the simplex's area element adds 0.5 log K
        return np.linalg.slogdet(j_rows[:-1])[1] + 0.5 * np.log(j_rows.shape[0])
    if name == "CholeskyOuterProduct":
        n = np.asarray(x).shape[-1]
        keep = np.tril(np.ones((n, n), bool)).reshape(-1)
        j_rows = j_rows[keep][:, keep]
    return np.linalg.slogdet(j_rows)[1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip_and_log_det_against_autodiff(name):
    make, x, nd = CASES[name]
    b = make()
    x = c(x)
    y = b.forward(x)
    np.testing.assert_allclose(value(b.inverse(tx.identity(y))), value(x), rtol=1e-10, atol=1e-10)
    fldj = float(value(b.forward_log_det_jacobian(x, event_ndims=nd)))
    y_nd = nd + b.inverse_min_event_ndims - b.forward_min_event_ndims
    ildj = float(value(b.inverse_log_det_jacobian(tx.identity(y), event_ndims=y_nd)))
    want = _volume(jacobian(b.forward, value(x)), b.forward, value(x), b)
    np.testing.assert_allclose(fldj, want, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ildj, -want, rtol=1e-8, atol=1e-10)


def test_log_det_sums_over_extra_event_dims():
    b = tfb.Exp()
    x = c([[0.5, 1.0], [2.0, -1.0]])
    np.testing.assert_allclose(value(b.forward_log_det_jacobian(x, event_ndims=0)), value(x))
    np.testing.assert_allclose(value(b.forward_log_det_jacobian(x, event_ndims=1)), [1.5, 1.0])
    np.testing.assert_allclose(float(value(b.forward_log_det_jacobian(x, event_ndims=2))), 2.5)


def test_wrong_event_rank_is_a_clear_error():
    with pytest.raises(ValueError, match="event_ndims=0 is less than its forward_min_event_ndims=1"):
        tfb.ScaleMatvecTriL(c(TRIL)).forward_log_det_jacobian(c([1.0, 2.0, 3.0]), event_ndims=0)
    with pytest.raises(ValueError, match="rank 1, less than event_ndims=2"):
        tfb.Exp().forward_log_det_jacobian(c([1.0, 2.0]), event_ndims=2)
    with pytest.raises(ValueError, match="not the sum of block_sizes"):
        tfb.Blockwise([tfb.Exp()], [2]).forward(c([1.0, 2.0, 3.0]))


def test_inverse_of_a_forward_output_is_the_cached_input():
    b = tfb.Softplus()
    x = c([0.1, 50.0])
    assert b.inverse(b.forward(x)) is x


def test_fill_triangular_matches_tfp_layout_and_inverts():
    x = c(np.arange(1.0, 7.0))
    lower = value(tfb.FillTriangular().forward(x))
    np.testing.assert_array_equal(lower, [[4, 0, 0], [6, 5, 0], [3, 2, 1]])
    upper = value(txp.math.fill_triangular(x, upper=True))
    np.testing.assert_array_equal(upper, [[1, 2, 3], [0, 5, 6], [0, 0, 4]])
    np.testing.assert_array_equal(value(tfb.FillTriangular().inverse(c(lower))), value(x))
    y = tfb.FillScaleTriL().forward(x)
    np.testing.assert_allclose(value(tfb.FillScaleTriL().inverse(tx.identity(y))), value(x), rtol=1e-9)


def test_fill_scale_tril_log_det_against_autodiff():
    b = tfb.FillScaleTriL()
    x = np.array([0.3, -0.7, 1.1])
    jac = jacobian(lambda t: tfb.FillTriangular().inverse(b.forward(t)), x)
    np.testing.assert_allclose(float(value(b.forward_log_det_jacobian(c(x), 1))), np.linalg.slogdet(jac)[1],
                               rtol=1e-8)


@pytest.mark.parametrize("flow", ["RealNVP", "MAF"])
def test_flows_invert_and_log_det_against_autodiff(flow):
    tx.random.set_seed(3)
    if flow == "RealNVP":
        b = tfb.RealNVP(num_masked=2, shift_and_log_scale_fn=tfb.real_nvp_default_template([6], activation="tanh"))
    else:
        b = tfb.MaskedAutoregressiveFlow(tfb.AutoregressiveNetwork(params=2, hidden_units=[6], activation="tanh",
                                                                   dtype="float64"))
    x = np.array([[0.3, -1.2, 0.7, 0.1]])
    y = b.forward(c(x))
    np.testing.assert_allclose(value(b.inverse(tx.identity(y))), x, rtol=1e-6, atol=1e-6)
    jac = jacobian(lambda t: b.forward(tx.reshape(t, [1, 4]))[0], x[0])
    np.testing.assert_allclose(float(value(b.forward_log_det_jacobian(c(x), 1))[0]), np.linalg.slogdet(jac)[1],
                               rtol=1e-5, atol=1e-6)
    if flow == "MAF":  # autoregressive: the Jacobian is lower triangular
        np.testing.assert_allclose(np.triu(jac, 1), 0.0, atol=1e-12)


def test_transformed_distribution_log_prob_matches_lognormal():
    tfd = txp.distributions
    d = tfd.TransformedDistribution(tfd.Normal(c(0.5), c(1.3)), tfb.Exp())
    x = c([0.2, 1.0, 4.0])
    np.testing.assert_allclose(value(d.log_prob(x)), value(tfd.LogNormal(c(0.5), c(1.3)).log_prob(x)), rtol=1e-12)
    with pytest.raises(ValueError, match="needs events of rank >= 1"):
        tfd.TransformedDistribution(tfd.Normal(c(0.0), c(1.0)), tfb.ScaleMatvecTriL(c(TRIL)))
