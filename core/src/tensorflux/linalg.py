"""Linear algebra (``tx.linalg.*``, like ``tf.linalg``)."""

from tensorflux._src.math_ops import matmul

__all__ = ["matmul"]
