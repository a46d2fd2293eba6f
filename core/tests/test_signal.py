"""tx.signal against NumPy/SciPy (always) and TensorFlow (when installed): FFTs on odd, prime and
power-of-two lengths with batches in float32 and float64, shifts, framing, windows, STFT, DCT,
MDCT and mel tools; gradients by finite differences; bad input."""

import numpy as np
import pytest
import scipy.fft
import scipy.signal

import tensorflux as tx

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(11)
LENGTHS = (1, 2, 7, 16, 97, 127, 360, 1024, 4099)  # 97 and 4099: Bluestein; 127: a generic prime pass


def rand(shape, dt=np.float64):
    return RNG.uniform(-1, 1, shape).astype(dt)


def crand(shape, dt=np.complex128):
    return (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)).astype(dt)


def tol(dt, n=1):
    single = np.dtype(dt) in (np.float32, np.complex64)
    return dict(rtol=1e-4, atol=3e-6 * max(n, 1)) if single else dict(rtol=1e-10, atol=1e-12 * max(n, 1))


# --- FFTs -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", (np.complex64, np.complex128))
@pytest.mark.parametrize("n", LENGTHS)
def test_fft_ifft_match_numpy(n, dt):
    x = crand((3, n), dt)
    got = tx.signal.fft(x).numpy()
    assert got.dtype == dt
    np.testing.assert_allclose(got, np.fft.fft(x), **tol(dt, n))
    np.testing.assert_allclose(tx.signal.ifft(x).numpy(), np.fft.ifft(x), **tol(dt, 1))


@pytest.mark.parametrize("dt", (np.float32, np.float64))
@pytest.mark.parametrize("n", LENGTHS)
def test_rfft_irfft_match_numpy(n, dt):
    x = rand((2, n), dt)
    spec = tx.signal.rfft(x)
    np.testing.assert_allclose(spec.numpy(), np.fft.rfft(x), **tol(dt, n))
    back = tx.signal.irfft(spec, [n]).numpy()
    assert back.dtype == dt
    np.testing.assert_allclose(back, x, **tol(dt, 4))
    for m in (max(1, n // 2), n + 3):  # crop and pad to fft_length
        np.testing.assert_allclose(tx.signal.rfft(x, [m]).numpy(), np.fft.rfft(x, m), **tol(dt, n))
        np.testing.assert_allclose(tx.signal.irfft(spec, [m]).numpy(), np.fft.irfft(spec.numpy(), m), **tol(dt, n))


@pytest.mark.parametrize("dt", (np.float32, np.float64))
def test_multidimensional_ffts_match_numpy(dt):
    cdt = np.complex64 if dt == np.float32 else np.complex128
    z = crand((2, 6, 9), cdt)
    np.testing.assert_allclose(tx.signal.fft2d(z).numpy(), np.fft.fft2(z), **tol(dt, 54))
    np.testing.assert_allclose(tx.signal.ifft2d(z).numpy(), np.fft.ifft2(z), **tol(dt))
    np.testing.assert_allclose(tx.signal.fft3d(z).numpy(), np.fft.fftn(z), **tol(dt, 108))
    np.testing.assert_allclose(tx.signal.ifft3d(z).numpy(), np.fft.ifftn(z), **tol(dt))
    x = rand((3, 10, 7), dt)
    np.testing.assert_allclose(tx.signal.rfft2d(x).numpy(), np.fft.rfft2(x), **tol(dt, 70))
    np.testing.assert_allclose(tx.signal.rfft2d(x, [5, 12]).numpy(), np.fft.rfft2(x, [5, 12]), **tol(dt, 70))
    np.testing.assert_allclose(tx.signal.irfft2d(tx.signal.rfft2d(x), [10, 7]).numpy(), x, **tol(dt, 4))
    np.testing.assert_allclose(tx.signal.rfft3d(x).numpy(), np.fft.rfftn(x), **tol(dt, 210))
    y = np.fft.rfftn(x).astype(cdt)
    np.testing.assert_allclose(tx.signal.irfft3d(y, [3, 10, 7]).numpy(), x, **tol(dt, 4))
    np.testing.assert_allclose(tx.signal.irfft3d(y).numpy(), np.fft.irfftn(y), **tol(dt, 4))


def test_nd_ffts_axes_lengths_and_norms():
    z = crand((4, 5, 6))
    x = rand((4, 5, 6))
    for axes, s in [([0, 2], [3, 8]), ([1], [5]), ([-1, 0], [6, 4]), (None, None)]:
        np.testing.assert_allclose(tx.signal.fftnd(z, s, axes).numpy(), np.fft.fftn(z, s, axes), **tol(np.float64, 200))
        np.testing.assert_allclose(tx.signal.ifftnd(z, s, axes).numpy(), np.fft.ifftn(z, s, axes), **tol(np.float64))
        np.testing.assert_allclose(tx.signal.rfftnd(x, s, axes).numpy(), np.fft.rfftn(x, s, axes),
                                   **tol(np.float64, 200))
        spec = np.fft.rfftn(x, s, axes)
        np.testing.assert_allclose(tx.signal.irfftnd(spec, s, axes).numpy(), np.fft.irfftn(spec, s, axes),
                                   **tol(np.float64, 10))
    for norm in ("backward", "forward", "ortho"):
        np.testing.assert_allclose(tx.signal.fftnd(z, norm=norm).numpy(), np.fft.fftn(z, norm=norm),
                                   **tol(np.float64, 200))
        np.testing.assert_allclose(tx.signal.ifftnd(z, norm=norm).numpy(), np.fft.ifftn(z, norm=norm),
                                   **tol(np.float64))
        np.testing.assert_allclose(tx.rfftnd(x, norm=norm).numpy(), np.fft.rfftn(x, norm=norm), **tol(np.float64, 200))
    with pytest.raises(ValueError, match="norm"):
        tx.signal.fftnd(z, norm="unitary")


def test_large_transforms_split_over_threads():
    x = rand((1 << 18,), np.float32)
    np.testing.assert_allclose(tx.signal.rfft(x).numpy(), np.fft.rfft(x.astype(np.float64)), rtol=1e-3, atol=2e-3)
    z = crand((1 << 16,))
    np.testing.assert_allclose(tx.signal.ifft(tx.signal.fft(z)).numpy(), z, atol=1e-12)


def test_fft_in_graph_mode_and_tx_function():
    g = tx.Graph()
    with g.as_default():
        p = tx.placeholder(tx.float32, [None, None])
        out = tx.signal.rfft(p)
        assert out.shape.as_list() == [None, None]
        with tx.Session() as s:
            x = rand((2, 9), np.float32)
            np.testing.assert_allclose(s.run(out, {p: x}), np.fft.rfft(x), rtol=1e-5, atol=1e-5)

    @tx.function
    def power(x):
        return tx.abs(tx.signal.rfft(x)) ** 2

    x = rand((5, 32), np.float32)
    np.testing.assert_allclose(power(tx.constant(x)).numpy(), np.abs(np.fft.rfft(x)) ** 2, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axes", (None, 0, [1], [-1, 0]))
def test_fftshift_ifftshift(axes):
    x = np.arange(35).reshape(5, 7)
    np.testing.assert_array_equal(tx.signal.fftshift(x, axes=axes).numpy(), np.fft.fftshift(x, axes=axes))
    np.testing.assert_array_equal(tx.signal.ifftshift(x, axes=axes).numpy(), np.fft.ifftshift(x, axes=axes))


# --- framing and windows ----------------------------------------------------------------------------


def _np_frame(x, length, step, pad_end=False, pad_value=0.0, axis=-1):
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    count = -(-n // step) if pad_end else max(0, 1 + (n - length) // step)
    if pad_end:
        need = max(0, (count - 1) * step + length - n)
        x = np.concatenate([x, np.full(x.shape[:-1] + (need,), pad_value, x.dtype)], -1)
    frames = np.stack([x[..., i * step:i * step + length] for i in range(count)], -2) if count else \
        np.zeros(x.shape[:-1] + (0, length), x.dtype)
    return np.moveaxis(frames, (-2, -1), (axis - 1 if axis < 0 else axis, axis if axis < 0 else axis + 1))


@pytest.mark.parametrize("length,step,pad_end", [(4, 2, False), (4, 2, True), (5, 3, True), (3, 5, False),
                                                 (10, 1, False)])
def test_frame_matches_numpy(length, step, pad_end):
    x = rand((2, 11))
    got = tx.signal.frame(x, length, step, pad_end=pad_end, pad_value=-1.0).numpy()
    np.testing.assert_array_equal(got, _np_frame(x, length, step, pad_end, -1.0))
    y = rand((11, 3))
    np.testing.assert_array_equal(tx.signal.frame(y, length, step, pad_end=pad_end, axis=0).numpy(),
                                  _np_frame(y, length, step, pad_end, axis=0))


@pytest.mark.parametrize("frames,length,step", [(4, 6, 2), (3, 4, 4), (5, 3, 1), (2, 2, 3), (1, 5, 2)])
def test_overlap_and_add_matches_a_loop(frames, length, step):
    x = rand((2, frames, length))
    want = np.zeros((2, (frames - 1) * step + length))
    for i in range(frames):
        want[:, i * step:i * step + length] += x[:, i]
    np.testing.assert_allclose(tx.signal.overlap_and_add(x, step).numpy(), want, atol=1e-15)


@pytest.mark.parametrize("n", (1, 2, 7, 8, 64))
def test_windows_match_scipy(n):
    for periodic in (True, False):
        # TensorFlow's periodic windows of odd length are the symmetric ones.
        sym = not periodic or n % 2 == 1
        np.testing.assert_allclose(tx.signal.hann_window(n, periodic, dtype=tx.float64).numpy(),
                                   scipy.signal.get_window("hann", n, fftbins=not sym), atol=1e-12)
        np.testing.assert_allclose(tx.signal.hamming_window(n, periodic, dtype=tx.float64).numpy(),
                                   scipy.signal.get_window("hamming", n, fftbins=not sym), atol=1e-12)
    for beta in (0.0, 4.0, 12.0, 50.0):
        np.testing.assert_allclose(tx.signal.kaiser_window(n, beta, dtype=tx.float64).numpy(), np.kaiser(n, beta),
                                   rtol=1e-10, atol=1e-14)
    if n % 2 == 0:
        np.testing.assert_allclose(tx.signal.kaiser_bessel_derived_window(n, 5.0, dtype=tx.float64).numpy(),
                                   scipy.signal.windows.kaiser_bessel_derived(n, np.pi * 5.0 / np.pi), rtol=1e-10)
    k = np.arange(n)
    np.testing.assert_allclose(tx.signal.vorbis_window(n, dtype=tx.float64).numpy(),
                               np.sin(np.pi / 2 * np.sin(np.pi * (k + 0.5) / n) ** 2), atol=1e-14)


def test_window_length_as_tensor_and_dtype_errors():
    np.testing.assert_allclose(tx.signal.hann_window(tx.constant(1)).numpy(), [1.0])
    np.testing.assert_allclose(tx.signal.hann_window(tx.constant(8)).numpy(), tx.signal.hann_window(8).numpy())
    with pytest.raises(ValueError, match="floating point"):
        tx.signal.hann_window(4, dtype=tx.int32)
    with pytest.raises(ValueError, match="scalar"):
        tx.signal.vorbis_window(tx.constant([4]))


# --- STFT, DCT, MDCT, mel --------------------------------------------------------------------------


def _np_stft(x, length, step, n_fft, window):
    frames = _np_frame(x, length, step)
    return np.fft.rfft(frames * window, n_fft)


@pytest.mark.parametrize("dt", (np.float32, np.float64))
def test_stft_and_inverse(dt):
    x = rand((2, 300), dt)
    s = tx.signal.stft(x, 64, 16)
    window = scipy.signal.get_window("hann", 64)
    np.testing.assert_allclose(s.numpy(), _np_stft(x, 64, 16, 64, window), **tol(dt, 64))
    s2 = tx.signal.stft(x, 50, 20, fft_length=None, pad_end=True)  # fft_length: the enclosing power of two
    assert s2.shape.as_list() == [2, 15, 33]
    inv = tx.signal.inverse_stft(s, 64, 16, window_fn=tx.signal.inverse_stft_window_fn(16))
    np.testing.assert_allclose(inv.numpy()[:, 64:-64], x[:, 64:256 - 64 + 64][:, :inv.shape[1] - 128], **tol(dt, 8))


@pytest.mark.parametrize("dt", (np.float32, np.float64))
@pytest.mark.parametrize("dct_type", (1, 2, 3, 4))
@pytest.mark.parametrize("n", (2, 7, 16, 97))
def test_dct_matches_scipy(n, dct_type, dt):
    x = rand((3, n), dt)
    for norm in (None, "ortho") if dct_type != 1 else (None,):
        np.testing.assert_allclose(tx.signal.dct(x, type=dct_type, norm=norm).numpy(),
                                   scipy.fft.dct(x, type=dct_type, norm=norm), **tol(dt, 2 * n))
        # TensorFlow's idct is the DCT of the inverse type.
        inverse = {1: 1, 2: 3, 3: 2, 4: 4}[dct_type]
        np.testing.assert_allclose(tx.signal.idct(x, type=dct_type, norm=norm).numpy(),
                                   scipy.fft.dct(x, type=inverse, norm=norm), **tol(dt, 2 * n))
    np.testing.assert_allclose(tx.signal.dct(x, type=dct_type, n=n + 3).numpy(),
                               scipy.fft.dct(x, type=dct_type, n=n + 3), **tol(dt, 2 * n))


def test_dct_bad_arguments():
    x = rand((4,))
    with pytest.raises(ValueError, match="types I, II, III and IV"):
        tx.signal.dct(x, type=5)
    with pytest.raises(ValueError, match="not supported for the type-I DCT"):
        tx.signal.dct(x, type=1, norm="ortho")
    with pytest.raises(ValueError, match="length greater than one"):
        tx.signal.dct(rand((1,)), type=1)
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        tx.signal.dct(x, axis=0)
    with pytest.raises(ValueError, match="float32 or float64"):
        tx.signal.dct(tx.constant([1, 2]))


def _np_mdct(x, length, window):
    n = length // 2
    frames = _np_frame(x, length, n) * window
    k, t = np.arange(n)[:, None], np.arange(length)[None, :]
    basis = np.cos(np.pi / n * (t + 0.5 + n / 2) * (k + 0.5))
    return frames @ basis.T


def test_mdct_matches_its_definition_and_inverts():
    x = rand((2, 64))
    window = tx.signal.vorbis_window(16, dtype=tx.float64).numpy()
    m = tx.signal.mdct(x, 16)
    # Unnormalized, TensorFlow's MDCT is twice the textbook sum (its type-IV DCT is 2 sum ...).
    np.testing.assert_allclose(m.numpy(), 2 * _np_mdct(x, 16, window), atol=1e-12)
    np.testing.assert_allclose(tx.signal.mdct(x, 16, norm="ortho").numpy(), _np_mdct(x, 16, window) * np.sqrt(2 / 8),
                               atol=1e-12)
    back = tx.signal.inverse_mdct(m).numpy()
    np.testing.assert_allclose(back[:, 8:-8], x[:, 8:56], atol=1e-12)
    kbd = tx.signal.kaiser_bessel_derived_window
    back = tx.signal.inverse_mdct(tx.signal.mdct(x, 16, window_fn=kbd, norm="ortho"), window_fn=kbd, norm="ortho")
    np.testing.assert_allclose(back.numpy()[:, 8:-8], x[:, 8:56], atol=1e-12)
    with pytest.raises(ValueError, match="multiple of 4"):
        tx.signal.mdct(x, 10)


def test_mel_matrix_and_mfccs():
    m = tx.signal.linear_to_mel_weight_matrix(20, 129, 8000, 125.0, 3800.0).numpy()
    assert m.shape == (129, 20) and np.all(m[0] == 0) and np.all(m >= 0) and np.all(m <= 1)
    mel = lambda f: 1127.0 * np.log1p(f / 700.0)  # noqa: E731
    # Each filter peaks at 1 near its centre and the rows sum to at most about 1.
    assert np.all(m.max(axis=0) > 0.5)
    centres = np.linspace(mel(125.0), mel(3800.0), 22)[1:-1]
    bins_mel = mel(np.linspace(0, 4000, 129))
    assert np.all(np.abs(bins_mel[np.argmax(m, axis=0)] - centres) < 40)
    logmel = rand((3, 20))
    np.testing.assert_allclose(tx.signal.mfccs_from_log_mel_spectrograms(logmel).numpy(),
                               scipy.fft.dct(logmel, type=2) / np.sqrt(2 * 20), atol=1e-12)
    with pytest.raises(ValueError, match="Nyquist"):
        tx.signal.linear_to_mel_weight_matrix(sample_rate=8000, upper_edge_hertz=5000.0)
    with pytest.raises(ValueError, match="num_mel_bins must be positive"):
        tx.signal.linear_to_mel_weight_matrix(num_mel_bins=0)


# --- gradients ---------------------------------------------------------------------------------------


def _check_grad(fn, x, eps=1e-6, rtol=1e-6, atol=1e-8):
    """The tape gradient of sum(w * fn(x)) (real or complex output, w fixed) against differences."""
    out = fn(tx.constant(x)).numpy()
    w = rand(out.shape) + (1j * rand(out.shape) if out.dtype.kind == "c" else 0)

    def loss(v):
        y = fn(v)
        if y.dtype.is_complex:
            return tx.math.real(tx.reduce_sum(tx.math.conj(tx.constant(w)) * y))
        return tx.reduce_sum(tx.constant(w) * y)

    v = tx.constant(x)
    with tx.GradientTape() as tape:
        tape.watch(v)
        loss_value = loss(v)
    got = tape.gradient(loss_value, v).numpy()
    numeric = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        for unit in ((1, 1j) if x.dtype.kind == "c" else (1,)):
            xp, xm = x.copy(), x.copy()
            xp[idx] += eps * unit
            xm[idx] -= eps * unit
            numeric[idx] += unit * (float(loss(tx.constant(xp))) - float(loss(tx.constant(xm)))) / (2 * eps)
    np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,fn,shape,cplx", [
    ("rfft", lambda x: tx.signal.rfft(x), (2, 9), False),
    ("rfft cropped", lambda x: tx.signal.rfft(x, [6]), (2, 9), False),
    ("rfft padded", lambda x: tx.signal.rfft(x, [12]), (2, 7), False),
    ("irfft", lambda x: tx.signal.irfft(x, [8]), (2, 5), True),
    ("irfft odd", lambda x: tx.signal.irfft(x, [9]), (2, 5), True),
    ("rfft2d", lambda x: tx.signal.rfft2d(x), (3, 6), False),
    ("irfft2d", lambda x: tx.signal.irfft2d(x, [4, 6]), (4, 4), True),
    ("rfft3d", lambda x: tx.signal.rfft3d(x), (2, 3, 4), False),
    ("irfft3d", lambda x: tx.signal.irfft3d(x, [2, 3, 4]), (2, 3, 3), True),
    ("fft2d", lambda x: tx.signal.fft2d(x), (3, 5), True),
    ("ifft", lambda x: tx.signal.ifft(x), (2, 7), True),
    ("fftnd", lambda x: tx.signal.fftnd(x, [4, 3], [0, 1]), (3, 5), True),
    ("rfftnd", lambda x: tx.signal.rfftnd(x, [4, 6], [1, 0]), (5, 3), False),
    ("irfftnd", lambda x: tx.signal.irfftnd(x, [4, 3], [1, 0]), (2, 4), True),
    ("stft", lambda x: tx.signal.stft(x, 8, 3), (30,), False),
    ("inverse_stft", lambda x: tx.signal.inverse_stft(x, 8, 4), (3, 5), True),
    ("dct2 ortho", lambda x: tx.signal.dct(x, norm="ortho"), (2, 7), False),
    ("dct1", lambda x: tx.signal.dct(x, type=1), (2, 6), False),
    ("dct3", lambda x: tx.signal.dct(x, type=3), (2, 6), False),
    ("dct4", lambda x: tx.signal.dct(x, type=4), (2, 6), False),
    ("mdct", lambda x: tx.signal.mdct(x, 8), (24,), False),
    ("frame", lambda x: tx.signal.frame(x, 4, 3, pad_end=True), (2, 10), False),
    ("overlap_and_add", lambda x: tx.signal.overlap_and_add(x, 2), (3, 5), False),
    ("mfccs", tx.signal.mfccs_from_log_mel_spectrograms, (2, 6), False),
])
def test_gradients_match_finite_differences(name, fn, shape, cplx):
    _check_grad(fn, crand(shape) if cplx else rand(shape))


# --- bad input ---------------------------------------------------------------------------------------


class _raises:
    """pytest.raises(error) whose message contains `text` and names the op `op`."""

    def __init__(self, error, op, text):
        self.ctx, self.op, self.text = pytest.raises(error), op, text

    def __enter__(self):
        self.info = self.ctx.__enter__()
        return self.info

    def __exit__(self, *exc):
        suppressed = self.ctx.__exit__(*exc)
        message = str(self.info.value)
        assert self.text in message, message
        assert f"[{self.op}]" in message or f"Op:{self.op}]" in message, message
        return suppressed


def test_bad_fft_input_errors_name_the_op():
    with _raises(tx.errors.InvalidArgumentError, "RFFT", "fft_length[0] must be >= 0, but got -2"):
        tx.signal.rfft(rand((4,), np.float32), [-2])
    with _raises(tx.errors.InvalidArgumentError, "RFFT2D", "fft_length must have shape [2]"):
        tx.signal.rfft2d(rand((4, 4), np.float32), [4])
    with pytest.raises(ValueError, match="rank at least 2"):
        tx.signal.fft2d(crand((4,), np.complex64))
    with _raises(tx.errors.InvalidArgumentError, "FFT3D", "rank of at least 3"):
        tx.raw_ops.FFT3D(input=tx.constant(crand((4, 4), np.complex64)))
    with pytest.raises(ValueError, match="RFFT requires float32 or float64"):
        tx.signal.rfft(crand((4,), np.complex64))
    with pytest.raises(ValueError, match="IRFFT requires complex64 or complex128"):
        tx.signal.irfft(rand((4,), np.float32))
    with _raises(tx.errors.InvalidArgumentError, "FFT", "'Tcomplex' of DT_FLOAT is not in the list of allowed"):
        tx.raw_ops.FFT(input=tx.constant([1.0, 2.0]))
    with _raises(tx.errors.InvalidArgumentError, "FFTND", "repeats axis 0"):
        tx.signal.fftnd(crand((3, 3), np.complex64), [3, 3], [0, -2])
    # Bad input fed at run time reaches the kernel: the same messages, and the session stays usable.
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32)
        n = tx.placeholder(tx.int32)
        y = tx.signal.rfft(x, n)
        with tx.Session() as s:
            with _raises(tx.errors.InvalidArgumentError, "RFFT", "fft_length must have shape [1]"):
                s.run(y, {x: np.ones(4, np.float32), n: [2, 2]})
            with _raises(tx.errors.InvalidArgumentError, "RFFT", "rank of at least 1"):
                s.run(y, {x: np.float32(1), n: [2]})
            np.testing.assert_allclose(s.run(y, {x: np.ones(4, np.float32), n: [4]}), [4, 0, 0])


@pytest.mark.parametrize("length", (0, 1))
def test_zero_and_one_lengths(length):
    x = np.ones((2, length), np.float32)
    assert tx.signal.rfft(x).shape.as_list() == [2, length // 2 + 1]
    np.testing.assert_array_equal(tx.signal.rfft(x, [0]).numpy(), np.zeros((2, 1)))
    assert tx.signal.irfft(tx.signal.rfft(x, [4]), [0]).shape.as_list() == [2, 0]
    assert tx.signal.fft(x.astype(np.complex64)).numpy().shape == (2, length)


# --- TensorFlow cross-checks -------------------------------------------------------------------------


def test_signal_functions_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = rand((2, 200), np.float32)
    for ours, theirs in [
        (tx.signal.stft(x, 48, 12), tf.signal.stft(x, 48, 12)),
        (tx.signal.stft(x, 50, 7, fft_length=80, pad_end=True), tf.signal.stft(x, 50, 7, fft_length=80, pad_end=True)),
        (tx.signal.frame(x, 30, 11, pad_end=True, pad_value=2.0),
         tf.signal.frame(x, 30, 11, pad_end=True, pad_value=2.0)),
        (tx.signal.overlap_and_add(x.reshape(2, 20, 10), 3), tf.signal.overlap_and_add(x.reshape(2, 20, 10), 3)),
        (tx.signal.mdct(x, 16), tf.signal.mdct(x, 16)),
        (tx.signal.mdct(x, 20, norm="ortho", pad_end=True), tf.signal.mdct(x, 20, norm="ortho", pad_end=True)),
        (tx.signal.linear_to_mel_weight_matrix(), tf.signal.linear_to_mel_weight_matrix()),
        (tx.signal.linear_to_mel_weight_matrix(40, 257, 16000, 20.0, 7600.0, tx.float64),
         tf.signal.linear_to_mel_weight_matrix(40, 257, 16000, 20.0, 7600.0, tf.float64)),
        (tx.signal.mfccs_from_log_mel_spectrograms(x[:, :40]), tf.signal.mfccs_from_log_mel_spectrograms(x[:, :40])),
        (tx.signal.fftshift(x, axes=1), tf.signal.fftshift(x, axes=1)),
        (tx.signal.ifftshift(x), tf.signal.ifftshift(x)),
    ]:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-4, atol=2e-4)
    s = tf.signal.stft(x, 64, 16)
    for fn in (None, tf.signal.inverse_stft_window_fn(16)):
        ours = tx.signal.inverse_stft(s.numpy(), 64, 16, window_fn=None if fn is None else
                                      tx.signal.inverse_stft_window_fn(16))
        np.testing.assert_allclose(ours.numpy(), tf.signal.inverse_stft(s, 64, 16, window_fn=fn).numpy(), rtol=1e-4,
                                   atol=1e-4)
    m = tf.signal.mdct(x, 16)
    np.testing.assert_allclose(tx.signal.inverse_mdct(m.numpy()).numpy(), tf.signal.inverse_mdct(m).numpy(), atol=1e-4)
    for n in (1, 4, 7, 16):
        for name in ("hann_window", "hamming_window"):
            for periodic in (True, False):
                np.testing.assert_allclose(getattr(tx.signal, name)(n, periodic).numpy(),
                                           getattr(tf.signal, name)(n, periodic).numpy(), atol=1e-6)
        np.testing.assert_allclose(tx.signal.kaiser_window(n, 8.0).numpy(), tf.signal.kaiser_window(n, 8.0).numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(tx.signal.vorbis_window(n).numpy(), tf.signal.vorbis_window(n).numpy(), atol=1e-6)
    np.testing.assert_allclose(tx.signal.kaiser_bessel_derived_window(16).numpy(),
                               tf.signal.kaiser_bessel_derived_window(16).numpy(), rtol=1e-5, atol=1e-6)
    for dct_type in (1, 2, 3, 4):
        for norm in (None, "ortho") if dct_type != 1 else (None,):
            y = rand((3, 12), np.float32)
            np.testing.assert_allclose(tx.signal.dct(y, dct_type, norm=norm).numpy(),
                                       tf.signal.dct(y, dct_type, norm=norm).numpy(), rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(tx.signal.idct(y, dct_type, n=10, norm=norm).numpy(),
                                       tf.signal.idct(y, dct_type, n=10, norm=norm).numpy(), rtol=1e-4, atol=1e-4)


def test_fft_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    cases = [("rfft", (2, 9), False, [9]), ("rfft2d", (4, 6), False, [4, 6]), ("irfft", (2, 5), True, [8]),
             ("irfft2d", (4, 4), True, [4, 6]), ("fft", (3, 7), True, None), ("ifft2d", (3, 5), True, None),
             ("fft3d", (2, 3, 4), True, None)]
    def gradient(m, name, x, args, w):
        """d/dx of sum Re(conj(w) y) for y = m.signal.<name>(x, *args), with m tensorflow or tensorflux."""
        v = m.constant(x)
        with m.GradientTape() as tape:
            tape.watch(v)
            y = m.cast(getattr(m.signal, name)(v, *args), m.complex128)
            loss = m.math.real(m.reduce_sum(m.math.conj(m.constant(w)) * y))
        return tape.gradient(loss, v).numpy()

    for name, shape, cplx, n in cases:
        x = crand(shape) if cplx else rand(shape)
        args = () if n is None else (n,)
        out = getattr(tf.signal, name)(x, *args)
        w = rand(out.shape) + (1j * rand(out.shape) if out.dtype.is_complex else 0j)
        np.testing.assert_allclose(gradient(tx, name, x, args, w), gradient(tf, name, x, args, w), rtol=1e-9,
                                   atol=1e-10, err_msg=name)
