"""Deterministic by default: the same pipeline at 1, 2 and 8 worker threads gives the same bytes,
also when its map functions call tx.random (per-element seeds), and in debug mode."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import PIPELINES, RANDOM, assert_same_elements, flat_values

# Every pipeline of the shared lists: each transformation, the random ones (shuffles, seeded maps,
# native shuffles and interleaves) and the Python-function ones.
CASES = {**PIPELINES, **RANDOM}


def _bytes_at(build, threads, debug=False):
    o = txd.Options()
    o.threading.private_threadpool_size = threads
    with txd.debug_mode(debug):
        return [flat_values(tx.nest, e) for e in build(txd.Dataset, tx).with_options(o)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bytes_at_1_2_and_8_threads_and_in_debug_mode(name):
    want = _bytes_at(CASES[name], 1)
    for threads in (2, 8):
        assert_same_elements(_bytes_at(CASES[name], threads), want)
    assert_same_elements(_bytes_at(CASES[name], 1, debug=True), want)


def test_random_values_differ_per_element_and_per_epoch_and_follow_the_seed_option():
    def build(seed=None):
        ds = txd.Dataset.range(4).map(lambda x: tx.random.uniform([]), num_parallel_calls=2).repeat(2)
        if seed is not None:
            o = txd.Options()
            o.seed = seed
            ds = ds.with_options(o)
        return [float(v) for v in ds]
    values = build()
    assert len(set(values)) == 8  # every element, in both epochs, gets its own draw
    assert build() == values and build(seed=7) == build(seed=7) != values


def test_nondeterministic_map_keeps_the_values():
    o = txd.Options()
    o.deterministic = False
    ds = txd.Dataset.range(200).map(lambda x: x * x, num_parallel_calls=8).with_options(o)
    assert sorted(int(v) for v in ds) == [i * i for i in range(200)]
    ds2 = txd.Dataset.range(200).map(lambda x: x * x, num_parallel_calls=8, deterministic=False)
    assert sorted(int(v) for v in ds2) == [i * i for i in range(200)]


def test_random_map_values_are_uniform_draws():
    vals = np.array([float(v) for v in txd.Dataset.range(2000).map(lambda x: tx.random.uniform([]))])
    assert 0.0 <= vals.min() and vals.max() < 1.0
    assert abs(vals.mean() - 0.5) < 0.05  # 2000 draws: standard error 0.0065
