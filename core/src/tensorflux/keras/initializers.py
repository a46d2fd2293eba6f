"""``tx.keras.initializers``: tx.initializers under Keras's names, plus LecunUniform and Identity."""

from tensorflux._src.initializers import (Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform, Initializer,
                                          LecunNormal, Ones, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal,
                                          VarianceScaling, Zeros)
from tensorflux._src.initializers import (glorot_normal, glorot_uniform, he_normal, he_uniform, lecun_normal, ones,
                                          orthogonal, random_normal, random_uniform, truncated_normal, variance_scaling,
                                          zeros)
from tensorflux._src.initializers import constant_initializer as constant
from tensorflux._src.keras.initializers import Identity, LecunUniform, deserialize, get, serialize
from tensorflux._src.module_getattr import module_getattr as _module_getattr

IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal
identity = Identity
lecun_uniform = LecunUniform

__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity", "IdentityInitializer",
           "Initializer", "LecunNormal", "LecunUniform", "Ones", "Orthogonal", "OrthogonalInitializer", "RandomNormal",
           "RandomUniform", "TruncatedNormal", "VarianceScaling", "Zeros", "constant", "deserialize", "get",
           "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "identity", "lecun_normal", "lecun_uniform",
           "ones", "orthogonal", "random_normal", "random_uniform", "serialize", "truncated_normal",
           "variance_scaling", "zeros"]

__getattr__ = _module_getattr(__name__)
