"""Bitwise operations on integer tensors (``tx.bitwise``, like ``tf.bitwise``)."""

from tensorflux._src.generated import gen_ops


def bitwise_and(x, y, name=None):
    """x & y element-wise for integer Tensors of one dtype, with broadcasting.

    >>> tx.bitwise.bitwise_and(tx.constant([12, 10], tx.uint8), tx.constant([10, 6], tx.uint8)).numpy()
    array([8, 2], dtype=uint8)
    """
    return gen_ops.bitwise_and(x, y, name=name)


def bitwise_or(x, y, name=None):
    """x | y element-wise for integer Tensors of one dtype, with broadcasting.

    >>> tx.bitwise.bitwise_or(tx.constant([12, 10]), tx.constant([10, 6])).numpy()
    array([14, 14], dtype=int32)
    """
    return gen_ops.bitwise_or(x, y, name=name)


def bitwise_xor(x, y, name=None):
    """x ^ y element-wise for integer Tensors of one dtype, with broadcasting.

    >>> tx.bitwise.bitwise_xor(tx.constant([12, 10]), tx.constant([10, 6])).numpy()
    array([6, 12], dtype=int32)
    """
    return gen_ops.bitwise_xor(x, y, name=name)


def invert(x, name=None):
    """~x element-wise: every bit of an integer Tensor flipped.

    >>> tx.bitwise.invert(tx.constant([0, 5], tx.uint8)).numpy()
    array([255, 250], dtype=uint8)
    """
    return gen_ops.invert(x, name=name)


def left_shift(x, y, name=None):
    """x << y element-wise; y is clamped to [0, bits - 1] of x's type, and bits shifted out are lost.

    >>> tx.bitwise.left_shift(tx.constant([1, 3], tx.int8), tx.constant([7, 1], tx.int8)).numpy()
    array([-128,    6], dtype=int8)
    """
    return gen_ops.left_shift(x, y, name=name)


def right_shift(x, y, name=None):
    """x >> y element-wise (sign-filling for signed types); y is clamped to [0, bits - 1].

    >>> tx.bitwise.right_shift(tx.constant([-8, 8]), tx.constant([1, 2])).numpy()
    array([-4,  2], dtype=int32)
    """
    return gen_ops.right_shift(x, y, name=name)
