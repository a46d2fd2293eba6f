"""Linear algebra (``tx.linalg.*``, like ``tf.linalg``)."""

from tensorflux._src.math_ops import matmul

__all__ = ["matmul"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
