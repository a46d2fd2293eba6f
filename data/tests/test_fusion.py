"""Map-then-batch fusion: an elementwise map function runs once per batch, with the elements of the
unfused pipeline; anything else keeps the per-element path."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import assert_same_elements, flat_values
from tensorflux_data import _fusion, _native


def _fused(ds):
    root = iter(ds)._root
    if isinstance(root, _native.NativeIterator):  # Note [Native segments]: the engine fuses as Python would
        return "fused_map" in root.kinds
    return isinstance(root.inner, _fusion.FusedMapBatchIterator)


def _unfused_options():
    o = txd.Options()
    o.experimental_optimization.map_and_batch_fusion = False
    return o


X = np.linspace(-3, 3, 70, dtype=np.float32).reshape(35, 2)

CASES = {
    "affine": (lambda x: x * 2.0 + 1.0, True),
    "activation_chain": (lambda x: tx.nn.relu(tx.tanh(x) - 0.1) + tx.square(x), True),
    "constant_vector": (lambda x: x * tx.constant([1.0, -1.0]), True),
    "cast_compare": (lambda x: (tx.cast(x > 0.5, tx.int32), tx.abs(x)), True),
    "reduction": (lambda x: tx.reduce_sum(x), "looped"),
    "reshape": (lambda x: tx.reshape(x, [2, 1]), "looped"),
    "random": (lambda x: x + tx.random.uniform([2]), "looped"),
}


def _kind(ds):
    if not _fused(ds):
        return False
    return True if _fusion.is_elementwise(ds._inputs[0]._fn.graph) and not ds._inputs[0]._fn.seeded else "looped"


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("drop", [False, True])
def test_fused_and_unfused_pipelines_give_the_same_elements(name, drop):
    fn, fusable = CASES[name]

    def build():
        return txd.Dataset.from_tensor_slices(X).map(fn).batch(8, drop_remainder=drop)
    assert _kind(build()) == fusable
    got = [flat_values(tx.nest, e) for e in build()]
    want = [flat_values(tx.nest, e) for e in build().with_options(_unfused_options())]
    assert not _fused(build().with_options(_unfused_options()))
    assert_same_elements(got, want)


def test_rank_changing_broadcasts_are_looped_not_vectorised():
    ds = txd.Dataset.from_tensor_slices((X, X[:, 0])).map(lambda a, b: a + b)  # [2] + [] per element
    assert _kind(ds.batch(4)) == "looped"
    want = (X + X[:, :1])[:4]
    np.testing.assert_allclose(next(iter(ds.batch(4))).numpy(), want)


def test_fused_iterator_resumes_from_a_state_with_a_partial_batch():
    def build():
        return txd.Dataset.range(50).map(lambda x: x * 7).batch(6)
    full = [b.numpy().tolist() for b in build()]
    for k in (0, 1, 4, 8, 9):
        it = iter(build())
        head = [next(it).numpy().tolist() for _ in range(k)]
        state = it.save()
        it2 = iter(build())
        it2.restore(state)
        assert head + [b.numpy().tolist() for b in it2] == full


def test_generator_sources_are_stacked_then_fused():
    ds = txd.Dataset.from_generator(lambda: (np.full([3], i, np.float32) for i in range(10)),
                                    output_signature=tx.TensorSpec([3], tx.float32)).map(lambda x: x - 1.0).batch(4)
    assert _fused(ds)
    assert [b.numpy()[:, 0].tolist() for b in ds] == [[-1, 0, 1, 2], [3, 4, 5, 6], [7, 8]]


def test_autotune_climbs_while_throughput_improves_then_settles(monkeypatch):
    from tensorflux_data import _autotune
    clock = [0.0]
    monkeypatch.setattr(_autotune.time, "perf_counter", lambda: clock[0])
    tuner = _autotune.Tuner(high=8)
    speed = {1: 100.0, 2: 190.0, 3: 260.0, 4: 262.0}  # elements per second at each level
    tuner.record()
    for _ in range(20 * _autotune.WINDOW):
        clock[0] += 1.0 / speed.get(tuner.value, 262.0)
        tuner.record()
    assert tuner.value == 3  # 4 workers gained under 5%: back to 3, and it stays


def test_autotuned_parallel_map_and_prefetch_keep_the_elements():
    ds = txd.Dataset.range(500).map(lambda x: x * x, num_parallel_calls=txd.AUTOTUNE).prefetch(txd.AUTOTUNE)
    assert [int(v) for v in ds] == [i * i for i in range(500)]


def test_stats_count_elements_per_node_and_show_the_waits():
    ds = txd.Dataset.range(40).filter(lambda x: x % 2 == 0).map(lambda x: x * 2, num_parallel_calls=2).batch(4)
    it = iter(ds.prefetch(2))
    for _ in it:
        pass
    rows = txd.experimental.stats(it)
    # The elementwise map runs fused inside batch: it has no row of its own.
    assert [(r["node"], r["elements"]) for r in rows] == [("iterator", 5), ("prefetch", 5), ("batch", 5),
                                                           ("filter", 20), ("range", 40)]
    for r in rows[1:]:
        assert r["seconds"] >= r["self_seconds"] >= 0.0 and r["elements_per_second"] > 0
    assert rows[1]["consumer_wait_seconds"] >= 0.0
    assert rows[0]["seconds_in_next"] > 0.0


def test_a_failing_element_fails_its_whole_batch_after_a_map_and_the_iterator_goes_on():
    # Note [Batch errors]: after a map, tf.data's MapAndBatch reads the batch's input elements and
    # drops them all at an error; unfused, its batch drops the elements before the error and the
    # next batch starts after it. Both whether or not the map runs fused here, and in debug mode.
    def build(fuse=True):
        ds = txd.Dataset.from_tensor_slices(np.array([1.0, 2.0, 0.0, 4.0, 5.0], np.float32)).map(
            lambda x: tx.debugging.check_numerics(1.0 / x, "reciprocal")).batch(2)
        return ds if fuse else ds.with_options(_unfused_options())
    for debug in (False, True):
        with txd.debug_mode(debug):
            for fuse, after in ((True, [[0.2]]), (False, [[0.25, 0.2]])):
                assert _fused(build(fuse)) == (fuse and not debug)
                it = iter(build(fuse))
                assert next(it).numpy().tolist() == [1.0, 0.5]
                with pytest.raises(tx.errors.InvalidArgumentError, match="reciprocal"):
                    next(it)
                got = [b.numpy() for b in it]
                assert [g.shape for g in got] == [(len(a),) for a in after]
                np.testing.assert_allclose(np.concatenate(got), np.concatenate(after), rtol=1e-6)
    ragged = txd.Dataset.range(1, 5).map(lambda n: tx.range(n)).batch(2)
    with pytest.raises(tx.errors.InvalidArgumentError, match="Cannot batch tensors with different shapes"):
        next(iter(ragged))


def test_the_first_failure_of_a_fused_batch_is_raised_whether_the_input_or_the_function_fails():
    # The input (the first map) fails at 0.0; the fused second map fails at -1.0 before it.
    def build():
        return txd.Dataset.from_tensor_slices(np.array([1.0, -1.0, 0.0, 4.0, 5.0, 0.0], np.float32)).map(
            lambda x: tx.debugging.check_numerics(1.0 / x, "input")).map(
            lambda y: tx.debugging.check_numerics(tx.math.log(y), "function")).batch(3)
    it = iter(build())
    assert _fused(build())
    with pytest.raises(tx.errors.InvalidArgumentError, match="function"):
        next(it)
    with pytest.raises(tx.errors.InvalidArgumentError, match="input"):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
