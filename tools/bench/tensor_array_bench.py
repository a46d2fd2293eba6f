"""TensorArray benchmarks: the loop of a Keras RNN layer, h = tanh(x_t + 0.5 * h) over n steps of
64 floats, reading x_t from a TensorArray unstacked from the input and writing h into another,
stacked at the end; as a tx.function (While over TensorLists) next to the same tf.function with
tf.TensorArray, in one run; forward, and forward plus the gradient of the stacked states. Times are
per step for n = 100, 1,000 and 10,000. The forward loop writes in place (Note [TensorList in
place]); in the backward loop each step's read gradient is a list of n (mostly unset) elements,
added into the accumulated one, so its per-step time grows with n, as TensorFlow's does."""

from __future__ import annotations

import numpy as np

from eager_bench import _tf_threads
from harness import median_seconds, report
from linalg_bench import cpu_model
from session_bench import _tf

WIDTH = 64
STEPS = (100, 1_000, 10_000)


def _repeats(n: int) -> int:
    return 7 if n <= 1_000 else 3


def _tx_fns():
    import tensorflux as tx

    def loop(x):
        n = tx.shape(x)[0]

        xs = tx.TensorArray(tx.float32, size=n, element_shape=[WIDTH]).unstack(x)

        def body(t, h, ta):
            h = tx.tanh(xs.read(t) + 0.5 * h)
            return t + 1, h, ta.write(t, h)

        ta = tx.TensorArray(tx.float32, size=n, element_shape=[WIDTH])
        return tx.while_loop(lambda t, h, ta: t < n, body, [0, tx.zeros([WIDTH]), ta])[2].stack()

    @tx.function
    def forward(x):
        return loop(x)

    @tx.function
    def backward(x):
        with tx.GradientTape() as tape:
            tape.watch(x)
            y = tx.reduce_sum(loop(x))
        return tape.gradient(y, x)

    return tx, forward, backward


def _tf_fns(tf):
    def loop(x):
        n = tf.shape(x)[0]

        xs = tf.TensorArray(tf.float32, size=n, element_shape=[WIDTH]).unstack(x)

        def body(t, h, ta):
            h = tf.tanh(xs.read(t) + 0.5 * h)
            return t + 1, h, ta.write(t, h)

        ta = tf.TensorArray(tf.float32, size=n, element_shape=[WIDTH])
        return tf.while_loop(lambda t, h, ta: t < n, body, [0, tf.zeros([WIDTH]), ta])[2].stack()

    @tf.function
    def forward(x):
        return loop(x)

    @tf.function
    def backward(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(loop(x))
        return tape.gradient(y, x)

    return forward, backward


def _bench(which: str) -> list:
    print(f"TensorArray benchmarks on {cpu_model()}", flush=True)
    tx, tx_fwd, tx_bwd = _tx_fns()
    tf = _tf()
    tf_fns = None
    if tf is not None:
        _tf_threads(tf)
        tf_fns = _tf_fns(tf)
    results = []
    for n in STEPS:
        x = np.random.default_rng(0).standard_normal((n, WIDTH)).astype(np.float32)
        xt = tx.constant(x)
        ours_fn = tx_fwd if which == "forward" else tx_bwd
        ours = median_seconds(lambda: ours_fn(xt).numpy(), repeats=_repeats(n)) / n
        theirs = {"tensorflow tf.function": None}
        if tf_fns is not None:
            xf = tf.constant(x)
            theirs_fn = tf_fns[0] if which == "forward" else tf_fns[1]
            np.testing.assert_allclose(ours_fn(xt).numpy(), theirs_fn(xf).numpy(), rtol=1e-4, atol=1e-5)
            theirs["tensorflow tf.function"] = median_seconds(lambda: theirs_fn(xf).numpy(), repeats=_repeats(n)) / n
        results.append(report(f"TensorArray loop {which}, {n} steps of {WIDTH} floats (us/step)", "us", 1e6, ours,
                              theirs))
    return results


def bench_tensor_array_forward() -> list:
    """Writes n steps into a TensorArray in a While loop and stacks them."""
    return _bench("forward")


def bench_tensor_array_backward() -> list:
    """The same loop and the gradient of the sum of the stacked states."""
    return _bench("backward")


ALL = [bench_tensor_array_forward, bench_tensor_array_backward]

if __name__ == "__main__":
    for b in ALL:
        b()
