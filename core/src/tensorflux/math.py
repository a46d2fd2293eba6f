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

# Special functions, statistics, segment reductions and sorting (tensorflux._src.special_math,
# stat_ops, segment_ops, array_ext, sort_ops).
from tensorflux._src.array_ext import invert_permutation
from tensorflux._src.nn_ops import in_top_k, log_softmax, softmax, softplus, softsign
from tensorflux._src.segment_ops import (segment_max, segment_mean, segment_min, segment_prod, segment_sum,
                                         unsorted_segment_max, unsorted_segment_mean, unsorted_segment_min,
                                         unsorted_segment_prod, unsorted_segment_sqrt_n, unsorted_segment_sum)
from tensorflux._src.special_math import (acos, acosh, asin, asinh, atan, atan2, atanh, bessel_i0, bessel_i0e,
                                          bessel_i1, bessel_i1e, cosh, digamma, erfcinv, ndtri,
                                          divide_no_nan, is_inf, lgamma, multiply_no_nan, nextafter,
                                          polygamma, reciprocal_no_nan, rint, scalar_mul, sinh, xdivy, xlog1py,
                                          xlogy, zeta)
from tensorflux._src.stat_ops import (accumulate_n, approx_max_k, approx_min_k, bincount, confusion_matrix,
                                      count_nonzero, cumprod, cumulative_logsumexp, is_non_decreasing,
                                      is_strictly_increasing, l2_normalize, lbeta, polyval, reduce_euclidean_norm,
                                      reduce_logsumexp, reduce_std, reduce_variance, zero_fraction)
# The incomplete gamma and beta functions and the normal CDF (tensorflux._src.special_incomplete).
from tensorflux._src.special_incomplete import betainc, igamma, igammac, log_ndtr, ndtr
# Complex numbers (tensorflux._src.complex_ops).
from tensorflux._src.complex_ops import angle, conj, imag, real
from tensorflux._src.module_getattr import module_getattr as _module_getattr

__all__ += [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cosh", "digamma", "divide_no_nan", "is_inf",
    "lgamma", "multiply_no_nan", "nextafter", "polygamma", "reciprocal_no_nan", "rint",
    "scalar_mul", "sinh", "xdivy", "xlog1py", "xlogy", "zeta",
    "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "erfcinv", "ndtri",
    "accumulate_n", "bincount", "confusion_matrix", "count_nonzero", "cumprod", "cumulative_logsumexp",
    "l2_normalize", "polyval",
    "reduce_euclidean_norm", "reduce_logsumexp", "reduce_std", "reduce_variance",
    "segment_max", "segment_mean", "segment_min", "segment_prod", "segment_sum",
    "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min", "unsorted_segment_prod",
    "unsorted_segment_sqrt_n", "unsorted_segment_sum",
    "in_top_k", "invert_permutation", "log_softmax", "softmax", "softplus", "softsign",
    "approx_max_k", "approx_min_k", "is_non_decreasing", "is_strictly_increasing", "lbeta", "zero_fraction",
]

__all__ += ["betainc", "igamma", "igammac", "log_ndtr", "ndtr"]
__all__ += ["angle", "conj", "imag", "real"]

__getattr__ = _module_getattr(__name__)
