"""Debugging helpers (``tx.debugging.*``, like ``tf.debugging``): assertions and numeric checks."""

from tensorflux._src.check_ops import (Assert, assert_all_finite, assert_equal, assert_greater,
                                       assert_greater_equal, assert_integer, assert_less, assert_less_equal,
                                       assert_near, assert_negative, assert_non_negative, assert_non_positive,
                                       assert_none_equal, assert_positive, assert_rank, assert_rank_at_least,
                                       assert_shapes, assert_type, is_numeric_tensor)
from tensorflux._src.shape_ops import check_numerics

__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer",
           "assert_less", "assert_less_equal", "assert_near", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_none_equal", "assert_positive", "assert_rank", "assert_rank_at_least",
           "assert_shapes", "assert_type", "check_numerics", "is_numeric_tensor"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
