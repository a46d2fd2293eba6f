"""Resumability: for every pipeline, an iterator saved after k elements and restored into a freshly
built pipeline yields exactly the elements an uninterrupted run yields after k (in fast and debug
mode, and saved in one mode and restored in the other); buffered errors are raised again at their
positions; through tx.train.Checkpoint too; foreign or corrupt states are refused and the iterator
survives."""

import threading

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import ERRORS, PIPELINES, RANDOM, assert_same_elements, flat_values, kinds, outcomes

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


# A state saved in one mode restored in the other (Note [Cross-mode states]): debug mode set by the
# txd.debug_mode scope or by the pipeline's Options.
CROSS = {"fast_to_debug": (False, True), "debug_to_fast": (True, False)}


def _iter_in_mode(build, debug, how, state=None):
    ds = build(txd.Dataset, tx)
    if how == "option":
        o = txd.Options()
        o.debug_mode = debug
        ds = ds.with_options(o)
    with txd.debug_mode(debug if how == "scope" else not debug):  # the option wins over the scope
        it = iter(ds)
        if state is not None:
            it.restore(state)
    return it


@pytest.mark.parametrize("how", ["scope", "option"])
@pytest.mark.parametrize("direction", sorted(CROSS))
@pytest.mark.parametrize("name", sorted(ALL))
def test_a_state_saved_in_one_mode_resumes_in_the_other(name, direction, how):
    save_debug, restore_debug = CROSS[direction]
    full = _elements(iter(ALL[name](txd.Dataset, tx)))
    for k in _resume_points(len(full)):
        it = _iter_in_mode(ALL[name], save_debug, how)
        head = [flat_values(tx.nest, next(it)) for _ in range(k)]
        resumed = _iter_in_mode(ALL[name], restore_debug, how, it.save())
        assert_same_elements(head + _elements(resumed), full)


@pytest.mark.parametrize("modes", [(False, False), (True, True), (False, True), (True, False)],
                         ids=["fast", "debug", "fast_to_debug", "debug_to_fast"])
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_resuming_after_and_before_errors_raises_them_at_their_positions(name, modes):
    full = _outcomes(_iter_in_mode(ERRORS[name], False, "scope"))
    assert any(o[0] == "error" for o in full) and all("not finite" in o[2] for o in full if o[0] == "error")
    for k in range(len(full) + 1):
        it = _iter_in_mode(ERRORS[name], modes[0], "scope")
        head = _outcomes(it, k)
        resumed = _iter_in_mode(ERRORS[name], modes[1], "scope", it.save())
        rest = _outcomes(resumed)
        assert kinds(head + rest) == kinds(full), k
        assert all("not finite" in o[2] for o in rest if o[0] == "error")


def test_state_of_a_random_access_source_is_an_index_not_data():
    big = txd.Dataset.from_tensor_slices(np.zeros((100_000, 64), np.float32)).map(lambda x: x + 1).batch(10)
    it = iter(big)
    next(it)
    assert len(it.save()) < 4096  # offsets and counters, not the 25 MB of data
    shuffled = iter(txd.Dataset.from_tensor_slices(np.zeros((100_000, 64), np.float32)).global_shuffle(seed=1))
    next(shuffled)
    assert len(shuffled.save()) < 4096  # a seed and a position, not the permutation of 100,000 indices


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


def _outcomes(it, limit=None):
    return outcomes(tx.nest, tx.errors.OpError, it, limit)


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


@pytest.mark.parametrize("restore_debug", [False, True], ids=["restored_fast", "restored_debug"])
@pytest.mark.parametrize("skip_errors", [False, True], ids=["raised", "ignore_errors"])
def test_a_buffered_prefetch_error_is_saved_and_raised_at_its_position(skip_errors, restore_debug):
    def events():
        return [threading.Event() for _ in range(8)]
    full = _outcomes(iter(_buffered_error_pipeline(events(), skip_errors)))
    expected = ["value"] * 7 if skip_errors else ["value", "value", "error"] + ["value"] * 5
    assert [o[0] for o in full] == expected
    asked = events()
    it = iter(_buffered_error_pipeline(asked, skip_errors))
    head = [("value", [a.tolist() for a in flat_values(tx.nest, next(it))])]
    assert asked[4].wait(60)  # a hang guard: the producer has 1, the error of 2 and 3 in its buffer
    state = it.save()
    with txd.debug_mode(restore_debug):
        resumed = iter(_buffered_error_pipeline(events(), skip_errors))
        resumed.restore(state)
    uninterrupted = head + _outcomes(it)  # the saving iterator goes on: its function's trace names the error
    assert [o[0] for o in uninterrupted] == expected
    assert head + _outcomes(resumed) == uninterrupted
