"""Resumability: for every pipeline, an iterator saved after k elements and restored into a freshly
built pipeline yields exactly the elements an uninterrupted run yields after k (in fast and debug
mode); through tx.train.Checkpoint too; foreign or corrupt states are refused and the iterator
survives."""

import threading

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import PIPELINES, RANDOM, assert_same_elements, flat_values

ALL = {**PIPELINES, **RANDOM}


def _elements(it):
    return [flat_values(tx.nest, e) for e in it]


def _resume_points(n):
    return sorted({0, 1, n // 3, n // 2, max(0, n - 1), n})


@pytest.mark.parametrize("debug", [False, True], ids=["fast", "debug"])
@pytest.mark.parametrize("name", sorted(ALL))
def test_mid_epoch_resume_yields_the_uninterrupted_elements(name, debug):
    with txd.debug_mode(debug):
        full = _elements(iter(ALL[name](txd.Dataset, tx)))
        for k in _resume_points(len(full)):
            it = iter(ALL[name](txd.Dataset, tx))
            head = [flat_values(tx.nest, next(it)) for _ in range(k)]
            state = it.save()
            rest_same = _elements(it)  # the saving iterator goes on undisturbed
            resumed = iter(ALL[name](txd.Dataset, tx))  # a rebuilt pipeline, as in a new process
            resumed.restore(state)
            assert_same_elements(head + _elements(resumed), full)
            assert_same_elements(head + rest_same, full)


def test_state_of_a_random_access_source_is_an_index_not_data():
    big = txd.Dataset.from_tensor_slices(np.zeros((100_000, 64), np.float32)).map(lambda x: x + 1).batch(10)
    it = iter(big)
    next(it)
    assert len(it.save()) < 4096  # offsets and counters, not the 25 MB of data


def test_parallel_map_and_prefetch_buffers_are_recorded():
    def build():
        return txd.Dataset.range(100).map(lambda x: x * 3, num_parallel_calls=8).prefetch(16)
    it = iter(build())
    head = [int(next(it)) for _ in range(10)]
    state = it.save()
    resumed = iter(build())
    resumed.restore(state)
    assert head + [int(x) for x in resumed] == list(range(0, 300, 3))


def test_resume_through_tx_train_checkpoint(tmp_path):
    def build():
        return txd.Dataset.range(50).shuffle(10, seed=4).batch(3)
    full = [b.numpy().tolist() for b in build()]
    it = iter(build())
    v = tx.Variable(1.0)
    ckpt = tx.train.Checkpoint(iterator=it, v=v)
    head = [next(it).numpy().tolist() for _ in range(5)]
    path = ckpt.save(str(tmp_path / "ckpt"))
    it2 = iter(build())
    status = tx.train.Checkpoint(iterator=it2, v=tx.Variable(0.0)).restore(path)
    status.assert_consumed()
    assert head + [b.numpy().tolist() for b in it2] == full


def test_restoring_into_a_different_pipeline_is_refused_and_the_iterator_survives():
    it = iter(txd.Dataset.range(10).batch(2))
    next(it)
    state = it.save()
    other = iter(txd.Dataset.range(10).batch(3))
    with pytest.raises(tx.errors.InvalidArgumentError, match="different pipeline"):
        other.restore(state)
    assert next(other).numpy().tolist() == [0, 1, 2]
    with pytest.raises(tx.errors.InvalidArgumentError, match="not a saved iterator state"):
        other.restore(b"garbage")
    assert next(other).numpy().tolist() == [3, 4, 5]


def test_generator_pipelines_resume_by_replaying_the_pure_generator():
    def build():
        return txd.Dataset.from_generator(lambda: iter(range(20)), output_signature=tx.TensorSpec([], tx.int64)) \
            .map(lambda x: x * 2).shuffle(5, seed=2)
    full = [int(x) for x in build()]
    it = iter(build())
    head = [int(next(it)) for _ in range(7)]
    state = it.save()
    it2 = iter(build())
    it2.restore(state)
    assert head + [int(x) for x in it2] == full


def _outcomes(it):
    """Everything ``it`` yields until its end: ("value", [lists]) per element and ("error", class,
    message) per error raised, going on after each error."""
    out = []
    while True:
        try:
            out.append(("value", [a.tolist() for a in flat_values(tx.nest, next(it))]))
        except StopIteration:
            return out
        except tx.errors.OpError as e:
            out.append(("error", type(e), e.message))


def _buffered_error_pipeline(asked, skip_errors):
    """Elements 0..7 mapped through 1/(x-2) with check_numerics (element 2 is an error), then
    prefetch(4); ``asked[k]`` is set when the producer thread asks the generator for element k."""
    def gen():
        for i in range(8):
            asked[i].set()
            yield np.float32(i)
    ds = txd.Dataset.from_generator(gen, output_signature=tx.TensorSpec([], tx.float32)).map(
        lambda x: tx.debugging.check_numerics(1.0 / (x - 2.0), "not finite")).prefetch(4)
    return ds.ignore_errors() if skip_errors else ds


@pytest.mark.parametrize("skip_errors", [False, True], ids=["raised", "ignore_errors"])
def test_a_buffered_prefetch_error_is_saved_and_raised_at_its_position(skip_errors):
    def events():
        return [threading.Event() for _ in range(8)]
    full = _outcomes(iter(_buffered_error_pipeline(events(), skip_errors)))
    kinds = ["value"] * 7 if skip_errors else ["value", "value", "error"] + ["value"] * 5
    assert [o[0] for o in full] == kinds
    asked = events()
    it = iter(_buffered_error_pipeline(asked, skip_errors))
    head = [("value", [a.tolist() for a in flat_values(tx.nest, next(it))])]
    assert asked[4].wait(60)  # a hang guard: the producer has 1, the error of 2 and 3 in its buffer
    state = it.save()
    resumed = iter(_buffered_error_pipeline(events(), skip_errors))
    resumed.restore(state)
    uninterrupted = head + _outcomes(it)  # the saving iterator goes on: its function's trace names the error
    assert [o[0] for o in uninterrupted] == kinds
    assert head + _outcomes(resumed) == uninterrupted
