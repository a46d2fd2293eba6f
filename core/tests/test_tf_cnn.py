"""TensorFlow interop for the neural-network ops (skipped without TensorFlow): a frozen CNN made by
TensorFlow runs here with TensorFlow's results, and the NN ops' OpDefs equal TensorFlow's."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux.proto import op_def_pb2

tf = pytest.importorskip("tensorflow")

from tensorflow.python.framework import op_def_registry  # noqa: E402
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: E402

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 12, 12, 3)).astype(np.float32)


def frozen_cnn():
    """conv(SAME) -> bias -> relu -> maxpool -> conv(VALID, strided) -> relu -> flatten -> dense -> softmax."""
    k1 = tf.Variable(RNG.standard_normal((3, 3, 3, 8)).astype(np.float32) * 0.3)
    b1 = tf.Variable(RNG.standard_normal(8).astype(np.float32))
    k2 = tf.Variable(RNG.standard_normal((2, 2, 8, 6)).astype(np.float32) * 0.3)
    w = tf.Variable(RNG.standard_normal((2 * 2 * 6, 5)).astype(np.float32) * 0.3)
    b = tf.Variable(RNG.standard_normal(5).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 12, 12, 3], tf.float32, name="x")], autograph=False)
    def cnn(x):
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k1, strides=1, padding="SAME"), b1))
        h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
        h = tf.nn.relu(tf.nn.conv2d(h, k2, strides=[1, 3, 3, 1], padding="VALID"))
        h = tf.reshape(h, [-1, 2 * 2 * 6])
        return tf.nn.softmax(tf.matmul(h, w) + b)

    frozen = convert_variables_to_constants_v2(cnn.get_concrete_function())
    want = frozen(tf.constant(X))[0].numpy()
    return frozen.graph.as_graph_def(), frozen.inputs[0].name, frozen.outputs[0].name, want


def test_tensorflow_frozen_cnn_matches():
    graph_def, x_name, y_name, want = frozen_cnn()
    ops = {n.op for n in graph_def.node}
    assert {"Conv2D", "BiasAdd", "Relu", "MaxPool", "Reshape", "MatMul", "AddV2", "Softmax"} <= ops
    with tx.Graph().as_default():
        x, y = tx.import_graph_def(graph_def, return_elements=[x_name, y_name], name="tf")
        with tx.Session() as s:
            got = s.run(y, {x: X})
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


NN_OPS = ["Relu6", "Elu", "Selu", "LeakyRelu", "Softplus", "Softsign", "LogSoftmax", "SoftmaxCrossEntropyWithLogits",
          "SparseSoftmaxCrossEntropyWithLogits", "Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool",
          "FusedBatchNormV3", "L2Loss", "InTopKV2"]


def _allowed(attr):
    lst = attr.allowed_values.list
    return list(lst.type), list(lst.s), list(lst.i)


@pytest.mark.parametrize("name", NN_OPS)
def test_nn_op_defs_equal_tensorflow(name):
    ours = {op.name: op for op in op_def_pb2.OpList.FromString(tx._lib.c.get_all_op_list()).op}[name]
    theirs = op_def_registry.get(name)
    arg = lambda a: (a.name, a.type, a.type_attr, a.number_attr, a.type_list_attr, a.is_ref)  # noqa: E731
    assert [arg(a) for a in ours.input_arg] == [arg(a) for a in theirs.input_arg]
    assert [arg(a) for a in ours.output_arg] == [arg(a) for a in theirs.output_arg]
    assert [a.name for a in ours.attr] == [a.name for a in theirs.attr]
    for a, b in zip(ours.attr, theirs.attr):
        assert a.type == b.type, a.name
        assert a.default_value.SerializeToString() == b.default_value.SerializeToString(), a.name
        assert _allowed(a) == _allowed(b), a.name  # same values in TensorFlow's order
        assert (a.has_minimum, a.minimum) == (b.has_minimum, b.minimum), a.name
    assert (ours.is_commutative, ours.is_aggregate, ours.is_stateful) == (theirs.is_commutative,
                                                                          theirs.is_aggregate, theirs.is_stateful)


def _run(fn, *args):
    with tx.Graph().as_default():
        out = fn(*[tx.constant(a) for a in args])
        with tx.Session() as s:
            return s.run(out)


def test_public_nn_api_matches_tensorflow():
    x = RNG.standard_normal((2, 6, 6, 4)).astype(np.float32)
    k = RNG.standard_normal((3, 3, 4, 5)).astype(np.float32)
    pads = [[0, 0], [1, 2], [0, 1], [0, 0]]
    np.testing.assert_allclose(_run(lambda a, b: tx.nn.conv2d(a, b, 2, pads), x, k),
                               tf.nn.conv2d(x, k, 2, pads).numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_run(lambda a: tx.nn.avg_pool2d(a, 3, 2, "SAME"), x),
                               tf.nn.avg_pool2d(x, 3, 2, "SAME").numpy(), rtol=1e-5, atol=1e-6)
    dk = RNG.standard_normal((3, 3, 4, 2)).astype(np.float32)
    np.testing.assert_allclose(_run(lambda a, b: tx.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "SAME"), x, dk),
                               tf.nn.depthwise_conv2d(x, dk, [1, 1, 1, 1], "SAME").numpy(), rtol=1e-4, atol=1e-4)
    logits = RNG.standard_normal((4, 6)).astype(np.float32)
    labels = np.array([1, 0, 5, 3], np.int32)
    np.testing.assert_allclose(_run(lambda a, b: tx.nn.sparse_softmax_cross_entropy_with_logits(b, a), logits, labels),
                               tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits).numpy(), rtol=1e-5)
    dense = np.eye(6, dtype=np.float32)[labels]
    np.testing.assert_allclose(_run(lambda a, b: tx.nn.softmax_cross_entropy_with_logits(b, a), logits, dense),
                               tf.nn.softmax_cross_entropy_with_logits(dense, logits).numpy(), rtol=1e-5)
    np.testing.assert_allclose(_run(tx.nn.log_softmax, logits), tf.nn.log_softmax(logits).numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(_run(lambda p, t: tx.nn.in_top_k(t, p, 2), logits, labels),
                                  tf.math.in_top_k(labels, logits, 2).numpy())
    mean, var = _run(lambda a: tx.nn.moments(a, [0, 1, 2]), x)
    tm, tv = tf.nn.moments(x, [0, 1, 2])
    np.testing.assert_allclose(mean, tm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, tv.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(_run(lambda a: tx.nn.leaky_relu(a, 0.1), x), tf.nn.leaky_relu(x, 0.1).numpy())


def _run_or_skip(fn, *args):
    """Composites over elementwise ops (Rsqrt, GreaterEqual) whose CPU kernels may still be missing."""
    try:
        return _run(fn, *args)
    except tx.errors.NotFoundError as e:
        pytest.skip(f"an op this composite uses has no CPU kernel yet: {e}")


def test_batch_normalization_matches_tensorflow():
    x = RNG.standard_normal((2, 5, 5, 4)).astype(np.float32)
    m, v = RNG.standard_normal(4).astype(np.float32), RNG.uniform(0.5, 2, 4).astype(np.float32)
    sc, of = np.ones(4, np.float32) * 1.5, np.full(4, 0.25, np.float32)
    got = _run_or_skip(lambda a: tx.nn.batch_normalization(a, m, v, of, sc, 1e-3), x)
    np.testing.assert_allclose(got, tf.nn.batch_normalization(x, m, v, of, sc, 1e-3).numpy(), rtol=1e-4, atol=1e-5)
    y, bm, bv = _run(lambda a: tx.nn.fused_batch_norm(a, sc, of, m, v, is_training=False), x)
    ty, tbm, tbv = tf.compat.v1.nn.fused_batch_norm(x, sc, of, m, v, is_training=False)
    np.testing.assert_allclose(y, ty.numpy(), rtol=1e-4, atol=1e-5)


def test_dropout_keeps_and_scales():
    x = np.ones((200, 50), np.float32)
    got = _run_or_skip(lambda a: tx.nn.dropout(a, 0.25, seed=3), x)
    assert set(np.unique(got)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.65 < (got != 0).mean() < 0.85
    shared = _run(lambda a: tx.nn.dropout(a, 0.5, noise_shape=[200, 1], seed=4), x)
    assert all(len(np.unique(row)) == 1 for row in shared)
