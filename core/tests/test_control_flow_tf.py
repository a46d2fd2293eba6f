"""tx.cond / tx.switch_case / tx.while_loop against TensorFlow (skipped without it): the same
programs give the same values and static shapes, our graphs (If/While ops with their library
functions) run in TensorFlow, TensorFlow's control-flow graphs run here, and the shape-invariant
error reads like TensorFlow's."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")


def _collatz(lib):
    """Steps of the Collatz sequence from n (a while loop around a cond), and the largest value."""

    def body(n, steps, top):
        n = lib.cond(lib.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1, lib.maximum(top, n)

    return lambda n0: lib.while_loop(lambda n, s, t: n > 1, body, [n0, 0, n0])[1:]


def _switch(lib):
    def f(k, x):
        return lib.switch_case(k, [lambda: x * 2.0, lambda: lib.reduce_sum(x) + x, lambda: -x])
    return f


@pytest.mark.eager
@pytest.mark.parametrize("n0", [1, 7, 27, 97])
def test_collatz_matches_tensorflow_function(n0):
    ours = tx.function(_collatz(tx))(tx.constant(n0))
    theirs = tf.function(_collatz(tf))(tf.constant(n0))
    assert [int(v) for v in ours] == [int(v) for v in theirs]


@pytest.mark.eager
def test_switch_case_matches_tensorflow():
    x = np.array([1.0, -2.0, 4.0], np.float32)
    ours, theirs = tx.function(_switch(tx)), tf.function(_switch(tf))
    for k in (0, 1, 2, 5, -1):
        np.testing.assert_allclose(ours(tx.constant(k), tx.constant(x)).numpy(),
                                   theirs(tf.constant(k), tf.constant(x)).numpy())


def test_static_shapes_match_tensorflow():
    def shapes(lib, graph, placeholder):
        with graph.as_default():
            p = placeholder(lib.bool, shape=[])
            c1 = lib.cond(p, lambda: lib.zeros([2, 3]), lambda: lib.zeros([4, 3]))
            c2 = lib.cond(p, lambda: lib.zeros([2]), lambda: lib.zeros([1, 1]))
            _, w = lib.while_loop(lambda i, m: i < 3, lambda i, m: (i + 1, lib.concat([m, m], 0)),
                                  [0, lib.ones([2, 5])], shape_invariants=[lib.TensorShape([]),
                                                                           lib.TensorShape([None, 5])])
            return [s.shape.as_list() if s.shape.rank is not None else None for s in (c1, c2, w)]

    assert shapes(tx, tx.Graph(), tx.placeholder) == shapes(tf, tf.Graph(), tf.compat.v1.placeholder)


def _program(lib, placeholder):
    n = placeholder(lib.int32, shape=[], name="n")
    x = placeholder(lib.float32, shape=[3], name="x")

    def body(i, a):
        a2 = lib.cond(lib.equal(i % 3, 0), lambda: a * 2.0, lambda: a - x)
        return i + 1, a2

    _, a = lib.while_loop(lambda i, a: i < n, body, [0, x], maximum_iterations=50)
    return lib.identity(a, name="out")


def test_our_graph_runs_in_tensorflow(sess):
    out = _program(tx, tx.placeholder)
    feeds = {"n:0": 7, "x:0": [1.0, 2.0, 3.0]}
    ours = sess.run(out, {tx.get_default_graph().get_tensor_by_name(k): v for k, v in feeds.items()})
    graph_def = tf.compat.v1.GraphDef.FromString(tx.get_default_graph().as_graph_def().SerializeToString())
    with tf.Graph().as_default() as g:
        tf.graph_util.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=g) as s:
            theirs = s.run("out:0", feeds)
    np.testing.assert_array_equal(ours, theirs)


def test_tensorflow_graph_runs_here(sess):
    from tensorflux.proto import graph_pb2

    with tf.Graph().as_default() as g:
        _program(tf, tf.compat.v1.placeholder)
        with tf.compat.v1.Session(graph=g) as s:
            theirs = s.run("out:0", {"n:0": 8, "x:0": [0.5, 1.0, -1.0]})
    tx.import_graph_def(graph_pb2.GraphDef.FromString(g.as_graph_def().SerializeToString()), name="")
    np.testing.assert_array_equal(sess.run("out:0", {"n:0": 8, "x:0": [0.5, 1.0, -1.0]}), theirs)


def test_shape_invariant_error_reads_like_tensorflow():
    def message(lib, graph, exc):
        with graph.as_default():
            with pytest.raises(exc) as info:
                lib.while_loop(lambda v: lib.reduce_sum(v) < 10.0, lambda v: lib.concat([v, v], 0),
                               [lib.constant([1.0, 2.0])])
        return str(info.value)

    ours = message(tx, tx.Graph(), ValueError)
    theirs = message(tf, tf.Graph(), ValueError)
    common = ("enters the loop with shape (2,), but has shape (4,) after one iteration. To allow the shape to vary "
              "across iterations, use the `shape_invariants` argument of ")
    assert common in ours and common in theirs
