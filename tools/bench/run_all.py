"""Runs every benchmark in one process run and prints Tensorflux next to the other frameworks.

Usage: python tools/bench/run_all.py [name-substring ...]   (run through `nox -s bench`)
"""

from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import addons_optimizer_bench  # noqa: E402
import control_flow_bench  # noqa: E402
import data_bench  # noqa: E402
import dtypes_bench  # noqa: E402
import eager_bench  # noqa: E402
import elementwise_bench  # noqa: E402
import fft_bench  # noqa: E402
import gemm_bench  # noqa: E402
import go_bench  # noqa: E402
import grad_bench  # noqa: E402
import image_bench  # noqa: E402
import keras_bench  # noqa: E402
import linalg_bench  # noqa: E402
import ops_bench  # noqa: E402
import session_bench  # noqa: E402
import strings_bench  # noqa: E402
import tensor_array_bench  # noqa: E402
import train_bench  # noqa: E402

BENCHMARKS = [*session_bench.ALL, *eager_bench.ALL, *ops_bench.ALL, *gemm_bench.ALL, *elementwise_bench.ALL,
              *grad_bench.ALL, *train_bench.ALL, *control_flow_bench.ALL, *tensor_array_bench.ALL, *linalg_bench.ALL,
              *fft_bench.ALL, *image_bench.ALL, *go_bench.ALL, *strings_bench.ALL, *keras_bench.ALL,
              *addons_optimizer_bench.ALL, *data_bench.ALL, *dtypes_bench.ALL]


def main(argv: list[str]) -> None:
    selected = [b for b in BENCHMARKS if not argv or any(a in b.__name__ for a in argv)]
    results = []
    for b in selected:
        try:
            r = b()
        except Exception as e:  # an op a benchmark needs may not exist yet: say so, go on
            print(f"{b.__name__}: skipped ({type(e).__name__}: {e})", flush=True)
            continue
        results.extend(r if isinstance(r, list) else [r])
    out = pathlib.Path("build") / "bench_results.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=float))
    print(f"results written to {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
