"""``tx.keras.initializers``: tx.initializers under Keras's names (and its configs), plus
LecunUniform and Identity."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import initializers as _init
from tensorflux._src.constant_op import constant
from tensorflux._src.keras import serialization


class Identity(_init.Initializer):
    """``gain`` times the identity matrix (2-D shapes only).

    >>> tx.keras.initializers.Identity()([2, 2]).numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=_dtypes.float32):
        dims = _init._dims(shape)
        if len(dims) != 2:
            raise ValueError("Identity initializer needs a 2-D shape, got %s" % (dims,))
        return constant(self.gain * np.eye(*dims), dtype=_dtypes.as_dtype(dtype))

    def get_config(self):
        return {"gain": self.gain}


def LecunUniform(seed=None):  # noqa: N802 (Keras's class-like name)
    """Uniform with variance 1 / fan_in."""
    return _init.VarianceScaling(1.0, "fan_in", "uniform", seed)


def _variance_scaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
    return _init.VarianceScaling(scale, mode, "truncated_normal" if distribution == "normal" else distribution, seed)


def _seeded(factory):
    def make(seed=None, **config):
        serialization.drop_keras_defaults(factory.__name__, config, {"input_axes": None, "output_axes": None})
        return factory(seed=seed, **config)
    make.__name__ = factory.__name__
    return make


_TABLE = {
    "Zeros": _init.Zeros, "Ones": _init.Ones, "Constant": _init.Constant, "RandomUniform": _init.RandomUniform,
    "RandomNormal": _init.RandomNormal, "TruncatedNormal": _init.TruncatedNormal,
    "VarianceScaling": _seeded(_variance_scaling), "GlorotUniform": _seeded(_init.GlorotUniform),
    "GlorotNormal": _seeded(_init.GlorotNormal), "HeUniform": _seeded(_init.HeUniform),
    "HeNormal": _seeded(_init.HeNormal), "LecunNormal": _seeded(_init.LecunNormal),
    "LecunUniform": _seeded(LecunUniform), "Orthogonal": _init.Orthogonal, "Identity": Identity,
    "IdentityInitializer": Identity,
}
_SNAKE = {"zeros": "Zeros", "ones": "Ones", "constant": "Constant", "random_uniform": "RandomUniform",
          "random_normal": "RandomNormal", "truncated_normal": "TruncatedNormal",
          "variance_scaling": "VarianceScaling", "glorot_uniform": "GlorotUniform", "glorot_normal": "GlorotNormal",
          "he_uniform": "HeUniform", "he_normal": "HeNormal", "lecun_normal": "LecunNormal",
          "lecun_uniform": "LecunUniform", "orthogonal": "Orthogonal", "identity": "Identity",
          "uniform": "RandomUniform", "normal": "RandomNormal"}
for _name, _factory in _TABLE.items():
    serialization._registry.setdefault("initializers", {})[_name] = _factory


def get(identifier):
    """An initializer from a Keras name ("glorot_uniform", "GlorotUniform"), a config dict, or an
    initializer object or callable (returned as is); None stays None.

    >>> type(tx.keras.initializers.get("he_normal")).__name__
    'VarianceScaling'
    """
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, dict):
        return serialization.deserialize(identifier, "initializers")
    if isinstance(identifier, str):
        name = _SNAKE.get(identifier, identifier)
        if name not in _TABLE:
            raise ValueError("Unknown initializer %r; tx.keras has: %s" % (identifier, ", ".join(sorted(_SNAKE))))
        return _TABLE[name]()
    raise TypeError("Could not interpret initializer identifier: %r" % (identifier,))


def serialize(initializer):
    """Keras 3's config dict of an initializer."""
    return serialization.serialize(initializer, "initializers")


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        return get(config)
    return serialization.deserialize(config, "initializers", custom_objects)
