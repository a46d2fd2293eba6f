"""The native pipeline engine (Note [Native segments] in _native.py): which chains it runs, that they
yield the Python engine's elements and errors, and that positions move between the two engines."""

import hashlib
import collections
import gc
import os
import re
import struct
import time

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import (ERRORS, NATIVE_INTERLEAVES, NATIVE_SHUFFLES, PIPELINES, RANDOM, assert_same_elements,
                       flat_values, interleave_records, kinds, outcomes, record_files)
from tensorflux_data import _native, _seeds, _state

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
    """The NativeIterator under node iterator ``root`` (through pass-through nodes such as options), or None."""
    while root is not None and not isinstance(root, _native.NativeIterator):
        root = next((getattr(root, a) for a in ("inner", "_it", "_in") if hasattr(root, a)), None)
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
    "shuffle_parallel_map_batch_prefetch": (lambda p: txd.Dataset.from_tensor_slices(X).shuffle(16, seed=1).map(
        lambda x: x * 2.0, num_parallel_calls=3).batch(8).prefetch(2), ["slices", "shuffle", "fused_map", "batch",
                                                                        "prefetch"]),
    "range_shuffle": (lambda p: txd.Dataset.range(30).shuffle(8, seed=2), ["range", "shuffle"]),
    "tfrecord_shuffle_batch_map": (lambda p: txd.TFRecordDataset(p).shuffle(10, seed=3).batch(4).map(tx.strings.length),
                                   ["tfrecord", "shuffle", "batch", "map"]),
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


def _prefetch_threads():
    """The live threads the engine named for prefetching, read from /proc."""
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:  # the thread exited while we listed (FileNotFoundError, ProcessLookupError)
            pass
    return names.count("txd-prefetch")


def _settled_prefetch_threads(want):
    """The prefetch thread count once it equals `want`, or after 10 s of waiting for it: a joined
    thread can stay listed in /proc for a moment after pthread_join returns."""
    deadline = time.monotonic() + 10
    while (n := _prefetch_threads()) != want and time.monotonic() < deadline:
        time.sleep(0.01)
    return n


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through /proc")
def test_closing_an_iterator_stops_its_engine_threads():
    ds = txd.Dataset.range(10_000).map(lambda x: x + 1, num_parallel_calls=2).prefetch(4)
    warm = iter(ds)
    next(warm)
    warm.close()
    gc.collect()  # iterators earlier tests dropped stop their threads now
    before = _settled_prefetch_threads(0)
    it = iter(ds)
    assert int(next(it)) == 1
    assert _settled_prefetch_threads(before + 1) == before + 1
    it.close()
    assert _settled_prefetch_threads(before) == before


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads thread names from /proc")
def test_engine_threads_carry_names():
    it = iter(txd.Dataset.range(100).map(lambda x: x + 1, num_parallel_calls=2).prefetch(2))
    next(it)
    names = set()
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/comm") as f:
            names.add(f.read().strip())
    it.close()
    assert {"txd-prefetch", "txd-pool"} <= names


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


@pytest.mark.parametrize("batch", [1, 7, 50, 65_536, 65_537, 10**12])
def test_tfrecord_batches_of_any_size_hold_the_records(tmp_path, batch):
    # Batches up to 65,536 records are filled in place (a last, shorter batch is copied out);
    # larger ones are gathered first, so batch(10**12) allocates only what the file holds.
    path = _records(tmp_path, 70_000 if batch > 50 else 50)
    ds = txd.TFRecordDataset(path).batch(batch).map(lambda r: r)
    it = iter(ds)
    got = [b.numpy().tolist() for b in it]
    assert not it._root.in_python
    assert got == [b.numpy().tolist() for b in _python_only(ds)]


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


# ---------------------------------------------------------------------------------------------
# shuffle (Note [Native shuffle] in csrc/shuffle.cc)


def _elements(it):
    return [flat_values(tx.nest, e) for e in it]


def test_the_shuffle_training_chain_runs_natively_to_its_end():
    ds = txd.Dataset.from_tensor_slices((X, np.arange(40))).shuffle(16, seed=5).map(
        lambda x, y: (x * 2.0, y), num_parallel_calls=txd.AUTOTUNE).batch(8).prefetch(txd.AUTOTUNE)
    it = iter(ds)
    native = _native_below(it._root)
    assert native.kinds == ["slices", "shuffle", "fused_map", "batch", "prefetch"]
    labels = [int(v) for _, y in it for v in y.numpy()]
    assert not native.in_python
    assert sorted(labels) == list(range(40)) and labels != list(range(40))
    rows = {r["node"]: r for r in txd.experimental.stats(it)}
    assert rows["shuffle"]["elements"] == 40 and rows["shuffle"]["seconds"] > 0.0


def _positions(n):
    return sorted(set(range(0, n + 1, max(1, n // 8))) | {1, n - 1, n})


# States of these pipelines saved by the Python engine hold no buffer but the shuffle's (no prefetch
# or parallel map above or below it), so they resume in the native engine.
_NO_READ_AHEAD = {"shuffle_map_batch", "shuffle_larger_than_input", "shuffle_twice", "shuffle_one"}


@pytest.mark.parametrize("restorer", ["native", "python"])
@pytest.mark.parametrize("saver", ["native", "python"])
@pytest.mark.parametrize("name", sorted(NATIVE_SHUFFLES))
def test_shuffle_states_move_between_the_engines(name, saver, restorer):
    # (a repeat makes its native stage per epoch)
    native = restorer == "native" and (saver == "native" or name in _NO_READ_AHEAD) and name != "shuffle_map_repeat"
    _check_states_move(NATIVE_SHUFFLES[name], saver, restorer, native)


def _check_states_move(build, saver, restorer, resumes_natively):
    """States of ``build``'s pipeline saved by the ``saver`` engine at positions through an epoch
    resume in the ``restorer`` engine with the rest of the epoch (natively when ``resumes_natively``)."""
    full = _elements(iter(_engine(build(txd.Dataset, tx), True)))
    assert_same_elements(_elements(iter(_python_only(build(txd.Dataset, tx)))), full)
    for k in _positions(len(full)):
        it = iter(_engine(build(txd.Dataset, tx), saver == "native"))
        head = [flat_values(tx.nest, next(it)) for _ in range(k)]
        resumed = iter(_engine(build(txd.Dataset, tx), restorer == "native"))
        resumed.restore(it.save())
        if resumes_natively:
            assert not _native_below(resumed._root).in_python, k
        assert_same_elements(head + _elements(resumed), full)
        assert_same_elements(head + _elements(it), full)  # the saving iterator goes on undisturbed


@pytest.mark.parametrize("saver_native", [True, False])
def test_a_shuffle_buffer_of_strings_moves_between_the_engines(saver_native, tmp_path):
    path = _records(tmp_path, 40)

    def build(native):
        return _engine(txd.TFRecordDataset(path).shuffle(10, seed=6).batch(3).map(tx.strings.length), native)
    full = [b.numpy().tolist() for b in build(True)]
    assert full == [b.numpy().tolist() for b in build(False)] and len(full) == 14
    for k in (0, 1, 5, 13, 14):
        it = iter(build(saver_native))
        head = [next(it).numpy().tolist() for _ in range(k)]
        resumed = iter(build(not saver_native))
        resumed.restore(it.save())
        if not saver_native:  # records (strings) in the buffer: the Python engine resumes
            assert _native_below(resumed._root).in_python == (0 < k < 14)
        assert head + [b.numpy().tolist() for b in resumed] == full


_VALUES = np.array([1.0, 0.0, 2.0, 4.0, 0.0, 5.0, 8.0, 0.5, 0.0, 10.0, 3.0, 6.0], np.float32)


def _reciprocal(x):
    return tx.debugging.check_numerics(1.0 / x, "not finite")


# Errors met below the shuffle (while it fills its buffer) and above it (after it ran ahead).
SHUFFLE_ERRORS = {
    "errors_below": lambda: txd.Dataset.from_tensor_slices(_VALUES).map(_reciprocal).shuffle(4, seed=1).batch(2),
    "errors_above": lambda: txd.Dataset.from_tensor_slices(_VALUES).shuffle(4, seed=2).map(
        _reciprocal, num_parallel_calls=3).prefetch(2),
}


def _outcomes(it, limit=None):
    return outcomes(tx.nest, tx.errors.OpError, it, limit)


@pytest.mark.parametrize("restorer", [True, False], ids=["to_native", "to_python"])
@pytest.mark.parametrize("saver", [True, False], ids=["native", "python"])
@pytest.mark.parametrize("name", sorted(SHUFFLE_ERRORS))
def test_shuffle_errors_come_at_their_positions_in_both_engines_and_across_restores(name, saver, restorer):
    build = SHUFFLE_ERRORS[name]
    full = kinds(_outcomes(iter(_engine(build(), True))))
    assert full == kinds(_outcomes(iter(_python_only(build()))))
    assert ("error", tx.errors.InvalidArgumentError) in full
    for k in range(len(full) + 1):
        it = iter(_engine(build(), saver))
        head = kinds(_outcomes(it, k))
        resumed = iter(_engine(build(), restorer))
        resumed.restore(it.save())
        assert head + kinds(_outcomes(resumed)) == full, k


def _reference_order(n, size, seed):
    """range(n).shuffle(size, seed, reshuffle_each_iteration=False) as Note [Shuffle draws] defines it,
    written out here from the definition."""
    mask = (1 << 64) - 1

    def mix(z):  # SplitMix64's finaliser
        z = (z + 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)
    key = int.from_bytes(hashlib.blake2b(repr((seed, ())).encode(), digest_size=8).digest(), "little")
    words, buffer, read, out = 0, [], 0, []
    while True:
        while len(buffer) < size and read < n:
            buffer.append(read)
            read += 1
        if not buffer:
            return out
        while True:
            x = mix(key ^ mix(words))
            words += 1
            if x >= (1 << 64) % len(buffer):
                break
        i = x % len(buffer)
        out.append(buffer[i])
        buffer[i] = buffer[-1]
        buffer.pop()


@pytest.mark.parametrize("native", [True, False])
def test_the_order_is_the_documented_stream(native):
    ds = _engine(txd.Dataset.range(100).shuffle(13, seed=21, reshuffle_each_iteration=False), native)
    it = iter(ds)
    assert (_native_below(it._root) is not None) == native
    assert [int(x) for x in it] == _reference_order(100, 13, 21)
    assert not native or not _native_below(it._root).in_python


def test_draws_are_uniform_and_skip_the_words_that_would_bias_them():
    counts = np.bincount([_seeds.draw(key, 0, 3)[0] for key in range(30_000)], minlength=3)
    assert np.all(np.abs(counts - 10_000) < 400), counts  # binomial sd: 82
    n = (1 << 63) + 1  # 2**64 % n = 2**63 - 1: about half the words are skipped
    threshold, skipped = (1 << 64) % n, 0
    for key in range(200):
        i, used = _seeds.draw(key, 5, n)
        words = [_seeds.keyed_word(key, c) for c in range(5, used)]
        assert all(w < threshold for w in words[:-1]) and words[-1] >= threshold and i == words[-1] % n
        skipped += len(words) - 1
    assert 100 < skipped < 400


def test_each_epoch_has_its_own_order_in_both_engines():
    def build(native):
        return _engine(txd.Dataset.range(12).shuffle(12, seed=3).map(lambda x: x * 2).repeat(3), native)
    got = [int(x) for x in build(True)]
    assert got == [int(x) for x in build(False)]
    epochs = [got[i:i + 12] for i in (0, 12, 24)]
    assert all(sorted(e) == list(range(0, 24, 2)) for e in epochs) and len({tuple(e) for e in epochs}) == 3


@pytest.mark.parametrize("engines", [(True, False), (False, True), (True, True)], ids=["to_python", "to_native",
                                                                                        "native"])
def test_an_unseeded_shuffle_resumes_its_own_order_in_a_rebuilt_pipeline(engines):
    def build(native):
        return _engine(txd.Dataset.range(30).shuffle(8).map(lambda x: x + 1), native)
    it = iter(build(engines[0]))
    head = [int(next(it)) for _ in range(7)]
    state = it.save()
    rest = [int(x) for x in it]
    resumed = iter(build(engines[1]))  # another random seed: the state's stream key wins
    resumed.restore(state)
    assert [int(x) for x in resumed] == rest
    assert sorted(head + rest) == list(range(1, 31))
    assert [int(x) for x in build(True)] != [int(x) for x in build(True)]


def test_a_restored_buffer_that_does_not_fit_the_elements_resumes_in_python():
    def build(native):
        return _engine(txd.Dataset.range(20).shuffle(5, seed=1).map(lambda x: x + 1), native)
    it = iter(build(False))
    next(it)
    arrays = _state.decode(it.save())
    keys = [k for k in arrays if k.endswith("buffer.0.0")]
    assert len(keys) == 1
    arrays[keys[0]] = np.array([1, 2], np.int64)  # a forged element of the wrong shape
    state = _state.encode(arrays)
    resumed = iter(build(True))
    resumed.restore(state)
    assert _native_below(resumed._root).in_python
    python = iter(build(False))
    python.restore(state)

    def outcome(it):
        try:
            return [int(x) for x in it]
        except Exception as e:  # noqa: BLE001 (whatever the Python engine raises, both raise it)
            return type(e)
    assert outcome(resumed) == outcome(python)


# ---------------------------------------------------------------------------------------------
# interleave of TFRecord files (Note [Native interleave] in csrc/interleave.cc)


def _records_of(it):
    return [r.numpy() for r in it]


def test_the_tfrecord_training_chain_runs_natively_to_its_end():
    ds = interleave_records(txd.Dataset, 4, 2, num_parallel_calls=txd.AUTOTUNE).shuffle(16, seed=3).batch(4).map(
        tx.strings.length).prefetch(txd.AUTOTUNE)
    it = iter(ds)
    native = _native_below(it._root)
    assert native.kinds == ["interleave", "shuffle", "batch", "map", "prefetch"]
    lengths = [int(v) for b in it for v in b.numpy()]
    assert not native.in_python and len(lengths) == 37
    rows = {r["node"]: r for r in txd.experimental.stats(it)}
    assert rows["interleave"]["elements"] == 37


# Interleaves the engine leaves to the Python engine: not TFRecordDataset(f) of the argument, or
# transformations above it that depend on f, call tx.random or are not maps, filters and batches.
OTHER_INTERLEAVES = {
    "map_of_the_name": lambda: lambda f: txd.TFRecordDataset(f).map(lambda r: r + f),
    "map_of_a_value_of_the_name": lambda: lambda f: txd.TFRecordDataset(f).map(
        lambda r, n=tx.strings.length(f): tx.strings.length(r) + n),
    "filter_of_the_name": lambda: lambda f: txd.TFRecordDataset(f).filter(
        lambda r, n=tx.strings.length(f): tx.strings.length(r) < n),
    "batch_of_the_name": lambda: lambda f: txd.TFRecordDataset(f).batch(int(tx.strings.length(f)) % 7 + 1),
    "random_map": lambda: lambda f: txd.TFRecordDataset(f).map(lambda r: tx.random.uniform([])),
    "prefetch_inside": lambda: lambda f: txd.TFRecordDataset(f).map(tx.strings.length).prefetch(2),
    "shuffle_inside": lambda: lambda f: txd.TFRecordDataset(f).shuffle(4, seed=1).map(tx.strings.length),
    "parallel_reads": lambda: lambda f: txd.TFRecordDataset([f, f], num_parallel_reads=2),
    "another_file": lambda: lambda f: txd.TFRecordDataset(record_files()[0]),
    "two_files": lambda: lambda f: txd.TFRecordDataset([f, f]),
    "not_records": lambda: lambda f: txd.Dataset.from_tensors(f),
}


@pytest.mark.parametrize("name", sorted(OTHER_INTERLEAVES))
def test_other_interleaves_stay_in_python(name):
    ds = txd.Dataset.from_tensor_slices(record_files()).interleave(OTHER_INTERLEAVES[name](), cycle_length=2)
    assert _native_below(_root(ds.batch(2))) is None


def test_a_nondeterministic_interleave_and_a_shuffled_file_list_stay_in_python():
    files = txd.Dataset.from_tensor_slices(record_files())
    nondeterministic = files.interleave(txd.TFRecordDataset, cycle_length=2, num_parallel_calls=2, deterministic=False)
    shuffled = files.shuffle(4, seed=1).interleave(txd.TFRecordDataset, cycle_length=2)
    for ds in (nondeterministic, shuffled):
        assert _native_below(_root(ds.batch(2))) is None
    o = txd.Options()
    o.deterministic = False
    by_option = files.interleave(txd.TFRecordDataset, cycle_length=2, num_parallel_calls=2).with_options(o)
    assert _native_below(_root(by_option.batch(2))) is None


@pytest.mark.parametrize("cycle,block", [(1, 1), (2, 1), (3, 2), (4, 3), (7, 1), (10, 4)])
@pytest.mark.parametrize("parallel", [None, 3])
def test_interleaved_records_come_in_tf_datas_order(cycle, block, parallel):
    tf = pytest.importorskip("tensorflow")
    kwargs = {} if parallel is None else {"num_parallel_calls": min(parallel, cycle)}
    ds = interleave_records(txd.Dataset, cycle, block, **kwargs)
    it = iter(ds)
    assert _native_below(it._root).kinds == ["interleave"]
    got = _records_of(it)
    assert not _native_below(it._root).in_python
    want = _records_of(interleave_records(tf.data.Dataset, cycle, block, **kwargs))
    assert got == want and len(got) == 37


# Saved by the Python engine, these hold no read-ahead (a sequential interleave, nothing buffered
# above), so they resume in the native engine.
_INTERLEAVE_NO_READ_AHEAD = {"interleave_records_c3_b2", "interleave_records_c1_b1", "interleave_records_c10_b4_batch",
                             "interleave_mapped_records_c3_b2", "interleave_mapped_filtered_batched_c2_b1"}
_MAPPED = sorted(name for name in NATIVE_INTERLEAVES if name.startswith("interleave_mapped"))


@pytest.mark.parametrize("name", _MAPPED)
def test_mapped_inner_chains_run_natively_in_tf_datas_order(name):
    tf = pytest.importorskip("tensorflow")
    it = iter(NATIVE_INTERLEAVES[name](txd.Dataset, tx))
    native = _native_below(it._root)
    assert native.kinds[0] == "interleave"
    got = _elements(it)
    assert not native.in_python
    assert_same_elements(got, _elements(NATIVE_INTERLEAVES[name](tf.data.Dataset, tf)))


@pytest.mark.parametrize("restorer", ["native", "python"])
@pytest.mark.parametrize("saver", ["native", "python"])
@pytest.mark.parametrize("name", sorted(NATIVE_INTERLEAVES))
def test_interleave_states_move_between_the_engines(name, saver, restorer):
    # (a shuffle buffer of records resumes in the Python engine)
    native = restorer == "native" and (saver == "native" or name in _INTERLEAVE_NO_READ_AHEAD) and \
        name != "interleave_records_shuffle_batch_map"
    _check_states_move(NATIVE_INTERLEAVES[name], saver, restorer, native)


def test_a_python_state_with_read_ahead_resumes_in_the_python_engine():
    build = NATIVE_INTERLEAVES["interleave_records_parallel_batch_map"]
    full = _elements(iter(_engine(build(txd.Dataset, tx), True)))
    it = iter(_python_only(build(txd.Dataset, tx)))
    head = [flat_values(tx.nest, next(it)) for _ in range(3)]
    resumed = iter(_engine(build(txd.Dataset, tx), True))
    resumed.restore(it.save())
    assert_same_elements(head + _elements(resumed), full)


def _corrupt_copy(tmp_path, src, keep):
    """A copy of TFRecord file ``src`` whose bytes after the first ``keep`` records are garbage."""
    data = open(src, "rb").read()
    at = 0
    for _ in range(keep):
        (length,) = struct.unpack("<Q", data[at:at + 8])
        at += 16 + length
    path = str(tmp_path / ("corrupt-%d.tfrecord" % keep))
    with open(path, "wb") as f:
        f.write(data[:at] + b"\x07" * 30)
    return path


def _inverse_of_length_minus_3(record):
    """1 / (len(record) - 3), failing CheckNumerics on records of 3 bytes."""
    return tx.debugging.check_numerics(1.0 / tx.cast(tx.strings.length(record) - 3, tx.float32), "inverse")


def _bad_files(tmp_path):
    """record_files() with file 3 corrupt after 4 records, a missing file and file 6 corrupt at once."""
    files = list(record_files())
    files[3] = _corrupt_copy(tmp_path, files[3], 4)
    files[6] = _corrupt_copy(tmp_path, files[6], 0)
    files.insert(5, str(tmp_path / "missing.tfrecord"))
    return files


BAD_INTERLEAVES = {
    "sequential": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        txd.TFRecordDataset, cycle_length=3, block_length=2),
    "parallel": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        txd.TFRecordDataset, cycle_length=3, block_length=2, num_parallel_calls=3),
    "ignore_errors_batch": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        txd.TFRecordDataset, cycle_length=2, block_length=1).ignore_errors().batch(3),
    "batch_map": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        txd.TFRecordDataset, cycle_length=4, block_length=3).batch(2).map(tx.strings.length),
    "mapped": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        lambda f: txd.TFRecordDataset(f).map(tx.strings.length), cycle_length=3, block_length=2),
    "mapped_batched_parallel": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        lambda f: txd.TFRecordDataset(f).map(tx.strings.length, num_parallel_calls=2).batch(2), cycle_length=3,
        num_parallel_calls=3),
    "map_errors": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        lambda f: txd.TFRecordDataset(f).map(_inverse_of_length_minus_3), cycle_length=2, block_length=2),
    "map_errors_parallel": lambda files: txd.Dataset.from_tensor_slices(files).interleave(
        lambda f: txd.TFRecordDataset(f).map(_inverse_of_length_minus_3), cycle_length=3, block_length=2,
        num_parallel_calls=txd.AUTOTUNE),
}


@pytest.mark.parametrize("restorer", [True, False], ids=["to_native", "to_python"])
@pytest.mark.parametrize("saver", [True, False], ids=["native", "python"])
@pytest.mark.parametrize("name", sorted(BAD_INTERLEAVES))
def test_corrupt_and_missing_files_give_the_python_engines_errors_at_every_position(name, saver, restorer, tmp_path):
    files = _bad_files(tmp_path)
    build = BAD_INTERLEAVES[name]
    assert _native_below(_root(build(files))) is not None
    full = _traced_outcomes(iter(_engine(build(files), True)), 80)
    assert full == _traced_outcomes(iter(_python_only(build(files))), 80)
    errors = {r[1] for r in full if r[0] == "error"}
    want = {tx.errors.DataLossError, tx.errors.NotFoundError} if name != "ignore_errors_batch" else set()
    assert errors == (want | {tx.errors.InvalidArgumentError} if name.startswith("map_errors") else want)
    for k in range(0, len(full) + 1, 1 if saver == restorer and not name.startswith("map_errors") else 3):
        it = iter(_engine(build(files), saver))
        head = _traced_outcomes(it, k)
        resumed = iter(_engine(build(files), restorer))
        resumed.restore(it.save())
        assert head + _traced_outcomes(resumed, 80 - k) == full, k


def _traced_outcomes(it, limit):
    """_outcomes with the trace numbers of function names taken out of error messages (each pipeline
    built traces its functions again)."""
    return [r[:2] + (re.sub(r"(__inference_\w+?)_\d+'", r"\1'", r[2]),) if r[0] == "error" else r
            for r in _outcomes(it, limit)]


@pytest.mark.parametrize("structure", [
    tx.TensorSpec([], tx.int64),
    (tx.TensorSpec([]), tx.TensorSpec([2], tx.int32)),
    {"b": tx.TensorSpec([]), "a": (tx.TensorSpec([]), {"z": tx.TensorSpec([]), "y": tx.TensorSpec([])})},
    collections.namedtuple("Pair", "x y")(tx.TensorSpec([]), {"k": tx.TensorSpec([])}),
    ((), {}),
], ids=["leaf", "tuple", "nested_dict", "namedtuple", "empty"])
def test_packer_packs_as_nest_does(structure):
    from tensorflux_data import _structure
    flat = [f"leaf{i}" for i in range(len(tx.nest.flatten(structure)))]
    got, want = _structure.packer(structure)(tuple(flat)), tx.nest.pack_sequence_as(structure, flat)
    assert got == want and type(got) is type(want)
    assert [type(v) for v in tx.nest.flatten(got, expand_composites=False)] == [str] * len(flat)
    if isinstance(want, dict):
        assert list(got) == list(want)  # the same key order
