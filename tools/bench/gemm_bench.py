"""GEMM throughput (issue 22): float32 C = A @ B in GFLOP/s (2*M*N*K / median seconds) for Tensorflux,
TensorFlow, PyTorch, JAX and NumPy in one run, each on THREADS threads, next to the fp32 peak of the
cores (fp32_peak) and the fraction of it each reaches.

Shapes: square 256, 1024, 2048 (and 4096: `--large`, or bench_gemm_4096 in run_all's full run), a
batch-1 serving product [1,1024] @ [1024,1024], and A^T B at 1024 through transpose_a.

Tensorflux runs the MatMul two ways. The Session path feeds two placeholders with the same float32
arrays on every run (ops_bench._tx_runner): feeds of such arrays are used without copying (see
session.py), so a run costs the MatMul kernel plus the run call. Constant inputs would be cheaper
to pass but are folded at plan time (Note [Plan constant folding]), so the kernel would run once,
not per call; variables would add a read op per input. The eager path calls `tx.linalg.matmul` on
two eager constants. TensorFlow runs the same graph in a tf1 Session and `tf.linalg.matmul` eagerly;
PyTorch `torch.mm`; JAX a jitted `x @ y` (block_until_ready); NumPy `@` (OpenBLAS, limited to
THREADS threads by threadpoolctl when installed). Every result is checked against NumPy's before
it is timed, so a fast but wrong product fails the benchmark.

Usage: python tools/bench/gemm_bench.py [--large]; through run_all, `run_all.py gemm` runs both
bench_gemm and bench_gemm_4096 (as does a run of everything), `run_all.py bench_gemm_4096` the latter.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
import time

import numpy as np

import cpu_peak
from eager_bench import _tf_threads
from harness import median_seconds, report
from linalg_bench import cpu_model, cpuinfo
from ops_bench import THREADS, _tf, _tf_runner, _tx_runner

SQUARE = (256, 1024, 2048)
LARGE = 4096
BUDGET_S = 1.0  # timed seconds per framework and shape (plus one checking and one estimating call)
ROUNDS = 3
SAMPLE_S = 0.01  # shortest sample: fast calls are repeated `inner` times per sample
# Pause before each framework's sample: BLAS and OpenMP workers spin for a while after a call
# (OpenBLAS up to ~2^28 cycles), and on a 2-core machine they would steal a core from the next one.
SETTLE_S = 0.2


def threads_line() -> str:
    """Sets THREADS threads in every framework whose runtime has not started yet and says what each
    ends up with (a runtime started earlier in the process keeps its count, printed as such)."""
    cores = os.cpu_count() or 1
    import tensorflux as tx
    try:
        tx.config.threading.set_intra_op_parallelism_threads(THREADS)
        tx.config.threading.set_inter_op_parallelism_threads(THREADS)
    except RuntimeError:
        pass
    parts = [f"tensorflux Session {THREADS}, eager {tx.config.threading.get_intra_op_parallelism_threads() or cores}"]
    tf, torch = _tf(), _torch()
    if tf is not None:
        _tf_threads(tf)
        eager = tf.config.threading.get_intra_op_parallelism_threads() or cores
    parts.append(f"tensorflow Session {THREADS}, eager {eager}" if tf else "tensorflow: not installed, skipped")
    parts.append(f"torch {torch.get_num_threads()}" if torch else "torch: not installed, skipped")
    parts.append(f"numpy's BLAS {THREADS}" + ("" if _threadpoolctl() else " (threadpoolctl missing: not limited)"))
    parts.append(f"jax: XLA's CPU pool, one thread per core ({cores})" if _jax() else "jax: not installed, skipped")
    return "threads: " + ", ".join(parts)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(THREADS)
    return torch


def _jax():
    try:
        import jax
        import jax.numpy  # noqa: F401
    except ImportError:
        return None
    return jax


def _threadpoolctl():
    try:
        import threadpoolctl
    except ImportError:
        return None
    return threadpoolctl


def numpy_threads():
    """A context limiting NumPy's own BLAS to THREADS threads (no limit without threadpoolctl). Only
    the libraries inside the numpy package are limited: Tensorflux links another OpenBLAS (same
    prefix), kept at one thread because its MatMul splits the work over its own pool."""
    tpc = _threadpoolctl()
    if tpc is None:
        return contextlib.nullcontext()
    ctl = tpc.ThreadpoolController()
    ours = [lc.filepath for lc in ctl.lib_controllers if lc.filepath.startswith(os.path.dirname(np.__file__))]
    return ctl.select(filepath=ours).limit(limits=THREADS)


def fp32_peak(cores: int) -> tuple[float, list[str]]:
    """The fp32 peak GFLOP/s of `cores` cores, cores * clock * flops per cycle, and the lines saying
    where each factor comes from. The clock is measured (cpu_peak.cc: dependent adds, one cycle
    each), so boost counts; flops per cycle is what the ISA gives (2 x lanes x FMA units per core),
    with the FMA unit count taken from the measured single-thread FMA throughput where it was
    measured; the measured FMA throughput at `cores` threads is shown beside it."""
    info = cpuinfo()
    flags = set(info.get("flags", "").split())
    measured, why = cpu_peak.measure()
    lanes = 16 if "avx512f" in flags else 8 if ("avx2" in flags or "avx" in flags) else 4
    isa = {16: "AVX-512", 8: "AVX2" if "avx2" in flags else "AVX", 4: "SSE"}[lanes]
    lines = []
    if measured.get("clock_ghz"):
        clock = measured["clock_ghz"]
        lines.append("clock: %.3f GHz measured (tools/bench/cpu_peak.cc: a chain of dependent adds, one cycle "
                     "each, over its wall time; /proc/cpuinfo says %s MHz)"
                     % (clock, "/".join("%.0f" % m for m in info.get("cpu MHz all") or []) or "nothing"))
    else:
        mhz = info.get("cpu MHz all") or []
        clock = sum(mhz) / len(mhz) / 1e3 if mhz else None
        lines.append("clock: NOT MEASURED (%s); %s" % (why, "the mean \"cpu MHz\" of /proc/cpuinfo, %.3f GHz"
                                                       % clock if clock else "none in /proc/cpuinfo"))
    per_cycle = measured.get("flops_per_cycle")
    if per_cycle:  # FMA units per core: the whole number the measured rate rounds to
        units = max(1, round(per_cycle / (2 * lanes)))
        lines.append("FMA units per core: %d (%s, %d fp32 lanes: %d flops/cycle; measured %.1f flops/cycle on one "
                     "thread of register-only FMAs)" % (units, isa, lanes, 2 * lanes * units, per_cycle))
    else:
        units = 2 if lanes == 8 and "fma" in flags else 1
        lines.append("ASSUMPTION: %d FMA unit(s) per core of %s (%d lanes), not measured" % (units, isa, lanes))
    if clock is None:
        return math.nan, lines + ["no clock found: peak unknown"]
    peak = cores * clock * units * lanes * 2
    lines.insert(0, "fp32 peak of %d cores = %d cores x %.3f GHz x %d FMA units x %d lanes x 2 = %.1f GFLOP/s"
                 % (cores, cores, clock, units, lanes, peak))
    if measured.get(f"fma_gflops_{cores}"):
        lines.append("measured FMA throughput: %s GFLOP/s (register-only loop at 1..%d threads)"
                     % (", ".join("%d threads %.1f" % (t, measured[f"fma_gflops_{t}"]) for t in range(1, cores + 1)
                                  if f"fma_gflops_{t}" in measured), cores))
    return peak, lines


def _runners(a, b, transpose_a):
    """framework name -> a call computing op(A) @ B (None when the framework is not installed)."""
    import tensorflux as tx

    ta, tb = tx.constant(a), tx.constant(b)
    runners = {
        "tensorflux Session": _tx_runner(lambda m, x, y: m.matmul(x, y, transpose_a=transpose_a), [a, b]),
        "tensorflux eager": lambda: tx.linalg.matmul(ta, tb, transpose_a=transpose_a),
        "tensorflow tf1 Session": _tf_runner(lambda m, x, y: m.matmul(x, y, transpose_a=transpose_a), [a, b]),
        "tensorflow eager": None, "pytorch torch.mm": None, "jax jit": None,
    }
    tf = _tf()
    if tf is not None:
        fa, fb = tf.constant(a), tf.constant(b)
        runners["tensorflow eager"] = lambda: tf.linalg.matmul(fa, fb, transpose_a=transpose_a)
    torch = _torch()
    if torch is not None:
        pa, pb = torch.from_numpy(a), torch.from_numpy(b)
        runners["pytorch torch.mm"] = (lambda: torch.mm(pa.T, pb)) if transpose_a else (lambda: torch.mm(pa, pb))
    jax = _jax()
    if jax is not None:
        ja, jb = jax.numpy.asarray(a), jax.numpy.asarray(b)
        f = jax.jit((lambda x, y: x.T @ y) if transpose_a else (lambda x, y: x @ y))
        runners["jax jit"] = lambda: f(ja, jb).block_until_ready()
    at = a.T if transpose_a else a
    runners["numpy"] = lambda: at @ b
    return runners


def _plan(name, fn, check):
    """check(name, fn's first result); returns (repeats per round, inner) filling about BUDGET_S."""
    check(name, np.asarray(fn()))
    once = median_seconds(fn, repeats=1, warmup=0)  # also the warmup call
    inner = max(1, int(SAMPLE_S / once))
    return max(1, min(5, int(BUDGET_S / (once * inner * ROUNDS)))), inner


def interleaved_seconds(runners, check):
    """name -> median seconds per call (None where the runner is None), measured in ROUNDS rounds
    that each time every framework in turn, so a change in the shared machine's load during the
    run falls on all of them rather than on whichever ran then; the median over the rounds.
    check(name, result) sees each framework's first result first."""
    plans = {name: _plan(name, fn, check) for name, fn in runners.items() if fn is not None}
    samples = {name: [] for name in plans}
    for _ in range(ROUNDS):
        for name, (repeats, inner) in plans.items():
            time.sleep(SETTLE_S)  # the previous framework's worker threads stop spinning first
            samples[name].append(median_seconds(runners[name], repeats=repeats, inner=inner, warmup=0))
    return {name: statistics.median(samples[name]) if name in samples else None for name in runners}


def _product_check(want):
    """A check failing on a product more than 1e-3 (relative to its largest entry) off `want`."""
    scale = float(np.abs(want).max())

    def check(name, got):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * scale, err_msg=f"{name}: wrong product")
    return check


def gemm_row(title, m, k, n, transpose_a, peak):
    """One shape: every framework's median seconds (report's row) plus GFLOP/s and % of peak."""
    rng = np.random.default_rng(22)
    a = rng.uniform(-1, 1, (k, m) if transpose_a else (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    with numpy_threads():
        want = (a.T if transpose_a else a) @ b
        secs = interleaved_seconds(_runners(a, b, transpose_a), _product_check(want))
    ours = secs.pop("tensorflux Session")
    row = report(title, "ms", 1e3, ours, secs)
    flops = 2.0 * m * n * k
    gflops = {name: flops / s / 1e9 for name, s in [("tensorflux Session", ours), *secs.items()] if s}
    row["gflops"] = gflops
    row["percent_of_peak"] = {name: 100 * g / peak for name, g in gflops.items()}
    print("    GFLOP/s (%% of peak): %s" % ", ".join(
        "%s %.1f (%.0f%%)" % (name, g, row["percent_of_peak"][name]) for name, g in gflops.items()))
    return row


def _ratio(row, ours, theirs):
    g = row["gflops"]
    return "%.2f" % (g[ours] / g[theirs]) if ours in g and theirs in g else "-"


def summary(rows):
    """The table: one row per shape, GFLOP/s per framework, tensorflux Session / tf1 Session and
    / NumPy throughput ratios (>1: tensorflux faster) and tensorflux's % of peak."""
    names = list(rows[0]["gflops"])
    print("\nGFLOP/s (tx/TF: tensorflux Session / tf1 Session; tx/np: tensorflux Session / numpy; >1 = tensorflux "
          "faster; %peak: tensorflux Session)")
    short = [n.replace("tensorflux", "tx").replace("tensorflow tf1", "tf").replace("tensorflow", "tf")
             .replace("pytorch ", "") for n in names]
    print("%-36s" % "shape" + "".join("%11s" % n[:10] for n in short) + "%8s%8s%7s" % ("tx/TF", "tx/np", "%peak"))
    for row in rows:
        print("%-36s" % row["benchmark"][:36] + "".join("%11.1f" % row["gflops"][n] if n in row["gflops"]
                                                        else "%11s" % "-" for n in names)
              + "%8s%8s%6.0f%%" % (_ratio(row, "tensorflux Session", "tensorflow tf1 Session"),
                                   _ratio(row, "tensorflux Session", "numpy"),
                                   row["percent_of_peak"]["tensorflux Session"]), flush=True)


def _header():
    cores = min(THREADS, os.cpu_count() or THREADS)
    peak, lines = fp32_peak(cores)
    print(f"GEMM float32 on {cpu_model()}, load average {os.getloadavg()[0]:.1f}; the \"tensorflux\" "
          "column is Session.run with both inputs fed (see the module docstring)", flush=True)
    print(threads_line())
    print("\n".join("  " + line for line in lines), flush=True)
    return peak


def bench_gemm(large: bool = False) -> list:
    peak = _header()
    shapes = [(f"matmul {s}x{s} @ {s}x{s}", s, s, s, False) for s in SQUARE + ((LARGE,) if large else ())]
    shapes += [("matmul 1x1024 @ 1024x1024 (batch 1)", 1, 1024, 1024, False),
               ("matmul A^T B 1024 (transpose_a)", 1024, 1024, 1024, True)]
    rows = [gemm_row(*shape, peak) for shape in shapes]
    summary(rows)
    return rows


def bench_gemm_4096() -> list:
    peak = _header()
    rows = [gemm_row(f"matmul {LARGE}x{LARGE} @ {LARGE}x{LARGE}", LARGE, LARGE, LARGE, False, peak)]
    summary(rows)
    return rows


ALL = [bench_gemm, bench_gemm_4096]

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--large", action="store_true", help=f"also {LARGE}x{LARGE} (about a minute more)")
    bench_gemm(large=p.parse_args(sys.argv[1:]).large)
