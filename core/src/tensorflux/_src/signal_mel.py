"""Mel-scale tools for ``tx.signal``: ``linear_to_mel_weight_matrix`` (HTK's triangular filters,
TensorFlow's definition) and ``mfccs_from_log_mel_spectrograms`` (HTK-scaled DCT-II)."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.fft_ops import as_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.signal_dct import dct

# HTK's mel scale: mel = 1127 ln(1 + f / 700).
_MEL_BREAK_HERTZ = 700.0
_MEL_HIGH_Q = 1127.0


def _hertz_to_mel(f):
    return _MEL_HIGH_Q * np.log1p(np.asarray(f, np.float64) / _MEL_BREAK_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=_dtypes.float32, name=None):
    """A [num_spectrogram_bins, num_mel_bins] matrix mapping a linear spectrogram (bins evenly spaced
    from 0 Hz to sample_rate / 2) to mel bands: triangular filters whose edges and centres are evenly
    spaced on the mel scale between the edge frequencies (the DC bin gets no weight, as in HTK).

    >>> m = tx.signal.linear_to_mel_weight_matrix(num_mel_bins=4, num_spectrogram_bins=9, sample_rate=16000,
    ...                                            lower_edge_hertz=0.0, upper_edge_hertz=8000.0)
    >>> m.shape
    TensorShape([9, 4])
    """
    with name_scope(name or "linear_to_mel_weight_matrix"):
        dtype = _dtypes.as_dtype(dtype)
        if isinstance(sample_rate, _TENSORS):
            raise ValueError("linear_to_mel_weight_matrix: sample_rate must be a Python number here")
        if int(num_mel_bins) <= 0:
            raise ValueError("linear_to_mel_weight_matrix: num_mel_bins must be positive, got %s" % num_mel_bins)
        if lower_edge_hertz < 0.0:
            raise ValueError("linear_to_mel_weight_matrix: lower_edge_hertz must be non-negative, got %s"
                             % lower_edge_hertz)
        if lower_edge_hertz >= upper_edge_hertz:
            raise ValueError("linear_to_mel_weight_matrix: lower_edge_hertz %.1f >= upper_edge_hertz %.1f"
                             % (lower_edge_hertz, upper_edge_hertz))
        if sample_rate <= 0.0:
            raise ValueError("linear_to_mel_weight_matrix: sample_rate must be positive, got %s" % sample_rate)
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError("linear_to_mel_weight_matrix: upper_edge_hertz must not exceed the Nyquist frequency "
                             "(sample_rate / 2), got %s for sample_rate %s" % (upper_edge_hertz, sample_rate))
        if not dtype.is_floating:
            raise ValueError("linear_to_mel_weight_matrix: dtype must be a floating point type, got %s" % dtype.name)
        if int(num_spectrogram_bins) < 1:
            raise ValueError("linear_to_mel_weight_matrix: num_spectrogram_bins must be positive, got %s"
                             % num_spectrogram_bins)
        # The matrix depends on Python numbers only, so it is computed here (in float64) and becomes
        # a constant; the arithmetic is TensorFlow's, in the target precision at the end.
        bins = np.linspace(0.0, sample_rate / 2.0, int(num_spectrogram_bins))[1:]
        bins_mel = _hertz_to_mel(bins)[:, None]
        edges = np.linspace(_hertz_to_mel(lower_edge_hertz), _hertz_to_mel(upper_edge_hertz), int(num_mel_bins) + 2)
        lower, center, upper = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
        rising = (bins_mel - lower) / (center - lower)
        falling = (upper - bins_mel) / (upper - center)
        weights = np.maximum(0.0, np.minimum(rising, falling))
        weights = np.concatenate([np.zeros((1, int(num_mel_bins))), weights], axis=0)
        return convert_to_tensor(weights.astype(dtype.as_numpy_dtype))


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients: the DCT-II of log-mel spectrograms [..., num_mel_bins]
    scaled by sqrt(1 / (2 num_mel_bins)) (HTK's scaling; keep the first few coefficients).

    >>> round(float(tx.signal.mfccs_from_log_mel_spectrograms(tx.ones([1, 4]))[0, 0]), 4)
    2.8284
    """
    with name_scope(name or "mfccs_from_log_mel_spectrograms"):
        x = log_mel_spectrograms
        x = as_tensor(x, _dtypes.float32, "log_mel_spectrograms")
        if x.shape.rank is not None and x.shape.rank >= 1 and x.shape[-1] == 0:
            raise ValueError("mfccs_from_log_mel_spectrograms: num_mel_bins must be positive, got shape %s"
                             % (x.shape,))
        bins = gen_ops.strided_slice(gen_ops.shape(x, out_type=_dtypes.int32), [-1], [0], [1], end_mask=1,
                                     shrink_axis_mask=1)
        scale = gen_ops.rsqrt(gen_ops.mul(gen_ops.cast(bins, DstT=x.dtype), convert_to_tensor(2.0, dtype=x.dtype)))
        return gen_ops.mul(dct(x, type=2), scale)
