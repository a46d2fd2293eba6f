"""Graph-mode benchmarks (issue 2): session.run latency, graph construction, import time."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from harness import median_seconds, report

THREADS = 2


def _tf():
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf  # noqa: F401
        return tf
    except ImportError:
        return None


def _tx_session(g):
    import tensorflux as tx
    return tx.Session(graph=g, config=dict(inter_op_parallelism_threads=THREADS, intra_op_parallelism_threads=THREADS))


def _tf_session(tf, g):
    cfg = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=THREADS, intra_op_parallelism_threads=THREADS)
    return tf.compat.v1.Session(graph=g, config=cfg)


def bench_single_add() -> dict:
    import tensorflux as tx
    g = tx.Graph()
    with g.as_default():
        a = tx.placeholder(tx.float32, shape=[])
        out = a + tx.constant(1.0)
    sess = _tx_session(g)
    feed = {a: np.float32(2.0)}
    ours = median_seconds(lambda: sess.run(out, feed_dict=feed), repeats=30, inner=200)
    theirs = None
    tf = _tf()
    if tf is not None:
        tg = tf.Graph()
        with tg.as_default():
            ta = tf.compat.v1.placeholder(tf.float32, shape=[])
            tout = ta + tf.constant(1.0)
        ts = _tf_session(tf, tg)
        tfeed = {ta: np.float32(2.0)}
        theirs = median_seconds(lambda: ts.run(tout, feed_dict=tfeed), repeats=30, inner=200)
    return report("session.run: one add on scalars", "us/call", 1e6, ours, {"tensorflow tf1 Session": theirs})


def bench_chain_100() -> dict:
    import tensorflux as tx
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32, shape=[4])
        y = x
        for _ in range(100):
            y = y + x
    sess = _tx_session(g)
    feed = {x: np.arange(4, dtype=np.float32)}
    ours = median_seconds(lambda: sess.run(y, feed_dict=feed), repeats=30, inner=100)
    theirs = None
    tf = _tf()
    if tf is not None:
        tg = tf.Graph()
        with tg.as_default():
            tx_in = tf.compat.v1.placeholder(tf.float32, shape=[4])
            ty = tx_in
            for _ in range(100):
                ty = ty + tx_in
        ts = _tf_session(tf, tg)
        tfeed = {tx_in: np.arange(4, dtype=np.float32)}
        theirs = median_seconds(lambda: ts.run(ty, feed_dict=tfeed), repeats=30, inner=100)
    return report("session.run: chain of 100 adds on float32[4]", "us/call", 1e6, ours,
                  {"tensorflow tf1 Session": theirs})


def bench_graph_construction() -> dict:
    import tensorflux as tx

    def build_tx():
        g = tx.Graph()
        with g.as_default():
            x = tx.placeholder(tx.float32, shape=[4])
            y = x
            for _ in range(10_000):
                y = y + x

    ours = median_seconds(build_tx, repeats=5, warmup=1)
    theirs = None
    tf = _tf()
    if tf is not None:
        def build_tf():
            g = tf.Graph()
            with g.as_default():
                x = tf.compat.v1.placeholder(tf.float32, shape=[4])
                y = x
                for _ in range(10_000):
                    y = y + x
        theirs = median_seconds(build_tf, repeats=3, warmup=1)
    return report("graph construction: 10,000 adds from Python", "s", 1.0, ours, {"tensorflow tf1 graph": theirs})


def _import_time(module: str, repeats: int) -> float | None:
    code = f"import time; t=time.perf_counter(); import {module}; print(time.perf_counter()-t)"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    samples = []
    for _ in range(repeats):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            return None
        samples.append(float(r.stdout.strip().splitlines()[-1]))
    samples.sort()
    return samples[len(samples) // 2]


def bench_import() -> dict:
    ours = _import_time("tensorflux", 7)
    theirs = _import_time("tensorflow", 3) if _tf() is not None else None
    numpy_t = _import_time("numpy", 7)
    return report("import time", "s", 1.0, ours, {"tensorflow": theirs, "numpy alone": numpy_t})


ALL = [bench_single_add, bench_chain_100, bench_graph_construction, bench_import]
