"""FFT benchmarks (issue 15): rfft of 1M float32 points and a batched 2-D complex FFT, Tensorflux
next to TensorFlow, NumPy (pocketfft) and SciPy (pocketfft, workers=2) in one process run.

Tensorflux and TensorFlow run one Session.run of a graph with a fed input (2 intra-op threads
each); NumPy is single-threaded by design; SciPy gets workers=2 to match the thread budget.
"""

from __future__ import annotations

import numpy as np

from harness import median_seconds, report
from linalg_bench import cpu_model
from ops_bench import _run_tf, _run_tx

RNG = np.random.default_rng(0)


def _row(title, build, numpy_fn, scipy_fn, arrays, repeats):
    ours = _run_tx(build, arrays, repeats, 1)
    theirs = _run_tf(build, arrays, repeats, 1)
    np_t = median_seconds(lambda: numpy_fn(*arrays), repeats=repeats)
    sp_t = median_seconds(lambda: scipy_fn(*arrays), repeats=repeats)
    return report(title, "ms/run", 1e3, ours, {"tensorflow tf1 Session": theirs, "numpy": np_t,
                                               "scipy (workers=2)": sp_t})


def bench_fft():
    import scipy.fft

    print(f"fft benchmarks on {cpu_model()}", flush=True)
    rows = []
    x = RNG.uniform(-1, 1, 1 << 20).astype(np.float32)
    rows.append(_row("rfft 1M (2^20) float32", lambda m, v: m.signal.rfft(v), np.fft.rfft,
                     lambda v: scipy.fft.rfft(v, workers=2), [x], 20))
    y = RNG.uniform(-1, 1, 1000000).astype(np.float32)
    rows.append(_row("rfft 1,000,000 (2^6 5^6) float32", lambda m, v: m.signal.rfft(v), np.fft.rfft,
                     lambda v: scipy.fft.rfft(v, workers=2), [y], 20))
    z = (RNG.uniform(-1, 1, (32, 256, 256)) + 1j * RNG.uniform(-1, 1, (32, 256, 256))).astype(np.complex64)
    rows.append(_row("fft2d batch 32 x 256x256 complex64", lambda m, v: m.signal.fft2d(v), np.fft.fft2,
                     lambda v: scipy.fft.fft2(v, workers=2), [z], 10))
    w = RNG.uniform(-1, 1, (64, 4099)).astype(np.float64)
    rows.append(_row("rfft batch 64 x 4099 (prime) float64", lambda m, v: m.signal.rfft(v), np.fft.rfft,
                     lambda v: scipy.fft.rfft(v, workers=2), [w], 10))
    return rows


ALL = [bench_fft]


if __name__ == "__main__":
    bench_fft()
