"""``tx.keras.metrics``: stateful metrics (update_state / result / reset_state) and metric functions."""

from tensorflux._src.keras.metrics import *  # noqa: F401,F403 (the list is __all__ there)
from tensorflux._src.keras.metrics import __all__  # noqa: F401

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
