"""Conformance entries: the complex-number ops Complex, Real, Imag, Conj, Angle and ComplexAbs
(complex64 and complex128, with their gradients checked on complex128/float64 samples)."""

import numpy as np

import tensorflux as tx

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

_REAL = {np.complex64: tx.float32, np.complex128: tx.float64}
_COMPLEX = {np.float32: tx.complex64, np.float64: tx.complex128}
SHAPES = [(), (5,), (2, 3), (0, 4)]


def crand(shape, dt=np.complex128, seed=0):
    """Complex values with real and imaginary parts uniform in [-3, 3)."""
    real = np.float64 if dt == np.complex128 else np.float32
    return (rand(shape, real, seed=seed) + 1j * rand(shape, real, seed=seed + 50)).astype(dt)


def _to_real(op, ref, arg="input"):
    samples = [Sample({arg: crand(s, dt, seed=i)}, {"Tout": _REAL[dt]}, rtol=1e-5 if dt == np.complex64 else 1e-12,
                      atol=1e-6 if dt == np.complex64 else 1e-12, note=f"{np.dtype(dt).name} {s}")
               for dt in (np.complex64, np.complex128) for i, s in enumerate(SHAPES)]
    samples.append(Sample({arg: np.array([0j, -2 + 0j, 3j, -1e-30 - 1e-30j], np.complex128)}, {"Tout": tx.float64},
                          note="zero, negative real, imaginary axis, tiny"))
    errors = [ErrorSample({arg: np.ones(3, np.complex64)}, {"Tout": tx.float64}, match="does not go with Tout double",
                          note="Tout does not match T"),
              ErrorSample({arg: np.ones(3, np.float32)}, {"Tout": tx.float32},
                          match="'T' of DT_FLOAT is not in the list of allowed values", note="a real input")]
    grad = [s for s in samples if s.inputs[arg].dtype == np.complex128 and s.inputs[arg].size
            and np.all(np.abs(s.inputs[arg]) > 1e-3)]
    return OpEntry(op, samples, ref=ref, errors=errors, grad_samples=grad, rtol=1e-6, atol=1e-6)


def _complex_samples():
    out = []
    for dt in (np.float32, np.float64):
        for i, (sx, sy) in enumerate([((), ()), ((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 5)), ((0, 2), (2,))]):
            out.append(Sample({"real": rand(sx, dt, seed=i), "imag": rand(sy, dt, seed=i + 9)}, {"Tout": _COMPLEX[dt]},
                              note=f"{np.dtype(dt).name} {sx} {sy}"))
    return out


ENTRIES = [
    OpEntry("Complex", _complex_samples(), ref=lambda real, imag, Tout: (real + 1j * imag).astype(Tout.as_numpy_dtype),
            errors=[ErrorSample({"real": np.ones(3, np.float32), "imag": np.ones(2, np.float32)},
                                {"Tout": tx.complex64}, match="Incompatible shapes|broadcast", note="shapes"),
                    ErrorSample({"real": np.ones(3, np.float32), "imag": np.ones(3, np.float32)},
                                {"Tout": tx.complex128}, match="Tout complex128 does not go with T float",
                                note="Tout does not match T")]),
    _to_real("Real", lambda input, Tout: np.real(input)),
    _to_real("Imag", lambda input, Tout: np.imag(input)),
    _to_real("Angle", lambda input, Tout: np.angle(input)),
    _to_real("ComplexAbs", lambda x, Tout: np.abs(x), arg="x"),
    OpEntry("Conj", [Sample({"input": crand(s, dt, seed=i)}, note=f"{np.dtype(dt).name} {s}")
                     for dt in (np.complex64, np.complex128) for i, s in enumerate(SHAPES)],
            ref=lambda input: np.conj(input),
            errors=[ErrorSample({"input": np.ones(3, np.float32)}, match="'T' of DT_FLOAT is not in the list",
                                note="a real input")]),
]
