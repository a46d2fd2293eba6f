"""Math ops and the Tensor operators (+ - * / @ and unary -), thin over the generated wrappers.
Python scalars next to a Tensor are converted to the Tensor's dtype."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast, reshape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor


def add(x, y, name=None):
    """x + y element-wise, with broadcasting (the AddV2 op)."""
    return gen_ops.add_v2(x, y, name=name or "Add")


def subtract(x, y, name=None):
    """x - y element-wise, with broadcasting."""
    return gen_ops.sub(x, y, name=name or "Sub")


def multiply(x, y, name=None):
    """x * y element-wise, with broadcasting."""
    return gen_ops.mul(x, y, name=name or "Mul")


# Integer division results, as NumPy's and TensorFlow's true division.
_TRUEDIV_FLOAT = {_dtypes.int8: _dtypes.float32, _dtypes.uint8: _dtypes.float32, _dtypes.int16: _dtypes.float32,
                  _dtypes.uint16: _dtypes.float32, _dtypes.int32: _dtypes.float64, _dtypes.uint32: _dtypes.float64,
                  _dtypes.int64: _dtypes.float64, _dtypes.uint64: _dtypes.float64}


def divide(x, y, name=None):
    """x / y element-wise (true division: integers are first cast to float, like TensorFlow)."""
    name = name or "truediv"
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=y.dtype if isinstance(y, Tensor) else None, name="x")
    if not isinstance(y, Tensor):
        y = convert_to_tensor(y, dtype=x.dtype, name="y")
    target = _TRUEDIV_FLOAT.get(x.dtype)
    if target is not None:
        if y.dtype != x.dtype:
            raise TypeError("x and y must have the same dtype, got %s != %s" % (x.dtype.name, y.dtype.name))
        x, y = cast(x, target), cast(y, target)
    return gen_ops.real_div(x, y, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """The matrix product of ``a`` and ``b`` (each optionally transposed first)."""
    return gen_ops.mat_mul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, name=name)


def _reduction(gen_fn, input_tensor, axis, keepdims, name):
    x = input_tensor if isinstance(input_tensor, Tensor) else convert_to_tensor(input_tensor)
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
    """The sum over ``axis`` (an int, a list of ints or a Tensor; None: all axes)."""
    return _reduction(gen_ops.sum, input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """The mean over ``axis`` (an int, a list of ints or a Tensor; None: all axes)."""
    return _reduction(gen_ops.mean, input_tensor, axis, keepdims, name)


def negative(x, name=None):
    """-x element-wise."""
    neg = getattr(gen_ops, "neg", None)
    if neg is not None:
        return neg(x, name=name or "Neg")
    if x.dtype.is_unsigned:
        return gen_ops.sub(0, x, name=name or "Neg")
    return gen_ops.mul(x, -1, name=name or "Neg")


def _override_operators():
    def binary(fn, op_name):
        def forward(self, other):
            return fn(self, other, name=op_name)

        def reverse(self, other):
            return fn(other, self, name=op_name)

        return forward, reverse

    for dunder, fn, op_name in (("add", add, "add"), ("sub", subtract, "sub"), ("mul", multiply, "mul"),
                                ("truediv", divide, "truediv"), ("matmul", matmul, "matmul")):
        forward, reverse = binary(fn, op_name)
        forward.__name__, reverse.__name__ = "__%s__" % dunder, "__r%s__" % dunder
        setattr(Tensor, "__%s__" % dunder, forward)
        setattr(Tensor, "__r%s__" % dunder, reverse)
    Tensor.__neg__ = lambda self: negative(self)
    # NumPy must hand mixed expressions (array + tensor) to the Tensor operators.
    Tensor.__array_ufunc__ = None


_override_operators()
