"""Conformance entries: the FFT ops (FFT/IFFT 1-D to 3-D, RFFT/IRFFT 1-D to 3-D with fft_length,
and the N-D ops with axes) against numpy.fft, on power-of-two, odd, prime (Bluestein) and zero
lengths with batch dimensions, in both precisions; gradients on complex128/float64 samples."""

import numpy as np

import tensorflux as tx

from conformance.entries_complex import crand
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

_COMPLEX = {np.float32: tx.complex64, np.float64: tx.complex128}
_REAL = {np.complex64: tx.float32, np.complex128: tx.float64}


def _tol(dt, size):
    """(rtol, atol) for a transform over `size` points of values in [-3, 3)."""
    single = np.dtype(dt) in (np.float32, np.complex64)
    return (2e-4, 2e-5 * max(size, 1)) if single else (1e-10, 1e-12 * max(size, 1))


def _i32(v):
    return np.asarray(v, np.int32)


# Transform shapes per rank: powers of two, odd, prime (127 and 97 take Bluestein's path), 1 and 0.
SHAPES = {1: [(16,), (3, 15), (2, 127), (4, 97), (1,), (2, 0)],
          2: [(4, 8), (2, 6, 9), (5, 7), (1, 1), (0, 3)],
          3: [(2, 4, 4), (2, 3, 5, 6), (3, 1, 7)]}
NP_FFT = {r: (np.fft.fftn, np.fft.ifftn) for r in (1, 2, 3)}
NAMES = {1: "", 2: "2D", 3: "3D"}


def _complex_entry(rank, inverse):
    ref_fn = NP_FFT[rank][1 if inverse else 0]
    axes = tuple(range(-rank, 0))
    samples = []
    for dt in (np.complex64, np.complex128):
        for i, s in enumerate(SHAPES[rank]):
            rtol, atol = _tol(dt, int(np.prod(s[-rank:])))
            samples.append(Sample({"input": crand(s, dt, seed=i)}, rtol=rtol, atol=atol,
                                  note=f"{np.dtype(dt).name} {s}"))
    grad = [Sample({"input": crand(s, np.complex128, seed=3)}, note=f"grad {s}") for s in SHAPES[rank][:2]]
    op = ("IFFT" if inverse else "FFT") + NAMES[rank]
    low = crand((3,) * (rank - 1), np.complex64) if rank > 1 else np.complex64(1)
    errors = [ErrorSample({"input": low}, match=f"rank of at least {rank}", note="input rank below the op's")]
    errors.append(ErrorSample({"input": np.ones((2,) * rank, np.float32)}, match="'Tcomplex' of DT_FLOAT is not in "
                              "the list of allowed values", note="a real input"))
    def ref(input):
        if input.size == 0:  # NumPy rejects zero-length transforms; the transform of nothing is nothing
            return input.copy()
        return ref_fn(input, axes=axes)

    return OpEntry(op, samples, ref=ref, errors=errors, grad_samples=grad)


def _not_padded(shape, lengths):
    """Whether no transformed dim of `shape` is shorter than its length. TensorFlow's RFFT/IRFFT
    kernels reject shorter inputs although their documentation (and its Python wrappers, which pad
    first) say they are zero-padded; the engine pads, so those samples are checked against NumPy."""
    return all(d >= n for d, n in zip(shape[-len(lengths):], lengths))


def _real_entry(rank, inverse):
    axes = tuple(range(-rank, 0))
    op = ("IRFFT" if inverse else "RFFT") + NAMES[rank]
    samples = []
    cases = {1: [((16,), [16]), ((3, 15), [15]), ((2, 127), [127]), ((2, 10), [7]), ((2, 6), [9]), ((4, 97), [97]),
                 ((3,), [1])],
             2: [((4, 8), [4, 8]), ((2, 6, 9), [6, 9]), ((5, 7), [3, 10]), ((2, 3, 4), [5, 5])],
             3: [((2, 4, 4), [2, 4, 4]), ((2, 3, 5, 6), [3, 5, 6]), ((3, 2, 7), [2, 3, 5])]}[rank]
    for dt in (np.float32, np.float64):
        for i, (s, n) in enumerate(cases):
            rtol, atol = _tol(dt, int(np.prod(n)))
            if inverse:
                cdt = np.complex64 if dt == np.float32 else np.complex128
                half = list(s[:-1]) + [s[-1] // 2 + 1]
                x = crand(tuple(half), cdt, seed=i)
                need = list(n[:-1]) + [n[-1] // 2 + 1]
                samples.append(Sample({"input": x, "fft_length": _i32(n)}, {"Treal": _REAL[cdt]}, rtol=rtol, atol=atol,
                                      cross_check=_not_padded(x.shape, need),
                                      note=f"{np.dtype(cdt).name} {x.shape} n={n}"))
            else:
                samples.append(Sample({"input": rand(s, dt, seed=i), "fft_length": _i32(n)}, {"Tcomplex": _COMPLEX[dt]},
                                      rtol=rtol, atol=atol, cross_check=_not_padded(s, n),
                                      note=f"{np.dtype(dt).name} {s} n={n}"))
    # Zero lengths: TensorFlow aborts the process on fft_length 0 and returns uninitialized values
    # for an empty input, so these are checked against NumPy's meaning of an empty sum only.
    if rank == 1 and not inverse:
        samples.append(Sample({"input": rand((2, 5), np.float64), "fft_length": _i32([0])}, {"Tcomplex": tx.complex128},
                              cross_check=False, note="fft_length 0: one zero frequency"))
        samples.append(Sample({"input": np.zeros((2, 0), np.float32), "fft_length": _i32([4])}, cross_check=False,
                              note="empty input zero-padded"))
    if rank == 1 and inverse:
        samples.append(Sample({"input": crand((2, 3), np.complex128), "fft_length": _i32([0])},
                              {"Treal": tx.float64}, cross_check=False, note="fft_length 0: empty output"))
    if inverse:
        def ref(input, fft_length, Treal=None):
            n = [int(v) for v in fft_length]
            if n[-1] == 0:
                return np.zeros(input.shape[:-1] + (0,), np.float64)
            return np.fft.irfftn(input, s=n, axes=axes)
    else:
        def ref(input, fft_length, Tcomplex=None):
            n = [int(v) for v in fft_length]
            if n[-1] == 0:
                return np.zeros(input.shape[:-1] + (1,), np.complex128)
            return np.fft.rfftn(input, s=n, axes=axes)
    grad = [s for s in samples if s.inputs["input"].dtype in (np.float64, np.complex128) and s.inputs["input"].size
            and s.inputs["input"].size <= 120][:4]
    real_in = np.ones((2,) * rank, np.float32)
    cplx_in = np.ones((2,) * rank, np.complex64)
    good = _i32([2] * rank)
    errors = [
        ErrorSample({"input": cplx_in if inverse else real_in, "fft_length": _i32([-1] + [2] * (rank - 1))},
                    match=r"fft_length\[0\] must be >= 0", note="negative length"),
        ErrorSample({"input": cplx_in if inverse else real_in, "fft_length": _i32([2] * (rank + 1))},
                    match=f"fft_length must have shape \\[{rank}\\]", note="fft_length of another size"),
        ErrorSample({"input": (cplx_in if inverse else real_in).reshape(-1)[:1].reshape(()), "fft_length": good},
                    match=f"rank of at least {rank}|must have shape", note="input rank below the op's"),
        ErrorSample({"input": real_in if inverse else cplx_in, "fft_length": good},
                    match=("'Tcomplex' of DT_FLOAT" if inverse else "'Treal' of DT_COMPLEX64") + " is not in the list",
                    note="a real input to IRFFT" if inverse else "a complex input to RFFT"),
    ]
    if not inverse:
        errors.append(ErrorSample({"input": np.ones((2,) * rank, np.float64), "fft_length": good},
                                  {"Tcomplex": tx.complex64}, match="does not go with Tcomplex complex64",
                                  note="Treal double with Tcomplex complex64"))
    return OpEntry(op, samples, ref=ref, errors=errors, grad_samples=grad)


def _nd_entries():
    cases = [((2, 3, 4), [5, 3], [0, 2]), ((3, 8), [8], [-1]), ((2, 3, 5), [2, 3, 5], [0, 1, 2]),
             ((4, 6, 2), [6, 3], [1, 0]), ((2, 7, 3), [4], [1])]
    entries = []
    for kind in ("FFTND", "IFFTND", "RFFTND", "IRFFTND"):
        samples = []
        for dt in (np.float32, np.float64):
            cdt = np.complex64 if dt == np.float32 else np.complex128
            for i, (s, n, ax) in enumerate(cases):
                rtol, atol = _tol(dt, int(np.prod(n)))
                if kind == "RFFTND":
                    x, attrs = rand(s, dt, seed=i), {"Tcomplex": _COMPLEX[dt]}
                elif kind == "IRFFTND":
                    shape = list(s)
                    shape[ax[-1]] = shape[ax[-1]] // 2 + 1
                    x, attrs = crand(tuple(shape), cdt, seed=i), {"Treal": _REAL[cdt]}
                else:
                    x, attrs = crand(s, cdt, seed=i), {}
                samples.append(Sample({"input": x, "fft_length": _i32(n), "axes": _i32(ax)}, attrs,
                                      rtol=rtol, atol=atol, note=f"{x.dtype} {x.shape} n={n} axes={ax}"))
        if kind in ("FFTND", "IFFTND"):
            samples.append(Sample({"input": crand((2, 3), np.complex128), "fft_length": _i32([]), "axes": _i32([])},
                                  note="no axes: a copy"))
        fn = {"FFTND": np.fft.fftn, "IFFTND": np.fft.ifftn, "RFFTND": np.fft.rfftn, "IRFFTND": np.fft.irfftn}[kind]

        def ref(input, fft_length, axes, fn=fn, **_):
            if len(axes) == 0:
                return input.copy()
            return fn(input, s=[int(v) for v in fft_length], axes=[int(a) for a in axes])

        x_err = crand((2, 3), np.complex64) if kind != "RFFTND" else rand((2, 3), np.float32)
        errors = [
            ErrorSample({"input": x_err, "fft_length": _i32([4]), "axes": _i32([2])}, match="out of range",
                        note="axis out of range"),
            ErrorSample({"input": x_err, "fft_length": _i32([4, 4]), "axes": _i32([1, -1])}, match="repeats axis 1",
                        note="repeated axis"),
            ErrorSample({"input": x_err, "fft_length": _i32([4, 4]), "axes": _i32([1])}, match="same shape",
                        note="fft_length and axes of different sizes"),
            ErrorSample({"input": x_err, "fft_length": _i32([-2]), "axes": _i32([0])}, match="must be >= 0",
                        note="negative length"),
        ]
        grad = [s for s in samples if s.inputs["input"].dtype in (np.float64, np.complex128)
                and s.inputs["input"].size <= 120 and len(s.inputs["axes"])][:3]
        entries.append(OpEntry(kind, samples, ref=ref, errors=errors, grad_samples=grad, cross_check=False))
    return entries


ENTRIES = ([_complex_entry(r, inv) for r in (1, 2, 3) for inv in (False, True)]
           + [_real_entry(r, inv) for r in (1, 2, 3) for inv in (False, True)] + _nd_entries())
