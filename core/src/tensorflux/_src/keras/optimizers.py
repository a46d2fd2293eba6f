"""Optimizers for `compile`: Keras's names ("adam", "sgd", ...) and configs resolved to
tx.optimizers objects (``tx.keras.optimizers`` is tx.optimizers)."""

from tensorflux._src.keras import serialization
from tensorflux._src.optim import optimizer as _opt

_BY_NAME = {"sgd": _opt.SGD, "adam": _opt.Adam, "adamw": _opt.AdamW, "rmsprop": _opt.RMSprop,
            "adagrad": _opt.Adagrad}
# Keras optimizer config keys and the values tx.optimizers implements (Note [Keras configs]).
_KERAS_DEFAULTS = {"weight_decay": (None, 0.0), "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                   "use_ema": False, "ema_momentum": (0.99,), "ema_overwrite_frequency": None,
                   "loss_scale_factor": None, "gradient_accumulation_steps": None, "amsgrad": False,
                   "centered": False, "is_legacy_optimizer": False, "jit_compile": (True, False),
                   "decay": (0.0,)}


def get(identifier):
    """A tx.optimizers object from a Keras name, a Keras config dict, or an optimizer (as is);
    ValueError for an unknown name."""
    if isinstance(identifier, _opt.Optimizer):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError("Could not interpret optimizer identifier: %r; tx.keras has: %s"
                             % (identifier, ", ".join(sorted(_BY_NAME))))
        return cls()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise ValueError("Could not interpret optimizer identifier: %r (use a tx.optimizers object or a name such as "
                     "'adam')" % (identifier,))


def serialize(optimizer):
    """Keras 3's config dict of a ready-made optimizer."""
    if optimizer._config is None:
        raise ValueError("optimizer %r was built from a transformation: it cannot be saved in a model config"
                         % optimizer.name)
    return {"module": "keras.optimizers", "class_name": optimizer._config[0], "config": optimizer.get_config(),
            "registered_name": None}


def deserialize(config, custom_objects=None):
    name = config["class_name"]
    cls = _BY_NAME.get(name.lower())
    if cls is None:
        raise ValueError("Could not interpret optimizer %r; tx.keras has: %s" % (name, ", ".join(sorted(_BY_NAME))))
    kwargs = dict(config.get("config") or {})
    cls_key = name.lower()
    defaults = dict(_KERAS_DEFAULTS)
    if cls_key == "adamw":
        defaults.pop("weight_decay")
    serialization.drop_keras_defaults(name, kwargs, defaults)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        raise NotImplementedError("optimizer %s: a serialized learning-rate schedule is not supported" % name)
    if "name" in kwargs and kwargs["name"] and kwargs["name"].lower() == cls_key:
        kwargs["name"] = name if cls_key != "sgd" else "SGD"
    return cls(**kwargs)
