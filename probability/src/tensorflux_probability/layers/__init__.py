"""``txp.layers``: probabilistic layers for ``tx.keras`` (TFP's ``tfp.layers`` names):
distribution-valued layers, Bayesian dense and convolution layers, KL losses."""

from tensorflux_probability.layers.dense_variational import (Convolution2DFlipout, Convolution2DReparameterization,
                                                             DenseFlipout, DenseReparameterization, DenseVariational,
                                                             default_mean_field_normal_fn,
                                                             default_multivariate_normal_fn, mean_field_posterior,
                                                             standard_normal_prior)
from tensorflux_probability.layers.distribution_layer import (CategoricalMixtureOfOneHotCategorical, DistributionLambda,
                                                              IndependentNormal, KLDivergenceAddLoss,
                                                              KLDivergenceRegularizer, MixtureNormal,
                                                              MultivariateNormalTriL, OneHotCategorical,
                                                              negative_log_likelihood)

__all__ = ["CategoricalMixtureOfOneHotCategorical", "Convolution2DFlipout", "Convolution2DReparameterization",
           "DenseFlipout", "DenseReparameterization", "DenseVariational", "DistributionLambda", "IndependentNormal",
           "KLDivergenceAddLoss", "KLDivergenceRegularizer", "MixtureNormal", "MultivariateNormalTriL",
           "OneHotCategorical", "default_mean_field_normal_fn", "default_multivariate_normal_fn",
           "mean_field_posterior", "negative_log_likelihood", "standard_normal_prior"]
