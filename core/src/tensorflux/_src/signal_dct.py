"""Discrete cosine transforms for ``tx.signal`` (types I-IV, unnormalized or orthonormal, along the
last axis), each computed with one real or complex FFT (Note [DCT through the FFT]). Values equal
``scipy.fft.dct``; ``idct`` is TensorFlow's: the DCT of the inverse type."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.fft_ops import as_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope

# Note [DCT through the FFT]
# With N the length and x zero-padded to 2N where needed:
#   I:   the symmetric extension [x, x[N-2:0:-1]] (length 2N - 2) has a real DFT whose first N values
#        are the DCT-I.
#   II:  y_k = 2 Re(exp(-i pi k / 2N) rfft(x, 2N)_k), k < N.
#   III: y = 2N irfft(x_k exp(i pi k / 2N), 2N)[:N] (x_0 counted once: irfft's Hermitian rule).
#   IV:  y_k = 2 Re(exp(-i pi (2k + 1) / 4N) fft(x_n exp(-i pi n / 2N), 2N)_k), k < N.
# "ortho" scales II by sqrt(1/4N) at k = 0 and sqrt(1/2N) elsewhere, III's input by sqrt(1/N) at
# k = 0 and sqrt(1/2N) elsewhere (its transpose), and IV by sqrt(1/2N), making each orthonormal
# (type I has no orthonormal form here, as in TensorFlow).

_COMPLEX_OF = {_dtypes.float32: _dtypes.complex64, _dtypes.float64: _dtypes.complex128}


def _validate(x, dct_type, n, axis, norm, fn):
    if axis != -1:
        raise NotImplementedError("%s: axis must be -1, got %s" % (fn, axis))
    if n is not None and n < 1:
        raise ValueError("%s: n must be a positive integer or None, got %s" % (fn, n))
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("%s: types I, II, III and IV are supported, got %r" % (fn, dct_type))
    if norm not in (None, "ortho"):
        raise ValueError("%s: norm must be None or 'ortho', got %r" % (fn, norm))
    if x.dtype not in _COMPLEX_OF:
        raise ValueError("%s: input must be float32 or float64, got %s" % (fn, x.dtype.name))
    if x.shape.rank == 0:
        raise ValueError("%s: input must have rank at least 1" % fn)
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("%s: normalization is not supported for the type-I DCT" % fn)
        length = n if n is not None else (x.shape[-1] if x.shape.rank is not None else None)
        if length is not None and length < 2:
            raise ValueError("%s: the type-I DCT needs a length greater than one, got %d" % (fn, length))


def _fit(x, n):
    """``x``'s last axis cropped or zero-padded to ``n``."""
    if n is None:
        return x
    if x.shape.rank is None:
        raise ValueError("dct: the input's rank must be known when n is given")
    last = x.shape[-1]
    if last is not None and last == n:
        return x
    rank = x.shape.rank
    begin = [0] * rank
    size = [-1] * (rank - 1) + [n]
    if last is not None and last > n:
        return gen_ops.slice(x, begin, size)
    length = gen_ops.strided_slice(gen_ops.shape(x, out_type=_dtypes.int32), [-1], [0], [1], end_mask=1,
                                   shrink_axis_mask=1)
    pad = gen_ops.maximum(gen_ops.sub(n, length), 0)
    rows = [convert_to_tensor([0, 0], dtype=_dtypes.int32)] * (rank - 1) + [gen_ops.pack([convert_to_tensor(0), pad])]
    return gen_ops.slice(gen_ops.pad(x, gen_ops.pack(rows)), begin, size)


def _length(x):
    """The last dim as a Python int when static, else an int32 scalar Tensor."""
    if x.shape.rank is not None and x.shape[-1] is not None:
        return int(x.shape[-1])
    return gen_ops.strided_slice(gen_ops.shape(x, out_type=_dtypes.int32), [-1], [0], [1], end_mask=1,
                                 shrink_axis_mask=1)


def _phase(k, scale, n, dtype):
    """exp(i * scale * pi * k / n) for the real Tensor k, as the complex dtype of ``dtype``."""
    angle = gen_ops.real_div(gen_ops.mul(k, convert_to_tensor(scale * np.pi, dtype=dtype)),
                             gen_ops.cast(convert_to_tensor(n), DstT=dtype))
    return gen_ops.complex(gen_ops.cos(angle), gen_ops.sin(angle), Tout=_COMPLEX_OF[dtype])


def _real(z, dtype):
    return gen_ops.real(z, Tout=dtype)


def _first(x, n):
    """x[..., :n]."""
    return gen_ops.strided_slice(x, [0, 0], [0, n], [1, 1], begin_mask=1, end_mask=1, ellipsis_mask=1)


def _dct(x, dct_type, norm):
    dtype = x.dtype
    n = _length(x)
    two_n = gen_ops.mul(n, 2) if isinstance(n, _TENSORS) else 2 * n
    k = gen_ops.cast(gen_ops.range(0, n, 1), DstT=dtype)
    ctype = _COMPLEX_OF[dtype]
    if dct_type == 1:
        inner = gen_ops.strided_slice(x, [0, -2], [0, 0], [1, -1], begin_mask=1, end_mask=1, ellipsis_mask=1)
        ext = gen_ops.concat_v2([x, inner], -1)
        return _real(gen_ops.rfft(ext, gen_ops.reshape(gen_ops.sub(two_n, 2), [1]), Tcomplex=ctype), dtype)
    if dct_type == 2:
        spec = _first(gen_ops.rfft(x, gen_ops.reshape(two_n, [1]), Tcomplex=ctype), n)
        y = gen_ops.mul(_real(gen_ops.mul(spec, _phase(k, -0.5, n, dtype)), dtype), convert_to_tensor(2.0, dtype=dtype))
        if norm == "ortho":
            y = gen_ops.mul(y, _ortho_weights(n, k, dtype, np.sqrt(0.5)))
        return y
    if dct_type == 3:
        if norm == "ortho":
            x = gen_ops.mul(x, _ortho_weights(n, k, dtype, np.sqrt(2.0)))
        z = gen_ops.mul(gen_ops.complex(x, gen_ops.zeros_like(x), Tout=ctype), _phase(k, 0.5, n, dtype))
        y = _first(gen_ops.irfft(z, gen_ops.reshape(two_n, [1]), Treal=dtype), n)
        return gen_ops.mul(y, gen_ops.cast(convert_to_tensor(two_n), DstT=dtype))
    # Type IV.
    a = gen_ops.mul(gen_ops.complex(x, gen_ops.zeros_like(x), Tout=ctype), _phase(k, -0.5, n, dtype))
    axes = convert_to_tensor([-1], dtype=_dtypes.int32)
    spec = _first(gen_ops.fftnd(a, gen_ops.reshape(two_n, [1]), axes), n)
    k2 = gen_ops.add_v2(gen_ops.mul(k, convert_to_tensor(2.0, dtype=dtype)), convert_to_tensor(1.0, dtype=dtype))
    y = gen_ops.mul(_real(gen_ops.mul(spec, _phase(k2, -0.25, n, dtype)), dtype), convert_to_tensor(2.0, dtype=dtype))
    if norm == "ortho":
        y = gen_ops.mul(y, gen_ops.rsqrt(gen_ops.cast(convert_to_tensor(two_n), DstT=dtype)))
    return y


def _ortho_weights(n, k, dtype, first):
    """sqrt(1 / 2N) at every k > 0, ``first`` times that at k == 0."""
    base = gen_ops.rsqrt(gen_ops.cast(gen_ops.mul(convert_to_tensor(n), 2), DstT=dtype))
    at_zero = gen_ops.cast(gen_ops.equal(k, convert_to_tensor(0.0, dtype=dtype)), DstT=dtype)
    factor = gen_ops.add_v2(convert_to_tensor(1.0, dtype=dtype), gen_ops.mul(at_zero, convert_to_tensor(first - 1.0,
                                                                                                      dtype=dtype)))
    return gen_ops.mul(base, factor)


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 (TensorFlow's names)
    """The type I, II, III or IV discrete cosine transform of the last axis (cropped or zero-padded to
    ``n``), unnormalized or with ``norm="ortho"`` orthonormal; equal to ``scipy.fft.dct``.

    >>> np.round(tx.signal.dct(tx.constant([1.0, 2.0, 3.0, 4.0])).numpy(), 4)
    array([20.    , -6.3086,  0.    , -0.4483], dtype=float32)
    """
    with name_scope(name or "dct"):
        x = as_tensor(input, _dtypes.float32, "input")
        _validate(x, type, n, axis, norm, "dct")
        return _dct(_fit(x, n), type, norm)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 (TensorFlow's names)
    """TensorFlow's inverse DCT: the DCT of the inverse type (III for II, II for III, I and IV their
    own), so ``idct(dct(x, norm="ortho"), norm="ortho") == x`` and, unnormalized, ``2N x``.

    >>> x = tx.constant([1.0, 2.0, 3.0, 4.0])
    >>> np.round(tx.signal.idct(tx.signal.dct(x, norm="ortho"), norm="ortho").numpy(), 4)
    array([1., 2., 3., 4.], dtype=float32)
    """
    with name_scope(name or "idct"):
        x = as_tensor(input, _dtypes.float32, "input")
        _validate(x, type, n, axis, norm, "idct")
        return _dct(_fit(x, n), {1: 1, 2: 3, 3: 2, 4: 4}[type], norm)
