"""``tx.keras.models``: Model, Sequential, load_model, model_from_json, clone_model."""

from tensorflux._src.keras.model import Model
from tensorflux._src.keras.models_util import clone_model, model_from_json
from tensorflux._src.keras.saving import load_model
from tensorflux._src.keras.sequential import Sequential

__all__ = ["Model", "Sequential", "clone_model", "load_model", "model_from_json"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
