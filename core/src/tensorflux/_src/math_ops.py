"""Math ops and the Tensor operators, thin over the generated wrappers.

Dtypes are never promoted implicitly (docs/dtypes.md): Tensors of different dtypes in one op are
a TypeError, Python scalars and NumPy values next to a Tensor take its dtype, true division of
integers casts them to a float type first, and comparisons give bool."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import lib
from tensorflux._src.array_ops import cast, reshape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.eager_tensor import EagerTensor as _EagerTensor

_c = lib.c


def add(x, y, name=None):
    """x + y element-wise, with broadcasting (the AddV2 op; for strings the Add op, which
    concatenates, as in TensorFlow).

    >>> tx.add(tx.constant([1, 2]), 10).numpy()
    array([11, 12], dtype=int32)
    >>> (tx.constant([1.0, 2.0]) + tx.constant([[10.0], [20.0]])).numpy()
    array([[11., 12.],
           [21., 22.]], dtype=float32)
    >>> (tx.constant(["a", "b"]) + "!").numpy()
    array([b'a!', b'b!'], dtype=object)
    """
    if _is_string_operand(x) or _is_string_operand(y):
        return gen_ops.add(x, y, name=name or "Add")
    return gen_ops.add_v2(x, y, name=name or "Add")


_STRING_ENUM = _dtypes.string.as_datatype_enum


def _is_string_operand(v):
    """Whether ``v`` is a string tensor or a Python str/bytes (which tx.add concatenates)."""
    if type(v) is _EagerTensor:  # the common eager case, without the generic checks
        return v._dtype_enum == _STRING_ENUM
    return isinstance(v, (str, bytes)) or _dtypes.string == getattr(v, "dtype", None)


def subtract(x, y, name=None):
    """x - y element-wise, with broadcasting.

    >>> tx.subtract(tx.constant([5, 7]), tx.constant([1, 2])).numpy()
    array([4, 5], dtype=int32)
    """
    return gen_ops.sub(x, y, name=name or "Sub")


def multiply(x, y, name=None):
    """x * y element-wise, with broadcasting.

    >>> tx.multiply(tx.constant([1.0, 2.0]), tx.constant([3.0, 4.0])).numpy()
    array([3., 8.], dtype=float32)
    """
    return gen_ops.mul(x, y, name=name or "Mul")


# Integer division results, as NumPy's and TensorFlow's true division.
_TRUEDIV_FLOAT = {_dtypes.int8: _dtypes.float32, _dtypes.uint8: _dtypes.float32, _dtypes.int16: _dtypes.float32,
                  _dtypes.uint16: _dtypes.float32, _dtypes.int32: _dtypes.float64, _dtypes.uint32: _dtypes.float64,
                  _dtypes.int64: _dtypes.float64, _dtypes.uint64: _dtypes.float64}


def divide(x, y, name=None):
    """x / y element-wise (true division: integers are first cast to float, like TensorFlow).

    >>> tx.divide(tx.constant([1.0, 3.0]), 2.0).numpy()
    array([0.5, 1.5], dtype=float32)
    """
    name = name or "truediv"
    if not isinstance(x, _TENSORS):
        x = convert_to_tensor(x, dtype=y.dtype if isinstance(y, _TENSORS) else None, name="x")
    if not isinstance(y, _TENSORS):
        y = convert_to_tensor(y, dtype=x.dtype, name="y")
    target = _TRUEDIV_FLOAT.get(x.dtype)
    if target is not None:
        if y.dtype != x.dtype:
            raise TypeError("x and y must have the same dtype, got %s != %s" % (x.dtype.name, y.dtype.name))
        x, y = cast(x, target), cast(y, target)
    return gen_ops.real_div(x, y, name=name)


truediv = divide


def floordiv(x, y, name=None):
    """floor(x / y) element-wise: integers round toward -inf; integer division by zero is an error.

    >>> tx.math.floordiv(tx.constant([7, -7]), 2).numpy()
    array([ 3, -4], dtype=int32)
    """
    return gen_ops.floor_div(x, y, name=name or "floordiv")


def floormod(x, y, name=None):
    """x - floordiv(x, y) * y element-wise: the remainder has y's sign (Python's ``%``).

    >>> tx.math.floormod(tx.constant([7, -7]), 3).numpy()
    array([1, 2], dtype=int32)
    """
    return gen_ops.floor_mod(x, y, name=name or "FloorMod")


mod = floormod


def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """x ** y element-wise; integer tensors reject negative exponents.

    >>> tx.pow(tx.constant([2.0, 3.0]), 2.0).numpy()
    array([4., 9.], dtype=float32)
    """
    return gen_ops.pow(x, y, name=name or "Pow")


def _binary(gen_fn, op_name, doc):
    def fn(x, y, name=None):
        return gen_fn(x, y, name=name or op_name)

    fn.__name__ = fn.__qualname__ = gen_fn.__name__
    fn.__doc__ = doc
    return fn


def _unary(gen_fn, op_name, doc):
    def fn(x, name=None):
        return gen_fn(x, name=name or op_name)

    fn.__name__ = fn.__qualname__ = gen_fn.__name__
    fn.__doc__ = doc
    return fn


maximum = _binary(gen_ops.maximum, "Maximum", "max(x, y) element-wise, with broadcasting; NaN if either is NaN.")
minimum = _binary(gen_ops.minimum, "Minimum", "min(x, y) element-wise, with broadcasting; NaN if either is NaN.")
squared_difference = _binary(gen_ops.squared_difference, "SquaredDifference", "(x - y) ** 2 element-wise.")
less = _binary(gen_ops.less, "Less", "x < y element-wise, with broadcasting (a bool Tensor).")
less_equal = _binary(gen_ops.less_equal, "LessEqual", "x <= y element-wise, with broadcasting (a bool Tensor).")
greater = _binary(gen_ops.greater, "Greater", "x > y element-wise, with broadcasting (a bool Tensor).")
greater_equal = _binary(gen_ops.greater_equal, "GreaterEqual",
                        "x >= y element-wise, with broadcasting (a bool Tensor).")
logical_and = _binary(gen_ops.logical_and, "LogicalAnd", "x AND y element-wise for bool Tensors.")
logical_or = _binary(gen_ops.logical_or, "LogicalOr", "x OR y element-wise for bool Tensors.")

def abs(x, name=None):  # noqa: A001 (TensorFlow's name)
    """|x| element-wise; for complex x the modulus, as x's real dtype (the ComplexAbs op).

    >>> tx.abs(tx.constant([-1.5, 2.0])).numpy()
    array([1.5, 2. ], dtype=float32)
    >>> tx.abs(tx.constant([3 + 4j])).numpy()
    array([5.])
    """
    x = x if isinstance(x, _TENSORS) else convert_to_tensor(x)
    if x.dtype.is_complex:
        return gen_ops.complex_abs(x, Tout=x.dtype.real_dtype, name=name or "ComplexAbs")
    return gen_ops.abs(x, name=name or "Abs")
sign = _unary(gen_ops.sign, "Sign", "-1, 0 or 1 element-wise by the sign of x (NaN stays NaN).")
square = _unary(gen_ops.square, "Square", "x * x element-wise.")
sqrt = _unary(gen_ops.sqrt, "Sqrt", "The square root of x element-wise.")
rsqrt = _unary(gen_ops.rsqrt, "Rsqrt", "1 / sqrt(x) element-wise.")
reciprocal = _unary(gen_ops.reciprocal, "Reciprocal", "1 / x element-wise.")
exp = _unary(gen_ops.exp, "Exp", "e ** x element-wise.")
expm1 = _unary(gen_ops.expm1, "Expm1", "exp(x) - 1 element-wise, accurate near 0.")
log = _unary(gen_ops.log, "Log", "The natural logarithm of x element-wise.")
log1p = _unary(gen_ops.log1p, "Log1p", "log(1 + x) element-wise, accurate near 0.")
sin = _unary(gen_ops.sin, "Sin", "sin(x) element-wise.")
cos = _unary(gen_ops.cos, "Cos", "cos(x) element-wise.")
tan = _unary(gen_ops.tan, "Tan", "tan(x) element-wise.")
tanh = _unary(gen_ops.tanh, "Tanh", "The hyperbolic tangent of x element-wise.")
sigmoid = _unary(gen_ops.sigmoid, "Sigmoid", "1 / (1 + exp(-x)) element-wise.")
erf = _unary(gen_ops.erf, "Erf", "The Gauss error function of x element-wise.")
floor = _unary(gen_ops.floor, "Floor", "The largest integer not greater than x, element-wise.")
ceil = _unary(gen_ops.ceil, "Ceil", "The smallest integer not less than x, element-wise.")
is_nan = _unary(gen_ops.is_nan, "IsNan", "Whether x is NaN, element-wise (a bool Tensor).")
is_finite = _unary(gen_ops.is_finite, "IsFinite", "Whether x is neither infinite nor NaN, element-wise.")
logical_not = _unary(gen_ops.logical_not, "LogicalNot", "NOT x element-wise for a bool Tensor.")


def negative(x, name=None):
    """-x element-wise (integers wrap: -MIN == MIN).

    >>> tx.negative(tx.constant([1, -2])).numpy()
    array([-1,  2], dtype=int32)
    """
    return gen_ops.neg(x, name=name or "Neg")


def round(x, name=None):  # noqa: A001 - TensorFlow's name
    """x rounded to the nearest integer element-wise, halves to even ("banker's rounding", like
    TensorFlow and NumPy); integer tensors are returned unchanged.

    >>> tx.round(tx.constant([0.5, 1.5, 2.5, -0.5])).numpy()
    array([ 0.,  2.,  2., -0.], dtype=float32)
    """
    if not isinstance(x, _TENSORS):
        x = convert_to_tensor(x)
    if x.dtype.is_integer:
        return x
    return gen_ops.round(x, name=name or "Round")


def equal(x, y, name=None):
    """x == y element-wise, with broadcasting (a bool Tensor).

    >>> tx.equal(tx.constant([1, 2, 3]), tx.constant([1, 0, 3])).numpy()
    array([ True, False,  True])
    """
    return gen_ops.equal(x, y, name=name or "Equal")


def not_equal(x, y, name=None):
    """x != y element-wise, with broadcasting (a bool Tensor).

    >>> tx.not_equal(tx.constant([1, 2]), 2).numpy()
    array([ True, False])
    """
    return gen_ops.not_equal(x, y, name=name or "NotEqual")


def logical_xor(x, y, name=None):
    """x XOR y element-wise for bool Tensors: (x OR y) AND NOT (x AND y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name or "LogicalXor")


def add_n(inputs, name=None):
    """The element-wise sum of a list of Tensors of one shape and dtype.

    >>> tx.add_n([tx.constant([1, 2]), tx.constant([10, 20]), tx.constant([100, 200])]).numpy()
    array([111, 222], dtype=int32)
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("add_n expects a non-empty list of Tensors, got %r" % (inputs,))
    if len(inputs) == 1 and isinstance(inputs[0], Tensor) and name is None:
        return inputs[0]
    return gen_ops.add_n(list(inputs), name=name or "AddN")


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """max(min(t, clip_value_max), clip_value_min) element-wise, of ``t``'s shape; the clip values
    may be scalars or any shape that broadcasts to ``t``'s (the ClipByValue op).

    >>> tx.clip_by_value(tx.constant([-2.0, 0.5, 3.0]), 0.0, 1.0).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    return gen_ops.clip_by_value(t, clip_value_min, clip_value_max, name=name or "clip_by_value")


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, name=None):
    """The matrix product of ``a`` and ``b`` (each optionally transposed, or adjoint, first); inputs of
    rank > 2 (or unknown rank) multiply over their last two dims with broadcast batch dims.

    >>> a = tx.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> tx.matmul(a, tx.ones([2, 1])).numpy()
    array([[3.],
           [7.]], dtype=float32)
    >>> tx.matmul(a, a, transpose_b=True).numpy()
    array([[ 5., 11.],
           [11., 25.]], dtype=float32)
    >>> (a @ a).numpy()
    array([[ 7., 10.],
           [15., 22.]], dtype=float32)
    """
    if transpose_a is True and adjoint_a is True or transpose_b is True and adjoint_b is True:
        raise ValueError("Only one of transpose_x and adjoint_x can be True for each input")
    ta = adjoint_a if adjoint_a is not False else transpose_a
    tb = adjoint_b if adjoint_b is not False else transpose_b

    def rank(v):
        shape = getattr(v, "shape", None)  # Tensors, EagerTensors and Variables have a TensorShape
        return shape.rank if hasattr(shape, "rank") else np.ndim(v)

    def is_complex(v):
        dtype = getattr(v, "dtype", None)
        return dtype.is_complex if isinstance(dtype, _dtypes.DType) else np.iscomplexobj(v)

    ra, rb = rank(a), rank(b)
    batch = ra is None or rb is None or ra > 2 or rb > 2
    # MatMul's transposes do not conjugate and BatchMatMulV2's adjoints do: a complex operand is
    # conjugated first where the flag asked for the other one.
    if (adjoint_a is True and not batch or transpose_a is True and batch) and is_complex(a):
        a = gen_ops.conj(a if isinstance(a, _TENSORS) else convert_to_tensor(a))
    if (adjoint_b is True and not batch or transpose_b is True and batch) and is_complex(b):
        b = gen_ops.conj(b if isinstance(b, _TENSORS) else convert_to_tensor(b))
    if batch:
        return gen_ops.batch_mat_mul_v2(a, b, adj_x=ta, adj_y=tb, name=name)
    return gen_ops.mat_mul(a, b, transpose_a=ta, transpose_b=tb, name=name)


def _reduction(gen_fn, input_tensor, axis, keepdims, name):
    x = input_tensor if isinstance(input_tensor, _TENSORS) else convert_to_tensor(input_tensor)
    if axis is None:
        rank = x.shape.rank
        if rank is not None:
            axis = list(range(rank))
        elif keepdims:
            raise ValueError("Reducing all axes of %s with keepdims=True needs its rank, which is unknown" % x.name)
        else:
            x, axis = reshape(x, [-1]), [0]
    return gen_fn(x, axis, keep_dims=bool(keepdims), name=name)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """The sum over ``axis`` (an int, a list of ints or a Tensor; None: all axes).

    >>> x = tx.constant([[1, 2, 3], [4, 5, 6]])
    >>> int(tx.reduce_sum(x))
    21
    >>> tx.reduce_sum(x, axis=0).numpy()
    array([5, 7, 9], dtype=int32)
    >>> tx.reduce_sum(x, axis=1, keepdims=True).numpy()
    array([[ 6],
           [15]], dtype=int32)
    """
    return _reduction(gen_ops.sum, input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """The mean over ``axis`` (an int, a list of ints or a Tensor; None: all axes).

    >>> tx.reduce_mean(tx.constant([[1.0, 2.0], [3.0, 5.0]]), axis=1).numpy()
    array([1.5, 4. ], dtype=float32)
    """
    return _reduction(gen_ops.mean, input_tensor, axis, keepdims, name)


def _bool_or_bits(logical, bitwise, name):
    """The operator TensorFlow gives ``&``, ``|`` and ``^``: logical on bool Tensors, bitwise
    (``gen_ops.<bitwise>``) on integer ones (the Tensor operand's dtype decides)."""

    def op(x, y, name=name):
        t = x if isinstance(x, _TENSORS) else y
        if isinstance(t, _TENSORS) and t.dtype.is_integer:
            return getattr(gen_ops, bitwise)(x, y, name=name)
        return logical(x, y, name=name)

    return op


def _invert(x):
    """``~x``: logical not of a bool Tensor, bitwise inversion of an integer one (as TensorFlow)."""
    if x.dtype.is_integer:
        return gen_ops.invert(x, name="invert")
    return logical_not(x)


def _override_operators():
    """Tensor operators as TensorFlow defines them; ``==`` and ``hash`` stay identity-based, as
    for TF1 graph tensors (use tx.math.equal for the element-wise comparison)."""

    def binary(fn, op_name):
        def forward(self, other):
            return fn(self, other, name=op_name)

        def reverse(self, other):
            return fn(other, self, name=op_name)

        return forward, reverse

    for dunder, fn, op_name in (("add", add, "add"), ("sub", subtract, "sub"), ("mul", multiply, "mul"),
                                ("truediv", divide, "truediv"), ("matmul", matmul, "matmul"),
                                ("floordiv", floordiv, "floordiv"), ("mod", floormod, "mod"), ("pow", pow, "pow"),
                                ("and", _bool_or_bits(logical_and, "bitwise_and", "and"), "and"),
                                ("or", _bool_or_bits(logical_or, "bitwise_or", "or"), "or"),
                                ("xor", _bool_or_bits(logical_xor, "bitwise_xor", "xor"), "xor")):
        forward, reverse = binary(fn, op_name)
        forward.__name__, reverse.__name__ = "__%s__" % dunder, "__r%s__" % dunder
        setattr(Tensor, "__%s__" % dunder, forward)
        setattr(Tensor, "__r%s__" % dunder, reverse)
    # Comparisons have no reflected forms: Python swaps them itself (2 < t calls t.__gt__(2)).
    for dunder, fn in (("lt", less), ("le", less_equal), ("gt", greater), ("ge", greater_equal)):
        def compare(self, other, fn=fn):
            return fn(self, other)

        compare.__name__ = "__%s__" % dunder
        setattr(Tensor, "__%s__" % dunder, compare)
    Tensor.__neg__ = lambda self: negative(self)
    Tensor.__abs__ = lambda self: abs(self)
    Tensor.__invert__ = _invert
    # NumPy must hand mixed expressions (array + tensor) to the Tensor operators.
    Tensor.__array_ufunc__ = None


def _install_eager_operators():
    """The operators of symbolic Tensors, shared by EagerTensor (they dispatch eagerly); +, - and *
    are C objects that run the op without the Python layers in between, and defer to the symbolic
    operator outside eager mode and for string tensors, whose + is the Add op, not AddV2 (Note [C
    dispatch] in pywrap/eager_dispatch.cc)."""
    for name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                 "__matmul__", "__rmatmul__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
                 "__rpow__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lt__", "__le__",
                 "__gt__", "__ge__", "__neg__", "__abs__", "__invert__"):
        setattr(_EagerTensor, name, getattr(Tensor, name))
    for dunder, sig in (("add", gen_ops._ADD_V2), ("sub", gen_ops._SUB), ("mul", gen_ops._MUL)):
        for reverse in (False, True):
            name = "__%s%s__" % ("r" if reverse else "", dunder)
            setattr(_EagerTensor, name, _c.EagerOperator(sig, reverse, getattr(Tensor, name)))


_override_operators()
_install_eager_operators()
