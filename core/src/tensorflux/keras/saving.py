"""``tx.keras.saving``: loading models and registering custom classes for (de)serialization."""

from tensorflux._src.keras.saving import load_model
from tensorflux._src.keras.serialization import (custom_object_scope, get_registered_name,
                                                 register_keras_serializable)

__all__ = ["custom_object_scope", "get_registered_name", "load_model", "register_keras_serializable"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
