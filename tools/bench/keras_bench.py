"""tx.keras benchmarks (issue 18): `Model.fit` per step of the MLP 784-512-512-10 (batch 128) and of
the small CNN (batch 32), one epoch of 60 batches after a warm-up fit, against Keras 3 on its
TensorFlow, JAX and PyTorch backends (each in its own process: KERAS_BACKEND is read at import) and
against our own hand-written tx.function train step; and `predict` latency at batch 1.

Usage: python tools/bench/keras_bench.py   (also part of run_all.py)
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from harness import median_seconds, report  # noqa: E402
from linalg_bench import cpu_model  # noqa: E402

STEPS = 60
THREADS = 2
CONFIGS = {"mlp": (128, (784,)), "cnn": (32, (32, 32, 3))}
BACKENDS = ("tensorflow", "jax", "torch")


def build_model(keras, kind):
    """The benchmark model in ``keras`` (tx.keras or Keras 3): same layers, same loss."""
    layers = keras.layers
    if kind == "mlp":
        stack = [keras.Input((784,)), layers.Dense(512, activation="relu"), layers.Dense(512, activation="relu"),
                 layers.Dense(10)]
    else:
        stack = [keras.Input((32, 32, 3)), layers.Conv2D(32, 3, padding="same", activation="relu"),
                 layers.MaxPooling2D(2), layers.Conv2D(64, 3, padding="same", activation="relu"),
                 layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(10, use_bias=False)]
    model = keras.Sequential(stack)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def data(kind):
    batch, shape = CONFIGS[kind]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch * STEPS,) + shape).astype(np.float32)
    y = rng.integers(0, 10, batch * STEPS).astype(np.int32)
    return x, y, batch


EPOCH_REPEATS = 7  # timed epochs per measurement (their median): 3 moved results by 15% between runs


def time_fit(model, kind, repeats=EPOCH_REPEATS):
    """Seconds per step of a warm `fit` epoch of STEPS batches (the median of ``repeats`` epochs)."""
    x, y, batch = data(kind)
    model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)  # trace / compile / warm up
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)
        samples.append((time.perf_counter() - t0) / STEPS)
    return float(np.median(samples))


def time_predict(model, kind):
    """Seconds per `predict` call on one example."""
    x, _, _ = data(kind)
    one = x[:1]
    return median_seconds(lambda: model.predict(one, verbose=0), repeats=15, inner=10)


def _hand_written_step_seconds(kind):
    """Our hand-written tx.function train step (GradientTape + Adam) on the same model, fed the same
    batches in a Python loop."""
    import tensorflux as tx
    model = build_model(tx.keras, kind)
    opt = tx.optimizers.Adam(1e-3)
    x, y, batch = data(kind)
    spec = [tx.TensorSpec([None] + list(x.shape[1:])), tx.TensorSpec([None], tx.int32)]

    @tx.function(input_signature=spec)
    def step(xb, yb):
        with tx.GradientTape() as tape:
            logits = model(xb, training=True)
            loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits))
        variables = model.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    def epoch():
        for i in range(STEPS):
            step(x[i * batch:(i + 1) * batch], y[i * batch:(i + 1) * batch]).numpy()
    epoch()
    samples = []
    for _ in range(EPOCH_REPEATS):
        t0 = time.perf_counter()
        epoch()
        samples.append((time.perf_counter() - t0) / STEPS)
    return float(np.median(samples))


def _configure_tensorflux():
    from tensorflux._src import context
    if not context._c.eager_initialized():
        context.configure(intra_op_threads=THREADS, inter_op_threads=THREADS)


_CHILD = r"""
import json, os, sys
sys.path.insert(0, {here!r})
import keras_bench as kb
backend = os.environ["KERAS_BACKEND"]
if backend == "tensorflow":
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(kb.THREADS)
    tf.config.threading.set_inter_op_parallelism_threads(kb.THREADS)
elif backend == "torch":
    import torch
    torch.set_num_threads(kb.THREADS)
import keras
out = {{}}
for kind in ("mlp", "cnn"):
    model = kb.build_model(keras, kind)
    out[kind] = {{"fit": kb.time_fit(model, kind), "predict": kb.time_predict(model, kind)}}
print("RESULT " + json.dumps(out))
"""


def keras_backend_results(backend):
    """{kind: {"fit": s/step, "predict": s}} of Keras 3 on ``backend``, or None when unavailable."""
    env = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3",
               XLA_FLAGS="--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads=%d" % THREADS)
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD.format(here=str(pathlib.Path(__file__).parent))],
                              env=env, capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        print(f"keras[{backend}]: timed out", flush=True)
        return None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    print(f"keras[{backend}]: not available ({proc.stderr.strip().splitlines()[-1:] or proc.returncode})", flush=True)
    return None


def bench_keras() -> list:
    import tensorflux as tx
    _configure_tensorflux()
    print(f"tx.keras benchmarks on {cpu_model()} ({THREADS} threads)", flush=True)
    others = {b: keras_backend_results(b) for b in BACKENDS}
    rows = []
    for kind in ("mlp", "cnn"):
        model = build_model(tx.keras, kind)
        ours_fit = time_fit(model, kind)
        ours_predict = time_predict(model, kind)
        fit_others = {"tensorflux hand-written tx.function step": _hand_written_step_seconds(kind)}
        predict_others = {}
        for b in BACKENDS:
            r = others[b]
            fit_others[f"keras 3 [{b}] fit"] = r[kind]["fit"] if r else None
            predict_others[f"keras 3 [{b}] predict"] = r[kind]["predict"] if r else None
        batch, shape = CONFIGS[kind]
        what = "MLP 784-512-512-10" if kind == "mlp" else "CNN 32x32x3 (conv32-pool-conv64-pool-dense10)"
        rows.append(report(f"tx.keras Model.fit per step: {what}, batch {batch}, Adam, one epoch of {STEPS} batches",
                           "ms", 1e3, ours_fit, fit_others))
        rows.append(report(f"tx.keras Model.predict latency: {what}, batch 1", "ms", 1e3, ours_predict,
                           predict_others))
    return rows


ALL = [bench_keras]

if __name__ == "__main__":
    bench_keras()
