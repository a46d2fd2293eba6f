"""Functions against TensorFlow (skipped without it): FunctionDefs made by tf.function round-trip
through the engine byte for byte, TensorFlow graphs calling functions (PartitionedCall,
StatefulPartitionedCall with a variable) run here with TensorFlow's results and gradients, and
TX_GraphToFunction builds the FunctionDef TensorFlow's TF_GraphToFunction builds."""

import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import functions
from tensorflux.proto import function_pb2

tf = pytest.importorskip("tensorflow")

from tensorflow.core.framework import tensor_pb2  # noqa: E402

RNG = np.random.default_rng(7)
W1 = RNG.standard_normal((4, 8)).astype(np.float32)
W2 = RNG.standard_normal((8, 3)).astype(np.float32)
X = RNG.standard_normal((5, 4)).astype(np.float32)


def _concrete(fn, *specs):
    return tf.function(fn, autograph=False).get_concrete_function(*specs)


def _tf_functions():
    """Concrete functions covering the FunctionDef fields tf.function produces."""
    v = tf.Variable(np.ones(3, np.float32))

    def mul_add(x, y):
        return x * y + x

    def bump(x):  # resource argument, is_stateful, control outputs, control inputs
        v.assign_add(x)
        return v.read_value() * x

    def dense(x):  # non-scalar constants, MatMul attrs, Sum (attrs T and Tidx), three results
        h = tf.nn.relu(tf.matmul(x, tf.constant(W1)))
        return h, tf.matmul(h, tf.constant(W2)), tf.reduce_sum(h, axis=[0, 1])

    return [_concrete(mul_add, tf.TensorSpec([None, 3]), tf.TensorSpec([3])),
            _concrete(bump, tf.TensorSpec([3])), _concrete(dense, tf.TensorSpec([None, 4]))]


def _canonical(messages):
    """Protobuf's deterministic serialization of each serialized FunctionDef, as C++ protobuf and
    the pure-Python implementation write it (map entries in ascending key order). Python's
    default upb implementation orders some keys differently ("Tidx" before "T", arg_attr key 1
    before 0), so this runs in a subprocess using the pure-Python implementation."""
    code = ("import struct, sys\n"
            "from tensorflux.proto import function_pb2\n"
            "data, out, i = sys.stdin.buffer.read(), [], 0\n"
            "while i < len(data):\n"
            "    (n,) = struct.unpack('<Q', data[i:i + 8]); i += 8\n"
            "    b = function_pb2.FunctionDef.FromString(data[i:i + n]).SerializeToString(deterministic=True)\n"
            "    out.append(struct.pack('<Q', len(b)) + b); i += n\n"
            "sys.stdout.buffer.write(b''.join(out))\n")
    env = dict(os.environ, PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION="python")
    payload = b"".join(struct.pack("<Q", len(m)) + m for m in messages)
    data = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, check=True, env=env).stdout
    result, i = [], 0
    while i < len(data):
        (n,) = struct.unpack("<Q", data[i:i + 8])
        result.append(data[i + 8:i + 8 + n])
        i += 8 + n
    return result


def test_function_defs_round_trip_byte_for_byte():
    concretes = _tf_functions()
    theirs = _canonical([c.function_def.SerializeToString() for c in concretes])
    for c, want in zip(concretes, theirs):
        ours = functions.Function.from_function_def(c.function_def.SerializeToString()).to_function_def_bytes()
        assert ours == want, c.function_def.signature.name


def _normalized(fdef_bytes):
    """A FunctionDef with every tensor attr rewritten from its value (tensor_content or *_val)."""
    f = function_pb2.FunctionDef.FromString(fdef_bytes)
    for node in f.node_def:
        for value in node.attr.values():
            if value.HasField("tensor"):
                arr = tf.make_ndarray(tensor_pb2.TensorProto.FromString(value.tensor.SerializeToString()))
                value.tensor.Clear()
                value.tensor.dtype = tf.as_dtype(arr.dtype).as_datatype_enum
                for d in arr.shape:
                    value.tensor.tensor_shape.dim.add().size = d
                value.tensor.tensor_content = arr.tobytes()
    return f


def test_function_defs_round_trip_semantically():
    # Scalar constants are written with float_val by TensorFlow's Python and with
    # tensor_content here: the same values, different bytes.
    def stats(x):
        return tf.reduce_sum(x, axis=[0, 1]) * 2.0 + 1.0, tf.reduce_max(x)

    concrete = _concrete(stats, tf.TensorSpec([None, 3]))
    ours = functions.Function.from_function_def(concrete.function_def).to_function_def_bytes()
    assert _normalized(ours) == _normalized(concrete.function_def.SerializeToString())


def _nested_model():
    def dense(x, w):
        return tf.nn.relu(tf.matmul(x, w))

    dense_fn = tf.function(dense, autograph=False)

    def model(x):
        return tf.nn.softmax(dense_fn(dense_fn(x, tf.constant(W1)), tf.constant(W2)) + 1.0)

    return _concrete(model, tf.TensorSpec([None, 4], tf.float32, name="x"))


def test_tensorflow2_graph_with_partitioned_calls_matches():
    concrete = _nested_model()
    graph_def = concrete.graph.as_graph_def()
    assert sum(n.op == "PartitionedCall" for n in graph_def.node) == 2
    x_tf = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x_tf)
        y_tf = concrete(x_tf)
        loss = tf.reduce_sum(y_tf * tf.constant(np.arange(3, dtype=np.float32)))
    want, want_grad = y_tf.numpy(), tape.gradient(loss, x_tf).numpy()
    with tx.Graph().as_default():
        x, y = tx.import_graph_def(graph_def, return_elements=["x:0", concrete.outputs[0].name], name="tf")
        (dx,) = tx.gradients(tx.reduce_sum(y * np.arange(3, dtype=np.float32)), [x])
        with tx.Session() as sess:
            got, got_grad = sess.run([y, dx], {x: X})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-5)


def test_tensorflow1_graph_with_stateful_call_and_variable_matches():
    with tf.Graph().as_default() as g:
        v = tf.Variable(W1[:, :3], name="w")
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")

        @tf.function(autograph=False)
        def step(x):
            v.assign_add(tf.ones_like(v) * 0.5)
            return tf.matmul(x, v)

        y = tf.identity(step(x), name="y")
        (dx,) = tf.gradients(tf.reduce_sum(y), [x])
        with tf.compat.v1.Session() as sess:
            sess.run(v.initializer)
            want = [sess.run([y, dx], {x: X}) for _ in range(2)]
    graph_def = g.as_graph_def()
    assert any(n.op == "StatefulPartitionedCall" for n in graph_def.node)
    # Import the forward part and differentiate it here.
    graph_def = tf.compat.v1.graph_util.extract_sub_graph(graph_def, ["y", "w/Assign"])
    with tx.Graph().as_default() as ours:
        tx.import_graph_def(graph_def, name="")
        x_ = ours.get_tensor_by_name("x:0")
        y_ = ours.get_tensor_by_name("y:0")
        (dx_,) = tx.gradients(tx.reduce_sum(y_), [x_])
        with tx.Session() as sess:
            sess.run(ours.get_operation_by_name("w/Assign"))
            got = [sess.run([y_, dx_], {x_: X}) for _ in range(2)]
    for (gy, gdx), (wy, wdx) in zip(got, want):  # the second run sees the variable bumped twice
        np.testing.assert_allclose(gy, wy, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(gdx, wdx, rtol=1e-5, atol=1e-5)


def test_graph_to_function_builds_tensorflows_function_def():
    from tensorflow.python.client import pywrap_tf_session as tf_c

    with tf.Graph().as_default() as g:
        x = tf.compat.v1.placeholder(tf.float32, name="X/In-put")
        y = tf.compat.v1.placeholder(tf.float32, name="y")
        add = tf.add(tf.multiply(x, y, name="Mul"), x, name="add")
    outs = [t._as_tf_output() for t in (add, x)]
    fn = tf_c.TF_GraphToFunction_wrapper(g._c_graph, "myfn", False, None, [x._as_tf_output(), y._as_tf_output()],
                                         outs, [], [], [], None, "desc")
    buf = tf_c.TF_NewBuffer()
    tf_c.TF_FunctionToFunctionDef(fn, buf)
    (theirs,) = _canonical([tf_c.TF_GetBuffer(buf)])
    tf_c.TF_DeleteBuffer(buf)

    with tx.Graph().as_default() as ours:
        tx_x = tx.placeholder(tx.float32, name="X/In-put")
        tx_y = tx.placeholder(tx.float32, name="y")
        tx_add = tx.math.add(tx.math.multiply(tx_x, tx_y, name="Mul"), tx_x, name="add")
    f = functions.graph_to_function(ours, "myfn", [tx_x, tx_y], [tx_add, tx_x], description="desc")
    assert f.to_function_def_bytes() == theirs


def test_graph_calling_a_function_made_here_runs_in_tensorflow():
    with tx.Graph().as_default() as body:
        x = tx.placeholder(tx.float32, [None, 4], name="x")
        y = tx.nn.relu(tx.matmul(x, tx.constant(W1))) * 2.0
    f = functions.graph_to_function(body, "relu_dense", [x], [y])
    with tx.Graph().as_default() as g:
        a = tx.placeholder(tx.float32, [None, 4], name="a")
        (out,) = functions.call(f, [a], name="call")
        tx.identity(out, name="out")
    graph_def = tf.compat.v1.GraphDef.FromString(g.as_graph_def().SerializeToString())
    with tf.Graph().as_default() as tf_graph:
        tf.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=tf_graph) as sess:
            got = sess.run("out:0", {"a:0": X})
    np.testing.assert_allclose(got, np.maximum(X @ W1, 0) * 2.0, rtol=1e-5, atol=1e-5)
