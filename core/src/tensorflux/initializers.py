"""Variable initializers (``tx.initializers.*``), as in tf.keras.initializers."""

from tensorflux._src.initializers import (Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform, Initializer,
                                          LecunNormal, Ones, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal,
                                          VarianceScaling, Zeros, get, glorot_normal, glorot_uniform, he_normal,
                                          he_uniform, lecun_normal, ones, orthogonal, random_normal, random_uniform,
                                          truncated_normal, variance_scaling, zeros)
from tensorflux._src.initializers import constant_initializer as constant

__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Initializer", "LecunNormal", "Ones",
           "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling", "Zeros", "constant",
           "get", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "lecun_normal", "ones", "orthogonal",
           "random_normal", "random_uniform", "truncated_normal", "variance_scaling", "zeros"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
