"""16-bit float benchmarks (issue 15): an element-wise chain and a matmul in float16 and bfloat16
next to float32, Tensorflux next to TensorFlow, in one process run.

Each workload is one Session.run of a graph whose inputs are fed (2 intra-op threads in both).
Tensorflux computes 16-bit element-wise ops in float32 blocks and 16-bit matmuls through OpenBLAS's
float32 GEMM on widened operands (docs/dtypes.md); the float32 rows show what that costs.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from harness import report
from linalg_bench import cpu_model
from ops_bench import _run_tf, _run_tx

RNG = np.random.default_rng(0)
DTYPES = (("float32", np.float32), ("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16))


def _chain(m, x, y):
    """tanh(x * y + x) * sigmoid(y) - relu(x): six element-wise ops."""
    return m.tanh(x * y + x) * m.sigmoid(y) - m.nn.relu(x)


def bench_dtypes():
    print(f"16-bit float benchmarks on {cpu_model()}", flush=True)
    rows, ours = [], {}
    n = 1 << 20
    for name, dt in DTYPES:
        x, y = RNG.uniform(-2, 2, n).astype(dt), RNG.uniform(-2, 2, n).astype(dt)
        t = _run_tx(_chain, [x, y], repeats=15, inner=3)
        ours[("chain", name)] = t
        rows.append(report(f"element-wise chain (6 ops), 1M {name}", "ms/run", 1e3, t,
                           {"tensorflow tf1 Session": _run_tf(_chain, [x, y], repeats=15, inner=3),
                            "tensorflux float32": ours[("chain", "float32")]}))
    for size in (512, 1024):
        for name, dt in DTYPES:
            a, b = RNG.uniform(-1, 1, (size, size)).astype(dt), RNG.uniform(-1, 1, (size, size)).astype(dt)
            t = _run_tx(lambda m, p, q: m.matmul(p, q), [a, b], repeats=9, inner=2)
            ours[(size, name)] = t
            rows.append(report(f"matmul {size}x{size} {name}", "ms/run", 1e3, t,
                               {"tensorflow tf1 Session": _run_tf(lambda m, p, q: m.matmul(p, q), [a, b], 9, 2),
                                "tensorflux float32": ours[(size, "float32")]}))
    return rows


ALL = [bench_dtypes]
