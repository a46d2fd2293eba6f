"""Debugging helpers (``tx.debugging.*``, like ``tf.debugging``)."""

from tensorflux._src.shape_ops import check_numerics

__all__ = ["check_numerics"]
