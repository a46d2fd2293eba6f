"""``tx.keras.initializers``: tx.initializers under Keras's names, plus LecunUniform and Identity."""

from tensorflux._src.initializers import (Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform, Initializer,
                                          LecunNormal, Ones, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal,
                                          VarianceScaling, Zeros)
from tensorflux._src.keras.initializers import Identity, LecunUniform, deserialize, get, serialize

__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity", "Initializer",
           "LecunNormal", "LecunUniform", "Ones", "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal",
           "VarianceScaling", "Zeros", "deserialize", "get", "serialize"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
