"""Session.run: fetch structures, feeds, zero-copy feeding and fetching, threads, configuration."""

import collections
import gc
import sys
import threading

import numpy as np
import pytest

import tensorflux as tx

Pair = collections.namedtuple("Pair", ["first", "second"])


@pytest.fixture
def graph():
    x = tx.placeholder(tx.float32, shape=[None, 2], name="x")
    w = tx.constant([[1.0, 2.0], [3.0, 4.0]], name="w")
    y = tx.matmul(x, w, name="y")
    z = tx.reduce_sum(y, name="z")
    init = tx.no_op(name="init")
    return x, w, y, z, init


XV = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
YV = XV @ np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)


def test_run_single_tensor(sess, graph):
    x, _, y, z, _ = graph
    out = sess.run(y, feed_dict={x: XV})
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, YV)
    total = sess.run(z, {x: XV})
    assert isinstance(total, np.float32)  # rank-0 results are NumPy scalars, like TensorFlow's
    assert total == YV.sum()


def test_fetch_structures(sess, graph):
    x, w, y, z, init = graph
    feed = {x: XV}
    assert sess.run(init, feed) is None
    np.testing.assert_array_equal(sess.run("y:0", feed), YV)
    assert sess.run("init", feed) is None
    a, b = sess.run([y, z], feed)
    np.testing.assert_array_equal(a, YV)
    assert b == YV.sum()
    out = sess.run((w, [z, init], {"y": y, "nested": (z,)}), feed)
    assert isinstance(out, tuple) and isinstance(out[1], list) and isinstance(out[2], dict)
    np.testing.assert_array_equal(out[0], [[1, 2], [3, 4]])
    assert out[1][0] == YV.sum() and out[1][1] is None
    np.testing.assert_array_equal(out[2]["y"], YV)
    assert out[2]["nested"] == (YV.sum(),)
    pair = sess.run(Pair(first=z, second="w:0"), feed)
    assert isinstance(pair, Pair) and pair.first == YV.sum()
    od = sess.run(collections.OrderedDict([("b", z), ("a", w)]), feed)
    assert isinstance(od, collections.OrderedDict) and list(od) == ["b", "a"]
    assert sess.run([], feed) == []


def test_same_structure_different_containers_are_not_confused(sess, graph):
    x, _, y, z, _ = graph
    feed = {x: XV}
    assert type(sess.run((z, z), feed)) is tuple
    assert type(sess.run(Pair(z, z), feed)) is Pair
    assert type(sess.run([z, z], feed)) is list


def test_duplicate_fetches(sess, graph):
    x, _, y, _, _ = graph
    a, b, c = sess.run([y, y, tx.identity(y)], {x: XV})
    assert a is b  # one fetch, returned twice (as TensorFlow does)
    np.testing.assert_array_equal(a, YV)
    a[0, 0] = -1.0  # the Identity's value shares the engine buffer, but its array does not
    assert c[0, 0] == YV[0, 0]


def test_feed_keys_and_values(sess, graph):
    x, _, y, _, _ = graph
    np.testing.assert_array_equal(sess.run(y, {"x:0": XV}), YV)
    # Lists, float64 and int arrays are converted to the placeholder's dtype (float32).
    np.testing.assert_array_equal(sess.run(y, {x: XV.tolist()}), YV)
    np.testing.assert_array_equal(sess.run(y, {x: XV.astype(np.float64)}), YV)
    np.testing.assert_array_equal(sess.run(y, {x: XV.astype(np.int64)}), YV)
    s = tx.placeholder(tx.int32, shape=[], name="s")
    assert sess.run(s * 2, {s: 21}) == 42
    # Any tensor can be fed, not only placeholders; a fed tensor's value is the fed value.
    np.testing.assert_array_equal(sess.run(y, {y: np.zeros((1, 2), np.float32)}), [[0, 0]])


def test_feeding_is_zero_copy(sess):
    x = tx.placeholder(tx.float32, shape=[None], name="x")
    y = tx.identity(x)
    big = np.arange(1 << 20, dtype=np.float32)
    out = sess.run(y, {x: big})
    assert np.shares_memory(out, big)
    assert out.__array_interface__["data"][0] == big.__array_interface__["data"][0]
    np.testing.assert_array_equal(out, np.arange(1 << 20, dtype=np.float32))


def test_fed_arrays_are_not_freed_early(sess):
    x = tx.placeholder(tx.float64, shape=[None], name="x")
    y = tx.identity(x)
    out = sess.run(y, {x: np.full(1 << 18, 7.0)})  # the fed array has no other reference
    gc.collect()
    filler = [np.full(1 << 18, -1.0) for _ in range(8)]  # would reuse freed memory
    assert (out == 7.0).all()
    del filler
    base = np.full(16, 3.0)
    before = sys.getrefcount(base)
    for _ in range(10):
        sess.run(y, {x: base})
    assert sys.getrefcount(base) == before  # every reference the runs took was dropped
    held = sess.run(y, {x: base})
    assert sys.getrefcount(base) == before + 1  # the fetched alias keeps the array alive
    del held
    assert sys.getrefcount(base) == before


def test_feeds_that_need_a_copy(sess):
    x = tx.placeholder(tx.float32, shape=[None], name="x")
    y = tx.identity(x)
    strided = np.arange(20, dtype=np.float32)[::2]
    out = sess.run(y, {x: strided})
    np.testing.assert_array_equal(out, strided)
    assert not np.shares_memory(out, strided)
    swapped = np.arange(4, dtype=">f4")
    np.testing.assert_array_equal(sess.run(y, {x: swapped}), [0, 1, 2, 3])
    readonly = np.arange(3, dtype=np.float32)
    readonly.flags.writeable = False
    np.testing.assert_array_equal(sess.run(y, {x: readonly}), [0, 1, 2])


def test_fetched_arrays_never_alias_graph_constants(sess):
    c = tx.constant([1.0, 2.0, 3.0])
    r = tx.reshape(c, [3, 1])
    first = sess.run(c)
    first[0] = 100.0
    column = sess.run(r)
    column[1, 0] = 200.0
    np.testing.assert_array_equal(sess.run(c), [1.0, 2.0, 3.0])
    assert first.flags.writeable


def test_fetched_arrays_own_their_tensor(sess):
    x = tx.placeholder(tx.float32, shape=[None], name="x")
    out = sess.run(x * 2.0, {x: np.arange(1000, dtype=np.float32)})
    assert out.base is not None and out.flags.writeable
    del sess  # the array outlives the run and the session
    gc.collect()
    np.testing.assert_array_equal(out, np.arange(1000, dtype=np.float32) * 2)


def test_graph_modified_after_session_creation(graph):
    x, _, y, _, _ = graph
    with tx.Session() as s:
        np.testing.assert_array_equal(s.run(y, {x: XV}), YV)
        later = tx.nn.relu(y - 10.0, name="later")
        np.testing.assert_array_equal(s.run(later, {x: XV}), np.maximum(YV - 10.0, 0))
        np.testing.assert_array_equal(s.run(y, {x: XV}), YV)


def test_concurrent_runs_from_many_threads():
    x = tx.placeholder(tx.float32, shape=[None, 4], name="x")
    w = tx.constant(np.eye(4, dtype=np.float32) * 2)
    y = tx.nn.relu(tx.matmul(x, w) - 1.0)
    s = tx.Session(inter_op_parallelism_threads=2, intra_op_parallelism_threads=1)
    failures = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(100):
            v = rng.standard_normal((rng.integers(1, 16), 4)).astype(np.float32)
            out = s.run({"y": y, "x": "x:0"}, {x: v})
            if not np.allclose(out["y"], np.maximum(v * 2 - 1, 0)) or not np.array_equal(out["x"], v):
                failures.append(seed)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    s.close()


def test_close_and_context_manager(graph):
    x, _, y, _, _ = graph
    g = tx.get_default_graph()
    other = tx.Graph()
    with tx.Session(graph=other) as s:
        assert s.graph is other and tx.get_default_graph() is other
    assert tx.get_default_graph() is g
    with pytest.raises(RuntimeError, match="closed Session"):
        s.run(y, {x: XV})
    s2 = tx.Session()
    s2.close()
    s2.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        s2.run(y, {x: XV})


def test_config(graph):
    x, _, y, _, _ = graph
    config = tx.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=2)
    with tx.Session(config=config) as s:
        np.testing.assert_array_equal(s.run(y, {x: XV}), YV)
    with tx.Session(config=config.SerializeToString(), intra_op_parallelism_threads=1) as s:
        np.testing.assert_array_equal(s.run(y, {x: XV}), YV)
    with tx.Session(config={"inter_op_parallelism_threads": 1, "intra_op_parallelism_threads": 1}) as s:
        np.testing.assert_array_equal(s.run(y, {x: XV}), YV)
    with tx.Session(config={"allow_soft_placement": True}) as s:
        np.testing.assert_array_equal(s.run(y, {x: XV}), YV)
    with pytest.raises(ValueError):
        tx.Session(config={"no_such_field": 1})
    with pytest.raises(TypeError, match="ConfigProto"):
        tx.Session(config=3)
    with pytest.raises(ValueError, match="in-process"):
        tx.Session("grpc://localhost:2222")
    with pytest.raises(tx.errors.OpError):
        tx.Session(config=b"\xff\xff\xff")


@pytest.mark.parametrize("np_type", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16,
                                     np.uint16, np.float16, np.complex64, np.complex128, np.bool_])
def test_round_trip_dtypes_through_identity(sess, np_type):
    value = (np.arange(6) % 3).astype(np_type).reshape(2, 3)
    p = tx.placeholder(tx.as_dtype(np_type), shape=[2, 3])
    out = sess.run(tx.identity(p), {p: value})
    assert out.dtype == np_type
    np.testing.assert_array_equal(out, value)


def test_empty_tensors(sess):
    p = tx.placeholder(tx.float32, shape=[None, 3])
    out = sess.run(tx.identity(p) * 2.0, {p: np.zeros((0, 3), np.float32)})
    assert out.shape == (0, 3) and out.dtype == np.float32


def test_bfloat16_through_ml_dtypes(sess):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    p = tx.placeholder(tx.bfloat16, shape=[3])
    value = np.array([1.5, -2.0, 3.0], ml_dtypes.bfloat16)
    out = sess.run(tx.identity(p), {p: value})
    assert out.dtype == ml_dtypes.bfloat16 and np.shares_memory(out, value)
    np.testing.assert_array_equal(sess.run(tx.identity(p), {p: [1.5, -2.0, 3.0]}).astype(np.float32), [1.5, -2, 3])
    c = tx.constant([1.0, 2.0], dtype=tx.bfloat16)
    np.testing.assert_array_equal(sess.run(c).astype(np.float32), [1.0, 2.0])


def test_eval_and_run_with_the_default_session(graph):
    x, _, y, _, init = graph
    with pytest.raises(ValueError, match="no default session"):
        y.eval({x: XV})
    with tx.Session() as s:
        np.testing.assert_array_equal(y.eval({x: XV}), YV)
        assert init.run() is None
        with tx.Session(graph=tx.Graph()):
            with pytest.raises(ValueError, match="not the session's graph"):
                y.eval({x: XV})
        np.testing.assert_array_equal(y.eval({x: XV}, session=s), YV)
    with pytest.raises(ValueError, match="no default session"):
        init.run()
