"""Graph building: names, name scopes, devices, control dependencies, lookups, attrs, shapes."""

import threading

import numpy as np
import pytest

import tensorflux as tx


def test_default_names_are_op_types_and_unique():
    a = tx.constant(1.0)
    b = tx.constant(2.0)
    c = tx.add(a, b)
    d = tx.matmul(tx.constant([[1.0]]), tx.constant([[2.0]]))
    assert [a.op.name, b.op.name] == ["Const", "Const_1"]
    assert c.op.name == "Add" and c.op.type == "AddV2"
    assert d.op.name == "MatMul" and d.op.type == "MatMul"
    assert c.name == "Add:0" and c.value_index == 0


def test_explicit_names_are_uniquified():
    x = tx.placeholder(tx.float32, name="x")
    x1 = tx.placeholder(tx.float32, name="x")
    # Names compare case-insensitively, as in TensorFlow.
    x2 = tx.placeholder(tx.float32, name="X")
    assert (x.op.name, x1.op.name, x2.op.name) == ("x", "x_1", "X_2")


def test_name_scopes_nest_and_reentering_uniquifies():
    with tx.name_scope("layer1") as scope:
        assert scope == "layer1/"
        m = tx.matmul(tx.constant([[1.0]]), tx.constant([[1.0]]))
        with tx.name_scope("inner") as inner:
            assert inner == "layer1/inner/"
            r = tx.nn.relu(m)
    with tx.name_scope("layer1") as again:
        m2 = tx.matmul(tx.constant([[1.0]]), tx.constant([[1.0]]))
    assert m.op.name == "layer1/MatMul"
    assert r.op.name == "layer1/inner/Relu"
    assert again == "layer1_1/"
    assert m2.op.name == "layer1_1/MatMul"


def test_name_scope_reopen_exact_and_reset():
    with tx.name_scope("s"):
        tx.constant(1.0, name="a")
    with tx.name_scope("s/"):  # a trailing slash reopens the exact scope
        b = tx.constant(1.0, name="b")
        with tx.name_scope(None) as root:
            c = tx.constant(1.0, name="c")
    assert b.op.name == "s/b"
    assert root == ""
    assert c.op.name == "c"


def test_name_scope_rejects_invalid_names():
    with pytest.raises(ValueError, match="not a valid scope name"):
        with tx.name_scope("bad name!"):
            pass


def test_graph_unique_name_and_get_name_scope():
    g = tx.get_default_graph()
    assert g.unique_name("foo") == "foo"
    assert g.unique_name("foo") == "foo_1"
    with g.name_scope("s"):
        assert g.get_name_scope() == "s"
        assert g.unique_name("foo", mark_as_used=False) == "s/foo"
        assert g.unique_name("foo") == "s/foo"


def test_op_names_share_the_namespace_with_scopes():
    with tx.name_scope("dense"):
        pass
    c = tx.constant(1.0, name="dense")
    assert c.op.name == "dense_1"


def test_graph_as_default_and_separate_graphs():
    g1, g2 = tx.Graph(), tx.Graph()
    with g1.as_default():
        assert tx.get_default_graph() is g1
        a = tx.constant(1.0)
        with g2.as_default():
            b = tx.constant(2.0)
        assert tx.get_default_graph() is g1
    assert a.graph is g1 and b.graph is g2
    assert a.op.name == b.op.name == "Const"
    assert tx.get_default_graph() is not g1


def test_default_graph_is_per_thread_inside_as_default():
    g = tx.Graph()
    seen = []
    with g.as_default():
        t = threading.Thread(target=lambda: seen.append(tx.get_default_graph()))
        t.start()
        t.join()
    assert seen[0] is not g
    assert seen[0] is tx.get_default_graph()


def test_reset_default_graph_inside_as_default_is_refused():
    with tx.Graph().as_default():
        with pytest.raises(AssertionError):
            tx.reset_default_graph()


def test_ops_follow_their_inputs_graph_and_mixing_graphs_fails():
    g1, g2 = tx.Graph(), tx.Graph()
    with g1.as_default():
        a = tx.constant(1.0)
    with g2.as_default():
        b = tx.constant(2.0)
    c = a * 2.0  # built in a's graph although the default graph is another
    assert c.graph is g1
    with pytest.raises(ValueError, match="must be from the same graph"):
        tx.add(a, b)


def test_devices_merge_and_clear():
    with tx.device("/cpu:0"):
        a = tx.constant(1.0)
        with tx.device("/job:worker/task:1"):
            b = tx.constant(1.0)
        with tx.device(None):
            c = tx.constant(1.0)
    d = tx.constant(1.0)
    assert a.op.device == "/device:CPU:0"
    assert b.op.device == "/job:worker/task:1/device:CPU:0"
    assert c.op.device == ""
    assert d.op.device == ""
    assert a.device == a.op.device
    # The engine records the requested device.
    assert a.op.node_def.device == "/device:CPU:0"


def test_malformed_device_string():
    with pytest.raises(ValueError, match="device"):
        with tx.device("/gadget:zero"):
            pass


def test_control_dependencies():
    a = tx.constant(1.0, name="a")
    b = tx.constant(2.0, name="b")
    with tx.control_dependencies([a, b.op]):
        c = tx.constant(3.0, name="c")
        d = tx.identity(c, name="d")  # c already depends on a and b: no repeat
        with tx.control_dependencies(None):
            e = tx.constant(4.0, name="e")
        with tx.control_dependencies([c]):
            f = tx.constant(5.0, name="f")
    g = tx.constant(6.0, name="g")
    assert c.op.control_inputs == [a.op, b.op]
    assert d.op.control_inputs == []
    assert e.op.control_inputs == []
    assert f.op.control_inputs == [a.op, b.op, c.op]
    assert g.op.control_inputs == []
    assert a.op._control_outputs == [c.op, f.op]
    assert list(c.op.node_def.input) == ["^a", "^b"]


def test_control_dependencies_rejects_other_things():
    with pytest.raises(TypeError):
        with tx.control_dependencies([1.0]):
            pass
    other = tx.Graph()
    with other.as_default():
        x = tx.constant(1.0)
    with pytest.raises(ValueError, match="not an element of this graph"):
        with tx.control_dependencies([x]):
            pass


def test_get_operations_and_lookups():
    g = tx.get_default_graph()
    x = tx.placeholder(tx.float32, name="x")
    y = tx.identity(x, name="y")
    assert g.get_operations() == [x.op, y.op]
    assert g.get_operation_by_name("y") is y.op
    assert g.get_tensor_by_name("y:0") is y
    assert g.as_graph_element("x") is x.op
    assert g.as_graph_element("x:0") is x
    assert g.version == 2


@pytest.mark.parametrize("name,exc,text", [
    ("nope", KeyError, "'nope' refers to an Operation not in the graph"),
    ("x:0", ValueError, "appears to refer to a Tensor"),
])
def test_get_operation_by_name_errors(name, exc, text):
    tx.placeholder(tx.float32, name="x")
    with pytest.raises(exc, match=text):
        tx.get_default_graph().get_operation_by_name(name)


@pytest.mark.parametrize("name,exc,text", [
    ("nope:0", KeyError, "operation, 'nope', does not exist"),
    ("x:5", KeyError, "'x', exists but only has 1 outputs"),
    ("x", ValueError, "refers to an Operation, not a Tensor"),
    ("nope", ValueError, "looks like an \\(invalid\\) Operation name"),
    ("x:a", ValueError, "not a valid one"),
])
def test_get_tensor_by_name_errors(name, exc, text):
    tx.placeholder(tx.float32, name="x")
    with pytest.raises(exc, match=text):
        tx.get_default_graph().get_tensor_by_name(name)


def test_lookup_type_errors():
    g = tx.get_default_graph()
    with pytest.raises(TypeError):
        g.get_tensor_by_name(3)
    with pytest.raises(TypeError, match="Can not convert a float"):
        g.as_graph_element(1.5)


def test_operation_inputs_outputs_and_consumers():
    x = tx.placeholder(tx.float32, name="x")
    y = tx.placeholder(tx.float32, name="y")
    s = tx.add(x, y)
    p = tx.multiply(s, x)
    assert s.op.inputs == (x, y)
    assert s.op.outputs == [s]
    assert s.op.values() == (s,)
    assert x.consumers() == [s.op, p.op]
    assert p.consumers() == []
    assert s.op.graph is tx.get_default_graph()
    assert "AddV2" in repr(s.op) and "'Add:0'" in repr(s)


def test_no_op_returns_operation():
    op = tx.no_op(name="init")
    assert isinstance(op, tx.Operation)
    assert op.type == "NoOp" and op.outputs == []


def test_get_attr_kinds():
    x = tx.placeholder(tx.float32, shape=[None, 3], name="x")
    w = tx.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    m = tx.matmul(x, w, transpose_b=False)
    b = tx.nn.bias_add(m, tx.constant([1.0, 2.0]))
    c = tx.cast(m, tx.int32)
    assert x.op.get_attr("dtype") == tx.float32
    assert x.op.get_attr("shape") == tx.TensorShape([None, 3])
    assert m.op.get_attr("transpose_a") is False
    assert m.op.get_attr("T") is tx.float32
    assert b.op.get_attr("data_format") == b"NHWC"
    assert c.op.get_attr("DstT") == tx.int32
    value = w.op.get_attr("value")
    np.testing.assert_array_equal(value, np.arange(6, dtype=np.float32).reshape(3, 2))
    value[0, 0] = 100.0  # a copy: the graph constant is unchanged
    assert w.op.get_attr("value")[0, 0] == 0.0
    with pytest.raises(ValueError, match="no attr named 'nope'"):
        m.op.get_attr("nope")


def test_node_def_and_op_def():
    x = tx.placeholder(tx.float32, shape=[2], name="x")
    nd = tx.identity(x, name="y").op.node_def
    assert nd.name == "y" and nd.op == "Identity" and list(nd.input) == ["x"]
    assert nd.attr["T"].type == tx.float32.as_datatype_enum
    op_def = x.op.op_def
    assert op_def.name == "Placeholder" and [a.name for a in op_def.attr] == ["dtype", "shape"]


def test_finalize():
    g = tx.Graph()
    with g.as_default():
        tx.constant(1.0)
        g.finalize()
        assert g.finalized
        with pytest.raises(RuntimeError, match="finalized"):
            tx.constant(2.0)


def test_graph_is_extensible_from_many_threads():
    g = tx.Graph()
    names = []

    def build(i):
        with g.as_default():
            with tx.name_scope("t"):
                for _ in range(50):
                    names.append(tx.constant(float(i)).op.name)

    threads = [threading.Thread(target=build, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(names) == len(set(names)) == 200
    assert len(g.get_operations()) == 200
