"""Image benchmarks (issue 15): bilinear resize of a batch and crop_and_resize, Tensorflux next to
TensorFlow in one process run. Each workload is one Session.run of a graph whose images are fed
(2 inter-op and 2 intra-op threads in both, ops_bench's settings)."""

from __future__ import annotations

import numpy as np
from harness import report
from linalg_bench import cpu_model
from ops_bench import _run_tf, _run_tx

RNG = np.random.default_rng(0)


def _row(title, build, arrays, repeats=15, inner=2):
    ours = _run_tx(build, arrays, repeats, inner)
    theirs = _run_tf(build, arrays, repeats, inner)
    return report(title, "ms/run", 1e3, ours, {"tensorflow tf1 Session": theirs})


def bench_image():
    print(f"image benchmarks on {cpu_model()}", flush=True)
    batch = RNG.uniform(0, 1, (32, 128, 128, 3)).astype(np.float32)
    rows = [
        _row("resize bilinear 32x128x128x3 -> 224x224", lambda m, x: m.image.resize(x, [224, 224]), [batch]),
        _row("resize bilinear 32x128x128x3 -> 64x64", lambda m, x: m.image.resize(x, [64, 64]), [batch]),
        _row("resize bicubic 32x128x128x3 -> 224x224",
             lambda m, x: m.image.resize(x, [224, 224], method="bicubic"), [batch]),
        _row("resize lanczos3 antialias 32x128x128x3 -> 64x64",
             lambda m, x: m.image.resize(x, [64, 64], method="lanczos3", antialias=True), [batch]),
    ]
    image = RNG.uniform(0, 1, (8, 128, 128, 16)).astype(np.float32)
    corner = RNG.uniform(0, 0.7, (512, 2))
    boxes = np.concatenate([corner, corner + RNG.uniform(0.05, 0.3, (512, 2))], 1).astype(np.float32)
    ind = RNG.integers(0, 8, 512).astype(np.int32)
    rows.append(_row("crop_and_resize 8x128x128x16, 512 boxes -> 14x14",
                     lambda m, x, b, i: m.image.crop_and_resize(x, b, i, [14, 14]), [image, boxes, ind]))
    return rows


ALL = [bench_image]


if __name__ == "__main__":
    bench_image()
