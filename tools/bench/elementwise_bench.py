"""The issue-22 elementwise chain: 20 float32 elementwise ops on [1024, 1024] (`chain`, written once
and run by every framework), in ms per call, next to "one memory pass" references, in one run.

Tensorflux runs it as a tx.function called on an eager tensor and as a Session.run with x fed;
TensorFlow as a tf.function and in a tf1 Session; PyTorch eagerly and through torch.compile (in a
child process, skipped with the reason when it fails or takes over TORCH_COMPILE_TIMEOUT_S); JAX
under jax.jit; NumPy eagerly (20 passes over memory). The references are one NumPy pass each:
`np.add(x, 1.0, out=y)` (reads 4 MiB, writes 4 MiB) and `np.copyto(y, x)`; 8 MiB fits this
machine's L3, so a "pass" here is a cache pass, not DRAM. Frameworks are timed in interleaved rounds
(gemm_bench.interleaved_seconds). Each one's result is compared with the chain computed by NumPy in
float64 (max abs difference), so a fast but wrong result shows.

Usage: python tools/bench/elementwise_bench.py
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np

from gemm_bench import _jax, _torch, interleaved_seconds, threads_line
from harness import median_seconds, report
from linalg_bench import cpu_model
from ops_bench import _tf, _tf_runner, _tx_runner

SHAPE = (1024, 1024)
REPEATS, INNER = 10, 3  # for torch.compile (in its child) and, with ONE_PASS_INNER, the one-pass references
ONE_PASS_INNER = 50
TORCH_COMPILE_TIMEOUT_S = 240
ONE_PASS = "numpy np.add(x, 1.0, out=y) (one pass)"


def chain(x, tanh, maximum):
    """The 20 ops, from y = x: 16 cheap binary ops (with a scalar, with x or with y), 2 tanh and
    2 maximum with 0; `tanh(y)` and `maximum(y, 0.0)` are the framework's."""
    y = x * 0.5 + 0.25  # 1 mul, 2 add
    y = y * x - 0.125  # 3 mul, 4 sub
    y = tanh(y)  # 5
    y = y * 1.5 + x  # 6 mul, 7 add
    y = maximum(y, 0.0)  # 8
    y = y - x * 0.5  # 9 mul, 10 sub
    y = y * y + 0.1  # 11 mul, 12 add
    y = y / (y + 1.0)  # 13 add, 14 div
    y = y * 2.0 - x  # 15 mul, 16 sub
    y = tanh(y) * 0.5 + x  # 17 tanh, 18 mul, 19 add
    return maximum(y, 0.0)  # 20


def make_input():
    """x: uniform in [-1, 1), float32, the same in every process."""
    return np.random.default_rng(22).uniform(-1, 1, SHAPE).astype(np.float32)


def _graph_chain(m, x):
    return chain(x, m.tanh, m.maximum)


def _runners(x):
    """name -> a call running the chain on x and returning its result (None: not installed)."""
    import tensorflux as tx

    xt = tx.constant(x)
    f = tx.function(lambda v: chain(v, tx.tanh, tx.maximum))
    runners = {"tensorflux tx.function": lambda: f(xt),
               "tensorflux Session (x fed)": _tx_runner(_graph_chain, [x]),
               "tensorflow tf.function": None,
               "tensorflow tf1 Session (x fed)": _tf_runner(_graph_chain, [x]),
               "pytorch eager": None, "jax jit": None}
    tf = _tf()
    if tf is not None:
        g = tf.function(lambda v: chain(v, tf.tanh, tf.maximum))
        xf = tf.constant(x)
        runners["tensorflow tf.function"] = lambda: g(xf)
    torch = _torch()
    if torch is not None:
        xp = torch.from_numpy(x)
        runners["pytorch eager"] = lambda: chain(xp, torch.tanh, torch.clamp_min)
    jax = _jax()
    if jax is not None:
        j = jax.jit(lambda v: chain(v, jax.numpy.tanh, jax.numpy.maximum))
        xj = jax.numpy.asarray(x)
        runners["jax jit"] = lambda: j(xj).block_until_ready()
    runners["numpy (20 passes)"] = lambda: chain(x, np.tanh, np.maximum)
    return runners


def torch_compiled() -> dict:
    """torch.compile of the chain: compile seconds, median seconds per call and max abs difference
    from the float64 chain (run in a child process by torch_compiled_in_child)."""
    import time

    torch = _torch()
    x = make_input()
    xp = torch.from_numpy(x)
    t0 = time.perf_counter()
    f = torch.compile(lambda v: chain(v, torch.tanh, torch.clamp_min))
    got = f(xp).numpy()
    compile_s = time.perf_counter() - t0
    return {"compile_s": compile_s, "seconds": median_seconds(lambda: f(xp), repeats=REPEATS, inner=INNER),
            "max_abs_diff": float(np.abs(got - chain(x.astype(np.float64), np.tanh, np.maximum)).max())}


def torch_compiled_in_child():
    """torch_compiled() in a child process (so a compile that hangs or fails cannot stop the run):
    its dict, or None after printing why it was skipped."""
    if _torch() is None:
        return None
    code = ("import sys; sys.path.insert(0, %r); import json, elementwise_bench as b; "
            "print('RESULT ' + json.dumps(b.torch_compiled()))" % str(pathlib.Path(__file__).parent))
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=TORCH_COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"    pytorch torch.compile: skipped (no result within {TORCH_COMPILE_TIMEOUT_S} s)", flush=True)
        return None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    reason = (proc.stderr.strip().splitlines() or ["exit status %d" % proc.returncode])[-1]
    print(f"    pytorch torch.compile: skipped, it failed on this build ({reason})", flush=True)
    return None


def bench_elementwise_chain() -> dict:
    print(f"elementwise chain on {cpu_model()}", flush=True)
    print(threads_line() + " (NumPy's ufuncs, the one-pass references included, use one)", flush=True)
    x = make_input()
    want = chain(x.astype(np.float64), np.tanh, np.maximum)
    diffs = {}
    runners = _runners(x)

    def record_diff(name, got):
        diffs[name] = float(np.abs(got - want).max())
    secs = interleaved_seconds(runners, record_diff)
    compiled = torch_compiled_in_child()
    secs["pytorch torch.compile"] = compiled and compiled["seconds"]
    if compiled:
        diffs["pytorch torch.compile"] = compiled["max_abs_diff"]
        print(f"    (torch.compile took {compiled['compile_s']:.1f} s to compile, in a child process)")
    y = np.empty_like(x)
    secs[ONE_PASS] = median_seconds(lambda: np.add(x, 1.0, out=y), repeats=REPEATS, inner=ONE_PASS_INNER)
    secs["numpy np.copyto(y, x) (one pass)"] = median_seconds(lambda: np.copyto(y, x), repeats=REPEATS,
                                                              inner=ONE_PASS_INNER)
    ours = secs.pop("tensorflux tx.function")
    row = report("20-op elementwise chain on [1024,1024] float32 (tensorflux: tx.function)", "ms", 1e3, ours, secs)
    row["max_abs_diff_vs_float64"] = diffs
    session, pass_s = secs["tensorflux Session (x fed)"], secs[ONE_PASS]
    tf_fn, tf_sess = secs["tensorflow tf.function"], secs["tensorflow tf1 Session (x fed)"]
    print("    tensorflux/TensorFlow time: tx.function/tf.function %s, Session/tf1 Session %s (<1: tensorflux faster)"
          % ("%.2f" % (ours / tf_fn) if tf_fn else "-", "%.2f" % (session / tf_sess) if tf_sess else "-"))
    print("    tensorflux/one pass (np.add out=) time: tx.function %.1f, Session %.1f"
          % (ours / pass_s, session / pass_s))
    print("    max abs diff from the float64 NumPy chain: " + ", ".join("%s %.2g" % kv for kv in diffs.items()),
          flush=True)
    return row


ALL = [bench_elementwise_chain]

if __name__ == "__main__":
    bench_elementwise_chain()
