"""Short-time transforms for ``tx.signal``: ``stft``/``inverse_stft`` (framed, windowed real FFTs
and their overlap-added inverse), ``inverse_stft_window_fn`` (the window that makes the pair an
identity), ``mdct``/``inverse_mdct`` (through the type-IV DCT); TensorFlow's arguments and values."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.fft_ops import as_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.signal_dct import dct
from tensorflux._src.signal_frames import frame, overlap_and_add
from tensorflux._src.signal_windows import hann_window, vorbis_window

_COMPLEX_OF = {_dtypes.float32: _dtypes.complex64, _dtypes.float64: _dtypes.complex128}


def _static_int(value, what, fn):
    """A Python int from an int or a constant-valued scalar; Tensors stay Tensors."""
    if isinstance(value, _TENSORS):
        if value.shape.rank not in (None, 0):
            raise ValueError("%s: %s must be a scalar, got shape %s" % (fn, what, value.shape))
        return value
    return int(value)


def _enclosing_power_of_two(n):
    """The smallest power of two >= n (Python int or int32 Tensor)."""
    if isinstance(n, int):
        return 1 << max(0, (n - 1).bit_length())
    as_float = gen_ops.cast(n, DstT=_dtypes.float32)
    exponent = gen_ops.ceil(gen_ops.real_div(gen_ops.log(as_float),
                                             convert_to_tensor(np.log(2.0), dtype=_dtypes.float32)))
    return gen_ops.cast(gen_ops.pow(convert_to_tensor(2.0), exponent), DstT=_dtypes.int32)


def _lengths(n):
    return convert_to_tensor([n], dtype=_dtypes.int32) if isinstance(n, int) else gen_ops.reshape(
        gen_ops.cast(n, DstT=_dtypes.int32), [1])


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform of real ``signals`` [..., samples]: frames of ``frame_length``
    every ``frame_step`` samples, multiplied by ``window_fn(frame_length)``, each given an rfft of
    ``fft_length`` (default the enclosing power of two): [..., frames, fft_length // 2 + 1].

    >>> tx.signal.stft(tx.ones([16]), frame_length=8, frame_step=4).shape
    TensorShape([3, 5])
    """
    with name_scope(name or "stft"):
        x = as_tensor(signals, _dtypes.float32, "signals")
        if x.dtype not in _COMPLEX_OF:
            raise ValueError("stft: signals must be float32 or float64, got %s" % x.dtype.name)
        frame_length = _static_int(frame_length, "frame_length", "stft")
        frame_step = _static_int(frame_step, "frame_step", "stft")
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        frames = frame(x, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            frames = gen_ops.mul(frames, window_fn(frame_length, dtype=x.dtype))
        return gen_ops.rfft(frames, _lengths(_static_int(fft_length, "fft_length", "stft")),
                            Tcomplex=_COMPLEX_OF[x.dtype])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window_fn for inverse_stft that undoes ``stft`` with ``forward_window_fn`` and ``frame_step``:
    the forward window divided by the overlap-added sum of its squares (Griffin and Lim, eq. 7).

    >>> fn = tx.signal.inverse_stft_window_fn(2)
    >>> fn(4, dtype=tx.float32).numpy()  # hann(4) = [0, 0.5, 1, 0.5] over its overlap-added squares
    array([0., 1., 1., 1.], dtype=float32)
    """

    def inverse_window(frame_length, dtype):
        with name_scope(name or "inverse_stft_window_fn"):
            window = forward_window_fn(frame_length, dtype=dtype)
            step = frame_step if isinstance(frame_step, _TENSORS) else convert_to_tensor(int(frame_step),
                                                                                         dtype=_dtypes.int32)
            length = gen_ops.size(window, out_type=_dtypes.int32)
            # sum_j window[t + j * step]^2 over the frames that overlap sample t.
            overlaps = gen_ops.neg(gen_ops.floor_div(gen_ops.neg(length), step))
            padded = gen_ops.pad(gen_ops.square(window),
                                 gen_ops.reshape(gen_ops.pack([convert_to_tensor(0),
                                                               gen_ops.sub(gen_ops.mul(overlaps, step), length)]),
                                                 [1, 2]))
            per_phase = gen_ops.sum(gen_ops.reshape(padded, gen_ops.pack([overlaps, step])), [0], keep_dims=True)
            denom = gen_ops.reshape(gen_ops.tile(per_phase, gen_ops.pack([overlaps, 1])), [-1])
            denom = gen_ops.strided_slice(denom, [0], gen_ops.reshape(length, [1]), [1])
            zero = gen_ops.equal(denom, convert_to_tensor(0.0, dtype=window.dtype))
            safe = gen_ops.select_v2(zero, gen_ops.ones_like(denom), denom)
            return gen_ops.select_v2(zero, gen_ops.zeros_like(window), gen_ops.real_div(window, safe))

    return inverse_window


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """Signals from their STFTs [..., frames, fft_length // 2 + 1]: each frame's irfft, cropped or
    padded to ``frame_length``, multiplied by ``window_fn(frame_length)`` and overlap-added every
    ``frame_step`` samples. With ``inverse_stft_window_fn(frame_step)`` as window_fn this inverts
    stft (away from the first and last frame_length - frame_step samples).

    >>> x = tx.random.normal([64], seed=1)
    >>> s = tx.signal.stft(x, 16, 4)
    >>> y = tx.signal.inverse_stft(s, 16, 4, window_fn=tx.signal.inverse_stft_window_fn(4))
    >>> bool(np.allclose(y.numpy()[12:-12], x.numpy()[12:-12], atol=1e-5))
    True
    """
    with name_scope(name or "inverse_stft"):
        z = as_tensor(stfts, _dtypes.complex64, "stfts")
        if z.dtype not in (_dtypes.complex64, _dtypes.complex128):
            raise ValueError("inverse_stft: stfts must be complex64 or complex128, got %s" % z.dtype.name)
        if z.shape.rank is not None and z.shape.rank < 2:
            raise ValueError("inverse_stft: stfts must have rank at least 2, got shape %s" % (z.shape,))
        frame_length = _static_int(frame_length, "frame_length", "inverse_stft")
        frame_step = _static_int(frame_step, "frame_step", "inverse_stft")
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        real = z.dtype.real_dtype
        frames = gen_ops.irfft(z, _lengths(_static_int(fft_length, "fft_length", "inverse_stft")), Treal=real)
        frames = _fit_last(frames, frame_length)
        if window_fn is not None:
            frames = gen_ops.mul(frames, window_fn(frame_length, dtype=real))
        return overlap_and_add(frames, frame_step)


def _fit_last(x, n):
    """x[..., :n], zero-padded at the end of the last axis when it is shorter."""
    length = gen_ops.strided_slice(gen_ops.shape(x, out_type=_dtypes.int32), [-1], [0], [1], end_mask=1,
                                   shrink_axis_mask=1)
    n_t = convert_to_tensor(n, dtype=_dtypes.int32) if isinstance(n, int) else gen_ops.cast(n, DstT=_dtypes.int32)
    if x.shape.rank is None:
        raise ValueError("inverse_stft: the rank of stfts must be known")
    rows = [convert_to_tensor([0, 0], dtype=_dtypes.int32)] * (x.shape.rank - 1)
    rows.append(gen_ops.pack([convert_to_tensor(0), gen_ops.maximum(gen_ops.sub(n_t, length), 0)]))
    padded = gen_ops.pad(x, gen_ops.pack(rows))
    return gen_ops.strided_slice(padded, [0, 0], gen_ops.pack([convert_to_tensor(0), n_t]), [1, 1], begin_mask=1,
                                 end_mask=1, ellipsis_mask=1)


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified discrete cosine transform of real ``signals``: frames of ``frame_length`` (a
    multiple of 4) every N = frame_length / 2 samples, windowed, each giving the N coefficients
    X_k = 2 sum_n x_n cos(pi / N (n + 1/2 + N/2) (k + 1/2)) (TensorFlow's scaling: its type-IV
    DCT's); ``norm="ortho"`` gives sqrt(2 / N) sum_n ... instead.

    >>> tx.signal.mdct(tx.ones([16]), 8).shape
    TensorShape([3, 4])
    """
    with name_scope(name or "mdct"):
        x = as_tensor(signals, _dtypes.float32, "signals")
        frame_length = _static_int(frame_length, "frame_length", "mdct")
        if isinstance(frame_length, int):
            if frame_length % 4 != 0:
                raise ValueError("mdct: frame_length must be a multiple of 4, got %d" % frame_length)
            step = frame_length // 2
        else:
            step = gen_ops.floor_div(frame_length, 2)
        frames = frame(x, frame_length, step, pad_end=pad_end)
        if window_fn is not None:
            frames = gen_ops.mul(frames, window_fn(frame_length, dtype=x.dtype))
        else:
            frames = gen_ops.mul(frames, convert_to_tensor(1 / np.sqrt(2), dtype=x.dtype))
        # Fold the frame [a, b, c, d] (quarters) into [-c_r - d, a - b_r] (r: reversed); its
        # type-IV DCT is the MDCT.
        a, b, c, d = gen_ops.split(-1, frames, num_split=4)
        folded = gen_ops.concat_v2([gen_ops.sub(gen_ops.neg(gen_ops.reverse_v2(c, [-1])), d),
                                    gen_ops.sub(a, gen_ops.reverse_v2(b, [-1]))], -1)
        return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """Signals from their MDCTs [..., frames, N]: each frame's type-IV DCT unfolded to 2N samples,
    windowed and overlap-added every N samples; with a Princen-Bradley window (vorbis, KBD) this
    inverts mdct away from the first and last N samples.

    >>> x = tx.random.normal([32], seed=2)
    >>> y = tx.signal.inverse_mdct(tx.signal.mdct(x, 8))
    >>> bool(np.allclose(y.numpy()[4:-4], x.numpy()[4:-4], atol=1e-5))
    True
    """
    with name_scope(name or "inverse_mdct"):
        z = as_tensor(mdcts, _dtypes.float32, "mdcts")
        if z.shape.rank is not None and z.shape.rank < 2:
            raise ValueError("inverse_mdct: mdcts must have rank at least 2, got shape %s" % (z.shape,))
        if z.shape.rank is None or z.shape[-1] is None:
            raise ValueError("inverse_mdct: the last dimension of mdcts must be known")
        half = int(z.shape[-1])
        if norm is None:
            y = gen_ops.mul(dct(z, type=4), convert_to_tensor(0.5 / half, dtype=z.dtype))
        elif norm == "ortho":
            y = dct(z, type=4, norm="ortho")
        else:
            raise ValueError("inverse_mdct: norm must be None or 'ortho', got %r" % (norm,))
        p, q = gen_ops.split(-1, y, num_split=2)
        frames = gen_ops.concat_v2([q, gen_ops.neg(gen_ops.reverse_v2(q, [-1])),
                                    gen_ops.neg(gen_ops.reverse_v2(p, [-1])), gen_ops.neg(p)], -1)
        if window_fn is not None:
            frames = gen_ops.mul(frames, window_fn(2 * half, dtype=z.dtype))
        else:
            frames = gen_ops.mul(frames, convert_to_tensor(1 / np.sqrt(2), dtype=z.dtype))
        return overlap_and_add(frames, half)
