"""Conv2DBackpropInput / Conv2DBackpropFilter timings: Tensorflux (Session.run, fed inputs) next to
TensorFlow's tf.raw_ops in a warm tf.function, medians of repeated runs, both on THREADS threads.

Usage: python tools/bench/conv_grad_bench.py [threads]   (3x3, 64->64 on [16, 32, 32, 64], SAME).
"""

from __future__ import annotations

import os
import sys

import numpy as np

from harness import median_seconds, report

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 2
X_SHAPE, F_SHAPE = (16, 32, 32, 64), (3, 3, 64, 64)
ATTRS = {"strides": [1, 1, 1, 1], "padding": "SAME"}


def _tx_runner(op: str, x, w, dy):
    import tensorflux as tx
    from tensorflux._src.generated import gen_ops

    g = tx.Graph()
    with g.as_default():
        dy_ph = tx.placeholder(tx.float32, shape=dy.shape)
        if op == "input":
            ph = tx.placeholder(tx.float32, shape=w.shape)
            out = gen_ops.conv2d_backprop_input(tx.constant(np.array(X_SHAPE, np.int32)), ph, dy_ph, **ATTRS)
            feed = {ph: w, dy_ph: dy}
        else:
            ph = tx.placeholder(tx.float32, shape=x.shape)
            out = gen_ops.conv2d_backprop_filter(ph, tx.constant(np.array(F_SHAPE, np.int32)), dy_ph, **ATTRS)
            feed = {ph: x, dy_ph: dy}
    sess = tx.Session(graph=g, config=dict(inter_op_parallelism_threads=THREADS, intra_op_parallelism_threads=THREADS))
    return lambda: sess.run(out, feed_dict=feed)


def _tf_runner(op: str, x, w, dy):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(THREADS)
    tf.config.threading.set_inter_op_parallelism_threads(THREADS)
    if op == "input":
        fn = tf.function(lambda f, d: tf.raw_ops.Conv2DBackpropInput(input_sizes=tf.constant(X_SHAPE, tf.int32),
                                                                     filter=f, out_backprop=d, **ATTRS))
        args = (tf.constant(w), tf.constant(dy))
    else:
        fn = tf.function(lambda i, d: tf.raw_ops.Conv2DBackpropFilter(
            input=i, filter_sizes=tf.constant(F_SHAPE, tf.int32), out_backprop=d, **ATTRS))
        args = (tf.constant(x), tf.constant(dy))
    return lambda: fn(*args).numpy()


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(X_SHAPE).astype(np.float32)
    w = rng.standard_normal(F_SHAPE).astype(np.float32)
    dy = rng.standard_normal(X_SHAPE[:3] + (F_SHAPE[3],)).astype(np.float32)
    flops = 2 * np.prod(X_SHAPE[:3]) * np.prod(F_SHAPE)
    for op in ("input", "filter"):
        ours_fn, tf_fn = _tx_runner(op, x, w, dy), _tf_runner(op, x, w, dy)
        np.testing.assert_allclose(ours_fn(), tf_fn(), rtol=1e-3, atol=1e-2)
        ours = median_seconds(ours_fn, repeats=9)
        theirs = median_seconds(tf_fn, repeats=9)
        report(f"Conv2DBackprop{op.capitalize()} 3x3 64->64 on {list(X_SHAPE)} SAME, {THREADS} threads "
               f"({flops / ours / 1e9:.1f} GFLOP/s ours)", "ms", 1e3, ours, {"tensorflow": theirs})


if __name__ == "__main__":
    main()
