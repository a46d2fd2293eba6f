"""Training-step benchmarks (issue 5): forward + backward + Adam update, float32, against
TensorFlow (tf.function), PyTorch (eager) and JAX (jit) when installed; and the MLP step under
the mixed_bfloat16 policy next to our float32 step (issue 22)."""

from __future__ import annotations

import numpy as np

from harness import median_seconds, report
from linalg_bench import cpu_model
from session_bench import THREADS, _tf, _tx_session
from train_bench_others import jax_step, torch_step

MLP = [784, 512, 512, 10]


def _tx_mlp_step(batch, compute="float32"):
    """The MLP's Adam step in a Session. With compute="bfloat16" it is built as the mixed_bfloat16
    policy builds it: float32 variables cast to bfloat16 on every step, the input cast too, every
    layer in bfloat16, the logits cast back to float32 for the loss."""
    import tensorflux as tx
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32, [None, MLP[0]])
        y = tx.placeholder(tx.int32, [None])
        dt = tx.as_dtype(compute)
        h = tx.cast(x, dt)
        for i, (a, b) in enumerate(zip(MLP[:-1], MLP[1:])):
            w = tx.Variable(tx.initializers.glorot_uniform(seed=i)([a, b]))
            bias = tx.Variable(tx.zeros([b]))
            h = tx.nn.bias_add(tx.matmul(h, tx.cast(w, dt)), tx.cast(bias, dt))
            if i < len(MLP) - 2:
                h = tx.nn.relu(h)
        logits = tx.cast(h, tx.float32)
        loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tx.optimizers.Adam(1e-3).minimize(loss)
        init = tx.global_variables_initializer()
    sess = _tx_session(g)
    sess.run(init)
    return lambda xv, yv: sess.run(train, {x: xv, y: yv})


def _tx_cnn_step():
    import tensorflux as tx
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32, [None, 32, 32, 3])
        y = tx.placeholder(tx.int32, [None])
        h = x
        for i, (cin, cout) in enumerate(((3, 32), (32, 64))):
            k = tx.Variable(tx.initializers.he_normal(seed=i)([3, 3, cin, cout]))
            h = tx.nn.max_pool2d(tx.nn.relu(tx.nn.conv2d(h, k, strides=1, padding="SAME")), 2, 2, "VALID")
        w = tx.Variable(tx.initializers.glorot_uniform(seed=9)([8 * 8 * 64, 10]))
        logits = tx.matmul(tx.reshape(h, [-1, 8 * 8 * 64]), w)
        loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tx.optimizers.Adam(1e-3).minimize(loss)
        init = tx.global_variables_initializer()
    sess = _tx_session(g)
    sess.run(init)
    return lambda xv, yv: sess.run(train, {x: xv, y: yv})


def _tx_eager_model(kind):
    """Eager Variables and a forward function for the MLP or the CNN of the benchmarks."""
    import tensorflux as tx
    params = []
    if kind == "mlp":
        for i, (a, b) in enumerate(zip(MLP[:-1], MLP[1:])):
            params += [tx.Variable(tx.initializers.glorot_uniform(seed=i)([a, b])), tx.Variable(tx.zeros([b]))]

        def forward(x):
            h = x
            for i in range(0, len(params), 2):
                h = tx.nn.bias_add(tx.matmul(h, params[i]), params[i + 1])
                if i < len(params) - 2:
                    h = tx.nn.relu(h)
            return h
    else:
        for i, (cin, cout) in enumerate(((3, 32), (32, 64))):
            params.append(tx.Variable(tx.initializers.he_normal(seed=i)([3, 3, cin, cout])))
        params.append(tx.Variable(tx.initializers.glorot_uniform(seed=9)([8 * 8 * 64, 10])))

        def forward(x):
            h = x
            for k in params[:2]:
                h = tx.nn.max_pool2d(tx.nn.relu(tx.nn.conv2d(h, k, strides=1, padding="SAME")), 2, 2, "VALID")
            return tx.matmul(tx.reshape(h, [-1, 8 * 8 * 64]), params[2])
    return params, forward


def _tx_eager_step(kind, compiled=False):
    """The train step in eager mode (GradientTape + Adam), or wrapped in tx.function."""
    import tensorflux as tx
    from tensorflux._src import context
    if not context._c.eager_initialized():
        context.configure(intra_op_threads=THREADS, inter_op_threads=THREADS)
    params, forward = _tx_eager_model(kind)
    opt = tx.optimizers.Adam(1e-3)

    def step(x, y):
        with tx.GradientTape() as tape:
            loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=forward(x)))
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    run = tx.function(step) if compiled else step

    def call(xv, yv):
        return run(tx.constant(xv), tx.constant(yv)).numpy()
    return call


def _tf_step(tf, kind):
    try:
        tf.config.threading.set_intra_op_parallelism_threads(THREADS)
        tf.config.threading.set_inter_op_parallelism_threads(THREADS)
    except RuntimeError:  # TensorFlow's context already exists (an earlier benchmark in this process)
        pass
    if kind == "mlp":
        layers = [tf.keras.layers.Dense(512, activation="relu"), tf.keras.layers.Dense(512, activation="relu"),
                  tf.keras.layers.Dense(10)]
    else:
        layers = [tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"), tf.keras.layers.MaxPooling2D(2),
                  tf.keras.layers.Conv2D(64, 3, padding="same", activation="relu"), tf.keras.layers.MaxPooling2D(2),
                  tf.keras.layers.Flatten(), tf.keras.layers.Dense(10, use_bias=False)]
    model = tf.keras.Sequential(layers)
    opt = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def step(xv, yv):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yv, logits=model(xv)))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return lambda xv, yv: step(xv, yv).numpy()


def _bench(kind, batch, shape):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((batch,) + shape).astype(np.float32)
    yv = rng.integers(0, 10, batch).astype(np.int32)
    ours_step = _tx_mlp_step(batch) if kind == "mlp" else _tx_cnn_step()
    ours = median_seconds(lambda: ours_step(xv, yv), repeats=20, inner=3)
    theirs = {}
    eager = _tx_eager_step(kind)
    theirs["tensorflux eager"] = median_seconds(lambda: eager(xv, yv), repeats=20, inner=3)
    try:
        compiled = _tx_eager_step(kind, compiled=True)
        theirs["tensorflux tx.function"] = median_seconds(lambda: compiled(xv, yv), repeats=20, inner=3)
    except AttributeError:  # no tx.function yet
        theirs["tensorflux tx.function"] = None
    tf = _tf()
    if tf is not None:
        s = _tf_step(tf, kind)
        theirs["tensorflow tf.function"] = median_seconds(lambda: s(xv, yv), repeats=20, inner=3)
    for name, make in (("pytorch eager", torch_step), ("jax jit", jax_step)):
        s = make(kind, xv, yv)
        theirs[name] = median_seconds(s, repeats=20, inner=3) if s is not None else None
    title = ("train step MLP 784-512-512-10, batch 128, Adam (tensorflux: graph mode + Session)" if kind == "mlp"
             else "train step CNN 32x32x3 (conv32-pool-conv64-pool-dense10), batch 32, Adam (tensorflux: graph mode + "
             "Session)")
    return report(f"{title} ({THREADS} threads)", "ms", 1e3, ours, theirs)


def bench_train_mlp() -> dict:
    return _bench("mlp", 128, (784,))


def bench_train_cnn() -> dict:
    return _bench("cnn", 32, (32, 32, 3))


_RSS_CHILD = r"""
import sys
sys.path.insert(0, {here!r})
import numpy as np
import train_bench as tb
rng = np.random.default_rng(0)
xv = rng.standard_normal((128, 784)).astype(np.float32)
yv = rng.integers(0, 10, 128).astype(np.int32)
if {which!r} == "tensorflux":
    step = tb._tx_mlp_step(128)
    run = lambda: step(xv, yv)
else:
    import tensorflow as tf
    step = tb._tf_step(tf, "mlp")
    run = lambda: step(xv, yv)
for _ in range(200):
    run()
# VmHWM (this process image's peak); ru_maxrss would carry the forking parent's peak over exec.
print([l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")][0])
"""


def bench_train_mlp_peak_rss() -> dict:
    """Peak resident memory of a process training the MLP for 200 Adam steps (MiB; smaller is better)."""
    import pathlib
    import subprocess
    import sys

    here = str(pathlib.Path(__file__).parent)

    def peak(which):
        out = subprocess.run([sys.executable, "-c", _RSS_CHILD.format(here=here, which=which)], capture_output=True,
                             text=True, check=True).stdout.split()
        return int(out[-1]) / 1024.0  # KiB -> MiB

    ours = peak("tensorflux")
    theirs = {"tensorflow": peak("tensorflow") if _tf() is not None else None}
    return report("peak RSS: training the MLP for 200 Adam steps (MiB)", "MiB", 1.0, ours, theirs)


def _tx_keras_mlp_step(policy):
    """The MLP as tx.keras Dense layers created under dtype policy ``policy``, trained by a
    tx.function step (GradientTape + Adam; logits cast to float32 for the loss)."""
    import tensorflux as tx
    from tensorflux._src import context
    if not context._c.eager_initialized():
        context.configure(intra_op_threads=THREADS, inter_op_threads=THREADS)
    k = tx.keras
    k.mixed_precision.set_global_policy(policy)
    try:
        k.utils.set_random_seed(0)
        model = k.Sequential([k.Input((MLP[0],))] + [k.layers.Dense(n, activation="relu") for n in MLP[1:-1]] +
                             [k.layers.Dense(MLP[-1])])
    finally:
        k.mixed_precision.set_global_policy(None)
    opt = tx.optimizers.Adam(1e-3)

    @tx.function(input_signature=[tx.TensorSpec([None, MLP[0]]), tx.TensorSpec([None], tx.int32)])
    def step(xb, yb):
        with tx.GradientTape() as tape:
            logits = tx.cast(model(xb, training=True), tx.float32)
            loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits))
        variables = model.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    return lambda xv, yv: step(xv, yv).numpy()


def bench_train_mlp_bf16() -> list:
    """The MLP's Adam step in float32 and under mixed_bfloat16 (float32 master weights, bfloat16
    compute), in a Session and as tx.keras + tx.function, batches 128 and 512. The two steps of a
    row are timed alternately, sample by sample, so both see the same machine load."""
    print(f"mixed_bfloat16 MLP train step on {cpu_model()} ({THREADS} threads)", flush=True)
    rows = []
    for batch in (128, 512):
        rng = np.random.default_rng(0)
        xv = rng.standard_normal((batch, MLP[0])).astype(np.float32)
        yv = rng.integers(0, 10, batch).astype(np.int32)
        for how, make in (("Session", lambda c: _tx_mlp_step(batch, c)),
                          ("tx.keras + tx.function", lambda c: _tx_keras_mlp_step(
                              "mixed_bfloat16" if c == "bfloat16" else c))):
            steps = {c: make(c) for c in ("float32", "bfloat16")}
            samples = {c: [] for c in steps}
            for _ in range(9):
                for c, s in steps.items():
                    samples[c].append(median_seconds(lambda: s(xv, yv), repeats=3, inner=5, warmup=2))
            f32, b16 = (float(np.median(samples[c])) for c in ("float32", "bfloat16"))
            ratios = np.array(samples["float32"]) / np.array(samples["bfloat16"])  # pairs timed back to back
            rows.append(report(f"train step MLP 784-512-512-10 Adam, batch {batch}, mixed_bfloat16 ({how})", "ms",
                               1e3, b16, {"tensorflux float32": f32}))
            print(f"    float32 / bfloat16 step: {f32 / b16:.2f} (pairs: {ratios.min():.2f}-{ratios.max():.2f})",
                  flush=True)
    return rows


ALL = [bench_train_mlp, bench_train_cnn, bench_train_mlp_peak_rss, bench_train_mlp_bf16]
