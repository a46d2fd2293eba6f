"""GraphDef export and import: the engine's own codec against the official protobuf package
(and TensorFlow's generated classes and runtime, when TensorFlow is installed)."""

import numpy as np
import pytest
from google.protobuf import json_format, text_format

import tensorflux as tx
from tensorflux.proto import graph_pb2, types_pb2


def build_model():
    """A small model using every op family, a name scope, a device and a control edge."""
    x = tx.placeholder(tx.float32, shape=[None, 3], name="x")
    with tx.name_scope("layer1"):
        w = tx.constant(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
        b = tx.constant([0.5, -0.5], name="b")
        h = tx.nn.relu(tx.nn.bias_add(tx.matmul(x, w), b))
    with tx.device("/cpu:0"):
        logits = tx.add(h, tx.constant(np.float32(1.0)), name="logits")
    init = tx.no_op(name="init")
    with tx.control_dependencies([init]):
        probs = tx.nn.softmax(logits, name="probs")
    total = tx.reduce_sum(tx.cast(tx.reshape(probs, [-1]), tx.float64), name="total")
    mean = tx.reduce_mean(probs * 2.0 - h / 3.0, axis=1, keepdims=True, name="mean")
    return x, probs, total, mean


X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)


def as_dict(message):
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def test_as_graph_def_is_the_official_message():
    x, probs, _, _ = build_model()
    gd = tx.get_default_graph().as_graph_def()
    assert isinstance(gd, graph_pb2.GraphDef) and isinstance(gd, tx.GraphDef)
    nodes = {n.name: n for n in gd.node}
    assert [n.name for n in gd.node] == [op.name for op in tx.get_default_graph().get_operations()]
    assert nodes["layer1/MatMul"].op == "MatMul"
    assert list(nodes["layer1/MatMul"].input) == ["x", "layer1/w"]
    assert nodes["layer1/MatMul"].attr["T"].type == types_pb2.DT_FLOAT
    assert nodes["layer1/MatMul"].attr["transpose_a"].b is False
    assert nodes["logits"].device == "/device:CPU:0"
    assert list(nodes["probs"].input) == ["logits", "^init"]
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 3]
    value = nodes["layer1/w"].attr["value"].tensor
    assert value.dtype == types_pb2.DT_FLOAT and [d.size for d in value.tensor_shape.dim] == [3, 2]
    assert gd.versions.producer > 0
    assert tx.get_default_graph().graph_def_versions.producer == gd.versions.producer


def test_serialized_bytes_round_trip_through_both_codecs():
    build_model()
    gd = tx.get_default_graph().as_graph_def()
    data = gd.SerializeToString()
    parsed = graph_pb2.GraphDef.FromString(data)
    assert parsed == gd
    # Import what the official package wrote, export it again: the same message.
    g2 = tx.Graph()
    with g2.as_default():
        tx.import_graph_def(data, name="")
    assert g2.as_graph_def() == gd


def test_imported_graph_runs_like_the_original():
    x, probs, total, mean = build_model()
    with tx.Session() as s:
        want = s.run([probs, total, mean], {x: X})
    data = tx.get_default_graph().as_graph_def()
    with tx.Graph().as_default() as g2:
        px, pp, pt, pm = tx.import_graph_def(data, return_elements=["x:0", "probs:0", "total:0", "mean:0"])
        assert px.name == "import/x:0" and pp.op.control_inputs == [g2.get_operation_by_name("import/init")]
        with tx.Session() as s2:
            got = s2.run([pp, pt, pm], {px: X})
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_hand_written_graph_def_round_trips_field_by_field():
    gd = graph_pb2.GraphDef()
    gd.versions.producer = 1234
    gd.versions.min_consumer = 0
    p = gd.node.add(name="p", op="Placeholder")
    p.attr["dtype"].type = types_pb2.DT_FLOAT
    p.attr["shape"].shape.dim.add(size=-1)
    p.attr["shape"].shape.dim.add(size=2)
    c = gd.node.add(name="c", op="Const", device="/device:CPU:0")
    c.attr["dtype"].type = types_pb2.DT_FLOAT
    c.attr["value"].tensor.dtype = types_pb2.DT_FLOAT
    c.attr["value"].tensor.tensor_shape.dim.add(size=2)
    c.attr["value"].tensor.tensor_shape.dim.add(size=2)
    c.attr["value"].tensor.tensor_content = np.array([[1, 2], [3, 4]], np.float32).tobytes()
    m = gd.node.add(name="m", op="MatMul", input=["p", "c"])
    m.attr["T"].type = types_pb2.DT_FLOAT
    for flag in ("transpose_a", "transpose_b", "grad_a", "grad_b"):
        m.attr[flag].b = False
    out = gd.node.add(name="out", op="Identity", input=["m", "^c"])
    out.attr["T"].type = types_pb2.DT_FLOAT

    with tx.Graph().as_default() as g:
        tx.import_graph_def(gd, name="")
        exported = g.as_graph_def()
        assert as_dict(exported.versions) == as_dict(gd.versions)
        assert len(exported.node) == len(gd.node)
        for want, got in zip(gd.node, exported.node):
            assert (got.name, got.op, list(got.input), got.device) == (want.name, want.op, list(want.input),
                                                                      want.device)
            assert set(got.attr) == set(want.attr)
            for key in want.attr:
                if key == "value":
                    t = got.attr[key].tensor
                    np.testing.assert_array_equal(np.frombuffer(t.tensor_content or b"", np.float32)
                                                  if t.tensor_content else np.array(t.float_val, np.float32),
                                                  [1, 2, 3, 4])
                else:
                    assert got.attr[key] == want.attr[key], key
        with tx.Session() as s:
            np.testing.assert_array_equal(s.run("out:0", {"p:0": [[1.0, 0.0]]}), [[1.0, 2.0]])


def test_import_fills_attr_defaults():
    gd = text_format.Parse("""
        node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 } }
                                                    float_val: 2.0 } } } }
        node { name: "m" op: "MatMul" input: "a" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
        """, graph_pb2.GraphDef())
    with tx.Graph().as_default() as g:
        tx.import_graph_def(gd, name="")
        m = g.get_operation_by_name("m")
        assert m.get_attr("transpose_a") is False and m.get_attr("grad_b") is False
        assert g.as_graph_def().node[1].attr["transpose_b"].b is False
        with tx.Session() as s:
            assert s.run("m:0")[0, 0] == 4.0


def test_import_options():
    x = tx.placeholder(tx.float32, shape=[2], name="x")
    tx.multiply(x, 3.0, name="y")
    data = tx.get_default_graph().as_graph_def()
    with tx.Graph().as_default() as g:
        feed = tx.constant([1.0, 2.0], name="feed")
        gate = tx.no_op(name="gate")
        with tx.name_scope("outer"):
            y1, xop = tx.import_graph_def(data, input_map={"x:0": feed}, return_elements=["y:0", "x"],
                                          name="net")
        assert y1.name == "outer/net/y:0" and xop.name == "outer/net/x"
        y2 = tx.import_graph_def(data, input_map={"x": feed}, return_elements=["y:0"], name="net")[0]
        assert y2.name == "net/y:0"
        y3 = tx.import_graph_def(data, input_map={"x:0": feed}, return_elements=["y:0"], name="net")[0]
        assert y3.name == "net_1/y:0"  # the prefix is a name scope, made unique
        with tx.control_dependencies([gate]):
            y4 = tx.import_graph_def(data, input_map={"x:0": feed}, return_elements=["y:0"])[0]
        assert g.get_operation_by_name("import/x").control_inputs == [gate]
        assert tx.import_graph_def(data, name="plain") is None
        with tx.Session() as s:
            for t in (y1, y2, y3, y4):
                np.testing.assert_array_equal(s.run(t), [3.0, 6.0])
        with pytest.raises(ValueError, match="not found in graph_def: \\[nope:0\\]"):
            tx.import_graph_def(data, input_map={"nope:0": feed})
        with pytest.raises(ValueError, match="must be a Tensor"):
            tx.import_graph_def(data, input_map={"x:0": 1.0})
        with pytest.raises(tx.errors.NotFoundError, match="missing"):
            tx.import_graph_def(data, return_elements=["missing:0"])
    with pytest.raises(ValueError):
        tx.import_graph_def(data, input_map={"x:0": y1})  # a tensor of another graph than the default


def test_import_name_collisions_are_uniquified():
    tx.constant(1.0, name="c")
    data = tx.get_default_graph().as_graph_def()
    c1 = tx.import_graph_def(data, return_elements=["c:0"], name="")[0]
    assert c1.name == "c_1:0"


def test_add_shapes():
    x, probs, _, _ = build_model()
    gd = tx.get_default_graph().as_graph_def(add_shapes=True)
    nodes = {n.name: n for n in gd.node}
    shape = nodes["probs"].attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [-1, 2]
    assert "_output_shapes" not in nodes["init"].attr


def test_tensorflow_parses_our_bytes_and_runs_them():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.core.framework import graph_pb2 as tf_graph_pb2

    x, probs, total, mean = build_model()
    with tx.Session() as s:
        want = s.run([probs, total, mean], {x: X})
    ours = tx.get_default_graph().as_graph_def()
    tf_gd = tf_graph_pb2.GraphDef.FromString(ours.SerializeToString())
    assert as_dict(tf_gd) == as_dict(ours)
    with tf.Graph().as_default() as g:
        tf.compat.v1.import_graph_def(tf_gd, name="")
        with tf.compat.v1.Session(graph=g) as s:
            got = s.run(["probs:0", "total:0", "mean:0"], {"x:0": X})
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_graph_def_written_by_tensorflow_round_trips():
    tf = pytest.importorskip("tensorflow")

    with tf.Graph().as_default() as g:
        x = tf.compat.v1.placeholder(tf.float32, shape=[None, 3], name="x")
        w = tf.constant(np.ones((3, 2), np.float32), name="w")
        y = tf.nn.relu(tf.matmul(x, w, transpose_b=False), name="y")
        tf.reduce_mean(tf.reshape(y, [-1]) * 2.0, name="m")
        tf_gd = g.as_graph_def()
    with tx.Graph().as_default() as ours:
        tx.import_graph_def(tf_gd.SerializeToString(), name="")
        exported = ours.as_graph_def()
    assert [(n.name, n.op, list(n.input)) for n in exported.node] == [(n.name, n.op, list(n.input))
                                                                       for n in tf_gd.node]
    for want, got in zip(tf_gd.node, exported.node):
        assert set(want.attr) <= set(got.attr)
        for key in want.attr:
            assert as_dict(got.attr[key]) == as_dict(want.attr[key]) or key == "value", (want.name, key)


def test_repeated_tensor_shape_occurrences_merge_like_protobuf():
    """A TensorProto whose tensor_shape field occurs twice: protobuf merges the occurrences (the dims
    concatenate), so [0] then [65535, 122, 9] is the empty shape [0, 65535, 122, 9]. The engine took
    the last occurrence, a 287 MB tensor from 54 bytes (found by tx_fuzz's tensorproto target)."""
    from tensorflux.proto import tensor_pb2

    first = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT)
    first.tensor_shape.dim.add().size = 0
    second = tensor_pb2.TensorProto()
    for size in (65535, 122, 9):
        second.tensor_shape.dim.add().size = size
    data = first.SerializeToString() + second.SerializeToString()
    official = tensor_pb2.TensorProto.FromString(data)
    assert [d.size for d in official.tensor_shape.dim] == [0, 65535, 122, 9]

    def field(number, payload):  # a length-delimited field
        length, n = b"", len(payload)
        while n >= 0x80:
            length, n = length + bytes([n & 0x7F | 0x80]), n >> 7
        return bytes([number << 3 | 2]) + length + bytes([n]) + payload

    dtype = field(1, b"dtype") + field(2, bytes([6 << 3, types_pb2.DT_FLOAT]))
    value = field(1, b"value") + field(2, field(8, data))  # AttrValue.tensor: the raw occurrences
    raw = field(1, field(1, b"c") + field(2, b"Const") + field(5, dtype) + field(5, value))
    assert graph_pb2.GraphDef.FromString(raw).node[0].attr["value"].tensor == official
    with tx.Graph().as_default():
        (c,) = tx.import_graph_def(raw, return_elements=["c:0"], name="")
        assert c.shape.as_list() == [0, 65535, 122, 9]
        with tx.Session() as s:
            assert s.run(c).shape == (0, 65535, 122, 9)
