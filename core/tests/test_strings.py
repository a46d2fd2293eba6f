"""String tensors: storage, conversion from and to Python and NumPy, the ops that move strings,
bad input, GraphDefs with string constants, and variables. The string ops' own values are in the
conformance table (entries_strings*.py); TensorFlow and Python-reference comparisons of the
tx.strings functions are in test_strings_tf.py."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

LONG = b"a string long enough to live on the heap " * 3
VALUES = [b"", b"a", "h\u00e9llo".encode(), b"nul\x00inside", b"\xff\xfe not utf-8", LONG]


def _graph_run(build, feeds=None):
    g = tx.Graph()
    with g.as_default():
        fetches, feed_dict = build()
    with tx.Session(graph=g) as sess:
        return sess.run(fetches, feed_dict)


def test_constant_round_trips_bytes_exactly():
    t = tx.constant(VALUES)
    assert t.dtype == tx.string and t.shape == (len(VALUES),)
    out = t.numpy()
    assert out.dtype == object and out.tolist() == VALUES
    assert tx.constant(b"x").numpy() == b"x"  # a scalar is a bytes object, as in TensorFlow
    assert tx.constant("h\u00e9").numpy() == "h\u00e9".encode("utf-8")


@pytest.mark.parametrize("value", [
    np.array([b"ab", b"c"]),                 # NumPy 'S' (trailing NULs are padding)
    np.array(["ab", "c"]),                   # NumPy 'U' (encoded as UTF-8)
    np.array([b"ab", "c"], dtype=object),    # object array of bytes and str
    [b"ab", "c"],
])
def test_inputs_from_numpy_and_python(value):
    assert tx.constant(value).numpy().tolist() == [b"ab", b"c"]


def test_repr_and_str_follow_tensorflow():
    assert repr(tx.constant("a")) == "<tx.Tensor: shape=(), dtype=string, numpy=b'a'>"
    assert repr(tx.constant(["a", "b"])) == ("<tx.Tensor: shape=(2,), dtype=string, numpy=array([b'a', b'b'], "
                                             "dtype=object)>")
    assert str(tx.constant("a")) == "tx.Tensor(b'a', shape=(), dtype=string)"


def test_string_dtype_properties():
    assert tx.string.name == "string" and tx.string.as_numpy_dtype is np.object_
    assert tx.as_dtype(np.dtype("S3")) == tx.string and tx.as_dtype(object) == tx.string


def test_feed_and_fetch_strings_in_a_session():
    def build():
        x = tx.placeholder(tx.string, [None])
        return [x, tx.identity(x), tx.concat([x, x], 0)], {x: np.array(VALUES, dtype=object)}

    raw, ident, doubled = _graph_run(build)
    assert raw.tolist() == VALUES and ident.tolist() == VALUES and doubled.tolist() == VALUES * 2


def test_moving_strings_matches_numpy():
    grid = np.array([[b"a", LONG, b"c"], [b"d", b"", LONG + b"!"]], dtype=object)
    x = tx.constant(grid)
    np.testing.assert_array_equal(tx.transpose(x).numpy(), grid.T)
    np.testing.assert_array_equal(tx.reverse(x, [1]).numpy(), grid[:, ::-1])
    np.testing.assert_array_equal(x[:, 1:].numpy(), grid[:, 1:])
    np.testing.assert_array_equal(tx.tile(x, [2, 1]).numpy(), np.tile(grid, (2, 1)))
    np.testing.assert_array_equal(tx.reshape(x, [3, 2]).numpy(), grid.reshape(3, 2))
    np.testing.assert_array_equal(tx.gather(x, [1, 1, 0]).numpy(), grid[[1, 1, 0]])
    np.testing.assert_array_equal(tx.gather_nd(x, [[1, 2], [0, 1]]).numpy(), grid[[1, 0], [2, 1]])
    np.testing.assert_array_equal(tx.stack([x, x], axis=1).numpy(), np.stack([grid, grid], 1))
    np.testing.assert_array_equal(tx.concat([x, x], 1).numpy(), np.concatenate([grid, grid], 1))
    for got, want in zip(tx.unstack(x, axis=1), [grid[:, i] for i in range(3)]):
        np.testing.assert_array_equal(got.numpy(), want)
    for got, want in zip(tx.split(x, [1, 2], axis=1), np.split(grid, [1], axis=1)):
        np.testing.assert_array_equal(got.numpy(), want)
    padded = tx.pad(x, [[0, 1], [1, 0]], constant_values="pad")
    np.testing.assert_array_equal(padded.numpy(), np.pad(grid, [[0, 1], [1, 0]], constant_values=b"pad"))
    np.testing.assert_array_equal(tx.broadcast_to(x[:1], [3, 3]).numpy(), np.broadcast_to(grid[:1], (3, 3)))
    np.testing.assert_array_equal(tx.fill([2], "v").numpy(), np.array([b"v", b"v"], dtype=object))
    np.testing.assert_array_equal(tx.zeros_like(x).numpy(), np.full(grid.shape, b"", dtype=object))
    cond = tx.constant([[True, False, True], [False, True, False]])
    np.testing.assert_array_equal(tx.where(cond, x, "no").numpy(), np.where(cond.numpy(), grid, b"no"))
    assert grid.tolist() == x.numpy().tolist()  # inputs untouched by all of the above


def test_strings_through_functions_control_flow_and_variables():
    @tx.function
    def shout(s, n):
        def body(i, acc):
            return i + 1, acc + s
        _, out = tx.while_loop(lambda i, acc: i < n, body, [tx.constant(0), tx.constant("")])
        return tx.cond(n > 2, lambda: out + "!", lambda: out)

    assert shout(tx.constant("ab"), tx.constant(3)).numpy() == b"ababab!"
    v = tx.Variable(["a", "b"])
    assert v.dtype == tx.string and v.numpy().tolist() == [b"a", b"b"]
    v.assign(tx.constant([LONG, b"c"]))
    assert v.read_value().numpy().tolist() == [LONG, b"c"]


def test_equality_and_concatenation_operators():
    x = tx.constant(["a", "b", LONG])
    assert (x == "b").numpy().tolist() == [False, True, False]
    assert (x != "b").numpy().tolist() == [True, False, True]
    assert (x + "!").numpy().tolist() == [b"a!", b"b!", LONG + b"!"]
    assert ("<" + x[:1]).numpy().tolist() == [b"<a"]


def test_a_string_fed_where_a_number_is_expected_names_both_dtypes():
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32, [2], name="numbers")
        s = tx.placeholder(tx.string, [2], name="words")
    with tx.Session(graph=g) as sess:
        with pytest.raises(TypeError, match=r"Tensor 'numbers:0' of dtype float32.*|.*string.*numbers:0.*float32"):
            sess.run(x, {x: ["1", "2"]})
        with pytest.raises(TypeError, match=r"numbers:0.*float32") as info:
            sess.run(x, {x: b"12"})
        assert "string" in str(info.value)
        with pytest.raises(TypeError, match=r"Tensor 'words:0' of dtype string") as info:
            sess.run(s, {s: [1.5, 2.5]})
        assert "float" in str(info.value)
        # The session stays usable.
        assert sess.run(x, {x: [1, 2]}).tolist() == [1.0, 2.0]
        assert sess.run(s, {s: ["a", "b"]}).tolist() == [b"a", b"b"]


def test_a_string_given_to_a_numeric_op_is_an_error():
    with pytest.raises((TypeError, tx.errors.InvalidArgumentError), match=r"DT_STRING.*Exp"):
        tx.math.exp(tx.constant("1.0"))
    with pytest.raises((TypeError, ValueError), match="string|float32"):
        tx.constant(["a"], dtype=tx.float32)
    with pytest.raises(TypeError, match="Expected string"):
        tx.constant([1, 2], dtype=tx.string)


def test_graph_def_string_constants_are_tensorflow_wire_compatible():
    tf = pytest.importorskip("tensorflow")
    g = tx.Graph()
    with g.as_default():
        tx.constant(VALUES, name="words")
    gd = g.as_graph_def()
    node = next(n for n in gd.node if n.name == "words")
    assert list(node.attr["value"].tensor.string_val) == VALUES
    # TensorFlow imports and runs our GraphDef, and we import and run TensorFlow's.
    tf_graph = tf.Graph()
    with tf_graph.as_default():
        tf.compat.v1.import_graph_def(tf.compat.v1.GraphDef.FromString(gd.SerializeToString()), name="")
    with tf.compat.v1.Session(graph=tf_graph) as sess:
        assert sess.run("words:0").tolist() == VALUES
    with tf_graph.as_default():
        tf.constant([["x", "yz"], ["", "w"]], name="tf_words")
        tf.fill([3], tf.constant("r"), name="filled")
    theirs = tf_graph.as_graph_def().SerializeToString()
    g2 = tx.Graph()
    with g2.as_default():
        tx.import_graph_def(tx.GraphDef.FromString(theirs), name="")
    with tx.Session(graph=g2) as sess:
        assert sess.run("tf_words:0").tolist() == [[b"x", b"yz"], [b"", b"w"]]
        assert sess.run("filled:0").tolist() == [b"r"] * 3


def test_saving_a_string_variable_is_a_clear_error(tmp_path):
    v = tx.Variable(["a", "b"], name="words")
    tx.train.Checkpoint(count=tx.Variable(1.0)).save(str(tmp_path / "fine"))
    with pytest.raises(TypeError, match="'words' has type string, which the safetensors format cannot hold"):
        tx.train.Checkpoint(words=v).save(str(tmp_path / "ckpt"))


def test_assert_with_string_messages_in_a_graph():
    @tx.function
    def check(x):
        tx.debugging.Assert(x > 0, ["x must be positive:", x, tx.constant(["a", "b"])])
        return x

    with pytest.raises(tx.errors.InvalidArgumentError,
                       match=r"assertion failed: \[x must be positive:\] \[-1\] \[a b\]"):
        check(tx.constant(-1))
    assert int(check(tx.constant(2))) == 2


def test_print_shows_strings_as_tensorflow(capsys):
    import sys

    tx.print(tx.constant("plain"), tx.constant(["a", "b\n"]), {"k": tx.constant("v")}, output_stream=sys.stdout)
    assert capsys.readouterr().out == 'plain ["a" "b\\n"] {\'k\': "v"}\n'


def test_fetches_of_graph_constants_are_independent_copies():
    g = tx.Graph()
    with g.as_default():
        c = tx.constant([LONG, b"b"])
    with tx.Session(graph=g) as sess:
        first = sess.run(c)
        first[0] = b"changed"
        assert sess.run(c).tolist() == [LONG, b"b"]
