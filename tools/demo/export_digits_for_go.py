"""Exports the digits CNN of tools/demo/digits.py for serving from Go (bindings-go/examples/digits).

Trains the graph-mode CNN briefly, then writes into DIR:
  graph.pb             the model's GraphDef (variables are VarHandleOps named as in Python)
  weights.safetensors  its tx.train.Checkpoint (keys "model/<variable op name>", plus Adam slots)
  manifest.json        the input and logits tensor names and the test batch's shape
  inputs.f32           a test batch, float32 little-endian, row-major
  logits.f32           Python's logits for that batch (the Go example compares them bit for bit)

Usage: python tools/demo/export_digits_for_go.py DIR [--epochs N]
The Go example reads DIR from the environment variable TX_DIGITS_EXPORT.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import digits  # noqa: E402


def export(directory: str, epochs: int = 1, batch: int = 64) -> dict:
    """Trains the CNN for `epochs`, writes the files listed above into `directory` and returns
    the manifest."""
    os.makedirs(directory, exist_ok=True)
    x_tr, y_tr, x_te, y_te = digits.load_digits()
    build, lr = digits.MODELS["CNN"]
    model = digits.Model(build, lr)
    digits.fit(model, x_tr, y_tr, epochs, "CNN")
    model.save(os.path.join(directory, "weights.safetensors"))
    with open(os.path.join(directory, "graph.pb"), "wb") as f:
        f.write(model.graph.as_graph_def().SerializeToString())
    inputs = np.ascontiguousarray(x_te[:batch], dtype="<f4")
    logits = model.session.run(model.logits, {model.x: inputs}).astype("<f4")
    inputs.tofile(os.path.join(directory, "inputs.f32"))
    logits.tofile(os.path.join(directory, "logits.f32"))
    manifest = {"input": model.x.name, "logits": model.logits.name, "batch": int(inputs.shape[0]),
                "features": int(inputs.shape[1]), "classes": int(logits.shape[1]), "checkpoint_prefix": "model/",
                "test_accuracy": float(np.mean(np.argmax(logits, 1) == y_te[:batch]))}
    with open(os.path.join(directory, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--epochs", type=int, default=3)
    args = p.parse_args(argv)
    print(json.dumps(export(args.dir, args.epochs)))


if __name__ == "__main__":
    main()
