"""Eager benchmarks (issue 6): the per-op overhead of a tiny op run eagerly from Python, next to
PyTorch eager, TensorFlow eager (tf.add and tf.raw_ops.AddV2) and JAX op-by-op, in one run."""

from __future__ import annotations

import numpy as np

from harness import median_seconds, report
from session_bench import _tf

INNER = 2000


def _tf_threads(tf):
    """The same thread counts as everywhere else, set before TensorFlow's eager context starts."""
    try:
        tf.config.threading.set_intra_op_parallelism_threads(2)
        tf.config.threading.set_inter_op_parallelism_threads(2)
    except RuntimeError:
        pass


def _us_per_op(fn):
    return median_seconds(lambda: [fn() for _ in range(INNER)], repeats=15, inner=1) / INNER


def _tiny_add(expr: str) -> dict:
    import tensorflux as tx

    a = tx.constant(np.ones(4, np.float32))
    b = tx.constant(np.ones(4, np.float32))
    ours = _us_per_op((lambda: a + b) if expr == "a + b" else (lambda: tx.add(a, b)))
    theirs = {}
    try:
        import torch

        x, y = torch.ones(4), torch.ones(4)
        theirs["pytorch eager"] = _us_per_op((lambda: x + y) if expr == "a + b" else (lambda: torch.add(x, y)))
    except ImportError:
        theirs["pytorch eager"] = None
    tf = _tf()
    if tf is not None:
        _tf_threads(tf)
        x, y = tf.ones([4]), tf.ones([4])
        theirs["tensorflow eager"] = _us_per_op((lambda: x + y) if expr == "a + b" else (lambda: tf.add(x, y)))
        theirs["tensorflow eager raw_ops"] = _us_per_op(lambda: tf.raw_ops.AddV2(x=x, y=y))
    else:
        theirs["tensorflow eager"] = None
    try:
        import jax.numpy as jnp

        x, y = jnp.ones(4), jnp.ones(4)
        theirs["jax op-by-op"] = _us_per_op((lambda: x + y) if expr == "a + b" else (lambda: jnp.add(x, y)))
    except ImportError:
        theirs["jax op-by-op"] = None
    title = f"eager tiny op: {expr} on float32[4] (us/op)"
    return report(title, "us", 1e6, ours, theirs)


def bench_eager_add_operator() -> dict:
    return _tiny_add("a + b")


def bench_eager_add_function() -> dict:
    return _tiny_add("add(a, b)")


def bench_function_call_chain() -> dict:
    """One call of a compiled chain of 100 adds on float32[4]."""
    import tensorflux as tx

    def chain(x, lib):
        for _ in range(100):
            x = lib(x)
        return x

    f = tx.function(lambda x: chain(x, lambda v: v + 1.0))
    x = tx.constant(np.ones(4, np.float32))
    f(x)
    ours = _us_per_call(lambda: f(x))
    theirs = {}
    tf = _tf()
    if tf is not None:
        _tf_threads(tf)
        g = tf.function(lambda v: chain(v, lambda u: u + 1.0))
        xt = tf.ones([4])
        g(xt)
        theirs["tensorflow tf.function"] = _us_per_call(lambda: g(xt))
    else:
        theirs["tensorflow tf.function"] = None
    try:
        import jax
        import jax.numpy as jnp

        j = jax.jit(lambda v: chain(v, lambda u: u + 1.0))
        xj = jnp.ones(4)
        j(xj).block_until_ready()
        theirs["jax jit"] = _us_per_call(lambda: j(xj).block_until_ready())
    except ImportError:
        theirs["jax jit"] = None
    return report("compiled call: a chain of 100 adds on float32[4] (us/call)", "us", 1e6, ours, theirs)


def _us_per_call(fn):
    return median_seconds(lambda: [fn() for _ in range(50)], repeats=15, inner=1) / 50


ALL = [bench_eager_add_operator, bench_eager_add_function, bench_function_call_chain]

if __name__ == "__main__":
    for b in ALL:
        b()
