"""tx.random: seeds (graph- and op-level, like TensorFlow 1), reproducibility, independence from
the intra-op thread count, and the composite ops' scaling."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux import random as txr
from tensorflux._src import random_ops


def _run(build, threads=None, runs=1):
    """Builds a fresh graph with build() and runs its fetches `runs` times in one session."""
    g = tx.Graph()
    with g.as_default():
        fetches = build()
        config = None if threads is None else dict(intra_op_parallelism_threads=threads)
        with tx.Session(graph=g, config=config) as sess:
            return [sess.run(fetches) for _ in range(runs)]


def _all_ops(seed=5):
    logits = tx.constant(np.array([[0.0, 1.0, 2.0]] * 7, np.float32))
    return [
        txr.uniform([1001, 67], seed=seed),
        txr.uniform([30001], dtype=tx.float64, seed=seed),
        txr.uniform([40001], minval=-4, maxval=9, dtype=tx.int64, seed=seed),
        txr.normal([50001], seed=seed),
        txr.normal([20001], dtype=tx.float64, seed=seed),
        txr.truncated_normal([40001], seed=seed),
        txr.shuffle(tx.constant(np.arange(50001, dtype=np.int32)), seed=seed),
        txr.categorical(logits, 9001, seed=seed),
        txr.stateless_uniform([50001], seed=[3, 4]),
        txr.stateless_normal([50001], seed=[3, 4], dtype=tx.float64),
        txr.stateless_truncated_normal([30001], seed=[3, 4]),
    ]


def test_thread_count_does_not_change_values():
    one = _run(lambda: _all_ops(), threads=1)[0]
    four = _run(lambda: _all_ops(), threads=4)[0]
    for a, b in zip(one, four):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_same_seeds_same_values_across_sessions():
    def build():
        txr.set_seed(1234)
        return [txr.uniform([100]), txr.normal([100], seed=9), txr.uniform([100])]
    a = _run(build)[0]
    b = _run(build)[0]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    # Two ops in one graph without op seeds get different op-level seeds.
    assert not np.array_equal(a[0], a[2])


def test_different_seeds_differ():
    a = _run(lambda: txr.uniform([100], seed=1))[0]
    b = _run(lambda: txr.uniform([100], seed=2))[0]
    assert not np.array_equal(a, b)

    def graph_seeded(s):
        def build():
            txr.set_seed(s)
            return txr.normal([100], seed=1)
        return build
    assert not np.array_equal(_run(graph_seeded(1))[0], _run(graph_seeded(2))[0])


def test_successive_runs_advance_the_stream():
    first, second = _run(lambda: txr.uniform([64], seed=3), runs=2)
    assert not np.array_equal(first, second)
    # ...and a new session on the same seeds starts the stream again.
    again = _run(lambda: txr.uniform([64], seed=3))[0]
    np.testing.assert_array_equal(first, again)


def test_unseeded_ops_are_nondeterministic():
    a = _run(lambda: txr.uniform([64]))[0]
    b = _run(lambda: txr.uniform([64]))[0]
    assert not np.array_equal(a, b)


def test_get_seed_follows_tensorflow():
    with tx.Graph().as_default() as g:
        assert random_ops.get_seed(None) == (0, 0)
        assert random_ops.get_seed(7) == (random_ops.DEFAULT_GRAPH_SEED, 7)
        txr.set_seed(42)
        assert g.seed == 42
        assert random_ops.get_seed(7) == (42, 7)
        s1 = random_ops.get_seed(None)
        tx.constant(1.0)
        s2 = random_ops.get_seed(None)
        assert s1[0] == s2[0] == 42 and s1[1] != s2[1]
        txr.set_seed(0)
        assert random_ops.get_seed(0) == (0, 2**31 - 1)
        txr.set_seed(None)
        assert random_ops.get_seed(None) == (0, 0)
    with tx.Graph().as_default():
        u = txr.uniform([2], seed=5)
        assert u.op.get_attr("seed") == random_ops.DEFAULT_GRAPH_SEED and u.op.get_attr("seed2") == 5


def test_seeds_and_graph_values_equal_tensorflow():
    """Op seeds past 31 bits or negative are reduced modulo 2**31 - 1, and ops with only a graph seed
    count the graph's seeded ops, as TensorFlow's get_seed does; the values then agree too."""
    tf = pytest.importorskip("tensorflow")
    tf.random.set_seed(None)  # the eager global seeds (other tests may have set them)
    tx.random.set_seed(None)
    for op_seed in (None, 0, 7, -7, 2**31 - 1, 2**40 + 5, 2**63 + 3):
        assert tx.compat.v1.get_seed(op_seed) == tf.compat.v1.get_seed(op_seed), op_seed

    def values(m, graph, session):
        with graph.as_default():
            m.compat.v1.set_random_seed(3)
            ops = [m.random.uniform([3]), m.random.uniform([2], seed=2**40 + 5), m.random.normal([2]),
                   m.random.uniform([2], seed=-7)]
            with session() as sess:
                return [v.tolist() for v in sess.run(ops)]

    assert values(tx, tx.Graph(), tx.Session) == values(tf, tf.Graph(), tf.compat.v1.Session)


@pytest.mark.eager
def test_eager_seeded_uniform_and_normal_equal_tensorflow():
    tf = pytest.importorskip("tensorflow")
    got = {}
    for m in (tx, tf):
        m.random.set_seed(None)
        seeded = [m.random.uniform([5], seed=-7), m.random.normal([5], seed=2**40 + 5)]
        m.random.set_seed(11)
        globally = [m.random.uniform([3]), m.random.normal([3], seed=4)]
        m.random.set_seed(None)
        got[m.__name__] = [np.asarray(v).tolist() for v in seeded + globally]
    assert got["tensorflux"] == got["tensorflow"]


def test_uniform_scaling_and_ints():
    lo_hi, ints = _run(lambda: [txr.uniform([20000], minval=-2.0, maxval=3.0, seed=1),
                                txr.uniform([20000], minval=5, maxval=8, dtype=tx.int32, seed=1)])[0]
    assert lo_hi.min() >= -2 and lo_hi.max() < 3 and abs(lo_hi.mean() - 0.5) < 0.06
    assert ints.dtype == np.int32 and set(np.unique(ints)) == {5, 6, 7}
    with tx.Graph().as_default():
        with pytest.raises(ValueError, match="maxval"):
            txr.uniform([3], dtype=tx.int32)


def test_normal_and_truncated_scaling():
    n, t = _run(lambda: [txr.normal([40000], mean=3.0, stddev=2.0, seed=2),
                         txr.truncated_normal([40000], mean=-1.0, stddev=0.5, dtype=tx.float64, seed=2)])[0]
    assert abs(n.mean() - 3.0) < 0.05 and abs(n.std() - 2.0) < 0.05
    assert t.dtype == np.float64 and t.min() >= -2.0 and t.max() <= 0.0 and abs(t.mean() + 1.0) < 0.02


def test_shuffle_and_categorical():
    s, c = _run(lambda: [txr.shuffle(tx.constant(np.arange(20).reshape(10, 2)), seed=1),
                         txr.categorical(tx.constant(np.log([[0.2, 0.8]])), 20000, dtype=tx.int32, seed=1)])[0]
    assert sorted(s[:, 0].tolist()) == list(range(0, 20, 2)) and np.all(s[:, 1] == s[:, 0] + 1)
    assert c.dtype == np.int32 and c.shape == (1, 20000) and abs(c.mean() - 0.8) < 0.015


def test_shuffle_of_strings_is_a_permutation_of_the_rows():
    words = np.array([[b"w%d" % i, b"a longer string, kept on the heap: %d" % i] for i in range(12)], object)
    s = _run(lambda: txr.shuffle(tx.constant(words), seed=3))[0]
    assert sorted(s[:, 0].tolist()) == sorted(words[:, 0].tolist()) and s[:, 0].tolist() != words[:, 0].tolist()
    assert all(long.endswith(short[1:]) for short, long in s.tolist())  # rows move whole


def test_stateless_reproducible_and_seed_sensitive():
    def build(seed):
        return lambda: [txr.stateless_uniform([500], seed=seed), txr.stateless_normal([500], seed=seed),
                        txr.stateless_truncated_normal([500], seed=seed)]
    a = _run(build([1, 2]), runs=2)
    np.testing.assert_array_equal(a[0][0], a[1][0])  # no state: every run repeats
    b = _run(build(np.array([1, 2], np.int64)))[0]
    for x, y in zip(a[0], b):
        np.testing.assert_array_equal(x, y)
    for other in ([1, 3], [2, 2]):
        c = _run(build(other))[0]
        for x, y in zip(a[0], c):
            assert not np.array_equal(x, y)
    sc = _run(lambda: txr.stateless_uniform([1000], seed=[1, 2], minval=10.0, maxval=20.0))[0]
    assert sc.min() >= 10 and sc.max() < 20


def test_stateless_seed_derivation():
    """key/counter from the seed by one scrambling Philox block (Note [Stateless seeds])."""
    from tensorflux._src.generated import gen_ops

    key, counter = random_ops.key_counter_from_seed([1, 2])
    # Values TensorFlow's StatelessRandomGetKeyCounter gives for seed [1, 2].
    assert key.tolist() == [0x908502C96D2F7FBA] and counter.tolist() == [0, 0xF7734320619CB60B]
    key, counter = random_ops.key_counter_from_seed(np.array([-7, 12]))
    assert key.tolist() == [0x77BCA5569235D217] and counter.tolist() == [0, 0x963A6E0B7D3C8E75]

    def build():
        direct = gen_ops.stateless_random_uniform_v2(
            tx.constant(np.array([300], np.int32)), tx.constant(key), tx.constant(counter), tx.constant(np.int32(1)))
        return [txr.stateless_uniform([300], seed=tx.constant(np.array([-7, 12], np.int64))), direct]
    a, b = _run(build)[0]
    np.testing.assert_array_equal(a, b)
    with tx.Graph().as_default():
        with pytest.raises(ValueError, match="shape-\\[2\\]"):
            txr.stateless_uniform([3], seed=[1, 2, 3])


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "uint64"])
def test_stateless_full_range_integers_equal_tensorflow(dtype):
    tf = pytest.importorskip("tensorflow")
    want = tf.random.stateless_uniform([1001], seed=[4, -9], minval=None, maxval=None, dtype=dtype).numpy()
    got = _run(lambda: txr.stateless_uniform([1001], seed=[4, -9], minval=None, maxval=None, dtype=dtype))[0]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if dtype.startswith("u"):  # unsigned integers take no bounds (TensorFlow: ValueError too)
        with tx.Graph().as_default(), pytest.raises(ValueError, match="uint"):
            txr.stateless_uniform([3], seed=[1, 2], minval=0, maxval=5, dtype=dtype)


def test_stateless_matches_tf_random():
    """tx.random.stateless_* equal tf.random.stateless_* (same seed derivation, Philox on CPU)."""
    tf = pytest.importorskip("tensorflow")
    seed = [17, -3]
    with tf.device("/CPU:0"):
        tu = tf.random.stateless_uniform([2000], seed=seed, minval=-1.0, maxval=2.0).numpy()
        tn = tf.random.stateless_normal([2000], seed=seed, dtype=tf.float64).numpy()
    ou, on = _run(lambda: [txr.stateless_uniform([2000], seed=seed, minval=-1.0, maxval=2.0),
                           txr.stateless_normal([2000], seed=seed, dtype=tx.float64)])[0]
    np.testing.assert_array_equal(ou, tu)
    np.testing.assert_allclose(on, tn, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sampler", ["stateless_normal", "stateless_truncated_normal"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stateless_normals_equal_tensorflow_bit_for_bit(sampler, dtype):
    # float32 Box-Muller rounds 2 pi u as TensorFlow does (2 pi in double); truncated normals fill
    # groups of 4 floats / 2 doubles from 256 / 128 reserved blocks, keeping |z| < 2 in draw order.
    tf = pytest.importorskip("tensorflow")
    for seed, shape in (([1, 2], [20001]), ([17, -3], [3, 7]), ([0, 0], [1]), ([5, 6], [0])):
        with tf.device("/CPU:0"):
            want = getattr(tf.random, sampler)(shape, seed=seed, dtype=dtype).numpy()
        got = _run(lambda: [getattr(txr, sampler)(shape, seed=seed, dtype=dtype)])[0][0]
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_stateless_matches_tensorflow_given_key_and_counter():
    tf = pytest.importorskip("tensorflow")
    key = np.array([123456789012345], np.uint64)
    counter = np.array([2**64 - 2, 77], np.uint64)
    for dt, tx_dt in ((tf.float32, tx.float32), (tf.float64, tx.float64)):
        theirs = tf.raw_ops.StatelessRandomUniformV2(shape=[1001], key=key, counter=counter, alg=1, dtype=dt).numpy()
        ours = _run(lambda: random_ops.gen_ops.stateless_random_uniform_v2(
            tx.constant(np.array([1001], np.int32)), tx.constant(key), tx.constant(counter), tx.constant(np.int32(1)),
            dtype=tx_dt))[0]
        np.testing.assert_array_equal(ours, theirs)


RANDOM_OPS = ["RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt", "RandomShuffle",
              "Multinomial", "StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"]


@pytest.mark.parametrize("name", RANDOM_OPS)
def test_op_defs_equal_tensorflow(name):
    pytest.importorskip("tensorflow")
    from tensorflow.python.framework import op_def_registry

    from tensorflux.proto import op_def_pb2

    ours = {op.name: op for op in op_def_pb2.OpList.FromString(tx._lib.c.get_all_op_list()).op}[name]
    theirs = op_def_registry.get(name)
    strip = op_def_pb2.OpDef()
    for d in (ours, theirs):
        d = op_def_pb2.OpDef.FromString(d.SerializeToString())
        d.summary = d.description = ""
        for a in list(d.input_arg) + list(d.output_arg) + list(d.attr):
            a.description = ""
        if strip.name:
            assert d == strip, f"OpDef {name} differs:\n{d}\nvs TensorFlow's\n{strip}"
        else:
            strip = d


@pytest.mark.parametrize("name", RANDOM_OPS)
def test_wrapper_signature_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    import inspect

    from tensorflux._src.generated import gen_ops
    fn = getattr(gen_ops, gen_ops.OP_WRAPPERS[name])
    ours = [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]
    theirs = [(p.name, p.default) for p in inspect.signature(getattr(tf.raw_ops, name)).parameters.values()]
    assert [n for n, _ in ours] == [n for n, _ in theirs]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16bit_samples_round_the_float32_stream(dtype):
    """Note [16-bit samples]: the float32 samples of the same seeds, rounded toward zero for the
    uniform (so values stay in [0, 1)) and to nearest even for the normals."""
    dt = tx.as_dtype(dtype)
    raw = tx.raw_ops
    ops = (raw.RandomUniform, raw.RandomStandardNormal, raw.TruncatedNormal)
    wide = _run(lambda: [op(shape=[4099], dtype=tx.float32, seed=3, seed2=4) for op in ops])[0]
    narrow = _run(lambda: [op(shape=[4099], dtype=dt, seed=3, seed2=4) for op in ops])[0]
    uniform, normal, truncated = (v.astype(np.float64) for v in narrow)
    assert all(v.dtype == dt.as_numpy_dtype for v in narrow)
    assert 0.0 <= uniform.min() and uniform.max() < 1.0 and abs(uniform.mean() - 0.5) < 0.02
    # The uniform's values: the largest 16-bit value at or below each float32 sample.
    nearest = wide[0].astype(dt.as_numpy_dtype)
    below = np.where(nearest.astype(np.float64) > wide[0], np.nextafter(nearest, dt.as_numpy_dtype(0)), nearest)
    np.testing.assert_array_equal(narrow[0], below)
    for ours, theirs in zip(narrow[1:], wide[1:]):
        np.testing.assert_array_equal(ours, theirs.astype(dt.as_numpy_dtype))
    assert abs(normal.mean()) < 0.1 and np.abs(truncated).max() <= 2.0
