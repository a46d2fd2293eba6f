"""NN gradient ops: the convolution backprops and AvgPoolGrad are the adjoints of their forward ops
(<op(x), dy> == <x, op^T(dy)> on random data), and FusedBatchNormGradV3 matches TensorFlow."""

import numpy as np
import pytest

import tensorflux as tx
import tf_oracle
from tensorflux._src.generated import gen_ops

# (input shape, filter shape, attrs) for Conv2D; the depthwise cases reuse the shapes with a multiplier.
CONV_SETTINGS = [
    ((2, 9, 8, 3), (3, 3, 3, 4), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ((2, 9, 8, 3), (3, 3, 3, 4), {"strides": [1, 2, 2, 1], "padding": "SAME"}),
    ((2, 9, 8, 3), (3, 2, 3, 4), {"strides": [1, 2, 3, 1], "padding": "VALID"}),
    ((1, 9, 8, 3), (3, 3, 3, 2), {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 3, 1]}),
    ((1, 9, 8, 3), (2, 3, 3, 2), {"strides": [1, 2, 1, 1], "padding": "VALID", "dilations": [1, 2, 2, 1]}),
    ((2, 9, 8, 3), (3, 3, 3, 2), {"strides": [1, 2, 2, 1], "padding": "EXPLICIT",
                                  "explicit_paddings": [0, 0, 2, 1, 0, 3, 0, 0]}),
    ((2, 6, 5, 4), (1, 1, 4, 5), {"strides": [1, 1, 1, 1], "padding": "VALID"}),
    ((2, 6, 5, 4), (1, 1, 4, 5), {"strides": [1, 2, 2, 1], "padding": "SAME"}),
    ((2, 9, 8, 3), (3, 3, 3, 1), {"strides": [1, 2, 2, 1], "padding": "SAME"}),
    ((1, 6, 5, 37), (3, 3, 37, 1), {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 1, 1]}),
    ((1, 6, 5, 70), (3, 2, 70, 2), {"strides": [1, 1, 2, 1], "padding": "VALID"}),
]


def _run(build):
    with tx.Graph().as_default():
        fetches = build()
        with tx.Session() as s:
            return s.run(fetches)


def _dot(a, b):
    return float(np.vdot(np.asarray(a, np.float64), np.asarray(b, np.float64)))


@pytest.mark.parametrize("depthwise", [False, True], ids=["conv2d", "depthwise"])
@pytest.mark.parametrize("setting", range(len(CONV_SETTINGS)))
def test_conv_backprops_are_adjoints(setting, depthwise):
    xs, fs, attrs = CONV_SETTINGS[setting]
    rng = np.random.default_rng(setting)
    x = rng.standard_normal(xs)
    w = rng.standard_normal(fs)
    fwd = gen_ops.depthwise_conv2d_native if depthwise else gen_ops.conv2d
    bin_ = gen_ops.depthwise_conv2d_native_backprop_input if depthwise else gen_ops.conv2d_backprop_input
    bfil = gen_ops.depthwise_conv2d_native_backprop_filter if depthwise else gen_ops.conv2d_backprop_filter
    y = _run(lambda: fwd(tx.constant(x), tx.constant(w), **attrs))
    dy = rng.standard_normal(y.shape)
    dx, dw = _run(lambda: [
        bin_(tx.constant(np.array(xs, np.int32)), tx.constant(w), tx.constant(dy), **attrs),
        bfil(tx.constant(x), tx.constant(np.array(fs, np.int32)), tx.constant(dy), **attrs)])
    assert dx.shape == xs and dw.shape == fs
    want = _dot(y, dy)
    assert abs(want) > 1e-3  # the identity below is not trivially 0 == 0
    np.testing.assert_allclose(_dot(x, dx), want, rtol=1e-10)
    np.testing.assert_allclose(_dot(w, dw), want, rtol=1e-10)


@pytest.mark.parametrize("padding,ksize,strides", [("VALID", [1, 2, 2, 1], [1, 2, 2, 1]),
                                                   ("SAME", [1, 3, 3, 1], [1, 2, 2, 1]),
                                                   ("SAME", [1, 3, 2, 1], [1, 1, 2, 1])])
def test_avg_pool_grad_is_adjoint(padding, ksize, strides):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 7, 9, 3))
    attrs = {"ksize": ksize, "strides": strides, "padding": padding}
    y = _run(lambda: gen_ops.avg_pool(tx.constant(x), **attrs))
    g = rng.standard_normal(y.shape)
    dx = _run(lambda: gen_ops.avg_pool_grad(tx.constant(np.array(x.shape, np.int32)), tx.constant(g), **attrs))
    np.testing.assert_allclose(_dot(x, dx), _dot(y, g), rtol=1e-10)


@pytest.mark.parametrize("data_format,shape", [("NHWC", (4, 5, 6, 8)), ("NCHW", (4, 8, 5, 6)),
                                               ("NDHWC", (2, 3, 4, 5, 6))])
@pytest.mark.parametrize("is_training", [True, False])
def test_fused_batch_norm_grad_matches_tensorflow(data_format, shape, is_training):
    """Outputs 0-2 against tf.raw_ops (the conformance entry cannot cross-check reserve_space_4/5)."""
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    cdim = 1 if data_format.startswith("NC") else len(shape) - 1
    ch = shape[cdim]
    axes = tuple(d for d in range(len(shape)) if d != cdim)
    x = rng.standard_normal(shape).astype(np.float32) * 2 + 1
    dy = rng.standard_normal(shape).astype(np.float32)
    scale = rng.standard_normal(ch).astype(np.float32)
    if is_training:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
    else:
        mean, var = rng.standard_normal(ch), rng.uniform(0.5, 2, ch)
    inputs = dict(y_backprop=dy, x=x, scale=scale, reserve_space_1=mean.astype(np.float32),
                  reserve_space_2=var.astype(np.float32), reserve_space_3=np.zeros((0,), np.float32))
    attrs = dict(epsilon=0.001, data_format=data_format, is_training=is_training)
    ours = _run(lambda: list(gen_ops.fused_batch_norm_grad_v3(**{k: tx.constant(v) for k, v in inputs.items()},
                                                                **attrs)))
    theirs = tf_oracle.call(tf.raw_ops.FusedBatchNormGradV3, **inputs, **attrs)
    for k in range(3):
        np.testing.assert_allclose(ours[k], theirs[k].numpy(), rtol=1e-4, atol=1e-4, err_msg=f"output {k}")
    assert ours[3].shape == (0,) and ours[4].shape == (0,)


def test_backprop_shape_functions_use_constant_sizes():
    """Shape functions read input_sizes / filter_sizes / orig_input_shape when they are constants."""
    s1 = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    pool = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    const = lambda v: tx.constant(np.array(v, np.int32))  # noqa: E731
    with tx.Graph().as_default():
        w = tx.placeholder(tx.float32, (3, 3, 3, 4))
        x = tx.placeholder(tx.float32, (2, 7, 8, 3))
        dy = tx.placeholder(tx.float32, (2, 7, 8, 4))
        assert gen_ops.conv2d_backprop_input(const([2, 7, 8, 3]), w, dy, **s1).shape.as_list() == [2, 7, 8, 3]
        assert gen_ops.conv2d_backprop_input(const([7, 8]), w, dy, **s1).shape.as_list() == [2, 7, 8, 3]
        fed = gen_ops.conv2d_backprop_input(tx.placeholder(tx.int32, (4,)), w, dy, **s1)
        assert fed.shape.as_list() == [None] * 4
        assert gen_ops.conv2d_backprop_filter(x, const([3, 3, 3, 4]), dy, **s1).shape.as_list() == [3, 3, 3, 4]
        dwy = tx.placeholder(tx.float32, (2, 7, 8, 12))
        got = gen_ops.depthwise_conv2d_native_backprop_filter(x, const([3, 3, 3, 4]), dwy, **s1)
        assert got.shape.as_list() == [3, 3, 3, 4]
        grad = tx.placeholder(tx.float32, (2, 3, 4, 3))
        assert gen_ops.avg_pool_grad(const([2, 7, 9, 3]), grad, **pool).shape.as_list() == [2, 7, 9, 3]
        with pytest.raises(tx.errors.InvalidArgumentError, match="out_backprop"):
            gen_ops.conv2d_backprop_input(const([2, 8, 8, 3]), w, dy, **s1)
        with pytest.raises(tx.errors.InvalidArgumentError, match="depth"):
            gen_ops.conv2d_backprop_filter(x, const([3, 3, 2, 4]), dy, **s1)
