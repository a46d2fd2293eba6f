"""tx.print: TensorFlow 2's tf.print formatting, eagerly, in graphs and inside tx.function."""

import collections
import io
import sys

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.logging_ops import format_tensor

pytestmark = pytest.mark.eager


def _printed(*inputs, **kwargs):
    buf = io.StringIO()
    assert tx.print(*inputs, output_stream=buf, **kwargs) is None
    return buf.getvalue()


@pytest.mark.parametrize("value,summarize,text", [
    (np.array([1, 2, 3]), 3, "[1 2 3]"),
    (np.arange(10), 3, "[0 1 2 ... 7 8 9]"),
    (np.arange(10), 2, "[0 1 ... 8 9]"),
    (np.arange(30).reshape(5, 6), 3, "[[0 1 2 3 4 5]\n [6 7 8 9 10 11]\n [12 13 14 15 16 17]\n"
                                     " [18 19 20 21 22 23]\n [24 25 26 27 28 29]]"),
    (np.arange(24).reshape(2, 3, 4), 3, "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n"
                                        " [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]"),
    (np.arange(100).reshape(10, 10), 1, "[[0 ... 9]\n ...\n [90 ... 99]]"),
    (np.array([[1, 2], [3, 4]]), -1, "[[1 2]\n [3 4]]"),
    (np.array([1.5, 2.0, 1 / 3, 1e10, 1e-7, np.nan, np.inf], np.float32), 3,
     "[1.5 2 0.333333343 ... 1e-07 nan inf]"),
    (np.array([1 / 3]), 3, "[0.33333333333333331]"),
    (np.array([0.1, 100.0, 1234567.0], np.float32), 3, "[0.1 100 1234567]"),
    (np.array([True, False]), 3, "[1 0]"),
    (np.array(5, np.int32), 3, "5"),
    (np.array([-1, 2], np.int8), 3, "[-1 2]"),
    (np.zeros([0], np.float32), 3, "[]"),
    (np.zeros([2, 0], np.float32), 3, "[\n ...]"),
])
def test_format_tensor(value, summarize, text):
    assert format_tensor(value, summarize) == text


def test_eager_print_mixed_arguments():
    out = _printed("hello", tx.constant(5), "x", 3, 2.5)
    assert out == "hello 5 x 3 2.5\n"
    assert _printed({"b": tx.constant([1, 2]), "a": 1}) == "{'a': 1, 'b': [1 2]}\n"
    assert _printed([tx.constant([1, 2]), "s", (1, 2)]) == "[[1 2], 's', (1, 2)]\n"
    assert _printed("a", "b", sep=",", end="!\n") == "a,b!\n"
    assert _printed(np.array([1, 2]), [1, 2]) == "array([1, 2]) [1, 2]\n"
    assert _printed(tx.range(10), summarize=2) == "[0 1 ... 8 9]\n"
    v = tx.Variable([1.0, 2.5])
    assert _printed(v) == "[1 2.5]\n"


def test_default_stream_is_stderr(capsys):
    tx.print("to stderr", tx.constant([1, 2]))
    captured = capsys.readouterr()
    assert captured.err == "to stderr [1 2]\n" and captured.out == ""
    tx.print("to stdout", output_stream=sys.stdout)
    assert capsys.readouterr().out == "to stdout\n"


def test_file_stream(tmp_path):
    path = tmp_path / "log.txt"
    tx.print("one", tx.constant(1), output_stream="file://" + str(path))
    tx.print("two", output_stream="file://" + str(path))
    assert path.read_text() == "one 1\ntwo\n"
    with pytest.raises(ValueError, match="output_stream"):
        tx.print("x", output_stream="not-a-stream")


def test_graph_print_returns_op_and_runs_in_order():
    buf = io.StringIO()
    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.int32, [None])
        op = tx.print("x is", x, output_stream=buf)
        assert isinstance(op, tx.Operation) and op.type == "PyFunc"
        with tx.control_dependencies([op]):
            y = tx.identity(x * 2)
        with tx.Session(graph=g) as sess:
            assert buf.getvalue() == ""  # nothing printed while building
            np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [2, 4])
            assert buf.getvalue() == "x is [1 2]\n"
            sess.run(op, {x: list(range(8))})
    assert buf.getvalue() == "x is [1 2]\nx is [0 1 2 ... 5 6 7]\n"


def test_print_inside_function_runs_when_unused():
    buf = io.StringIO()

    @tx.function
    def f(x):
        tx.print("step", x, {"sq": x * x}, output_stream=buf)
        return x + 1

    f(tx.constant([1.0, 2.0]))
    f(tx.constant([3.0, 4.0]))
    assert buf.getvalue() == "step [1 2] {'sq': [1 4]}\nstep [3 4] {'sq': [9 16]}\n"


Pair = collections.namedtuple("Pair", ["a", "b"])


def _tf_text(capfd, tf, *inputs, **kwargs):
    capfd.readouterr()
    tf.print(*inputs, output_stream=sys.stderr, **kwargs)
    sys.stderr.flush()
    return capfd.readouterr().err


def test_matches_tensorflow(capfd):
    tf = pytest.importorskip("tensorflow")
    cases = [
        ([np.arange(10)], {}),
        ([np.arange(30).reshape(5, 6)], {}),
        ([np.arange(60).reshape(3, 4, 5)], {"summarize": 2}),
        ([np.array([1.5, -2.25, 1 / 3, 1e-8, 3e9], np.float32)], {}),
        ([np.array([1 / 7, 2.0])], {}),
        ([np.array([True, False, True])], {}),
        (["text", np.int64(7), "more"], {"sep": " | ", "end": "<\n"}),
        ([{"k": np.array([1, 2]), "j": "s"}, [np.array(1.5, np.float32), (2,)]], {}),
        ([np.arange(12).reshape(3, 4)], {"summarize": -1}),
    ]
    for values, kwargs in cases:
        ours = io.StringIO()
        tx.print(*[tx.constant(v) if isinstance(v, np.ndarray) else _tx_tree(v) for v in values],
                 output_stream=ours, **kwargs)
        theirs = _tf_text(capfd, tf, *[tf.constant(v) if isinstance(v, np.ndarray) else _tf_tree(tf, v)
                                       for v in values], **kwargs)
        assert ours.getvalue() == theirs, (values, kwargs)


def _tx_tree(v):
    return tx.nest.map_structure(lambda x: tx.constant(x) if isinstance(x, np.ndarray) else x, v)


def _tf_tree(tf, v):
    return tf.nest.map_structure(lambda x: tf.constant(x) if isinstance(x, np.ndarray) else x, v)
