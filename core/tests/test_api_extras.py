"""Top-level and tx.nn names added for TensorFlow parity (tensor utilities, saturate_cast,
space_to_batch_nd, initializer aliases, crelu, log_poisson_loss, sufficient_statistics,
compute_average_loss, scale_regularization_loss): against NumPy always, TensorFlow when present."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def _tf():
    return pytest.importorskip("tensorflow")


def test_is_tensor_and_get_static_value():
    assert tx.is_tensor(tx.constant(1.0)) and tx.is_tensor(tx.Variable(1.0))
    assert tx.is_tensor(tx.SparseTensor([[0]], [1.0], [2]))
    assert not tx.is_tensor(np.ones(2)) and not tx.is_tensor([1.0])
    np.testing.assert_array_equal(tx.get_static_value(tx.constant([1, 2])), [1, 2])
    assert tx.get_static_value(3) == 3
    with tx.Graph().as_default():
        c = tx.constant([4.0])
        np.testing.assert_array_equal(tx.get_static_value(c), [4.0])
        p = tx.compat.v1.placeholder(tx.float32, [2])
        assert tx.get_static_value(p) is None
        assert tx.get_static_value(tx.add(c, c)) is None


def test_broadcast_static_shape_and_shape_n():
    assert tx.broadcast_static_shape(tx.TensorShape([5, 1, 3]), tx.TensorShape([4, 1])).as_list() == [5, 4, 3]
    assert tx.broadcast_static_shape(tx.TensorShape([None, 3]), tx.TensorShape([1, 3])).as_list() == [None, 3]
    assert tx.broadcast_static_shape(tx.TensorShape(None), tx.TensorShape([3])).rank is None
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tx.broadcast_static_shape(tx.TensorShape([2]), tx.TensorShape([3]))
    shapes = tx.shape_n([tx.zeros([2, 3]), tx.zeros([]), tx.zeros([1, 1, 4])], out_type=tx.int64)
    assert [s.numpy().tolist() for s in shapes] == [[2, 3], [], [1, 1, 4]]
    assert shapes[0].dtype == tx.int64


def _in_source_range(v, src):
    """v clipped into dtype src's range (integers well inside, so the float clip cannot overflow)."""
    if np.dtype(src).kind == "f":
        info = np.finfo(src)
        return np.clip(v, float(info.min), float(info.max)).astype(src)
    info = np.iinfo(src)
    return np.clip(v, max(float(info.min), -2.0**62), min(float(info.max), 2.0**62)).astype(src)


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "uint8"), ("float64", "int64"),
                                     ("int64", "int8"), ("int32", "uint16"), ("float64", "float32"),
                                     ("uint8", "int8")])
def test_saturate_cast_clamps(src, dst):
    v = np.array([-1e30, -3e9, -300, -1.5, 0, 2.7, 200, 70000, 3e9, 1e30], np.float64)
    v = _in_source_range(v, src)
    got = tx.saturate_cast(tx.constant(v), tx.as_dtype(dst)).numpy()
    assert got.dtype == np.dtype(dst)
    dinfo = np.finfo(dst) if np.dtype(dst).kind == "f" else np.iinfo(dst)
    inside = (v.astype(np.float64) >= float(dinfo.min)) & (v.astype(np.float64) <= float(dinfo.max))
    np.testing.assert_array_equal(got[inside], v[inside].astype(dst))  # in range: a plain cast
    # Out of range: the nearest end of the range (within the source type's rounding).
    big, small = v.astype(np.float64) > float(dinfo.max), v.astype(np.float64) < float(dinfo.min)
    assert np.all(got[big].astype(np.float64) >= float(dinfo.max) * (1 - 1e-6))
    assert np.all(got[small].astype(np.float64) <= float(dinfo.min) * (1 - 1e-6))


# float64 -> int64 is left out: TensorFlow clamps to float64(2**63 - 1) == 2**63, which wraps to
# -2**63 in the cast; here the clamp steps back to the largest float64 below 2**63.
@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "uint8"), ("int64", "int8"),
                                     ("float64", "float32"), ("float64", "int32")])
def test_saturate_cast_equals_tensorflow(src, dst):
    tf = _tf()
    v = np.array([-1e30, -3e9, -300, -1.5, 0, 2.7, 200, 70000, 3e9, 1e30], np.float64)
    v = _in_source_range(v, src)
    np.testing.assert_array_equal(tx.saturate_cast(tx.constant(v), tx.as_dtype(dst)).numpy(),
                                  tf.saturate_cast(v, dst).numpy())


def test_space_to_batch_nd_and_initializer_aliases():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    y = tx.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
    np.testing.assert_array_equal(tx.batch_to_space(y, [2, 2], [[0, 0], [0, 0]]).numpy(), x)
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], x[0, ::2, ::2, 0])
    assert float(tx.reduce_sum(tx.zeros_initializer()([3]))) == 0.0
    assert float(tx.reduce_sum(tx.ones_initializer()([3]))) == 3.0
    np.testing.assert_array_equal(tx.constant_initializer(2.5)([2]).numpy(), [2.5, 2.5])
    u = tx.random_uniform_initializer(-1.0, 1.0, seed=3)([500]).numpy()
    assert u.min() >= -1 and u.max() < 1
    n = tx.random_normal_initializer(mean=1.0, stddev=0.1, seed=3)([2000]).numpy()
    assert abs(n.mean() - 1.0) < 5 * 0.1 / np.sqrt(2000)


def test_nn_composites_against_numpy():
    x = np.array([[1.5, -2.0, 0.0]], np.float32)
    np.testing.assert_array_equal(tx.nn.crelu(x).numpy(), np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], -1))
    assert tx.nn.crelu(x, axis=0).shape == (2, 3)
    t = np.array([0.0, 0.5, 1.0, 3.0, 10.0])
    li = np.array([0.1, -1.0, 0.3, 1.2, 2.0])
    base = np.exp(li) - li * t
    np.testing.assert_allclose(tx.nn.log_poisson_loss(t, li).numpy(), base, rtol=1e-12)
    stirling = np.where(t > 1, t * np.log(np.where(t > 0, t, 1)) - t + 0.5 * np.log(2 * np.pi * np.where(t > 0, t, 1)),
                        0.0)
    np.testing.assert_allclose(tx.nn.log_poisson_loss(t, li, compute_full_loss=True).numpy(), base + stirling,
                               rtol=1e-12)
    with pytest.raises(ValueError, match="same shape"):
        tx.nn.log_poisson_loss(np.ones(3), np.ones(2))
    v = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    c, s, ss, sh = tx.nn.sufficient_statistics(v, axes=[0, 2], shift=1.0, keepdims=True)
    assert float(c) == 8.0 and float(sh) == 1.0
    np.testing.assert_allclose(s.numpy(), np.sum(v - 1, axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(ss.numpy(), np.sum((v - 1) ** 2, axis=(0, 2), keepdims=True))
    loss = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    assert float(tx.nn.compute_average_loss(loss)) == pytest.approx(2.5)
    assert float(tx.nn.compute_average_loss(loss, sample_weight=0.5, global_batch_size=2)) == pytest.approx(2.5)
    with pytest.raises(ValueError, match="at least rank 1"):
        tx.nn.compute_average_loss(tx.constant(1.0))
    with pytest.raises(TypeError, match="floating point"):
        tx.nn.compute_average_loss(tx.constant([1, 2]))
    assert float(tx.nn.scale_regularization_loss([0.5, 0.25])) == pytest.approx(0.75)
    assert tx.nn.sigmoid is tx.math.sigmoid and tx.nn.tanh is tx.math.tanh
    assert tx.nn.zero_fraction is tx.math.zero_fraction


def test_nn_composites_equal_tensorflow():
    tf = _tf()
    x = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    np.testing.assert_array_equal(tx.nn.crelu(x, axis=0).numpy(), tf.nn.crelu(x, axis=0).numpy())
    t = np.abs(x) * 3
    np.testing.assert_allclose(tx.nn.log_poisson_loss(t, x, compute_full_loss=True).numpy(),
                               tf.nn.log_poisson_loss(t, x, compute_full_loss=True).numpy(), rtol=1e-6)
    ours = tx.nn.sufficient_statistics(x, [1], shift=0.5)
    theirs = tf.nn.sufficient_statistics(x, [1], shift=0.5)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    np.testing.assert_allclose(tx.nn.compute_average_loss(x[0], sample_weight=x[1]).numpy(),
                               tf.nn.compute_average_loss(x[0], sample_weight=x[1]).numpy(), rtol=1e-6)


def test_conv_transpose_and_depthwise_backprops_equal_tensorflow():
    tf = _tf()
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 3, 2)).astype(np.float32)
    w = rng.normal(size=(2, 2, 4, 2)).astype(np.float32)
    np.testing.assert_allclose(tx.nn.conv_transpose(x, w, [2, 6, 6, 4], 2).numpy(),
                               tf.nn.conv_transpose(x, w, [2, 6, 6, 4], 2).numpy(), rtol=1e-5, atol=1e-5)
    x1, w1 = rng.normal(size=(1, 5, 2)).astype(np.float32), rng.normal(size=(3, 3, 2)).astype(np.float32)
    np.testing.assert_allclose(tx.nn.conv_transpose(x1, w1, [1, 5, 3], 1).numpy(),
                               tf.nn.conv_transpose(x1, w1, [1, 5, 3], 1).numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="3, 4 or 5 elements"):
        tx.nn.conv_transpose(x, w, [2, 6], 2)
    dw = rng.normal(size=(3, 3, 2, 2)).astype(np.float32)
    dy = rng.normal(size=(2, 1, 1, 4)).astype(np.float32)
    np.testing.assert_allclose(
        tx.nn.depthwise_conv2d_backprop_input([2, 3, 3, 2], dw, dy, [1, 1, 1, 1], "VALID").numpy(),
        tf.nn.depthwise_conv2d_backprop_input([2, 3, 3, 2], dw, dy, [1, 1, 1, 1], "VALID").numpy(),
        rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        tx.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 2, 2], dy, [1, 1, 1, 1], "VALID").numpy(),
        tf.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 2, 2], dy, [1, 1, 1, 1], "VALID").numpy(), rtol=1e-5,
        atol=1e-5)


def test_scope_predicates():
    assert not tx.inside_function() and not tx.is_symbolic_tensor(tx.constant(1.0))
    seen = []

    @tx.function
    def f(x):
        seen.append((tx.inside_function(), tx.is_symbolic_tensor(x)))
        with tx.init_scope():
            seen.append(tx.inside_function())
        return x

    f(tx.constant(1.0))
    assert seen == [(True, True), False]
