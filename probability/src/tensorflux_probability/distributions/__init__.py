"""``txp.distributions`` (``tfd``): probability distributions with batch and event shapes, and
the KL registry (TensorFlow Probability's ``tfp.distributions`` names)."""

from tensorflux_probability.distributions.distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED,
                                                               Distribution, ReparameterizationType)
from tensorflux_probability.distributions.bernoulli import Bernoulli, Geometric
from tensorflux_probability.distributions.beta import Beta, StudentT
from tensorflux_probability.distributions.categorical import (Categorical, OneHotCategorical,
                                                              RelaxedOneHotCategorical)
from tensorflux_probability.distributions.counts import Binomial, NegativeBinomial, Poisson
from tensorflux_probability.distributions.gamma import Chi2, Exponential, Gamma, InverseGamma
from tensorflux_probability.distributions.independent import Independent, Sample
from tensorflux_probability.distributions.joint import JointDistributionNamed, JointDistributionSequential
from tensorflux_probability.distributions.matrix_dists import CholeskyLKJ, LKJCholesky, WishartTriL
from tensorflux_probability.distributions.location_scale import Cauchy, Gumbel, HalfCauchy, Laplace, Logistic, LogNormal
from tensorflux_probability.distributions.mixture import Mixture, MixtureSameFamily
from tensorflux_probability.distributions.multinomial import Dirichlet, Multinomial
from tensorflux_probability.distributions.mvn import MultivariateNormalDiag, MultivariateNormalTriL
from tensorflux_probability.distributions.normal import HalfNormal, Normal
from tensorflux_probability.distributions.transformed import TransformedDistribution
from tensorflux_probability.distributions.truncated_normal import TruncatedNormal
from tensorflux_probability.distributions.uniform import Pareto, Uniform, Weibull
from tensorflux_probability.distributions.von_mises import VonMises
from tensorflux_probability.distributions.kullback_leibler import RegisterKL, kl_divergence

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "CholeskyLKJ", "Dirichlet", "Distribution",
    "Exponential", "FULLY_REPARAMETERIZED", "Gamma", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
    "Independent", "InverseGamma", "LKJCholesky", "JointDistributionNamed", "JointDistributionSequential", "Laplace",
    "LogNormal",
    "Logistic", "Mixture", "MixtureSameFamily", "Multinomial", "MultivariateNormalDiag", "MultivariateNormalTriL",
    "NOT_REPARAMETERIZED", "NegativeBinomial", "Normal", "OneHotCategorical", "Pareto", "Poisson",
    "RegisterKL", "RelaxedOneHotCategorical", "ReparameterizationType", "Sample", "StudentT",
    "TransformedDistribution", "TruncatedNormal", "Uniform", "VonMises", "Weibull", "WishartTriL", "kl_divergence",
]
