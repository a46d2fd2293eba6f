"""Element-wise special math for ``tx.math``: inverse and hyperbolic trigonometry, the gamma
family, modified Bessel functions, the "no NaN" divisions and products, predicates (thin over the
generated wrappers), and ndtri / erfcinv over Erfinv."""

from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.math_ops import _binary, _unary

asin = _unary(gen_ops.asin, "Asin", "The inverse sine of x element-wise (NaN outside [-1, 1]).")
acos = _unary(gen_ops.acos, "Acos", "The inverse cosine of x element-wise (NaN outside [-1, 1]).")
atan = _unary(gen_ops.atan, "Atan", "The inverse tangent of x element-wise.")
sinh = _unary(gen_ops.sinh, "Sinh", "The hyperbolic sine of x element-wise.")
cosh = _unary(gen_ops.cosh, "Cosh", "The hyperbolic cosine of x element-wise.")
asinh = _unary(gen_ops.asinh, "Asinh", "The inverse hyperbolic sine of x element-wise.")
acosh = _unary(gen_ops.acosh, "Acosh", "The inverse hyperbolic cosine of x element-wise (NaN below 1).")
atanh = _unary(gen_ops.atanh, "Atanh", "The inverse hyperbolic tangent of x element-wise (+-inf at +-1).")
rint = _unary(gen_ops.rint, "Rint", "The integer nearest to x element-wise, halves to even.")
lgamma = _unary(gen_ops.lgamma, "Lgamma", "log |Gamma(x)| element-wise (inf at the poles).")
digamma = _unary(gen_ops.digamma, "Digamma", "psi(x), the derivative of lgamma, element-wise (NaN at the poles).")
is_inf = _unary(gen_ops.is_inf, "IsInf", "Whether x is +inf or -inf, element-wise (a bool Tensor).")

xlogy = _binary(gen_ops.xlogy, "Xlogy", "x * log(y) element-wise, 0 where x == 0.")
xlog1py = _binary(gen_ops.xlog1py, "Xlog1py", "x * log1p(y) element-wise, 0 where x == 0.")
xdivy = _binary(gen_ops.xdivy, "Xdivy", "x / y element-wise, 0 where x == 0.")
divide_no_nan = _binary(gen_ops.div_no_nan, "div_no_nan", "x / y element-wise, 0 where y == 0.")
multiply_no_nan = _binary(gen_ops.mul_no_nan, "MulNoNan",
                          "x * y element-wise, 0 where y == 0 even if x is infinite or NaN.")
zeta = _binary(gen_ops.zeta, "Zeta", "The Hurwitz zeta function sum_k (q + k) ** -x, element-wise.")
polygamma = _binary(gen_ops.polygamma, "Polygamma",
                    "The a-th derivative of digamma at x, element-wise (a a non-negative integer value).")


def atan2(y, x, name=None):
    """The angle of the point (x, y) from the positive x axis, in [-pi, pi], element-wise."""
    return gen_ops.atan2(y, x, name=name or "Atan2")


def nextafter(x1, x2, name=None):
    """The next representable value after x1 in the direction of x2, element-wise."""
    return gen_ops.next_after(x1, x2, name=name or "NextAfter")


def reciprocal_no_nan(x, name=None):
    """1 / x element-wise, 0 where x == 0."""
    x = x if isinstance(x, _TENSORS) else convert_to_tensor(x)
    one = convert_to_tensor(1, dtype=x.dtype)
    return gen_ops.div_no_nan(one, x, name=name or "reciprocal_no_nan")


def scalar_mul(scalar, x, name=None):
    """scalar * x, the scalar taking x's dtype."""
    x = x if isinstance(x, _TENSORS) else convert_to_tensor(x)
    s = scalar if isinstance(scalar, _TENSORS) else convert_to_tensor(scalar, dtype=x.dtype)
    if s.shape.rank not in (None, 0):
        raise ValueError("scalar_mul: 'scalar' must be a 0-D value, got shape %s" % (s.shape,))
    return gen_ops.mul(s, x, name=name or "scalar_mul")


bessel_i0e = _unary(gen_ops.bessel_i0e, "BesselI0e",
                    "exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0, element-wise.")
bessel_i1e = _unary(gen_ops.bessel_i1e, "BesselI1e",
                    "exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1, element-wise.")


def bessel_i0(x, name=None):
    """I0(x), the modified Bessel function of order 0: exp(|x|) * bessel_i0e(x) (as TensorFlow)."""
    with name_scope(name or "bessel_i0"):
        return gen_ops.mul(gen_ops.exp(gen_ops.abs(x)), gen_ops.bessel_i0e(x))


def bessel_i1(x, name=None):
    """I1(x), the modified Bessel function of order 1: exp(|x|) * bessel_i1e(x) (as TensorFlow)."""
    with name_scope(name or "bessel_i1"):
        return gen_ops.mul(gen_ops.exp(gen_ops.abs(x)), gen_ops.bessel_i1e(x))


_SQRT2 = 1.4142135623730951


def ndtri(x, name=None):
    """The inverse of the standard normal CDF, element-wise: sqrt(2) * erfinv(2x - 1) (so deep in
    the tails, x below about 1e-8, the relative error grows as 2x - 1 rounds)."""
    with name_scope(name or "ndtri"):
        x = x if isinstance(x, _TENSORS) else convert_to_tensor(x)
        two, one = convert_to_tensor(2, dtype=x.dtype), convert_to_tensor(1, dtype=x.dtype)
        return gen_ops.mul(convert_to_tensor(_SQRT2, dtype=x.dtype),
                           gen_ops.erfinv(gen_ops.sub(gen_ops.mul(two, x), one)))


def erfcinv(x, name=None):
    """The inverse of erfc, element-wise: erfinv(1 - x) (the same tail caveat as ndtri)."""
    with name_scope(name or "erfcinv"):
        x = x if isinstance(x, _TENSORS) else convert_to_tensor(x)
        return gen_ops.erfinv(gen_ops.sub(convert_to_tensor(1, dtype=x.dtype), x))
