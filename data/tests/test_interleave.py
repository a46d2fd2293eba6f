"""interleave(num_parallel_calls): the sequential order at any thread count, in debug mode and
after restores; completion order when not deterministic; errors where tf.data's parallel
interleave raises them (counted toward the block, unlike its sequential interleave); sub-datasets
really read concurrently; workers stopped on close (Note [Parallel interleave] in _interleave.py)."""

import gc
import re
import threading

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import assert_same_elements, flat_values
from tensorflux_data import _interleave, _threads

WAIT_S = 60  # a liveness bound for tests that could block (never reached when the code works)

# (lengths of the sub-datasets, cycle_length, block_length): different lengths, empty ones, a cycle
# longer than the input, blocks longer than most sub-datasets.
SHAPES = [([1, 5, 0, 3, 2, 7, 0, 0, 4], 3, 2), ([3, 0, 0, 0, 2], 12, 1), ([0, 0, 0], 2, 3),
          ([5, 1, 1, 1, 1, 1, 6], 2, 3), ([2, 2, 2, 2], 4, 1), ([4], 1, 2)]


@pytest.fixture(params=["cheap_reads", "costly_reads"])
def reads(request, monkeypatch):
    """Both regimes of Note [Cheap reads], whatever the timing: every read cheap (the consumer reads
    runs itself once it has timed one) or every read costly (the workers read)."""
    monkeypatch.setattr(_interleave, "CHEAP_READ_S", float("inf") if request.param == "cheap_reads" else 0.0)
    return request.param


def _threads_option(threads):
    """Options giving the pipeline a pool of ``threads`` workers (tests that hold one worker back need
    more than the one-per-CPU default of a small machine)."""
    o = txd.Options()
    o.threading.private_threadpool_size = threads
    return o


def _build(D, lengths, cycle, block, npc, deterministic=None, threads=0):
    ds = D.from_tensor_slices(np.array(lengths, np.int64)).interleave(
        lambda n: D.range(n * 100, n * 100 + n).map(lambda v: (v, v * 2)), cycle_length=cycle, block_length=block,
        num_parallel_calls=npc, deterministic=deterministic)
    return ds.with_options(_threads_option(threads)) if threads else ds


def _elements(ds):
    return [flat_values(tx.nest, e) for e in ds]


@pytest.mark.parametrize("lengths,cycle,block", SHAPES)
def test_parallel_reads_yield_the_sequential_bytes_at_any_thread_count_and_in_debug_mode(lengths, cycle, block, reads):
    want = _elements(_build(txd.Dataset, lengths, cycle, block, None))
    assert len(want) == sum(lengths)
    for npc in sorted({1, min(2, cycle), cycle, txd.AUTOTUNE}):
        for threads in (1, 2, 8):
            assert_same_elements(_elements(_build(txd.Dataset, lengths, cycle, block, npc, threads=threads)), want)
        with txd.debug_mode():
            assert_same_elements(_elements(_build(txd.Dataset, lengths, cycle, block, npc)), want)
    o = txd.Options()
    o.debug_mode = True
    assert_same_elements(_elements(_build(txd.Dataset, lengths, cycle, block, cycle).with_options(o)), want)


@pytest.mark.parametrize("lengths,cycle,block", SHAPES)
def test_deterministic_order_is_tf_datas(lengths, cycle, block):
    tf = pytest.importorskip("tensorflow")
    for npc in (cycle, tf.data.AUTOTUNE):
        ours = _elements(_build(txd.Dataset, lengths, cycle, block, npc))
        theirs = [flat_values(tf.nest, e) for e in _build(tf.data.Dataset, lengths, cycle, block, npc)]
        assert_same_elements(ours, theirs)


def test_num_parallel_calls_above_a_fixed_cycle_length_is_tf_datas_error():
    with pytest.raises(tx.errors.InvalidArgumentError, match="`num_parallel_calls` is 3 and `cycle_length` is 2"):
        txd.Dataset.range(4).interleave(lambda x: txd.Dataset.range(x), cycle_length=2, num_parallel_calls=3)
    with pytest.raises(tx.errors.InvalidArgumentError, match="num_parallel_calls must be >= 1"):
        txd.Dataset.range(4).interleave(lambda x: txd.Dataset.range(x), cycle_length=2, num_parallel_calls=0)


def test_unset_cycle_length_follows_num_parallel_calls_as_in_tf_data():
    # tf.data: with num_parallel_calls=1 and no cycle_length the cycle is 1 (a flat_map's order).
    ds = txd.Dataset.range(3).interleave(lambda x: txd.Dataset.range(x * 10, x * 10 + 3), num_parallel_calls=1)
    assert [int(v) for v in ds] == [0, 1, 2, 10, 11, 12, 20, 21, 22]


def test_cardinality_and_element_spec_do_not_depend_on_parallelism():
    for lengths, cycle, block in SHAPES[:2]:
        seq, par = (_build(txd.Dataset, lengths, cycle, block, npc) for npc in (None, txd.AUTOTUNE))
        assert par.element_spec == seq.element_spec
        assert int(par.cardinality()) == int(seq.cardinality()) == txd.UNKNOWN_CARDINALITY


def _gated(gates, log, opens=None):
    """map_func whose sub-dataset i yields i*10, i*10+1, i*10+2 from a generator, recording the
    thread that reads each; sub-dataset i waits for the event gates[i] (when given) before its first
    element and sets the event opens[i] (when given) before its first element."""
    opens = opens or {}

    def make(i):
        def gen():
            if int(i) in opens:
                opens[int(i)].set()
            gate = gates.get(int(i))
            if gate is not None and not gate.wait(WAIT_S):
                raise RuntimeError("sub-dataset %d was never released" % int(i))
            for j in range(3):
                log.append((int(i), threading.current_thread().name))
                yield int(i) * 10 + j
        return txd.Dataset.from_generator(gen, output_signature=tx.TensorSpec([], tx.int64))
    return make


def test_sub_datasets_are_read_concurrently_on_the_worker_threads():
    # Sub-dataset 0 cannot start before sub-dataset 1 has started: a sequential reader would wait
    # for ever (and fail after WAIT_S); parallel reads get both.
    released, log = threading.Event(), []
    ds = txd.Dataset.range(3).interleave(_gated({0: released}, log, opens={1: released}), cycle_length=3,
                                         num_parallel_calls=3).with_options(_threads_option(3))
    assert [int(v) for v in ds] == [0, 10, 20, 1, 11, 21, 2, 12, 22]
    assert any(name.startswith("txd-worker") for _, name in log)


@pytest.mark.parametrize("cheap", [True, False])
def test_cheap_reads_stay_in_the_calling_thread_in_runs_and_costly_ones_go_to_the_workers(cheap, monkeypatch):
    monkeypatch.setattr(_interleave, "CHEAP_READ_S", float("inf") if cheap else 0.0)
    # Costly: sub-dataset 0 waits until sub-dataset 1 has started, which only a worker can start
    # while the consumer waits in sub-dataset 0 (cheap reads would wait for ever: no gates there).
    released, log = threading.Event(), []
    gated = _gated({}, log) if cheap else _gated({0: released}, log, opens={1: released})
    ds = txd.Dataset.range(4).interleave(gated, cycle_length=4, num_parallel_calls=4).with_options(
        _threads_option(4))
    it = iter(ds)
    inner = it._root.inner._in.inner  # the interleave's iterator, under with_options
    inner._read_cost = 0.0  # as if the consumer had timed a read already
    assert [int(v) for v in it] == [i * 10 + j for j in range(3) for i in range(4)]
    assert inner._cheap() == cheap
    readers = {name for _, name in log}
    if cheap:
        assert readers == {threading.current_thread().name} and inner._tasks == 0
    else:
        assert any(name.startswith("txd-worker") for name in readers)


def test_debug_mode_reads_sequentially_in_the_calling_thread():
    log = []
    ds = txd.Dataset.range(3).interleave(_gated({}, log), cycle_length=3, block_length=2, num_parallel_calls=3)
    with txd.debug_mode():
        got = [int(v) for v in ds]
    assert got == [0, 1, 10, 11, 20, 21, 2, 12, 22]
    assert {name for _, name in log} == {threading.current_thread().name}
    assert [i for i, _ in log] == [0, 0, 1, 1, 2, 2, 0, 1, 2]  # read exactly in output order, nothing ahead


def test_nondeterministic_reads_yield_in_completion_order_with_the_same_elements():
    released, log = threading.Event(), []
    ds = txd.Dataset.range(4).interleave(_gated({0: released}, log), cycle_length=4, num_parallel_calls=4,
                                         deterministic=False).with_options(_threads_option(4))
    it = iter(ds)
    first = [int(next(it)) for _ in range(9)]  # sub-dataset 0 is held back: the others come first
    released.set()
    rest = [int(v) for v in it]
    assert all(v >= 10 for v in first)
    assert sorted(first + rest) == sorted(i * 10 + j for i in range(4) for j in range(3))
    o = txd.Options()
    o.deterministic = False
    for lengths, cycle, block in SHAPES:
        want = sorted(int(e[0]) for e in _elements(_build(txd.Dataset, lengths, cycle, block, None)))
        got = _build(txd.Dataset, lengths, cycle, block, txd.AUTOTUNE, threads=8).with_options(o)
        assert sorted(int(e[0]) for e in _elements(got)) == want


def _outcomes(it, limit=100):
    """The elements of ``it`` and the errors it raises (class and message, where the number that makes
    each trace's function name unique is left out), until its end."""
    out = []
    for _ in range(limit):
        try:
            out.append(flat_values(tx.nest, next(it))[0].tolist())
        except StopIteration:
            return out
        except (tx.errors.OpError, TypeError, ValueError, RuntimeError) as e:
            message = getattr(e, "message", None) or str(e)
            out.append((type(e).__name__, re.sub(r"(__inference_\w+?)_\d+", r"\1", message)))
    raise AssertionError("no end after %d items" % limit)


def _failing(D, T, npc):
    # Sub-dataset x: 1/(v + x) for v in [1, 0, 2]: x == 0 fails at its second element.
    return D.range(3).interleave(lambda x: D.from_tensor_slices(np.array([1.0, 0.0, 2.0], np.float32)).map(
        lambda v: T.debugging.check_numerics(1.0 / (v + T.cast(x, T.float32)), "not finite")),
        cycle_length=2, block_length=2, num_parallel_calls=npc)


def _kinds(outcomes):
    """Outcomes with each error as its class alone (debug mode's eager messages name the op rather
    than the traced function)."""
    return [o[0] if isinstance(o, tuple) else o for o in outcomes]


@pytest.mark.parametrize("npc", [1, 2, txd.AUTOTUNE])
def test_errors_in_sub_datasets_are_raised_at_the_same_positions_at_any_thread_count_and_in_debug_mode(npc, reads):
    want = _outcomes(iter(_failing(txd.Dataset, tx, 1)))
    assert want[1][0] == "InvalidArgumentError" and "not finite" in want[1][1]
    for threads in (1, 2, 8):
        assert _outcomes(iter(_failing(txd.Dataset, tx, npc).with_options(_threads_option(threads)))) == want
    with txd.debug_mode():
        assert _kinds(_outcomes(iter(_failing(txd.Dataset, tx, npc)))) == _kinds(want)
    skipped = [v for v in want if not isinstance(v, tuple)]
    assert [float(v) for v in _failing(txd.Dataset, tx, npc).ignore_errors()] == skipped


def test_errors_count_toward_the_block_in_the_parallel_interleave_alone_as_in_tf_data():
    sequential = _kinds(_outcomes(iter(_failing(txd.Dataset, tx, None))))
    parallel = _kinds(_outcomes(iter(_failing(txd.Dataset, tx, 2))))
    # Sub-datasets [1, error, 0.5] and [0.5, 1, 1/3]: the sequential block of the first goes on past
    # the error to its 0.5, the parallel one ends with the error and the second's block comes first.
    assert sequential[:5] == [1.0, "InvalidArgumentError", 0.5, 0.5, 1.0]
    assert parallel[:5] == [1.0, "InvalidArgumentError", 0.5, 1.0, 0.5]
    tf = pytest.importorskip("tensorflow")
    for npc, ours in ((None, sequential), (2, parallel)):
        it, theirs = iter(_failing(tf.data.Dataset, tf, npc)), []
        while True:
            try:
                theirs.append(float(next(it)))
            except StopIteration:
                break
            except tf.errors.OpError as e:
                theirs.append(type(e).__name__)
        assert [o if isinstance(o, str) else pytest.approx(o) for o in ours] == theirs


def test_input_and_map_func_errors_keep_their_position_and_message():
    def gen():
        yield from (1, 2, 3)
        raise RuntimeError("input broke")

    def build(npc):
        inputs = txd.Dataset.from_generator(gen, output_signature=tx.TensorSpec([], tx.int64))
        return inputs.interleave(lambda x: txd.Dataset.range(x) if int(x) != 2 else txd.Dataset.range(x).map(
            lambda v: (v, v)), cycle_length=2, block_length=1, num_parallel_calls=npc)
    broke = ("UnknownError", "from_generator: the generator raised RuntimeError: input broke (element 3)")
    sequential = _outcomes(iter(build(None)))
    assert broke in sequential
    assert any(isinstance(v, tuple) and "different element structures" in v[1] for v in sequential)
    # The parallel interleave puts a failed input element in its slot, where it takes that slot's turn.
    parallel = _outcomes(iter(build(1)))
    assert sorted(map(str, parallel)) == sorted(map(str, sequential)) and parallel != sequential
    for npc in (1, 2):
        assert _outcomes(iter(build(npc))) == parallel
    with txd.debug_mode():
        assert _kinds(_outcomes(iter(build(2)))) == _kinds(parallel)
    with pytest.raises(TypeError, match="map_func must return a Dataset"):
        txd.Dataset.range(3).interleave(lambda x: x, num_parallel_calls=2)


def test_map_func_runs_on_stand_ins_for_the_spec_and_its_errors_come_at_their_element():
    # tf.data traces map_func; here it runs once on zeros (then ones) to find the element spec.
    def build(npc):
        return txd.Dataset.from_tensor_slices(np.array([1.0, 0.0, 4.0], np.float32)).interleave(
            lambda v: txd.Dataset.from_tensors(tx.debugging.check_numerics(1.0 / v, "not finite")).repeat(2),
            cycle_length=2, block_length=2, num_parallel_calls=npc)
    assert _kinds(_outcomes(iter(build(None)))) == [1.0, 1.0, "InvalidArgumentError", 0.25, 0.25]
    assert _kinds(_outcomes(iter(build(2)))) == [1.0, 1.0, "InvalidArgumentError", 0.25, 0.25]
    with pytest.raises(tx.errors.InvalidArgumentError, match="map_func failed on the stand-in elements"):
        txd.Dataset.range(3).interleave(lambda x: txd.Dataset.from_tensors(
            tx.debugging.check_numerics(1.0 / tx.cast(x * 0, tx.float32), "never finite")))


def test_read_ahead_errors_are_recorded_in_the_state_with_their_class_and_message(reads):
    def build():
        return _failing(txd.Dataset, tx, 2)
    want = _outcomes(iter(build()))
    it = iter(build())
    head = _outcomes(_Take(it, 1))
    state = it.save()  # the error at position 1 is read ahead by now or is read after the restore
    resumed = iter(build())
    resumed.restore(state)
    assert head + _outcomes(resumed) == want
    with txd.debug_mode():  # the same state restores without workers
        resumed_sequentially = iter(build())
        resumed_sequentially.restore(state)
    assert _kinds(head + _outcomes(resumed_sequentially)) == _kinds(want)


class _Take:
    """The first ``n`` elements of an iterator, then its end (the iterator stays usable)."""

    def __init__(self, it, n):
        self._it, self._n = it, n

    def __next__(self):
        if self._n == 0:
            raise StopIteration
        self._n -= 1
        return next(self._it)


@pytest.mark.parametrize("k", [0, 1, 4, 9, 15, 22])
def test_mid_epoch_resume_with_read_ahead_buffers(k, reads):
    lengths, cycle, block = SHAPES[0]

    def build(npc=cycle):
        return _build(txd.Dataset, lengths, cycle, block, npc, threads=8)
    full = _elements(build())
    it = iter(build())
    head = [flat_values(tx.nest, next(it)) for _ in range(k)]
    state = it.save()
    for npc in (cycle, 1, None):
        resumed = iter(build(npc))
        resumed.restore(state)
        assert_same_elements(head + _elements(resumed), full)
    assert_same_elements(head + _elements(it), full)


def test_restoring_into_other_interleave_parameters_is_refused():
    it = iter(_build(txd.Dataset, [2, 3, 4], 2, 1, 2))
    next(it)
    state = it.save()
    for cycle, block in ((3, 1), (2, 2)):
        other = iter(_build(txd.Dataset, [2, 3, 4], cycle, block, 2))
        with pytest.raises(tx.errors.InvalidArgumentError,
                           match=r"different pipeline(.|\n)*interleave\(cycle_length=2,block_length=1\)"):
            other.restore(state)


def _warm_pool(size):
    """Runs a task on every thread of the shared pool of ``size`` workers at once (starting the
    threads, which live as long as the process); BrokenBarrierError when some worker stays busy."""
    barrier = threading.Barrier(size)
    futures = [_threads.pool(size).submit(barrier.wait, WAIT_S) for _ in range(size)]
    for f in futures:
        f.result()


@pytest.mark.parametrize("how", ["close", "del"])
def test_closing_or_deleting_an_iterator_early_stops_its_workers(how):
    threads = 3
    _warm_pool(threads)
    ds = txd.Dataset.range(6).interleave(
        lambda x: txd.Dataset.range(x * 1000, x * 1000 + 500).map(lambda v: v + 1, num_parallel_calls=2).prefetch(2),
        cycle_length=3, block_length=200, num_parallel_calls=3).with_options(_threads_option(threads))
    python_only = txd.Options()
    python_only.experimental_optimization.native_engine = False  # it counts the Python engine's threads
    ds = ds.with_options(python_only)
    before = threading.active_count()
    it = iter(ds)
    assert [int(next(it)) for _ in range(3)] == [1, 2, 3]  # the workers are still filling 9 buffers of 401
    assert threading.active_count() > before  # the sub-datasets' prefetch threads run
    if how == "close":
        it.close()
    else:
        del it
        gc.collect()
    assert threading.active_count() == before
    _warm_pool(threads)  # and every pool worker is free again (a task left reading would block one)


def test_nested_parallel_stages_on_a_one_worker_pool_do_not_deadlock(reads):
    # Sub-datasets with a parallel map (some behind a prefetch, some with a parallel interleave of
    # their own) read by a parallel interleave whose pool has a single worker: the consumer and that
    # worker both read sub-datasets, and neither may wait for work queued behind the other (Note
    # [Nested work]).
    lengths = np.array([6, 4, 6, 3, 6, 4, 6, 6, 4, 0, 1, 7], np.int64)

    def sub(n):
        ds = txd.Dataset.range(n * 100, n * 100 + n)
        if int(n) == 3:
            ds = ds.interleave(lambda k: txd.Dataset.range(k, k + 2), cycle_length=2, num_parallel_calls=2)
        ds = ds.map(lambda v: v + 1, num_parallel_calls=2)
        return ds.prefetch(1) if int(n) == 4 else ds

    def epochs():
        for cycle, block, npc in ((3, 1, 3), (3, 1, txd.AUTOTUNE), (4, 1, 4), (3, 2, 3)):
            want = [int(v) for v in txd.Dataset.from_tensor_slices(lengths).interleave(
                sub, cycle_length=cycle, block_length=block)]
            for _ in range(5):
                ds = txd.Dataset.from_tensor_slices(lengths).interleave(
                    sub, cycle_length=cycle, block_length=block, num_parallel_calls=npc)
                result.append([int(v) for v in ds.with_options(_threads_option(1))] == want)
    result = []
    runner = threading.Thread(target=epochs, daemon=True)
    runner.start()
    runner.join(WAIT_S)
    assert not runner.is_alive(), "deadlocked after %d epochs" % len(result)
    assert result == [True] * 20


def test_a_map_inside_map_func_may_use_its_argument_on_either_side_as_in_tf():
    # `10 * x` in the inner map's traced function, x an int64 eager tensor it captures: the 10 once
    # became an int32 constant, and the call failed on the stand-in element.
    tf = pytest.importorskip("tensorflow")

    def build(D):
        return D.range(1, 4).interleave(lambda x: D.range(x).map(lambda y: y + 10 * x), cycle_length=2, block_length=2)

    ours = [int(v) for v in build(txd.Dataset)]
    assert ours == [int(v) for v in build(tf.data.Dataset)] == [10, 20, 21, 30, 31, 32]
