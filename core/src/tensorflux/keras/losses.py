"""``tx.keras.losses``: the loss functions and objects of tx.losses, under Keras's names."""

from tensorflux.losses import *  # noqa: F401,F403 (the list is __all__ there)
from tensorflux.losses import __all__  # noqa: F401

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
