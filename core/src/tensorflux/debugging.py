"""Debugging helpers (``tx.debugging.*``, like ``tf.debugging``)."""

from tensorflux._src.shape_ops import check_numerics

__all__ = ["check_numerics"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
