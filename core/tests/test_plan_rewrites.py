"""Plan rewrites that leave graphs plain: Conv2D epilogue fusion (Note [Conv2D epilogues] in
csrc/tensorflux/passes/conv_fusion.cc) and constant folding (Note [Plan constant folding] in
constant_folding.cc). A fused chain must give the unfused values bit for bit, fall back to the
members' own kernels (values and errors) when an operand does not suit the epilogue, and a folded
node must behave as if it ran on every run."""

import numpy as np
import pytest

import tensorflux as tx

RNG = np.random.default_rng(23)


def _conv_chain(x_shape, m=16, residual_shape=None, sub_from=False):
    """x -> Conv2D -> BiasAdd -> Mul(per-channel) -> Sub (x - c, or c - x) -> [AddV2 residual] -> Relu6.
    Returns (placeholders, conv output, chain output)."""
    c = x_shape[-1]
    w = RNG.standard_normal((3, 3, c, m)).astype(np.float32)
    x = tx.compat.v1.placeholder(tx.float32, x_shape)
    conv = tx.nn.conv2d(x, tx.constant(w), strides=1, padding="SAME")
    y = tx.nn.bias_add(conv, tx.constant(RNG.standard_normal(m).astype(np.float32)))
    y = y * tx.constant(RNG.uniform(0.5, 2, (1, 1, 1, m)).astype(np.float32))
    shift = tx.constant(RNG.standard_normal(m).astype(np.float32))
    y = shift - y if sub_from else y - shift
    feeds = [x]
    if residual_shape is not None:
        r = tx.compat.v1.placeholder(tx.float32, residual_shape)
        feeds.append(r)
        y = y + r
    return feeds, conv, tx.nn.relu6(y)


@pytest.mark.parametrize("sub_from", [False, True], ids=["x-c", "c-x"])
@pytest.mark.parametrize("m", [16, 12], ids=["direct", "im2col"])
def test_fused_chain_equals_unfused_bit_for_bit(sub_from, m):
    x = RNG.standard_normal((2, 5, 6, 8)).astype(np.float32)
    r = RNG.standard_normal((2, 5, 6, m)).astype(np.float32)
    with tx.Graph().as_default(), tx.compat.v1.Session() as sess:
        (xp, rp), conv, out = _conv_chain(x.shape, m, r.shape, sub_from)
        fused = sess.run(out, {xp: x, rp: r})
        unfused, _ = sess.run([out, conv], {xp: x, rp: r})  # fetching the conv keeps the chain apart
    np.testing.assert_array_equal(fused, unfused)
    assert 0 < np.count_nonzero(fused) < fused.size and np.any(fused == 6)  # both clamps were exercised


def test_operand_that_broadcasts_falls_back_to_the_members():
    # The conv output [1,...] plus a [3,...] residual broadcasts to [3,...]: not an epilogue.
    x = RNG.standard_normal((1, 4, 4, 8)).astype(np.float32)
    r = RNG.standard_normal((3, 4, 4, 16)).astype(np.float32)
    with tx.Graph().as_default(), tx.compat.v1.Session() as sess:
        (xp, rp), conv, out = _conv_chain(x.shape, 16, [None, 4, 4, 16])
        fused = sess.run(out, {xp: x, rp: r})
        unfused, _ = sess.run([out, conv], {xp: x, rp: r})
    assert fused.shape == (3, 4, 4, 16)
    np.testing.assert_array_equal(fused, unfused)


def test_member_error_names_the_member_and_the_session_stays_usable():
    x = RNG.standard_normal((1, 4, 4, 8)).astype(np.float32)
    with tx.Graph().as_default(), tx.compat.v1.Session() as sess:
        (xp, rp), _, out = _conv_chain(x.shape, 16, [None, None, None, None])
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[add\]"):
            sess.run(out, {xp: x, rp: np.zeros((1, 4, 4, 3), np.float32)})
        good = sess.run(out, {xp: x, rp: np.zeros((1, 4, 4, 16), np.float32)})
    assert good.shape == (1, 4, 4, 16)


@pytest.mark.eager
def test_fused_training_step_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.standard_normal((2, 6, 6, 8)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 8, 16)).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)

    def grads(lib):
        wv, bv = lib.Variable(w), lib.Variable(b)

        @lib.function
        def step(x):
            with lib.GradientTape() as tape:
                y = lib.nn.relu(lib.nn.bias_add(lib.nn.conv2d(x, wv, 1, "SAME"), bv))
                loss = lib.reduce_sum(y * y)
            return tape.gradient(loss, [wv, bv])
        return [g.numpy() for g in step(lib.constant(x))]

    ours = grads(tx)
    theirs = grads(tf)
    for a, b_ in zip(ours, theirs):
        np.testing.assert_allclose(a, b_, rtol=1e-4, atol=1e-3)


def test_folded_values_match_and_feeds_override_them():
    v = np.array([4.0, 9.0, 16.0], np.float32)
    with tx.Graph().as_default(), tx.compat.v1.Session() as sess:
        c = tx.constant(v)
        inner = tx.math.rsqrt(c + 0.0)
        out = tx.reshape(inner * 2.0, [1, 3])
        np.testing.assert_allclose(sess.run(out), (2 / np.sqrt(v)).reshape(1, 3), rtol=1e-6)
        # A fed endpoint replaces the folded value, for that run only.
        np.testing.assert_allclose(sess.run(out, {inner: np.ones(3, np.float32)}), [[2.0, 2.0, 2.0]])
        np.testing.assert_allclose(sess.run(out), (2 / np.sqrt(v)).reshape(1, 3), rtol=1e-6)


def test_stateful_ops_are_not_folded():
    with tx.Graph().as_default(), tx.compat.v1.Session() as sess:
        r = tx.random.uniform([8]) * tx.constant(2.0)
        assert not np.array_equal(sess.run(r), sess.run(r))


def test_folding_error_surfaces_at_run_time_naming_the_node():
    with tx.Graph().as_default(), tx.compat.v1.Session() as sess:
        index = tx.math.abs(tx.constant([-7]))  # past static shape inference, folded at plan build
        bad = tx.gather(tx.constant(np.arange(6, dtype=np.float32)), index, name="bad_gather")
        good = tx.constant(1.0) + 1.0
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[bad_gather\]"):
            sess.run(bad)
        assert sess.run(good) == 2.0
