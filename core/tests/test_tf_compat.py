"""Cross-checks against TensorFlow (skipped when it is not installed): a TensorFlow-made frozen
MLP runs here with TensorFlow's results, and our OpDefs equal TensorFlow's."""

import inspect

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops
from tensorflux.proto import op_def_pb2

tf = pytest.importorskip("tensorflow")

from tensorflow.python.framework import op_def_registry  # noqa: E402
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: E402

RNG = np.random.default_rng(42)
X = RNG.standard_normal((5, 8)).astype(np.float32)


def frozen_mlp_v2():
    """A Keras-free MLP frozen from a tf.function: MatMul, BiasAdd, Relu, AddV2, Softmax."""
    w1 = tf.Variable(RNG.standard_normal((8, 16)).astype(np.float32))
    b1 = tf.Variable(RNG.standard_normal(16).astype(np.float32))
    w2 = tf.Variable(RNG.standard_normal((16, 4)).astype(np.float32))
    b2 = tf.Variable(RNG.standard_normal(4).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32, name="x")], autograph=False)
    def mlp(x):
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        return tf.nn.softmax(tf.matmul(h, w2) + b2)

    frozen = convert_variables_to_constants_v2(mlp.get_concrete_function())
    want = frozen(tf.constant(X))[0].numpy()
    return frozen.graph.as_graph_def(), frozen.inputs[0].name, frozen.outputs[0].name, want


def frozen_mlp_v1():
    """The same kind of model as a TF1 graph, with Sum/Mean/Reshape/Cast/Sub/Mul/RealDiv too."""
    with tf.Graph().as_default() as g:
        x = tf.compat.v1.placeholder(tf.float32, shape=[None, 8], name="x")
        w = tf.constant(RNG.standard_normal((8, 6)).astype(np.float32))
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), tf.constant(RNG.standard_normal(6).astype(np.float32))))
        logits = tf.math.add(h, 0.5) * 2.0 - tf.reduce_mean(h, axis=1, keepdims=True)
        probs = tf.nn.softmax(tf.realdiv(logits, 3.0))
        flat = tf.reshape(probs, [-1, 3])
        out = tf.identity(tf.cast(tf.reduce_sum(flat, axis=0), tf.float64) / 2.0, name="out")
        with tf.compat.v1.Session(graph=g) as s:
            want = s.run(out, {x: X})
        return g.as_graph_def(), "x:0", "out:0", want


@pytest.mark.parametrize("make", [frozen_mlp_v2, frozen_mlp_v1])
def test_tensorflow_frozen_model_matches(make):
    graph_def, x_name, y_name, want = make()
    ops = {n.op for n in graph_def.node}
    assert {"MatMul", "BiasAdd", "Relu", "Softmax"} <= ops
    with tx.Graph().as_default():
        x, y = tx.import_graph_def(graph_def, return_elements=[x_name, y_name], name="tf")
        with tx.Session() as s:
            got = s.run(y, {x: X})
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# Ops that exist only inside execution plans, where TensorFlow's Grappler has its own internal ops
# (_FusedConv2D, _MklFusedBatchMatMulV2, ...): TensorFlow has no OpDef to compare them with.
PLAN_INTERNAL_OPS = {"_FusedElementwise"}
# Every other op the engine registers: each must have TensorFlow's signature.
OUR_OPS = sorted(op.name for op in op_def_pb2.OpList.FromString(tx._lib.c.get_all_op_list()).op
                 if op.name not in PLAN_INTERNAL_OPS)


def _ours():
    return {op.name: op for op in op_def_pb2.OpList.FromString(tx._lib.c.get_all_op_list()).op}


def _arg(a):
    return (a.name, a.type, a.type_attr, a.number_attr, a.type_list_attr, a.is_ref)


def _allowed(attr):
    field = attr.allowed_values.WhichOneof("value")
    if field is None:
        return None
    lst = attr.allowed_values.list
    return list(lst.type), list(lst.s), list(lst.i)  # in TensorFlow's order


@pytest.mark.parametrize("name", OUR_OPS)
def test_op_defs_equal_tensorflow(name):
    ours = _ours()[name]
    theirs = op_def_registry.get(name)
    assert [_arg(a) for a in ours.input_arg] == [_arg(a) for a in theirs.input_arg]
    assert [_arg(a) for a in ours.output_arg] == [_arg(a) for a in theirs.output_arg]
    assert [a.name for a in ours.attr] == [a.name for a in theirs.attr]
    for a, b in zip(ours.attr, theirs.attr):
        assert a.type == b.type, a.name
        assert a.HasField("default_value") == b.HasField("default_value"), a.name
        assert a.default_value.SerializeToString() == b.default_value.SerializeToString(), a.name
        assert _allowed(a) == _allowed(b), a.name
        assert (a.has_minimum, a.minimum) == (b.has_minimum, b.minimum), a.name
    assert (ours.is_commutative, ours.is_aggregate, ours.is_stateful) == (theirs.is_commutative,
                                                                          theirs.is_aggregate, theirs.is_stateful)


@pytest.mark.parametrize("name", [op for op in OUR_OPS if not op.startswith("_")])  # tf.raw_ops omits internal ops
def test_generated_wrapper_signature_matches_tensorflow(name):
    """Our wrapper takes TensorFlow's raw-op arguments (names, order, defaults)."""
    fn = getattr(gen_ops, gen_ops.OP_WRAPPERS[name])
    def default(p):  # dtype defaults compare by name (tx.int64 vs tf.int64)
        return getattr(p.default, "name", p.default)
    ours = [(p.name, default(p)) for p in inspect.signature(fn).parameters.values()]
    theirs = [(p.name, default(p)) for p in inspect.signature(getattr(tf.raw_ops, name)).parameters.values()]
    assert ours == theirs
