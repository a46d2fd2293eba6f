"""Autodiff benchmarks (issue 4): building gradient graphs and running forward + backward,
against TensorFlow 1-style tf.gradients in graph mode (tf.compat.v1 Session)."""

from __future__ import annotations

import time

import numpy as np

from harness import median_seconds, report
from session_bench import THREADS, _tf, _tf_session, _tx_session

MLP = [784, 512, 512, 10]
DEEP = [64] * 21  # 20 dense layers of width 64
BATCH = 128


def _weights(sizes, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((a, b)).astype(np.float32) * np.float32(1 / np.sqrt(a)),
             np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]


def _mlp_loss(lib, nn, sizes, weights):
    """Builds an MLP with relu hidden layers and softmax cross-entropy; returns (x, labels, loss, params)."""
    x = lib.placeholder(lib.float32, [None, sizes[0]])
    labels = lib.placeholder(lib.int32, [None])
    params = []
    h = x
    for i, (w, b) in enumerate(weights):
        wv, bv = lib.constant(w), lib.constant(b)
        params += [wv, bv]
        h = nn.bias_add(lib.matmul(h, wv), bv)
        if i < len(weights) - 1:
            h = nn.relu(h)
    loss = lib.reduce_mean(nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=h))
    return x, labels, loss, params


def _build_time(make_graph, gradients, sizes, repeats):
    """Median seconds to add the gradient graph (forward built beforehand, outside the timing)."""
    samples = []
    weights = _weights(sizes)
    for _ in range(repeats):
        g, (x, labels, loss, params) = make_graph(sizes, weights)
        with g.as_default():
            t0 = time.perf_counter()
            gradients(loss, params)
            samples.append(time.perf_counter() - t0)
    return float(np.median(samples))


def _tx_graph(sizes, weights):
    import tensorflux as tx
    g = tx.Graph()
    with g.as_default():
        return g, _mlp_loss(tx, tx.nn, sizes, weights)


def _tf_graph(tf):
    def make(sizes, weights):
        g = tf.Graph()
        with g.as_default():
            return g, _mlp_loss(tf.compat.v1, tf.nn, sizes, weights)
    return make


def bench_gradient_build() -> list:
    import tensorflux as tx
    tf = _tf()
    rows = []
    for title, sizes in (("build gradients: MLP 784-512-512-10 + softmax xent", MLP),
                         ("build gradients: 20-layer MLP (width 64)", DEEP)):
        ours = _build_time(_tx_graph, tx.gradients, sizes, repeats=15)
        theirs = _build_time(_tf_graph(tf), tf.compat.v1.gradients, sizes, repeats=15) if tf else None
        rows.append(report(title, "ms", 1e3, ours, {"tensorflow": theirs}))
    return rows


def bench_forward_backward() -> dict:
    import tensorflux as tx
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((BATCH, MLP[0])).astype(np.float32)
    yv = rng.integers(0, MLP[-1], BATCH).astype(np.int32)
    weights = _weights(MLP)
    g, (x, labels, loss, params) = _tx_graph(MLP, weights)
    with g.as_default():
        grads = tx.gradients(loss, params)
    sess = _tx_session(g)
    ours = median_seconds(lambda: sess.run(grads, {x: xv, labels: yv}), repeats=30, inner=5)
    theirs = None
    tf = _tf()
    if tf is not None:
        tg, (tx_, tl, tloss, tparams) = _tf_graph(tf)(MLP, weights)
        with tg.as_default():
            tgrads = tf.compat.v1.gradients(tloss, tparams)
        tsess = _tf_session(tf, tg)
        theirs = median_seconds(lambda: tsess.run(tgrads, {tx_: xv, tl: yv}), repeats=30, inner=5)
    return report(f"forward+backward MLP 784-512-512-10, batch {BATCH} ({THREADS} threads)", "ms", 1e3, ours,
                  {"tensorflow": theirs})


ALL = [bench_gradient_build, bench_forward_backward]
