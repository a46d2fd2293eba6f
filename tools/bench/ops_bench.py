"""Op-library benchmarks (issue 3): Tensorflux next to NumPy and TensorFlow in one run.

Each Tensorflux workload is one Session.run of a graph whose inputs are fed (so nothing is
constant-folded); TensorFlow runs the same graph in a tf1 Session; NumPy does the same work.
"""

from __future__ import annotations

import os

import numpy as np

from harness import median_seconds, report

THREADS = 2
RNG = np.random.default_rng(0)


def _tf():
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        return tf
    except ImportError:
        return None


def _run_tx(build, arrays, repeats, inner):
    """build(*placeholders) -> fetch; returns median seconds per Session.run."""
    return median_seconds(_tx_runner(build, arrays), repeats=repeats, inner=inner)


def _tx_runner(build, arrays):
    """build(tx, *placeholders) -> fetch, in a Tensorflux Session; returns a call running it with `arrays` fed."""
    import tensorflux as tx
    g = tx.Graph()
    with g.as_default():
        phs = [tx.placeholder(tx.as_dtype(a.dtype), shape=a.shape) for a in arrays]
        out = build(tx, *phs)
    sess = tx.Session(graph=g, config=dict(inter_op_parallelism_threads=THREADS, intra_op_parallelism_threads=THREADS))
    feed = dict(zip(phs, arrays))
    return lambda: sess.run(out, feed_dict=feed)


def _run_tf(build, arrays, repeats, inner):
    run = _tf_runner(build, arrays)
    return None if run is None else median_seconds(run, repeats=repeats, inner=inner)


def _tf_runner(build, arrays):
    """The same in a TensorFlow tf1 Session; None when TensorFlow is not installed."""
    tf = _tf()
    if tf is None:
        return None
    g = tf.Graph()
    with g.as_default():
        phs = [tf.compat.v1.placeholder(a.dtype, shape=a.shape) for a in arrays]
        out = build(tf, *phs)
    cfg = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=THREADS, intra_op_parallelism_threads=THREADS)
    sess = tf.compat.v1.Session(graph=g, config=cfg)
    feed = dict(zip(phs, arrays))
    return lambda: sess.run(out, feed_dict=feed)


def _compare(title, build, numpy_fn, arrays, repeats=20, inner=5, scale=1e3, unit="ms/run"):
    ours = _run_tx(build, arrays, repeats, inner)
    theirs = _run_tf(build, arrays, repeats, inner)
    np_t = median_seconds(lambda: numpy_fn(*arrays), repeats=repeats, inner=inner) if numpy_fn else None
    others = {"tensorflow tf1 Session": theirs}
    if numpy_fn:
        others["numpy"] = np_t
    return report(title, unit, scale, ours, others)


def bench_add():
    a, b = RNG.random(1 << 20, np.float32), RNG.random(1 << 20, np.float32)
    return _compare("add, 1M float32", lambda m, x, y: x + y, np.add, [a, b])


def bench_exp():
    a = RNG.random(1 << 20, np.float32)
    return _compare("exp, 1M float32", lambda m, x: m.exp(x), np.exp, [a])


def bench_reduce_sum():
    a = RNG.random(1 << 20, np.float32)
    return _compare("reduce_sum, 1M float32", lambda m, x: m.reduce_sum(x), np.sum, [a])


def bench_softmax_xent():
    logits = RNG.standard_normal((256, 1000)).astype(np.float32)
    labels = RNG.integers(0, 1000, 256).astype(np.int32)

    def build(m, x, y):
        return m.reduce_mean(m.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x))

    def numpy_fn(x, y):
        z = x - x.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z).sum(axis=1))
        return np.mean(lse - z[np.arange(len(y)), y])

    return _compare("softmax + sparse xent, [256, 1000]", build, numpy_fn, [logits, labels])


def bench_matmul():
    rows = []
    for n in (256, 1024, 2048):
        a, b = RNG.random((n, n), np.float32), RNG.random((n, n), np.float32)
        reps = 20 if n <= 1024 else 5
        rows.append(_compare(f"matmul {n}x{n} float32", lambda m, x, y: m.matmul(x, y), np.matmul, [a, b],
                             repeats=reps, inner=1))
    return rows


def bench_conv2d():
    x = RNG.standard_normal((16, 32, 32, 64)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 64, 64)).astype(np.float32)
    return _compare("conv2d 3x3 64->64, [16,32,32,64] SAME", lambda m, a, b: m.nn.conv2d(a, b, 1, "SAME"), None,
                    [x, w], repeats=10, inner=1)


def bench_chain20():
    a = RNG.random((1024, 1024), np.float32)

    def build(m, x):
        y = x
        for i in range(20):
            y = y * 1.0001 + x if i % 2 == 0 else y - x * 0.5
        return y

    def numpy_fn(x):
        y = x
        for i in range(20):
            y = y * np.float32(1.0001) + x if i % 2 == 0 else y - x * np.float32(0.5)
        return y

    return _compare("20-op elementwise chain on [1024,1024]", build, numpy_fn, [a], repeats=10, inner=2)


ALL = [bench_add, bench_exp, bench_reduce_sum, bench_softmax_xent, bench_matmul, bench_conv2d, bench_chain20]
