"""``tx.keras.backend``: session-level helpers (clear_session, floatx, image_data_format)."""

from tensorflux._src.keras.backend_util import clear_session, epsilon, floatx, image_data_format

__all__ = ["clear_session", "epsilon", "floatx", "image_data_format"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
