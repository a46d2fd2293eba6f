"""``tx.keras.utils``: to_categorical, normalize, set_random_seed, PyDataset/Sequence."""

from tensorflux._src.keras.backend_util import (PyDataset, Sequence, normalize, pad_sequences, set_random_seed,
                                                to_categorical)
from tensorflux._src.keras.serialization import custom_object_scope, get_registered_name, register_keras_serializable

__all__ = ["PyDataset", "Sequence", "custom_object_scope", "get_registered_name", "normalize", "pad_sequences",
           "register_keras_serializable", "set_random_seed", "to_categorical"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
