"""Loop fusion (Note [Loop fusion]): plans that run groups of elementwise ops as one loop kernel give
the values and the errors of plans that do not, in sessions and in tx.function calls, and leave
graphs and GraphDefs plain."""

import numpy as np
import pytest

import tensorflux as tx

RNG = np.random.default_rng(7)
OFF = {"graph_options": {"rewrite_options": {"remapping": "OFF"}}}
FULL_TRACE = tx.RunOptions(trace_level=tx.RunOptions.FULL_TRACE)


def _run_both(build, arrays, fetch_count=1):
    """Runs build(*placeholders) with fusion on and off; returns both results and the fused run's
    op types (from its step stats)."""
    g = tx.Graph()
    with g.as_default():
        phs = [tx.placeholder(tx.as_dtype(a.dtype), shape=s) for a, s in arrays]
        outs = build(*phs)
    feed = {p: a for p, (a, _) in zip(phs, arrays)}
    meta = tx.RunMetadata()
    with tx.Session(graph=g) as sess:
        fused = sess.run(outs, feed_dict=feed, options=FULL_TRACE, run_metadata=meta)
    with tx.Session(graph=g, config=OFF) as sess:
        plain = sess.run(outs, feed_dict=feed)
    ops = [n.timeline_label.split(" = ")[1].split("(")[0] for n in meta.step_stats.dev_stats[0].node_stats]
    return fused, plain, ops, g


def _chain(x, b):
    y = x
    for i in range(10):
        y = y * 1.0001 + x if i % 2 == 0 else y - x * 0.5
    return tx.tanh(y + b)


CASES = {
    "chain_with_bias_row": (lambda x, b: _chain(x, b), [((64, 33), (64, 33)), ((33,), (33,))]),
    "scalar_and_column": (lambda x, c: tx.maximum(2.0 - x * c, tx.exp(x)), [((5, 7), (5, 7)), ((5, 1), (5, 1))]),
    "activations": (lambda x: tx.nn.leaky_relu(tx.nn.elu(x) * tx.sigmoid(x), alpha=0.3) + tx.nn.relu6(x * 4.0),
                    [((1000,), (1000,))]),
    "unknown_shapes": (lambda x, y: tx.sqrt(tx.abs(x + y)) * -1.0, [((3, 4), (None, None)), ((4,), (None,))]),
    "doubles": (lambda x: tx.square(x) - tx.math.log1p(tx.abs(x)), [((257,), (257,))]),
    "add_n": (lambda x, y: tx.add_n([x * 2.0, y, x * y]), [((6,), (6,)), ((6,), (6,))]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fused_values_equal_unfused(name):
    build, specs = CASES[name]
    dtype = np.float64 if name == "doubles" else np.float32
    arrays = [(RNG.standard_normal(shape).astype(dtype), static) for shape, static in specs]
    fused, plain, ops, _ = _run_both(build, arrays)
    assert "_FusedElementwise" in ops
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-7)


# Repeated rows (Note [Fused programs]): rows shorter and longer than a block (512 floats, 256
# doubles), not dividing it, at the tiling limit (16 KiB) and past it (gathered instead), in loops
# small enough for one thread and large enough to be split over the pool at any phase of the row.
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows,row", [(7, 3), (5, 96), (300, 96), (3, 511), (2, 513), (40, 1280), (9, 4096),
                                      (9, 4097), (70, 2048)])
def test_repeated_rows_equal_unfused(dtype, rows, row):
    x = (RNG.standard_normal((rows, 1, row)).astype(dtype), (rows, 1, row))
    scale = (RNG.standard_normal((1, row)).astype(dtype), (1, row))
    shift = (RNG.standard_normal((row,)).astype(dtype), (row,))
    fused, plain, ops, _ = _run_both(lambda x, a, b: tx.nn.relu6(x * a + b) * tx.sigmoid(x - b), [x, scale, shift])
    assert "_FusedElementwise" in ops
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-7)


def test_more_repeated_rows_than_tiled_ones_equal_unfused():
    # Past kMaxRows repeated rows, the further ones are gathered per block.
    arrays = [(RNG.standard_normal((33, 100)).astype(np.float32), (33, 100))]
    arrays += [(RNG.standard_normal((100,)).astype(np.float32), (100,)) for _ in range(11)]

    def build(x, *rows):
        y = x
        for r in rows:
            y = y * 0.5 + r
        return y

    fused, plain, ops, _ = _run_both(build, arrays)
    assert "_FusedElementwise" in ops
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-6)


def test_chain_runs_as_one_kernel_and_graph_def_stays_plain():
    arrays = [(RNG.standard_normal((4,)).astype(np.float32), (4,))]

    def build(x):
        y = x
        for _ in range(100):
            y = y + 1.0
        return y

    fused, plain, ops, g = _run_both(build, arrays)
    np.testing.assert_array_equal(fused, plain)
    assert ops.count("_FusedElementwise") == 1 and "AddV2" not in ops
    assert all(n.op != "_FusedElementwise" for n in g.as_graph_def().node)


def test_errors_equal_unfused():
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32, [None], name="x")
        y = tx.placeholder(tx.float32, [None], name="y")
        z = tx.negative(tx.exp(x) + y, name="z")
    feed = {x: np.ones(3, np.float32), y: np.ones(2, np.float32)}
    errors = []
    for config in (None, OFF):
        with tx.Session(graph=g, config=config) as sess:
            with pytest.raises(tx.errors.InvalidArgumentError) as e:
                sess.run(z, feed_dict=feed)
            errors.append(e.value.message)
            # The session stays usable.
            np.testing.assert_allclose(sess.run(z, {x: [0.0], y: [1.0, 2.0]}), [-2.0, -3.0])
    assert errors[0] == errors[1]
    assert errors[0].startswith("[add] Incompatible shapes: [3] vs. [2]")


@pytest.mark.eager
def test_tx_function_body_chain_is_one_fused_kernel():
    """A function body's plan is built like a session's: its 100-add chain is one loop kernel (the
    body graph, run in a traced session, shows it), and calls give the unfused values."""
    @tx.function
    def chain(v):
        for _ in range(100):
            v = v + 1.0
        return v

    x = tx.constant(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(chain(x).numpy(), np.arange(4) + 100.0)
    concrete = chain.get_concrete_function(x)
    meta = tx.RunMetadata()
    with tx.Session(graph=concrete.graph) as sess:  # tensors by name: eager tensors are unhashable
        y = sess.run(concrete.outputs[0].name, {concrete.inputs[0].name: np.arange(4, dtype=np.float32)},
                     options=FULL_TRACE, run_metadata=meta)
    np.testing.assert_array_equal(y, np.arange(4) + 100.0)
    ops = [n.timeline_label.split(" = ")[1].split("(")[0] for n in meta.step_stats.dev_stats[0].node_stats]
    assert ops.count("_FusedElementwise") == 1 and "AddV2" not in ops
    tx.config.optimizer.set_experimental_options({"remapping": False})
    try:
        @tx.function
        def plain_chain(v):
            for _ in range(100):
                v = v + 1.0
            return v

        np.testing.assert_array_equal(plain_chain(x).numpy(), chain(x).numpy())
    finally:
        tx.config.optimizer.set_experimental_options({"remapping": True})


def _adamw_steps(steps=3):
    w = tx.Variable(np.linspace(-1, 1, 40, dtype=np.float32).reshape(8, 5))
    opt = tx.optimizers.AdamW(learning_rate=0.05, weight_decay=0.1)
    x = tx.constant(RNG.standard_normal((16, 8)).astype(np.float32))

    @tx.function
    def step():
        with tx.GradientTape() as tape:
            loss = tx.reduce_mean(tx.tanh(tx.matmul(x, w)) ** 2)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    losses = [float(step()) for _ in range(steps)]
    return w.numpy(), losses


@pytest.mark.eager
def test_adamw_training_equals_unfused():
    state = RNG.bit_generator.state
    fused_w, fused_losses = _adamw_steps()
    RNG.bit_generator.state = state
    tx.config.optimizer.set_experimental_options({"remapping": False})
    try:
        plain_w, plain_losses = _adamw_steps()
    finally:
        tx.config.optimizer.set_experimental_options({"remapping": True})
    np.testing.assert_allclose(fused_w, plain_w, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fused_losses, plain_losses, rtol=1e-6)


def test_optimizer_options_reject_unknown_names():
    assert tx.config.optimizer.get_experimental_options() == {"remapping": True}
    with pytest.raises(ValueError, match="Unknown optimizer option 'constant_folding'"):
        tx.config.optimizer.set_experimental_options({"constant_folding": False})
