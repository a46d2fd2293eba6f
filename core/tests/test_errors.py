"""Bad input: each case raises the expected exception class, names the node, and leaves the
session usable."""

import pickle

import numpy as np
import pytest
from google.protobuf import text_format

import tensorflux as tx
from tensorflux.proto import graph_pb2


@pytest.fixture
def model():
    x = tx.placeholder(tx.float32, shape=[2], name="x")
    y = tx.multiply(x, 2.0, name="y")
    s = tx.Session()
    yield s, x, y
    s.close()


def still_works(s, x, y):
    np.testing.assert_array_equal(s.run(y, {x: np.array([1.0, 2.0], np.float32)}), [2.0, 4.0])
    return True


def graph_def(text):
    return text_format.Parse(text, graph_pb2.GraphDef())


def test_feeding_float64_to_float32_is_converted(model):
    s, x, y = model
    out = s.run(y, {x: np.array([1.5, 2.5], np.float64)})
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [3.0, 5.0])


@pytest.mark.parametrize("value", ["abc", b"abc", np.array(["1", "2"]), ["a", "b"]])
def test_feeding_strings_raises_type_error(model, value):
    s, x, y = model
    with pytest.raises(TypeError, match="x:0") as info:
        s.run(y, {x: value})
    assert "float32" in str(info.value)
    assert still_works(s, x, y)


def test_feeding_a_tensor_value_raises(model):
    s, x, y = model
    with pytest.raises(TypeError, match="cannot be a tx.Tensor"):
        s.run(y, {x: y})
    assert still_works(s, x, y)


@pytest.mark.parametrize("value", [np.zeros(3, np.float32), np.zeros((2, 1), np.float32), 1.0])
def test_feeding_an_incompatible_shape(model, value):
    s, x, y = model
    with pytest.raises(ValueError, match="Cannot feed value of shape .* for Tensor 'x:0', which has shape \\(2,\\)"):
        s.run(y, {x: value})
    assert still_works(s, x, y)


def test_unknown_fetch_name(model):
    s, x, y = model
    with pytest.raises(ValueError, match="'nope'"):
        s.run("nope:0", {x: [1.0, 2.0]})
    with pytest.raises(ValueError, match="'nope'"):
        s.run("nope", {x: [1.0, 2.0]})
    assert still_works(s, x, y)


def test_nonexistent_output_index(model):
    s, x, y = model
    with pytest.raises(ValueError, match="'x', exists but only has 1 outputs"):
        s.run("x:5", {x: [1.0, 2.0]})
    assert still_works(s, x, y)


@pytest.mark.parametrize("fetch", [None, 1.5, object(), [None], {"a": 3}])
def test_fetch_of_invalid_type(model, fetch):
    s, x, y = model
    with pytest.raises(TypeError):
        s.run(fetch, {x: [1.0, 2.0]})
    assert still_works(s, x, y)


def test_feed_key_of_another_graph(model):
    s, x, y = model
    with tx.Graph().as_default():
        other = tx.placeholder(tx.float32, shape=[2], name="other_x")
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor: Tensor other_x:0 is not an "
                                        "element of this graph"):
        s.run(y, {other: [1.0, 2.0]})
    with pytest.raises(TypeError, match="'x:7'"):
        s.run(y, {"x:7": [1.0, 2.0]})
    assert still_works(s, x, y)


def test_fetch_of_another_graph(model):
    s, x, y = model
    with tx.Graph().as_default():
        other = tx.constant(1.0, name="elsewhere")
    with pytest.raises(ValueError, match="elsewhere:0 is not an element of this graph"):
        s.run(other)
    assert still_works(s, x, y)


def test_missing_feed_names_the_placeholder(model):
    s, x, y = model
    with pytest.raises(tx.errors.InvalidArgumentError) as info:
        s.run(y)
    e = info.value
    assert e.node_name == "x" and e.op is x.op and "[x]" in e.message
    assert e.error_code == tx.errors.INVALID_ARGUMENT
    assert e.node_def.name == "x"
    assert still_works(s, x, y)


def test_runtime_kernel_error_names_the_node(model):
    s, x, y = model
    a = tx.placeholder(tx.float32, name="a")
    b = tx.placeholder(tx.float32, name="b")
    m = tx.matmul(a, b, name="mm")
    with pytest.raises(tx.errors.InvalidArgumentError) as info:
        s.run(m, {a: np.ones((2, 3), np.float32), b: np.ones((2, 3), np.float32)})
    assert info.value.node_name == "mm" and info.value.op is m.op
    assert "[mm]" in str(info.value)
    assert still_works(s, x, y)


def test_import_cycle(model):
    s, x, y = model
    g = tx.get_default_graph()
    before = g.version
    bad = graph_def("""
        node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
        node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }""")
    with pytest.raises(tx.errors.InvalidArgumentError, match="cycle") as info:
        tx.import_graph_def(bad)
    assert info.value.node_name in ("a", "b")
    assert g.version == before  # all or nothing
    assert still_works(s, x, y)


def test_import_unknown_op_type(model):
    s, x, y = model
    with pytest.raises(tx.errors.NotFoundError, match="Bogus") as info:
        tx.import_graph_def(graph_def('node { name: "weird" op: "Bogus" }'), name="imp")
    assert info.value.node_name is not None and "weird" in info.value.node_name
    assert still_works(s, x, y)


def test_import_missing_required_attr(model):
    s, x, y = model
    with pytest.raises(tx.errors.InvalidArgumentError, match="dtype") as info:
        tx.import_graph_def(graph_def('node { name: "p" op: "Placeholder" }'), name="")
    assert info.value.node_name == "p"
    assert still_works(s, x, y)


def test_import_attr_of_wrong_type(model):
    s, x, y = model
    bad = graph_def("""
        node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "mm" op: "MatMul" input: "p" input: "p" attr { key: "transpose_a" value { i: 1 } }
               attr { key: "T" value { type: DT_FLOAT } } }""")
    with pytest.raises(tx.errors.InvalidArgumentError, match="transpose_a") as info:
        tx.import_graph_def(bad, name="")
    assert info.value.node_name == "mm"
    assert still_works(s, x, y)


def test_python_attr_of_wrong_type(model):
    s, x, y = model
    with pytest.raises(TypeError, match="Expected bool for argument 'transpose_a'"):
        tx.matmul(x, x, transpose_a="yes")
    with pytest.raises(TypeError, match="DType"):
        tx.placeholder("not a type")
    from tensorflux._src.generated import gen_ops

    with pytest.raises(TypeError, match="Expected DataType for argument 'DstT'"):
        gen_ops.cast(x, DstT="not a type")
    with pytest.raises(TypeError, match="Expected string for argument 'data_format'"):
        gen_ops.bias_add(x, x, data_format=3)
    assert still_works(s, x, y)


def test_missing_required_attr_from_python(model):
    s, x, y = model
    from tensorflux._src.generated import gen_ops

    with pytest.raises(tx.errors.InvalidArgumentError, match="DstT") as info:
        gen_ops.cast(x, DstT=None, name="no_dst")
    assert info.value.node_name == "no_dst"
    assert still_works(s, x, y)


def test_disallowed_type_attr_value(model):
    s, x, y = model
    b = tx.constant([True, False])
    with pytest.raises(tx.errors.InvalidArgumentError, match="bool") as info:
        tx.matmul(b, b, name="bool_mm")
    assert info.value.node_name == "bool_mm"
    assert still_works(s, x, y)


@pytest.mark.parametrize("data", [b"\x0a\x05\x0a\x03ab", b"garbage!!", b"\xff\xff\xff",
                                  graph_pb2.GraphDef().SerializeToString() + b"\x0a"])
def test_truncated_or_garbage_graph_def_bytes(model, data):
    s, x, y = model
    g = tx.get_default_graph()
    before = g.version
    with pytest.raises(tx.errors.OpError) as info:
        tx.import_graph_def(data)
    assert isinstance(info.value, (tx.errors.DataLossError, tx.errors.InvalidArgumentError))
    assert "GraphDef" in info.value.message
    assert g.version == before
    assert still_works(s, x, y)


def test_truncated_real_graph_def(model):
    s, x, y = model
    data = tx.get_default_graph().as_graph_def().SerializeToString()
    for cut in (1, len(data) // 2, len(data) - 1):
        with pytest.raises(tx.errors.OpError):
            with tx.Graph().as_default():
                tx.import_graph_def(data[:cut])
    assert still_works(s, x, y)


def test_import_graph_def_of_wrong_type():
    with pytest.raises(TypeError, match="GraphDef"):
        tx.import_graph_def("node {}")


def test_op_error_api_and_pickling():
    e = tx.errors.NotFoundError(None, None, "[layer1/x] not here")
    assert isinstance(e, tx.errors.OpError) and isinstance(e, Exception)
    assert e.node_name == "layer1/x" and e.error_code == tx.errors.NOT_FOUND and e.op is None
    assert str(e) == "[layer1/x] not here"
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is tx.errors.NotFoundError and e2.message == e.message
    assert tx.errors.exception_type_from_error_code(3) is tx.errors.InvalidArgumentError
    assert tx.errors.error_code_from_exception_type(tx.errors.AbortedError) == tx.errors.ABORTED
    assert tx.errors.OpError(None, None, "no node", tx.errors.INTERNAL).node_name is None
    names = ["CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError", "NotFoundError",
             "AlreadyExistsError", "PermissionDeniedError", "ResourceExhaustedError", "FailedPreconditionError",
             "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError", "UnavailableError",
             "DataLossError", "UnauthenticatedError"]
    for code, name in enumerate(names, start=1):
        cls = getattr(tx.errors, name)
        assert issubclass(cls, tx.errors.OpError) and cls(None, None, "m").error_code == code


def test_bad_attr_leaves_the_graph_untouched():
    g = tx.get_default_graph()
    x = tx.placeholder(tx.float32, shape=[2, 2], name="x")
    before = g.version
    with pytest.raises(TypeError):
        tx.matmul(x, [[1.0, 2.0], [3.0, 4.0]], transpose_b="no")  # would also convert a constant
    assert g.version == before
    assert tx.matmul(x, x).op.name == "MatMul"  # no name was used up either
