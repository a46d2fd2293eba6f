"""``tx.keras.models``: Model, Sequential, load_model, model_from_json, clone_model."""

from tensorflux._src.keras.model import Model
from tensorflux._src.keras.models_util import clone_model, model_from_json
from tensorflux._src.keras.saving import load_model
from tensorflux._src.keras.saving import save_model as _save_model
from tensorflux._src.keras.sequential import Sequential
from tensorflux._src.module_getattr import module_getattr as _module_getattr



def save_model(model, filepath, overwrite=True, **kwargs):
    """``model.save(filepath)``: a ``.keras`` file."""
    _save_model(model, filepath, overwrite=overwrite)


__all__ = ["Model", "Sequential", "clone_model", "load_model", "model_from_json", "save_model"]

__getattr__ = _module_getattr(__name__)
