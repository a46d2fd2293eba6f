"""The native pipeline engine (Note [Native segments] in _native.py): which chains it runs, that they
yield the Python engine's elements and errors, and that positions move between the two engines."""

import os
import struct

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import ERRORS, PIPELINES, RANDOM, assert_same_elements, flat_values, kinds, outcomes
from tensorflux_data import _native

X = np.arange(120, dtype=np.float32).reshape(40, 3)


def _engine(ds, native):
    """``ds`` with the native engine on or off (the same fingerprint either way, so states move)."""
    o = txd.Options()
    o.experimental_optimization.native_engine = native
    return ds.with_options(o)


def _python_only(ds):
    return _engine(ds, False)


def _printing(x):
    tx.print(x)
    return x


def _root(ds):
    return iter(ds)._root


def _native_below(root):
    """The NativeIterator under node iterator ``root`` (through pass-through nodes such as options)."""
    while not isinstance(root, _native.NativeIterator):
        root = root.inner if hasattr(root, "inner") else root._in
    return root


def _records(tmp_path, n=50, name="r.tfrecord"):
    path = str(tmp_path / name)
    with txd.io.TFRecordWriter(path) as w:
        for i in range(n):
            w.write(b"record-%d" % i)
    return path


def test_the_engine_is_built_and_loads():
    assert _native.engine() is not None, _native.unavailable_reason()


CHAINS = {
    "slices_map_batch": (lambda p: txd.Dataset.from_tensor_slices(X).map(lambda x: x * 2.0).batch(8),
                         ["slices", "fused_map", "batch"]),
    "range_filter_batch_prefetch": (lambda p: txd.Dataset.range(30).filter(lambda x: x % 3 == 0).batch(4).prefetch(2),
                                    ["range", "filter", "batch", "prefetch"]),
    "parallel_map_unfused": (lambda p: txd.Dataset.range(30).map(lambda x: tx.reshape(x, [1]),
                                                                 num_parallel_calls=3).batch(4),
                             ["range", "fused_map", "batch"]),
    "tfrecord_batch_map": (lambda p: txd.TFRecordDataset(p).batch(8).map(tx.strings.length),
                           ["tfrecord", "batch", "map"]),
    "seeded_random_map_fused": (lambda p: txd.Dataset.range(20).map(lambda x: tx.random.uniform([2]) + 0 * tx.cast(
        x, tx.float32)).batch(6), ["range", "fused_map", "batch"]),
    "seeded_random_filter": (lambda p: txd.Dataset.range(30).filter(lambda x: tx.random.uniform([]) < 0.5),
                             ["range", "filter"]),
    "map_capturing_a_tensor": (lambda p: txd.Dataset.range(9).map(lambda x: x + tx.constant(np.int64(5)) * 0 + SHIFT),
                               ["range", "map"]),
}
SHIFT = tx.constant(np.int64(100))  # captured by the function above, passed to the engine as a value


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_supported_chains_run_natively_with_the_python_engines_elements(name, tmp_path):
    build, want_kinds = CHAINS[name]
    path = _records(tmp_path)
    root = _root(build(path))
    assert isinstance(root, _native.NativeIterator) and root.kinds == want_kinds
    got = [flat_values(tx.nest, e) for e in build(path)]
    assert_same_elements(got, [flat_values(tx.nest, e) for e in _python_only(build(path))])


UNSUPPORTED = {
    "source_only": lambda: txd.Dataset.range(5),
    "strings_slices": lambda: txd.Dataset.from_tensor_slices(np.array([b"a", b"b"], object)).map(tx.strings.length),
    "stateful_print": lambda: txd.Dataset.range(5).map(_printing),
    "python_engine_asked": lambda: _python_only(txd.Dataset.range(5).map(lambda x: x + 1)),
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_other_pipelines_stay_in_python(name):
    assert not isinstance(_root(UNSUPPORTED[name]()), _native.NativeIterator)


def test_debug_mode_runs_python():
    with txd.debug_mode():
        assert not isinstance(_root(txd.Dataset.range(5).map(lambda x: x + 1)), _native.NativeIterator)


@pytest.mark.parametrize("name", sorted({**PIPELINES, **RANDOM}))
def test_every_pipeline_yields_the_same_with_and_without_the_engine(name):
    build = {**PIPELINES, **RANDOM}[name]
    got = outcomes(tx.nest, tx.errors.OpError, iter(build(txd.Dataset, tx)))
    want = outcomes(tx.nest, tx.errors.OpError, iter(_python_only(build(txd.Dataset, tx))))
    assert got == want


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_raised_at_their_positions_by_the_python_engine_resuming(name):
    build = ERRORS[name]
    got = kinds(outcomes(tx.nest, tx.errors.OpError, iter(build(txd.Dataset, tx)), limit=60))
    want = kinds(outcomes(tx.nest, tx.errors.OpError, iter(_python_only(build(txd.Dataset, tx))), limit=60))
    assert got == want


def test_an_error_from_a_stateless_op_hands_over_to_python_at_its_position():
    params = tx.constant([10, 20, 30])
    ds = txd.Dataset.range(6).map(lambda i: tx.gather(params, i))
    it = iter(ds)
    assert isinstance(it._root, _native.NativeIterator)
    assert [int(next(it)) for _ in range(3)] == [10, 20, 30]
    with pytest.raises(tx.errors.InvalidArgumentError, match="3"):
        next(it)
    assert it._root.in_python
    with pytest.raises(tx.errors.InvalidArgumentError):
        next(it)
    with pytest.raises(tx.errors.InvalidArgumentError):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
    assert [int(x) for x in ds.ignore_errors()] == [10, 20, 30]


def test_corrupt_tfrecords_fail_as_in_the_python_engine(tmp_path):
    path = _records(tmp_path, 20)
    data = bytearray(open(path, "rb").read())
    data[3 * (16 + 8) + 14] ^= 0xFF  # a data byte of record 3
    with open(path, "wb") as f:
        f.write(data)

    def build():
        return txd.TFRecordDataset(path).batch(4).map(tx.strings.length)
    assert isinstance(_root(build()), _native.NativeIterator)
    got = outcomes(tx.nest, tx.errors.OpError, iter(build()))
    assert got == outcomes(tx.nest, tx.errors.OpError, iter(_python_only(build())))
    assert any(r[0] == "error" and r[1] is tx.errors.DataLossError for r in got)


@pytest.mark.parametrize("k", [0, 1, 3, 7, 10])
@pytest.mark.parametrize("saver_native", [True, False])
def test_states_move_between_the_engines(k, saver_native, tmp_path):
    path = _records(tmp_path, 75)

    def build(native):
        return _engine(txd.TFRecordDataset(path).batch(7).map(tx.strings.length, num_parallel_calls=2).prefetch(3),
                       native)
    full = [b.numpy().tolist() for b in build(True)]
    it = iter(build(saver_native))
    head = [next(it).numpy().tolist() for _ in range(k)]
    resumed = iter(build(not saver_native))
    resumed.restore(it.save())
    assert head + [b.numpy().tolist() for b in resumed] == full


def test_a_python_state_with_buffered_elements_resumes_in_python():
    def build(native):
        return _engine(txd.Dataset.range(40).map(lambda x: x * 3, num_parallel_calls=4).prefetch(5), native)
    it = iter(build(False))
    head = [int(next(it)) for _ in range(6)]
    resumed = iter(build(True))
    resumed.restore(it.save())  # the Python prefetch and map recorded their buffers
    assert _native_below(resumed._root).in_python
    assert head + [int(x) for x in resumed] == [x * 3 for x in range(40)]


@pytest.mark.parametrize("parallel", [8, txd.AUTOTUNE])  # AUTOTUNE: the width changes as it measures
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_parallel_maps_give_the_same_bytes_at_any_thread_count(threads, parallel):
    rows = np.tile(X, (10, 1))  # 400 elements: several of the tuner's windows

    def build(n):
        o = txd.Options()
        o.threading.private_threadpool_size = n
        ds = txd.Dataset.from_tensor_slices(rows).map(lambda x: tx.reduce_sum(tx.sin(x) * x),
                                                      num_parallel_calls=parallel)
        return ds.batch(5).prefetch(2).with_options(o)
    want = b"".join(b.numpy().tobytes() for b in build(1))
    assert b"".join(b.numpy().tobytes() for b in build(threads)) == want


def _threads():
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through /proc")
def test_closing_an_iterator_stops_its_engine_threads():
    ds = txd.Dataset.range(10_000).map(lambda x: x + 1, num_parallel_calls=2).prefetch(4)
    warm = iter(ds)
    next(warm)  # the shared worker pool exists from here on
    warm.close()
    before = _threads()
    it = iter(ds)
    assert int(next(it)) == 1
    assert _threads() == before + 1  # the prefetch thread
    it.close()
    assert _threads() == before


def test_stats_of_a_native_chain_count_each_node():
    it = iter(txd.Dataset.range(40).filter(lambda x: x % 2 == 0).map(lambda x: x * 2).batch(4).prefetch(2))
    assert isinstance(it._root, _native.NativeIterator)
    for _ in it:
        pass
    rows = {r["node"]: r for r in txd.experimental.stats(it)}
    assert [rows[k]["elements"] for k in ("iterator", "prefetch", "batch", "filter", "range")] == [5, 5, 5, 20, 40]
    assert rows["prefetch"]["consumer_wait_seconds"] >= 0.0 and rows["batch"]["seconds"] > 0.0


def test_a_record_written_by_hand_is_read_with_its_checksums(tmp_path):
    # The engine's CRC32C against a record framed here from the format's definition.
    path = _records(tmp_path, 3)
    raw = open(path, "rb").read()
    (length,) = struct.unpack("<Q", raw[:8])
    assert raw[12:12 + length] == b"record-0"
    assert [r.numpy().tolist() for r in txd.TFRecordDataset(path).batch(2).map(lambda r: r)] == [
        [b"record-0", b"record-1"], [b"record-2"]]


def test_fuzzed_tfrecord_files_give_the_python_engines_outcomes(tmp_path):
    # The engine's TFRecord reader against mutated and cut files: the records, or the Python
    # engine's DataLossError at the same position (the engine hands over at its first error).
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    clean = open(_records(tmp_path, 12), "rb").read()

    @hypothesis.settings(max_examples=120, deadline=None, derandomize=True)
    @hypothesis.given(st.lists(st.tuples(st.integers(0, len(clean) - 1), st.integers(0, 255)), max_size=4),
                      st.integers(0, len(clean)))
    def check(edits, cut):
        data = bytearray(clean[:cut])
        for pos, val in edits:
            if pos < len(data):
                data[pos] = val
        f = tmp_path / "mutated"
        f.write_bytes(bytes(data))

        def build():
            return txd.TFRecordDataset(str(f)).batch(3).map(tx.strings.length)
        assert outcomes(tx.nest, tx.errors.OpError, iter(build()), limit=20) == outcomes(
            tx.nest, tx.errors.OpError, iter(_python_only(build())), limit=20)
    check()


def test_a_length_past_the_end_of_the_file_is_not_read(tmp_path):
    huge = struct.pack("<Q", 1 << 40)
    from tensorflux_data import _crc32c
    header = huge + struct.pack("<I", int(_crc32c.mask(_crc32c.crc32c(huge))))
    path = tmp_path / "huge.tfrecord"
    path.write_bytes(open(_records(tmp_path, 2), "rb").read() + header + b"tail")
    got = outcomes(tx.nest, tx.errors.OpError, iter(txd.TFRecordDataset(str(path)).batch(4).map(tx.strings.length)))
    assert got[-1][0] == "error" and got[-1][1] is tx.errors.DataLossError


def test_a_definition_registered_twice_stays_until_both_handles_go():
    # Nested functions can be shared by traces: the engine keeps a definition while any handle
    # that registered it lives.
    ds = txd.Dataset.range(6).map(lambda x: tx.cond(x > 2, lambda: x * 10, lambda: -x))
    it = iter(ds)
    assert int(next(it)) == 0  # the pipeline's handle registered the definitions
    other = _native.Function(_native.engine(), ds._fn._concrete)
    del other
    import gc
    gc.collect()
    assert [int(v) for v in it] == [-1, -2, 30, 40, 50]
    assert not it._root.in_python  # the definitions were still there
