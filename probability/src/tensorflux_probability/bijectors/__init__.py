"""``txp.bijectors`` (``tfb``): invertible maps with log-det-Jacobians (TFP's ``tfp.bijectors`` names)."""

from tensorflux_probability.bijectors.bijector import Bijector
from tensorflux_probability.bijectors.chain import Chain, Invert
from tensorflux_probability.bijectors.elementwise import Exp, Identity, Log, Scale, Shift, Sigmoid, Softplus, Tanh
from tensorflux_probability.bijectors.flows import (AutoregressiveNetwork, MaskedAutoregressiveFlow, RealNVP,
                                                    real_nvp_default_template)
from tensorflux_probability.bijectors.matrix import (CholeskyOuterProduct, FillScaleTriL, FillTriangular,
                                                     ScaleMatvecTriL, SoftmaxCentered)
from tensorflux_probability.bijectors.structural import Blockwise, Permute, Reshape, Transpose

__all__ = ["AutoregressiveNetwork", "Bijector", "Blockwise", "Chain", "CholeskyOuterProduct", "Exp", "FillScaleTriL",
           "FillTriangular", "Identity", "Invert", "Log", "MaskedAutoregressiveFlow", "Permute", "RealNVP", "Reshape",
           "Scale", "ScaleMatvecTriL", "Shift", "Sigmoid", "SoftmaxCentered", "Softplus", "Tanh", "Transpose",
           "real_nvp_default_template"]
