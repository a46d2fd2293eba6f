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


ALL = [bench_while_loop_session, bench_while_loop_function]

if __name__ == "__main__":
    for b in ALL:
        b()
