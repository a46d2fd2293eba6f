"""tx.random.Generator, the global generator and the stateless seed helpers: state handling,
distributions (moments and KS tests against scipy.stats, fixed seeds) and TensorFlow's streams."""

import numpy as np
import pytest
from scipy import stats

import tensorflux as tx

pytestmark = pytest.mark.eager

N = 20000


def _ks_ok(sample, cdf):
    # With fixed seeds the statistic is deterministic; 1.63/sqrt(n) is the 1% critical value.
    return stats.kstest(sample, cdf).statistic < 1.63 / np.sqrt(sample.size)


def test_from_seed_state_layout_and_counter():
    g = tx.random.Generator.from_seed(1234)
    np.testing.assert_array_equal(g.state.numpy(), [1234, 0, 0])
    g.uniform([5])
    np.testing.assert_array_equal(g.state.numpy(), [1234 + 5 * 256, 0, 0])
    g.normal([2, 3])
    np.testing.assert_array_equal(g.state.numpy(), [1234 + 11 * 256, 0, 0])
    np.testing.assert_array_equal(tx.random.Generator.from_seed(2**70 + 3).state.numpy(), [3, 64, 0])
    assert g.algorithm == 1


def test_same_seed_same_values_and_draws_differ():
    a = tx.random.Generator.from_seed(7)
    b = tx.random.Generator.from_seed(7)
    x1, x2 = a.normal([100]).numpy(), a.normal([100]).numpy()
    np.testing.assert_array_equal(x1, b.normal([100]).numpy())
    assert not np.array_equal(x1, x2)
    a.reset_from_seed(7)
    np.testing.assert_array_equal(a.normal([100]).numpy(), x1)


def test_distributions():
    g = tx.random.Generator.from_seed(2024)
    u = g.uniform([N], minval=-2.0, maxval=3.0).numpy()
    assert u.dtype == np.float32 and u.min() >= -2.0 and u.max() < 3.0
    assert _ks_ok(u, stats.uniform(-2.0, 5.0).cdf)
    n = g.normal([N], mean=1.5, stddev=2.0, dtype=tx.float64).numpy()
    assert n.dtype == np.float64
    assert abs(n.mean() - 1.5) < 5 * 2.0 / np.sqrt(N) and abs(n.std() - 2.0) < 0.05
    assert _ks_ok(n, stats.norm(1.5, 2.0).cdf)
    t = g.truncated_normal([N]).numpy()
    assert np.abs(t).max() <= 2.0
    assert _ks_ok(t, stats.truncnorm(-2, 2).cdf)
    i = g.uniform([N], minval=3, maxval=13, dtype=tx.int32).numpy()
    assert i.dtype == np.int32 and i.min() == 3 and i.max() == 12
    counts = np.bincount(i - 3, minlength=10)
    assert stats.chisquare(counts).pvalue > 0.001
    full = g.uniform_full_int([N], tx.uint32).numpy()
    assert _ks_ok(full / 2.0**32, stats.uniform().cdf)
    with pytest.raises(ValueError, match="minval and maxval must be both"):
        g.uniform([3], maxval=None, dtype=tx.int32)


def test_split_and_make_seeds():
    g = tx.random.Generator.from_seed(5)
    children = g.split(2)
    assert g.state.numpy()[0] == 5 + 2 * 256
    s0, s1 = (c.state.numpy() for c in children)
    assert s0[0] == s0[1] == 0 and s1[0] == s1[1] == 0 and s0[2] != s1[2]
    a, b = children[0].normal([50]).numpy(), children[1].normal([50]).numpy()
    assert not np.array_equal(a, b)
    seeds = g.make_seeds(3)
    assert seeds.shape == (2, 3) and seeds.dtype == tx.int64
    np.testing.assert_array_equal(seeds.numpy()[1], [0, 0, 0])
    vals = tx.random.stateless_uniform([4], seed=seeds.numpy()[:, 0])
    assert vals.shape == (4,)


def test_global_generator():
    g = tx.random.get_global_generator()
    assert tx.random.get_global_generator() is g
    mine = tx.random.Generator.from_seed(1)
    tx.random.set_global_generator(mine)
    try:
        assert tx.random.get_global_generator() is mine
    finally:
        tx.random.set_global_generator(g)
    with pytest.raises(TypeError):
        tx.random.set_global_generator(5)
    a, b = tx.random.Generator.from_non_deterministic_state(), tx.random.Generator.from_non_deterministic_state()
    assert not np.array_equal(a.state.numpy(), b.state.numpy())


def test_inside_function_and_graph():
    g = tx.random.Generator.from_seed(99)
    ref = tx.random.Generator.from_seed(99)

    @tx.function
    def draw():
        return g.normal([4]), g.uniform([2])

    first, second = draw(), draw()
    np.testing.assert_array_equal(first[0].numpy(), ref.normal([4]).numpy())
    np.testing.assert_array_equal(first[1].numpy(), ref.uniform([2]).numpy())
    np.testing.assert_array_equal(second[0].numpy(), ref.normal([4]).numpy())
    np.testing.assert_array_equal(second[1].numpy(), ref.uniform([2]).numpy())
    np.testing.assert_array_equal(g.state.numpy(), ref.state.numpy())

    with tx.Graph().as_default() as graph:
        gg = tx.random.Generator.from_seed(99)
        x = gg.normal([4])
        with tx.Session(graph=graph) as sess:
            sess.run(tx.global_variables_initializer())
            v1, v2 = sess.run(x), sess.run(x)
    ref.reset_from_seed(99)
    np.testing.assert_array_equal(v1, ref.normal([4]).numpy())
    np.testing.assert_array_equal(v2, ref.normal([4]).numpy())


def test_stateless_split_and_fold_in():
    s = tx.random.experimental.stateless_split([1, 2], 3)
    assert s.shape == (3, 2)
    f = tx.random.experimental.stateless_fold_in([1, 2], 7)
    assert f.numpy()[1] == 7 and f.numpy()[0] == s.numpy()[0, 0]
    assert not np.array_equal(tx.random.experimental.stateless_fold_in([1, 2], 8).numpy(), f.numpy())


def test_streams_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    ours, theirs = tx.random.Generator.from_seed(1234), tf.random.Generator.from_seed(1234)
    draws = [
        lambda g, m: g.uniform([5]),
        lambda g, m: g.normal([7], mean=1.0, stddev=3.0),
        lambda g, m: g.uniform([3], dtype=m.float64),
        lambda g, m: g.uniform([6], minval=-4, maxval=9, dtype=m.int32),
        lambda g, m: g.uniform([6], minval=0, maxval=2**40, dtype=m.int64),
        lambda g, m: g.uniform_full_int([4], m.int64),
        lambda g, m: g.uniform_full_int([5], m.uint32),
        lambda g, m: g.make_seeds(2),
        lambda g, m: g.normal([3, 2], dtype=m.float64),
    ]
    for k, draw in enumerate(draws):
        np.testing.assert_allclose(draw(ours, tx).numpy(), draw(theirs, tf).numpy(), rtol=1e-6, err_msg=str(k))
        np.testing.assert_array_equal(ours.state.numpy(), theirs.state.numpy())
    for a, b in zip(ours.split(2), theirs.split(2)):
        np.testing.assert_array_equal(a.state.numpy(), b.state.numpy())
    np.testing.assert_array_equal(tx.random.experimental.stateless_split([1, 2], 3).numpy(),
                                  tf.random.experimental.stateless_split([1, 2], 3).numpy())
    np.testing.assert_array_equal(tx.random.experimental.stateless_fold_in(np.array([5, 9], np.int64), 11).numpy(),
                                  tf.random.experimental.stateless_fold_in(np.array([5, 9], np.int64), 11).numpy())
