"""Element-wise math, comparisons and reductions (``tx.math.*``, like ``tf.math``).

Dtypes are never promoted implicitly; see docs/dtypes.md."""

from tensorflux._src.math_ops import (abs, add, add_n, ceil, cos, divide, equal, erf, exp, expm1, floor, floordiv,
                                      floormod, greater, greater_equal, is_finite, is_nan, less, less_equal, log,
                                      log1p, logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mod,
                                      multiply, negative, not_equal, pow, reciprocal, reduce_mean, reduce_sum, round,
                                      rsqrt, sigmoid, sign, sin, sqrt, square, squared_difference, subtract, tan, tanh,
                                      truediv)
from tensorflux._src.gather_ops import top_k
from tensorflux._src.nn_ext_ops import erfc, erfinv, log_sigmoid
from tensorflux._src.reduce_ops import (argmax, argmin, cumsum, reduce_all, reduce_any, reduce_max, reduce_min,
                                        reduce_prod)

__all__ = [
    "abs", "add", "add_n", "ceil", "cos", "divide", "equal", "erf", "erfc", "erfinv", "exp", "expm1", "floor",
    "floordiv", "floormod", "greater", "greater_equal", "is_finite", "is_nan", "less", "less_equal", "log", "log1p",
    "log_sigmoid", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod", "multiply",
    "negative", "not_equal", "pow", "reciprocal", "reduce_mean", "reduce_sum", "round", "rsqrt", "sigmoid", "sign",
    "sin", "sqrt", "square", "squared_difference", "subtract", "tan", "tanh", "truediv", "argmax", "argmin", "cumsum",
    "reduce_all", "reduce_any", "reduce_max", "reduce_min", "reduce_prod", "top_k"
]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
