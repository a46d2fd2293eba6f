"""Linear-algebra benchmarks (issue 15): solve, Cholesky and SVD of 512x512 matrices in float32 and
float64, Tensorflux next to TensorFlow and NumPy/SciPy in one process run.

Each Tensorflux and TensorFlow workload is one Session.run of a graph whose input is fed (both with
2 intra-op threads; a single matrix is factored on one thread by both). NumPy and SciPy call LAPACK
directly with their OpenBLAS limited to one thread (threadpoolctl, when installed): with two, its
spinning workers collapsed on this shared machine (SVD 512 f64: 1.2 s on 2 threads, 0.26 s on 1).
"""

from __future__ import annotations

import platform

import numpy as np

from harness import median_seconds, report
from ops_bench import _run_tf, _run_tx

N = 512
RNG = np.random.default_rng(0)


# The vector extensions the kernels choose between at run time, in the order they are reported.
ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "amx_tile")


def cpuinfo() -> dict:
    """The first processor's /proc/cpuinfo fields (name -> text) plus "cpu MHz" of every processor as
    a list of floats under "cpu MHz all"; an empty dict where /proc/cpuinfo cannot be read."""
    fields, mhz = {}, []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                name, sep, value = line.partition(":")
                name = name.strip()
                if not sep:
                    continue
                if name == "cpu MHz":
                    mhz.append(float(value))
                fields.setdefault(name, value.strip())
    except OSError:
        return {}
    return {**fields, "cpu MHz all": mhz}


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or the platform's processor string) and which of
    ISA_FLAGS it has, e.g. "AMD EPYC [avx2 fma; no avx512f avx512_bf16 amx_tile]"."""
    info = cpuinfo()
    model = info.get("model name") or platform.processor() or "unknown"
    flags = set(info.get("flags", "").split())
    if not flags:
        return model
    have = [f for f in ISA_FLAGS if f in flags]
    lack = [f for f in ISA_FLAGS if f not in flags]
    return "%s [%s%s]" % (model, " ".join(have), "; no " + " ".join(lack) if lack else "")


def _inputs(dt):
    a = RNG.uniform(-1, 1, (N, N))
    spd = (a @ a.T + N * np.eye(N)).astype(dt)
    return (a + N * np.eye(N)).astype(dt), RNG.uniform(-1, 1, (N, 16)).astype(dt), spd


def _row(title, build, numpy_fn, arrays, repeats):
    ours = _run_tx(build, arrays, repeats, 1)
    theirs = _run_tf(build, arrays, repeats, 1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        np_t = median_seconds(lambda: numpy_fn(*arrays), repeats=repeats)
    else:
        with threadpool_limits(limits=1):
            np_t = median_seconds(lambda: numpy_fn(*arrays), repeats=repeats)
    return report(title, "ms/run", 1e3, ours, {"tensorflow tf1 Session": theirs, "numpy/scipy": np_t})


def bench_linalg():
    import scipy.linalg

    print(f"linalg benchmarks on {cpu_model()}", flush=True)
    rows = []
    for dt in (np.float32, np.float64):
        a, b, spd = _inputs(dt)
        name = np.dtype(dt).name
        rows.append(_row(f"solve {N}x{N} (16 rhs) {name}", lambda m, x, y: m.linalg.solve(x, y),
                         lambda x, y: scipy.linalg.solve(x, y, check_finite=False), [a, b], 15))
        rows.append(_row(f"cholesky {N}x{N} {name}", lambda m, x: m.linalg.cholesky(x),
                         lambda x: scipy.linalg.cholesky(x, lower=True, check_finite=False), [spd], 15))
        rows.append(_row(f"svd {N}x{N} (s, u, v) {name}", lambda m, x: m.linalg.svd(x),
                         lambda x: np.linalg.svd(x), [a], 5))
    return rows


ALL = [bench_linalg]


if __name__ == "__main__":
    bench_linalg()
