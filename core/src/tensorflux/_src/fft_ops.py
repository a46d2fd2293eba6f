"""Fast Fourier transforms for ``tx.signal``: thin over the FFT ops (the engine's own mixed-radix
and Bluestein FFT), with TensorFlow's wrappers' defaults for ``fft_length``."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope

_COMPLEX_OF = {_dtypes.float32: _dtypes.complex64, _dtypes.float64: _dtypes.complex128}
_REAL_OF = {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}


def as_tensor(x, preferred, name="input_tensor"):
    """``x`` as a Tensor. NumPy arrays keep their dtype; other Python values take ``preferred``
    (float32 or complex64), as TensorFlow's preferred_dtype conversion does."""
    if isinstance(x, _TENSORS):
        return x
    if isinstance(x, np.ndarray):
        return convert_to_tensor(x, name=name)
    arr = np.asarray(x)
    if arr.dtype.kind == "c":
        arr = arr.astype(np.complex64)
    elif arr.dtype.kind in "biuf":
        arr = arr.astype(preferred.as_numpy_dtype)
    return convert_to_tensor(arr, name=name)


def _innermost(x, rank, fn):
    if x.shape.rank is not None and x.shape.rank < rank:
        raise ValueError("%s: input must have rank at least %d, got shape %s" % (fn, rank, x.shape))


def _dims_at(x, axes):
    """The dims of ``x`` at ``axes``: a list of ints when static, else an int32 Tensor."""
    axes = list(axes)
    shape = None
    rank = x.shape.rank
    if rank is not None:
        dims = [x.shape[a] for a in axes]
        if all(d is not None for d in dims):
            return [int(d) for d in dims]
        shape = gen_ops.shape(x, out_type=_dtypes.int32)
        return gen_ops.gather_v2(shape, convert_to_tensor([a % rank for a in axes], dtype=_dtypes.int32), 0)
    if axes != list(range(-len(axes), 0)):
        raise ValueError("the input's rank must be known to transform axes %s" % (axes,))
    shape = gen_ops.shape(x, out_type=_dtypes.int32)
    return gen_ops.strided_slice(shape, [-len(axes)], [0], [1], end_mask=1)


def _halved_to_full(dims):
    """fft_length that an IRFFT infers from its input's dims: the last becomes 2 (d - 1)."""
    if isinstance(dims, list):
        return dims[:-1] + [max(0, 2 * (dims[-1] - 1))]
    last = gen_ops.maximum(gen_ops.mul(gen_ops.sub(dims[-1:], 1), 2), 0)
    return gen_ops.concat_v2([dims[:-1], last], 0)


def _lengths(fft_length):
    return fft_length if isinstance(fft_length, _TENSORS) else convert_to_tensor(fft_length, dtype=_dtypes.int32)


def _complex_fft(py_name, rank, op_name, doc):
    def fn(input, name=None):  # noqa: A002 (TensorFlow's name)
        x = as_tensor(input, _dtypes.complex64, "input")
        _innermost(x, rank, py_name)
        return getattr(gen_ops, py_name)(x, name=name or op_name)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return fn


fft = _complex_fft("fft", 1, "FFT", """
    The discrete Fourier transform over the innermost dimension of a complex Tensor.

    >>> tx.signal.fft(tx.constant([1, 2, 3, 4], tx.complex64)).numpy()
    array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
    """)
ifft = _complex_fft("ifft", 1, "IFFT", """
    The inverse discrete Fourier transform (scaled by 1/n) over the innermost dimension.

    >>> tx.signal.ifft(tx.constant([10, -2 + 2j, -2, -2 - 2j], tx.complex64)).numpy()
    array([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j], dtype=complex64)
    """)
fft2d = _complex_fft("fft2d", 2, "FFT2D", """
    The 2-D discrete Fourier transform over the two innermost dimensions.

    >>> tx.signal.fft2d(tx.ones([2, 2], tx.complex64)).numpy()
    array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)
    """)
ifft2d = _complex_fft("ifft2d", 2, "IFFT2D", """
    The inverse 2-D discrete Fourier transform (scaled by 1/N) over the two innermost dimensions.

    >>> tx.signal.ifft2d(tx.constant([[4, 0], [0, 0]], tx.complex64)).numpy()
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex64)
    """)
fft3d = _complex_fft("fft3d", 3, "FFT3D", """
    The 3-D discrete Fourier transform over the three innermost dimensions.

    >>> complex(tx.signal.fft3d(tx.ones([2, 2, 2], tx.complex64)).numpy()[0, 0, 0])
    (8+0j)
    """)
ifft3d = _complex_fft("ifft3d", 3, "IFFT3D", """
    The inverse 3-D discrete Fourier transform (scaled by 1/N) over the three innermost dimensions.

    >>> complex(tx.signal.ifft3d(tx.ones([2, 2, 2], tx.complex64)).numpy()[0, 0, 0])
    (1+0j)
    """)


def _real_fft(py_name, rank, op_name, doc):
    def fn(input_tensor, fft_length=None, name=None):
        x = as_tensor(input_tensor, _dtypes.float32)
        if x.dtype not in _COMPLEX_OF:
            raise ValueError("%s requires float32 or float64 inputs, got %s" % (op_name, x.dtype.name))
        _innermost(x, rank, py_name)
        if fft_length is None:
            fft_length = _dims_at(x, range(-rank, 0))
        return getattr(gen_ops, py_name)(x, _lengths(fft_length), Tcomplex=_COMPLEX_OF[x.dtype], name=name or op_name)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return fn


def _inverse_real_fft(py_name, rank, op_name, doc):
    def fn(input_tensor, fft_length=None, name=None):
        x = as_tensor(input_tensor, _dtypes.complex64)
        if x.dtype not in _REAL_OF:
            raise ValueError("%s requires complex64 or complex128 inputs, got %s" % (op_name, x.dtype.name))
        _innermost(x, rank, py_name)
        if fft_length is None:
            fft_length = _halved_to_full(_dims_at(x, range(-rank, 0)))
        return getattr(gen_ops, py_name)(x, _lengths(fft_length), Treal=_REAL_OF[x.dtype], name=name or op_name)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return fn


rfft = _real_fft("rfft", 1, "RFFT", """
    The DFT of a real signal over its innermost dimension: its ``fft_length // 2 + 1`` non-negative
    frequencies (the signal cropped or zero-padded to ``fft_length``, default its length).

    >>> tx.signal.rfft(tx.constant([1.0, 2.0, 3.0, 4.0])).numpy()
    array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """)
irfft = _inverse_real_fft("irfft", 1, "IRFFT", """
    The real signal of length ``fft_length`` (default ``2 * (n - 1)``) whose RFFT is the input's
    innermost dimension (scaled by 1/fft_length; imaginary parts of frequency 0 and n/2 ignored).

    >>> tx.signal.irfft(tx.constant([10, -2 + 2j, -2], tx.complex64)).numpy()
    array([1., 2., 3., 4.], dtype=float32)
    """)
rfft2d = _real_fft("rfft2d", 2, "RFFT2D", """
    The 2-D DFT of a real signal over its two innermost dimensions (the last one halved, as rfft).

    >>> tx.abs(tx.signal.rfft2d(tx.ones([2, 4]))).numpy()
    array([[8., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """)
irfft2d = _inverse_real_fft("irfft2d", 2, "IRFFT2D", """
    The inverse of rfft2d: a real signal of shape ``fft_length`` over the two innermost dimensions.

    >>> tx.signal.irfft2d(tx.signal.rfft2d(tx.ones([2, 4]))).numpy()
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float32)
    """)
rfft3d = _real_fft("rfft3d", 3, "RFFT3D", """
    The 3-D DFT of a real signal over its three innermost dimensions (the last one halved).

    >>> tx.signal.rfft3d(tx.ones([2, 2, 2])).shape
    TensorShape([2, 2, 2])
    """)
irfft3d = _inverse_real_fft("irfft3d", 3, "IRFFT3D", """
    The inverse of rfft3d: a real signal of shape ``fft_length`` over the three innermost dimensions.

    >>> tx.signal.irfft3d(tx.signal.rfft3d(tx.ones([2, 2, 4]))).numpy()[1, 1]
    array([1., 1., 1., 1.], dtype=float32)
    """)


_NORMS = ("backward", "forward", "ortho")


def _nd_args(x, fft_length, axes, fn, inverse_real=False):
    """(fft_length, axes) for an ND transform, with NumPy's defaults: every axis, its own length."""
    if axes is None:
        if x.shape.rank is None:
            raise ValueError("%s: the input's rank must be known when axes is not given" % fn)
        axes = list(range(x.shape.rank))
    axes = [int(a) for a in axes] if not isinstance(axes, _TENSORS) else axes
    if fft_length is None:
        if isinstance(axes, _TENSORS):
            raise ValueError("%s: give fft_length when axes is a Tensor" % fn)
        dims = _dims_at(x, axes)
        fft_length = _halved_to_full(dims) if inverse_real else dims
    return _lengths(fft_length), axes if isinstance(axes, _TENSORS) else convert_to_tensor(axes, dtype=_dtypes.int32)


def _norm_scale(norm, lengths, dtype, forward, fn):
    """The factor applied to the input for ``norm`` (None for "backward", the ops' own scaling)."""
    norm = norm or "backward"
    if norm not in _NORMS:
        raise ValueError("%s: norm must be one of %s, got %r" % (fn, _NORMS, norm))
    if norm == "backward":
        return None
    n = gen_ops.cast(gen_ops.prod(lengths, 0), DstT=dtype)
    scale = gen_ops.sqrt(n) if norm == "ortho" else n
    return gen_ops.reciprocal(scale) if forward else scale


def _nd(py_name, op_name, kind, doc):
    forward = kind in ("fft", "rfft")

    def fn(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        with name_scope(name or op_name) as scope:
            x = as_tensor(input_tensor, _dtypes.float32 if kind == "rfft" else _dtypes.complex64)
            if kind == "rfft" and x.dtype not in _COMPLEX_OF:
                raise ValueError("%s requires float32 or float64 inputs, got %s" % (op_name, x.dtype.name))
            if kind != "rfft" and x.dtype not in _REAL_OF:
                raise ValueError("%s requires complex64 or complex128 inputs, got %s" % (op_name, x.dtype.name))
            lengths, axes_t = _nd_args(x, fft_length, axes, py_name, inverse_real=kind == "irfft")
            scale = _norm_scale(norm, lengths, x.dtype, forward, py_name)
            gen_fn = getattr(gen_ops, py_name)
            if scale is not None:
                x = gen_ops.mul(x, scale)
            if kind == "rfft":
                return gen_fn(x, lengths, axes_t, Tcomplex=_COMPLEX_OF[x.dtype], name=scope)
            if kind == "irfft":
                return gen_fn(x, lengths, axes_t, Treal=_REAL_OF[x.dtype], name=scope)
            return gen_fn(x, lengths, axes_t, name=scope)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return fn


fftnd = _nd("fftnd", "FFTND", "fft", """
    The N-D DFT over ``axes`` (default all), each cropped or zero-padded to ``fft_length``
    (default its size); ``norm`` "backward" (default), "forward" or "ortho" as in NumPy.

    >>> tx.signal.fftnd(tx.ones([2, 3], tx.complex64), axes=[1]).numpy()
    array([[3.+0.j, 0.+0.j, 0.+0.j],
           [3.+0.j, 0.+0.j, 0.+0.j]], dtype=complex64)
    """)
ifftnd = _nd("ifftnd", "IFFTND", "ifft", """
    The N-D inverse DFT over ``axes`` (default all), scaled by 1/N for the default ``norm``.

    >>> tx.signal.ifftnd(tx.constant([[4, 0], [0, 0]], tx.complex64)).numpy()
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex64)
    """)
rfftnd = _nd("rfftnd", "RFFTND", "rfft", """
    The N-D DFT of a real signal over ``axes`` (default all), the last of them halved (np.fft.rfftn).

    >>> tx.abs(tx.signal.rfftnd(tx.ones([2, 4]))).numpy()
    array([[8., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """)
irfftnd = _nd("irfftnd", "IRFFTND", "irfft", """
    The inverse of rfftnd: a real signal of shape ``fft_length`` over ``axes`` (np.fft.irfftn).

    >>> tx.signal.irfftnd(tx.signal.rfftnd(tx.ones([2, 4]))).numpy()
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float32)
    """)


def _shift(x, axes, sign, fn):
    x = x if isinstance(x, _TENSORS) else convert_to_tensor(x)
    if axes is None:
        if x.shape.rank is None:
            raise ValueError("%s: the input's rank must be known when axes is not given" % fn)
        axes = list(range(x.shape.rank))
    elif isinstance(axes, int):
        axes = [axes]
    dims = _dims_at(x, axes)
    if isinstance(dims, list):
        shift = [sign * (d // 2) for d in dims]
    else:
        shift = gen_ops.mul(gen_ops.floor_div(dims, 2), sign)
    return gen_ops.roll(x, shift, convert_to_tensor(list(axes), dtype=_dtypes.int32))


def fftshift(x, axes=None, name=None):
    """``x`` rolled by half its size along ``axes`` (default all), moving frequency 0 to the middle
    (np.fft.fftshift).

    >>> tx.signal.fftshift(tx.constant([0, 1, 2, 3, 4, -5, -4, -3, -2, -1])).numpy()
    array([-5, -4, -3, -2, -1,  0,  1,  2,  3,  4], dtype=int32)
    """
    with name_scope(name or "fftshift"):
        return _shift(x, axes, 1, "fftshift")


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift (they differ by one element along odd-sized axes; np.fft.ifftshift).

    >>> tx.signal.ifftshift(tx.constant([-2, -1, 0, 1, 2])).numpy()
    array([ 0,  1,  2, -2, -1], dtype=int32)
    """
    with name_scope(name or "ifftshift"):
        return _shift(x, axes, -1, "ifftshift")


__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d",
           "irfft3d", "fftnd", "ifftnd", "rfftnd", "irfftnd", "fftshift", "ifftshift"]
