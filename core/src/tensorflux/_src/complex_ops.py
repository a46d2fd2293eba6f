"""Complex numbers: ``tx.complex`` and ``tx.math.real/imag/conj/angle`` (thin over the Complex,
Real, Imag, Conj and Angle ops), with TensorFlow's rules for real inputs."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope

_COMPLEX_OF = {_dtypes.float32: _dtypes.complex64, _dtypes.float64: _dtypes.complex128}


def _tensor(x, name):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, name=name)


def complex(real, imag, name=None):  # noqa: A001 (TensorFlow's name)
    """real + i * imag element-wise, with broadcasting: float32 parts give complex64, float64 parts
    complex128 (both parts must have one of these dtypes, the same one).

    >>> tx.complex(tx.constant([1.0, 2.0]), tx.constant([3.0, -1.0])).numpy()
    array([1.+3.j, 2.-1.j], dtype=complex64)
    """
    with name_scope(name or "Complex") as scope:
        real = _tensor(real, "real")
        imag = _tensor(imag, "imag") if isinstance(imag, _TENSORS) else convert_to_tensor(imag, dtype=real.dtype,
                                                                                          name="imag")
        if real.dtype != imag.dtype or real.dtype not in _COMPLEX_OF:
            raise TypeError("tx.complex: real and imag must both be float32 or both float64, got %s and %s"
                            % (real.dtype.name, imag.dtype.name))
        return gen_ops.complex(real, imag, Tout=_COMPLEX_OF[real.dtype], name=scope)


def real(input, name=None):  # noqa: A002 (TensorFlow's name)
    """The real part of each element of a complex Tensor; a real Tensor is returned unchanged.

    >>> tx.math.real(tx.constant([1 + 2j, -3j])).numpy()
    array([ 1., -0.])
    """
    input = _tensor(input, "input")
    if not input.dtype.is_complex:
        return input
    return gen_ops.real(input, Tout=input.dtype.real_dtype, name=name or "Real")


def imag(input, name=None):  # noqa: A002 (TensorFlow's name)
    """The imaginary part of each element of a complex Tensor; zeros for a real Tensor.

    >>> tx.math.imag(tx.constant([1 + 2j, -3j])).numpy()
    array([ 2., -3.])
    """
    input = _tensor(input, "input")
    if not input.dtype.is_complex:
        return gen_ops.zeros_like(input, name=name or "Imag")
    return gen_ops.imag(input, Tout=input.dtype.real_dtype, name=name or "Imag")


def conj(x, name=None):
    """The complex conjugate of each element; a real numeric Tensor is returned unchanged.

    >>> tx.math.conj(tx.constant([1 + 2j, 3 - 4j])).numpy()
    array([1.-2.j, 3.+4.j])
    """
    x = _tensor(x, "x")
    if x.dtype.is_complex:
        return gen_ops.conj(x, name=name or "Conj")
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError("tx.math.conj: expected a numeric Tensor, got dtype %s" % x.dtype.name)


def angle(input, name=None):  # noqa: A002 (TensorFlow's name)
    """The argument of each element, in [-pi, pi]; for a real Tensor pi where it is negative, else 0.

    >>> tx.math.angle(tx.constant([1j, -1 + 0j])).numpy()
    array([1.57079633, 3.14159265])
    """
    with name_scope(name or "Angle") as scope:
        input = _tensor(input, "input")
        if input.dtype.is_complex:
            return gen_ops.angle(input, Tout=input.dtype.real_dtype, name=scope)
        zeros = gen_ops.zeros_like(input)
        pi = convert_to_tensor(np.pi, dtype=input.dtype)
        return gen_ops.select_v2(gen_ops.less(input, zeros), gen_ops.add_v2(zeros, pi), zeros, name=scope)


def complex_abs(x, name=None):
    """|x| of a complex Tensor element-wise, as its real dtype (what ``tx.abs`` runs for complex x)."""
    return gen_ops.complex_abs(x, Tout=x.dtype.real_dtype, name=name or "ComplexAbs")
