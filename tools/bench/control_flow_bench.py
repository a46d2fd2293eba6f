"""Control-flow benchmarks: a while loop of 10,000 iterations of a scalar add, as one While op run
by a Session and by a tx.function, next to tf.while_loop inside tf.function and jax.lax.fori_loop
under jax.jit, in one run. The trip count is an argument of each compiled program (not a
constant), so no framework can fold the loop away; times are per iteration."""

from __future__ import annotations

import numpy as np

from eager_bench import _tf_threads
from harness import median_seconds, report
from session_bench import _tf, _tx_session

ITERATIONS = 10_000
REPEATS = 11


def _per_iteration(fn) -> float:
    return median_seconds(fn, repeats=REPEATS, inner=1) / ITERATIONS


def _check(value) -> None:
    if float(value) != float(ITERATIONS):
        raise AssertionError(f"loop computed {value}, expected {ITERATIONS}")


def _others() -> dict:
    """tf.while_loop inside tf.function and jax.lax.fori_loop under jax.jit (None when missing)."""
    theirs = {}
    tf = _tf()
    if tf is not None:
        _tf_threads(tf)

        @tf.function
        def tf_loop(n):
            return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1.0), [0, 0.0])[1]

        n = tf.constant(ITERATIONS)
        _check(tf_loop(n))
        theirs["tensorflow tf.function"] = _per_iteration(lambda: tf_loop(n).numpy())
    else:
        theirs["tensorflow tf.function"] = None
    try:
        import jax
        import jax.numpy as jnp

        jax_loop = jax.jit(lambda n: jax.lax.fori_loop(0, n, lambda i, s: s + 1.0, jnp.float32(0.0)))
        n = jnp.int32(ITERATIONS)
        _check(jax_loop(n))
        theirs["jax jit fori_loop"] = _per_iteration(lambda: jax_loop(n).block_until_ready())
    except ImportError:
        theirs["jax jit fori_loop"] = None
    return theirs


def bench_while_loop_session() -> dict:
    """One Session.run of a graph holding the While op."""
    import tensorflux as tx

    g = tx.Graph()
    with g.as_default():
        n = tx.placeholder(tx.int32, shape=[])
        out = tx.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1.0), [0, 0.0])[1]
    sess = _tx_session(g)
    feed = {n: np.int32(ITERATIONS)}
    _check(sess.run(out, feed_dict=feed))
    ours = _per_iteration(lambda: sess.run(out, feed_dict=feed))
    return report(f"while_loop, {ITERATIONS} scalar adds: tensorflux Session (ns/iteration)", "ns", 1e9, ours,
                  _others())


def bench_while_loop_function() -> dict:
    """One call of a tx.function holding the While op, run eagerly."""
    import tensorflux as tx

    @tx.function
    def loop(n):
        return tx.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1.0), [0, 0.0])[1]

    n = tx.constant(ITERATIONS)
    _check(loop(n))
    ours = _per_iteration(lambda: loop(n).numpy())
    return report(f"while_loop, {ITERATIONS} scalar adds: tensorflux tx.function (ns/iteration)", "ns", 1e9, ours,
                  _others())


# The dynamic RNN of issue 7: tanh cell, 50 steps, batch 16, input 8, hidden 64, float32.
RNN_T, RNN_B, RNN_I, RNN_H = 50, 16, 8, 64


def _rnn_data() -> dict:
    rng = np.random.RandomState(0)
    return {"xs": rng.randn(RNN_T, RNN_B, RNN_I).astype(np.float32), "y": rng.randn(RNN_B, RNN_H).astype(np.float32),
            "w": (rng.randn(RNN_I, RNN_H) * 0.3).astype(np.float32),
            "u": (rng.randn(RNN_H, RNN_H) * 0.1).astype(np.float32), "b": np.zeros(RNN_H, np.float32)}


def _rnn_others(d: dict) -> dict:
    """Loss and gradients of the RNN in TensorFlow (tf.function, tf.while_loop), JAX (jit, lax.scan)
    and PyTorch (eager, Python loop); None when missing."""
    theirs = {}
    tf = _tf()
    if tf is not None:
        _tf_threads(tf)
        xs, y = tf.constant(d["xs"]), tf.constant(d["y"])
        params = [tf.Variable(d[k]) for k in ("w", "u", "b")]

        @tf.function
        def tf_step():
            with tf.GradientTape() as tape:
                w, u, b = params

                def body(t, h):
                    return t + 1, tf.tanh(tf.gather(xs, t) @ w + h @ u + b)

                _, h = tf.while_loop(lambda t, h: t < RNN_T, body, [0, tf.zeros([RNN_B, RNN_H])])
                loss = tf.reduce_mean(tf.square(h - y))
            return loss, tape.gradient(loss, params)

        tf_step()
        theirs["tensorflow tf.function"] = median_seconds(lambda: [g.numpy() for g in tf_step()[1]], repeats=REPEATS)
    else:
        theirs["tensorflow tf.function"] = None
    try:
        import jax
        import jax.numpy as jnp

        def jax_loss(p, xs, y):
            def step(h, x):
                return jnp.tanh(x @ p[0] + h @ p[1] + p[2]), None

            h, _ = jax.lax.scan(step, jnp.zeros((RNN_B, RNN_H), jnp.float32), xs)
            return jnp.mean(jnp.square(h - y))

        jax_step = jax.jit(jax.value_and_grad(jax_loss))
        p = [jnp.asarray(d[k]) for k in ("w", "u", "b")]
        xs, y = jnp.asarray(d["xs"]), jnp.asarray(d["y"])
        jax.block_until_ready(jax_step(p, xs, y))
        theirs["jax jit lax.scan"] = median_seconds(lambda: jax.block_until_ready(jax_step(p, xs, y)), repeats=REPEATS)
    except ImportError:
        theirs["jax jit lax.scan"] = None
    try:
        import torch

        torch.set_num_threads(2)
        tp = [torch.tensor(d[k], requires_grad=True) for k in ("w", "u", "b")]
        txs, ty = torch.tensor(d["xs"]), torch.tensor(d["y"])

        def torch_step():
            h = torch.zeros(RNN_B, RNN_H)
            for t in range(RNN_T):
                h = torch.tanh(txs[t] @ tp[0] + h @ tp[1] + tp[2])
            loss = torch.mean(torch.square(h - ty))
            return torch.autograd.grad(loss, tp)

        theirs["pytorch eager"] = median_seconds(torch_step, repeats=REPEATS)
    except ImportError:
        theirs["pytorch eager"] = None
    return theirs


def bench_rnn_forward_backward() -> dict:
    """Loss and gradients of the 50-step RNN built with tx.while_loop, one Session.run."""
    import tensorflux as tx

    d = _rnn_data()
    g = tx.Graph()
    with g.as_default():
        xs, y = tx.constant(d["xs"]), tx.constant(d["y"])
        params = [tx.Variable(d[k]) for k in ("w", "u", "b")]
        w, u, b = params

        def body(t, h):
            return t + 1, tx.tanh(tx.matmul(tx.gather(xs, t), w) + tx.matmul(h, u) + b)

        _, h = tx.while_loop(lambda t, h: t < RNN_T, body, [tx.constant(0), tx.zeros([RNN_B, RNN_H])])
        loss = tx.reduce_mean(tx.square(h - y))
        grads = tx.gradients(loss, params)
        init = tx.global_variables_initializer()
    sess = _tx_session(g)
    sess.run(init)
    fetches = [loss] + grads
    ours = median_seconds(lambda: sess.run(fetches), repeats=REPEATS)
    return report(f"RNN {RNN_T} steps, batch {RNN_B}, hidden {RNN_H}: loss + gradients (ms)", "ms", 1e3, ours,
                  _rnn_others(d))


ALL = [bench_while_loop_session, bench_while_loop_function, bench_rnn_forward_backward]

if __name__ == "__main__":
    for b in ALL:
        b()
