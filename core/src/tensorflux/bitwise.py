"""Bitwise operations on integer tensors (``tx.bitwise.*``, like ``tf.bitwise``)."""

from tensorflux._src.bitwise_ops import bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
