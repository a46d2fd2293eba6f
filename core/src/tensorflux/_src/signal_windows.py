"""Window functions for ``tx.signal`` (Hann, Hamming, Kaiser, Kaiser-Bessel-derived, Vorbis), built
from engine ops so ``window_length`` may be a Tensor; values follow TensorFlow's definitions."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope


def _check(window_length, dtype, fn):
    """(window_length as an int32 scalar Tensor, its value when static, dtype as a DType)."""
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("%s: dtype must be a floating point type, got %s" % (fn, dtype.name))
    n = window_length if isinstance(window_length, _TENSORS) else convert_to_tensor(window_length,
                                                                                    dtype=_dtypes.int32)
    if n.dtype != _dtypes.int32:
        n = gen_ops.cast(n, DstT=_dtypes.int32)
    if n.shape.rank not in (None, 0):
        raise ValueError("%s: window_length must be a scalar, got shape %s" % (fn, n.shape))
    static = None if isinstance(window_length, _TENSORS) else int(window_length)
    if static is not None and static < 0:
        raise ValueError("%s: window_length must be non-negative, got %d" % (fn, static))
    return n, static, dtype


def _arange(n, dtype):
    """0, 1, ..., n - 1 as ``dtype``."""
    return gen_ops.cast(gen_ops.range(0, n, 1), DstT=dtype)


def _scalar(value, dtype):
    return convert_to_tensor(value, dtype=dtype)


def _raised_cosine(window_length, periodic, dtype, a, b, fn):
    n, static, dtype = _check(window_length, dtype, fn)
    if static == 1:
        return gen_ops.fill(convert_to_tensor([1], dtype=_dtypes.int32), _scalar(1.0, dtype))
    # TensorFlow's period: n - 1, plus 1 when periodic and n is even (an odd periodic window is
    # the symmetric one).
    periodic = gen_ops.cast(convert_to_tensor(periodic, dtype=_dtypes.bool), DstT=_dtypes.int32)
    even = gen_ops.sub(1, gen_ops.floor_mod(n, 2))
    period = gen_ops.cast(gen_ops.sub(gen_ops.add_v2(n, gen_ops.mul(periodic, even)), 1), DstT=dtype)
    arg = gen_ops.real_div(gen_ops.mul(_scalar(2 * np.pi, dtype), _arange(n, dtype)), period)
    window = gen_ops.sub(_scalar(a, dtype), gen_ops.mul(_scalar(b, dtype), gen_ops.cos(arg)))
    if static is not None:
        return window
    # A length-1 window is [1] (0 / 0 above).
    return gen_ops.select_v2(gen_ops.equal(n, 1), gen_ops.ones_like(window), window)


def hann_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hann window 0.5 - 0.5 cos(2 pi k / N), k < window_length, with N = window_length (periodic,
    even lengths) or window_length - 1 (TensorFlow's definition).

    >>> tx.signal.hann_window(4).numpy()
    array([0. , 0.5, 1. , 0.5], dtype=float32)
    """
    with name_scope(name or "hann_window"):
        return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hamming window 0.54 - 0.46 cos(2 pi k / N), with N as in hann_window.

    >>> np.round(tx.signal.hamming_window(4).numpy(), 2)
    array([0.08, 0.54, 1.  , 0.54], dtype=float32)
    """
    with name_scope(name or "hamming_window"):
        return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


def kaiser_window(window_length, beta=12.0, dtype=_dtypes.float32, name=None):
    """The Kaiser window I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta), k < N = window_length
    (np.kaiser), computed with scaled Bessel functions so large beta does not overflow.

    >>> tx.signal.kaiser_window(3, beta=0.0).numpy()
    array([1., 1., 1.], dtype=float32)
    """
    with name_scope(name or "kaiser_window"):
        n, static, dtype = _check(window_length, dtype, "kaiser_window")
        if static == 1:
            return gen_ops.fill(convert_to_tensor([1], dtype=_dtypes.int32), _scalar(1.0, dtype))
        half = gen_ops.real_div(gen_ops.sub(gen_ops.cast(n, DstT=dtype), _scalar(1.0, dtype)), _scalar(2.0, dtype))
        ratio = gen_ops.real_div(gen_ops.sub(_arange(n, dtype), half), half)
        beta = gen_ops.cast(convert_to_tensor(beta), DstT=dtype) if isinstance(beta, _TENSORS) else _scalar(beta, dtype)
        arg = gen_ops.mul(beta, gen_ops.sqrt(gen_ops.relu(gen_ops.sub(_scalar(1.0, dtype), gen_ops.square(ratio)))))
        # I0(arg) / I0(beta) = exp(arg - beta) i0e(arg) / i0e(beta).
        return gen_ops.mul(gen_ops.exp(gen_ops.sub(arg, beta)),
                           gen_ops.real_div(gen_ops.bessel_i0e(arg), gen_ops.bessel_i0e(beta)))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=_dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window: sqrt of the cumulative Kaiser window of length N/2 + 1,
    normalized, mirrored (for MDCTs; window_length even).

    >>> tx.signal.kaiser_bessel_derived_window(4, beta=0.0).numpy()
    array([0.57735026, 0.8164966 , 0.8164966 , 0.57735026], dtype=float32)
    """
    with name_scope(name or "kaiser_bessel_derived_window"):
        n, _, dtype = _check(window_length, dtype, "kaiser_bessel_derived_window")
        half = gen_ops.floor_div(n, 2)
        kaiser = kaiser_window(gen_ops.add_v2(half, 1), beta, dtype=dtype)
        csum = gen_ops.cumsum(kaiser, 0)
        total = gen_ops.strided_slice(csum, [-1], [0], [1], end_mask=1, shrink_axis_mask=1)
        head = gen_ops.sqrt(gen_ops.real_div(gen_ops.strided_slice(csum, [0], [-1], [1]), total))
        return gen_ops.concat_v2([head, gen_ops.reverse_v2(head, [0])], 0)


def vorbis_window(window_length, dtype=_dtypes.float32, name=None):
    """The Vorbis power-complementary window sin(pi/2 sin^2(pi (k + 1/2) / N)), k < N = window_length.

    >>> tx.signal.vorbis_window(4).numpy()
    array([0.22801436, 0.9736578 , 0.9736578 , 0.22801416], dtype=float32)
    """
    with name_scope(name or "vorbis_window"):
        n, _, dtype = _check(window_length, dtype, "vorbis_window")
        arg = gen_ops.real_div(gen_ops.mul(_scalar(np.pi, dtype),
                                           gen_ops.add_v2(_arange(n, dtype), _scalar(0.5, dtype))),
                               gen_ops.cast(n, DstT=dtype))
        return gen_ops.sin(gen_ops.mul(_scalar(np.pi / 2, dtype), gen_ops.square(gen_ops.sin(arg))))
