"""Signal processing (``tx.signal.*``, like ``tf.signal``): FFTs in 1-D, 2-D, 3-D and N-D (the
engine's FFT), spectral shifts, framing, STFT and MDCT, window functions, DCTs and mel-scale tools.

All 34 of TensorFlow's ``tf.signal`` names are here; ``fftnd``/``ifftnd``/``rfftnd``/``irfftnd``
also run on CPU (TensorFlow registers them for GPUs only)."""

from tensorflux._src.fft_ops import (fft, fft2d, fft3d, fftnd, fftshift, ifft, ifft2d, ifft3d, ifftnd, ifftshift,
                                     irfft, irfft2d, irfft3d, irfftnd, rfft, rfft2d, rfft3d, rfftnd)
from tensorflux._src.signal_dct import dct, idct
from tensorflux._src.signal_frames import frame, overlap_and_add
from tensorflux._src.signal_mel import linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms
from tensorflux._src.signal_spectral import inverse_mdct, inverse_stft, inverse_stft_window_fn, mdct, stft
from tensorflux._src.signal_windows import (hamming_window, hann_window, kaiser_bessel_derived_window, kaiser_window,
                                            vorbis_window)

__all__ = [
    "dct", "fft", "fft2d", "fft3d", "fftnd", "fftshift", "frame", "hamming_window", "hann_window", "idct", "ifft",
    "ifft2d", "ifft3d", "ifftnd", "ifftshift", "inverse_mdct", "inverse_stft", "inverse_stft_window_fn", "irfft",
    "irfft2d", "irfft3d", "irfftnd", "kaiser_bessel_derived_window", "kaiser_window", "linear_to_mel_weight_matrix",
    "mdct", "mfccs_from_log_mel_spectrograms", "overlap_and_add", "rfft", "rfft2d", "rfft3d", "rfftnd", "stft",
    "vorbis_window",
]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
