"""Variational inference (mean-field and full-rank surrogates fit a Gaussian target) and the
probabilistic tx.keras layers (shapes, KL losses, gradients reaching the posterior Variables)."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_probability as txp

from conftest import value

tfd = txp.distributions


def test_mean_field_surrogate_fits_independent_target():
    target = tfd.Independent(tfd.Normal(tx.constant([1.0, -2.0]), tx.constant([0.5, 2.0])), 1)
    q = txp.vi.build_factored_surrogate_posterior([2], seed=1)
    loss = value(txp.vi.fit_surrogate_posterior(target.log_prob, q, tx.optimizers.Adam(0.05), 500, sample_size=32,
                                                seed=0))
    assert loss.shape == (500,) and loss[-50:].mean() < loss[:10].mean()
    np.testing.assert_allclose(value(q.mean()), [1.0, -2.0], atol=0.2)
    np.testing.assert_allclose(value(q.stddev()), [0.5, 2.0], rtol=0.2)


def test_full_rank_surrogate_recovers_correlation():
    cov = np.array([[1.0, 0.8], [0.8, 1.0]], np.float32)
    target = tfd.MultivariateNormalTriL(tx.constant([0.5, 0.5]), tx.constant(np.linalg.cholesky(cov)))
    q = txp.vi.build_affine_surrogate_posterior([2], seed=2)
    txp.vi.fit_surrogate_posterior(target.log_prob, q, tx.optimizers.Adam(0.05), 600, sample_size=32, seed=1)
    np.testing.assert_allclose(value(q.covariance()), cov, atol=0.2)
    # The ELBO at the optimum of an exact family is log Z = 0: the loss is near zero.
    assert abs(float(txp.vi.monte_carlo_variational_loss(target.log_prob, q, sample_size=2000, seed=3))) < 0.1


def test_fit_without_variables_is_a_clear_error():
    with pytest.raises(ValueError, match="no trainable variables"):
        txp.vi.fit_surrogate_posterior(lambda z: -z * z, tfd.Normal(0.0, 1.0), tx.optimizers.Adam(0.1), 5)


@pytest.mark.parametrize("layer_cls", [txp.layers.DenseReparameterization, txp.layers.DenseFlipout])
def test_dense_variational_layers_add_kl_and_train(layer_cls):
    layer = layer_cls(3, seed=4)
    x = tx.constant(np.random.default_rng(0).normal(size=(16, 5)).astype(np.float32))
    y = layer(x)
    assert y.shape == tx.TensorShape([16, 3]) and len(layer.losses) == 1
    q, p = layer.kernel_posterior, layer.kernel_prior
    np.testing.assert_allclose(float(layer.losses[0]), float(tfd.kl_divergence(q, p)), rtol=1e-5)
    with tx.GradientTape() as tape:
        loss = tx.reduce_mean(tx.square(layer(x))) + tx.add_n(layer.losses)
    grads = tape.gradient(loss, layer.trainable_variables)
    names = [v.name for v in layer.trainable_variables]
    assert len(grads) == 3 and all(g is not None for g in grads), names  # loc, scale, bias
    # Two calls draw two different weight samples (stochastic forward pass).
    assert not np.allclose(value(layer(x)), value(layer(x)))


def test_flipout_output_has_the_posterior_predictive_moments():
    """For one input row, Flipout outputs over many calls have mean x @ loc and variance x^2 @ scale^2."""
    layer = txp.layers.DenseFlipout(2, seed=5, bias_posterior_fn=None)
    x = tx.ones([1, 3])
    outs = np.stack([value(layer(x))[0] for _ in range(1500)])
    base = layer.kernel_posterior.distribution
    loc, scale = value(base.loc), base.scale.numpy()
    assert np.all(np.abs(outs.mean(0) - loc.sum(0)) < 4 * np.sqrt((scale**2).sum(0) / 1500))
    np.testing.assert_allclose(outs.var(0), (scale**2).sum(0), rtol=0.15)


def test_conv_variational_layers():
    for cls in (txp.layers.Convolution2DReparameterization, txp.layers.Convolution2DFlipout):
        layer = cls(2, kernel_size=3, padding="SAME", seed=1)
        assert layer(tx.ones([2, 6, 6, 1])).shape == tx.TensorShape([2, 6, 6, 2])
        assert len(layer.losses) == 1


def test_distribution_layers_parameterise_their_families():
    params = tx.constant(np.random.default_rng(1).normal(size=(4, 6)).astype(np.float32))
    d = txp.layers.IndependentNormal([3])(params)
    np.testing.assert_allclose(value(d.mean()), value(params)[:, :3], rtol=1e-6)
    assert txp.layers.IndependentNormal.params_size([3]) == 6
    mvn = txp.layers.MultivariateNormalTriL(2)(params[:, :5])
    assert mvn.event_shape == tx.TensorShape([2]) and mvn.batch_shape == tx.TensorShape([4])
    mix = txp.layers.MixtureNormal(2, [1])(params)
    assert value(mix.log_prob(tx.zeros([4, 1]))).shape == (4,)
    oh = txp.layers.OneHotCategorical(6)(params)
    np.testing.assert_allclose(value(oh.log_prob(tx.one_hot([0, 1, 2, 3], 6))),
                               value(tx.nn.log_softmax(params))[np.arange(4), np.arange(4)], rtol=1e-5)


def test_distribution_lambda_in_a_sequential_model_trains_with_nll():
    """A Sequential ending in IndependentNormal learns y = 2x + noise by minimising -log p(y)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=(256, 1)).astype(np.float32)
    y = (2 * x + 0.1 * rng.normal(size=(256, 1))).astype(np.float32)
    dense = tx.keras.layers.Dense(2)
    head = txp.layers.IndependentNormal([1])
    opt = tx.optimizers.Adam(0.05)

    @tx.function
    def step(xb, yb):
        with tx.GradientTape() as tape:
            loss = tx.reduce_mean(txp.layers.negative_log_likelihood(yb, head(dense(xb))))
        grads = tape.gradient(loss, dense.trainable_variables)
        opt.apply_gradients(zip(grads, dense.trainable_variables))
        return loss
    losses = [float(step(tx.constant(x), tx.constant(y))) for _ in range(300)]
    assert losses[-1] < losses[0] - 1.0
    d = head(dense(tx.constant([[0.5]])))
    np.testing.assert_allclose(float(d.mean()[0, 0]), 1.0, atol=0.1)
    np.testing.assert_allclose(float(d.stddev()[0, 0]), 0.1, atol=0.05)


def test_kl_divergence_add_loss():
    layer = txp.layers.KLDivergenceAddLoss(tfd.Normal(0.0, 1.0), use_exact_kl=True, weight=2.0)
    q = tfd.Normal(tx.constant([1.0, 0.0]), 1.0)
    assert layer(q) is q
    np.testing.assert_allclose(float(layer.losses[0]), 2.0 * 0.25)


def test_distribution_layer_as_the_output_of_a_sequential_model():
    """With a distribution layer last, the functional build sees its sample's shape and calling
    the model on data returns the distribution (Note [Distribution outputs])."""
    model = tx.keras.Sequential([tx.keras.Input(shape=(3,)), tx.keras.layers.Dense(2),
                                 txp.layers.IndependentNormal([1])])
    d = model(np.ones((4, 3), "float32"))
    assert isinstance(d, tfd.Independent) and d.event_shape == tx.TensorShape([1])
    assert value(d.log_prob(tx.zeros([4, 1]))).shape == (4,)


def _regression_data():
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, size=(256, 1)).astype(np.float32)
    return x, (2 * x + 0.1 * rng.normal(size=(256, 1))).astype(np.float32)


def test_compiled_model_with_a_distribution_loss_fits():
    """compile(loss=lambda y, d: -d.log_prob(y)) as in TFP's regression tutorial: the loss gets
    the distribution, fit lowers it, evaluate equals the mean NLL computed by hand, and predict
    returns the layer's tensor conversion (a sample of the right shape)."""
    x, y = _regression_data()
    model = tx.keras.Sequential([tx.keras.Input(shape=(1,)), tx.keras.layers.Dense(2),
                                 txp.layers.DistributionLambda(
                                     lambda t: tfd.Normal(loc=t[..., :1], scale=1e-3 + tx.math.softplus(t[..., 1:])))])
    model.compile(optimizer=tx.keras.optimizers.Adam(0.05), loss=lambda y, d: -d.log_prob(y))
    history = model.fit(x, y, epochs=30, batch_size=64, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] - 1.0
    by_hand = float(tx.reduce_mean(-model(x).log_prob(y)))
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=256, verbose=0), by_hand, rtol=1e-4)
    assert model.predict(x[:8], verbose=0).shape == (8, 1)


def test_layer_outputs_are_tensor_coercible_and_plain_distributions_are_not():
    layer = txp.layers.DistributionLambda(lambda t: tfd.Normal(t, 1.0), convert_to_tensor_fn=lambda d: d.mean())
    d = layer(tx.constant([1.0, 2.0]))
    np.testing.assert_allclose(value(tx.convert_to_tensor(d)), [1.0, 2.0])
    np.testing.assert_allclose(value(d + tx.constant(1.0)), [2.0, 3.0])
    with pytest.raises(ValueError, match="unsupported type"):
        tx.convert_to_tensor(tfd.Normal(0.0, 1.0))
