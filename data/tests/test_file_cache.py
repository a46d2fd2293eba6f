"""cache(filename): written by the first complete iteration only, read by later iterations, pipelines
and processes; one writer at a time; resumable mid-read and mid-write (also after the writer's process
died); corrupt, foreign and unwritable caches are clear errors (Note [File cache])."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import assert_same_elements, flat_values
from tensorflux_data import _cache_format

SUFFIX = ".txd-cache"


def _counting_source(calls, n=6):
    def gen():
        for i in range(n):
            calls.append(i)
            yield i * 10
    return txd.Dataset.from_generator(gen, output_signature=tx.TensorSpec([], tx.int64))


def _files(tmp_path):
    return sorted(os.listdir(tmp_path))


def test_the_first_complete_iteration_writes_and_later_ones_read(tmp_path):
    prefix = str(tmp_path / "c")
    calls = []
    ds = _counting_source(calls).cache(prefix)
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40, 50] and len(calls) == 6
    assert _files(tmp_path) == ["c" + SUFFIX]
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40, 50] and len(calls) == 6  # not run again
    fresh = txd.Dataset.range(100).cache(prefix)  # another pipeline, same element spec: tf.data reads the file
    assert [int(x) for x in fresh] == [0, 10, 20, 30, 40, 50]


def test_another_process_reads_the_cache(tmp_path):
    prefix = str(tmp_path / "c")
    list(txd.Dataset.range(5).map(lambda x: x * x).cache(prefix))
    code = ("import tensorflux_data as txd\n"
            "ds = txd.Dataset.range(5).map(lambda x: x // 0).cache(%r)\n"  # the input would fail if it ran
            "print([int(x) for x in ds])\n" % prefix)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[0, 1, 4, 9, 16]", out.stderr


def test_a_partial_iteration_writes_nothing_and_leaves_no_files(tmp_path):
    prefix = str(tmp_path / "c")
    calls = []
    ds = _counting_source(calls).cache(prefix)
    assert [int(x) for x in ds.take(3)] == [0, 10, 20]
    assert _files(tmp_path) == []  # the temporary file and the lock went with the iterator
    it = iter(ds)
    next(it)
    it.close()
    assert _files(tmp_path) == []
    assert [int(x) for x in ds] == [0, 10, 20, 30, 40, 50]
    assert _files(tmp_path) == ["c" + SUFFIX]


@pytest.mark.parametrize("debug", [False, True], ids=["fast", "debug"])
def test_dtypes_shapes_and_strings_round_trip(tmp_path, debug):
    bf16 = tx.bfloat16.as_numpy_dtype
    values = {"s": np.array([["é\x00".encode(), b""], [b"x" * 300, b"\xff"]], object),
              "f16": np.linspace(-2, 2, 6).astype(np.float16).reshape(2, 3), "bf": np.array([1.5, -3.0], bf16),
              "b": np.array([True, False]), "c": np.array([1 + 2j], np.complex64), "u8": np.arange(4, dtype=np.uint8),
              "i8": np.array(-5, np.int8), "u64": np.array([2 ** 64 - 1], np.uint64), "empty": np.zeros((0, 3))}

    def build():
        ragged = txd.Dataset.range(4).map(lambda n: tx.fill([n], tx.cast(n, tx.float32)))
        return txd.Dataset.zip((txd.Dataset.from_tensors(values).repeat(4), ragged)).cache(str(tmp_path / "d"))
    with txd.debug_mode(debug):
        written = [flat_values(tx.nest, e) for e in build()]
        read = [flat_values(tx.nest, e) for e in build()]
    assert_same_elements(read, written)
    assert [r[-1].tolist() for r in read] == [[], [1.0], [2.0, 2.0], [3.0, 3.0, 3.0]]
    assert read[0][tx.nest.flatten(list(sorted(values))).index("s")].tolist() == values["s"].tolist()


def test_the_same_elements_as_tf_data_and_reading_freezes_a_shuffled_order(tmp_path):
    tf = pytest.importorskip("tensorflow")

    def build(D, prefix):
        return D.from_tensor_slices((np.array([b"a", b"bc", b""]), np.arange(3.0))).map(
            lambda s, x: (s, x * 2)).cache(prefix).repeat(2)
    ours = [flat_values(tx.nest, e) for e in build(txd.Dataset, str(tmp_path / "ours"))]
    theirs = [flat_values(tf.nest, e) for e in build(tf.data.Dataset, str(tmp_path / "theirs"))]
    assert_same_elements(ours, theirs)
    shuffled = txd.Dataset.range(20).shuffle(20, seed=3).cache(str(tmp_path / "s")).repeat(3)
    out = [int(x) for x in shuffled]
    assert out[:20] == out[20:40] == out[40:] and sorted(out[:20]) == list(range(20))


def test_a_second_concurrent_writer_is_an_error_naming_the_lock(tmp_path):
    prefix = str(tmp_path / "c")
    ds = txd.Dataset.range(5).cache(prefix)
    first = iter(ds)
    assert int(next(first)) == 0
    second = iter(ds)
    with pytest.raises(tx.errors.AlreadyExistsError, match=r"another iterator is writing this cache \(the lock "
                                                          r"file .*c\.txd-cache\.lock is held\)"):
        next(second)
    assert [int(x) for x in first] == [1, 2, 3, 4]
    assert [int(x) for x in second] == [0, 1, 2, 3, 4]  # the writer finished: the second one now reads


def _resume(build, k):
    it = iter(build())
    head = [int(next(it)) for _ in range(k)]
    return it, head, it.save()


def test_resume_mid_read(tmp_path):
    def build():
        return txd.Dataset.range(7).map(lambda x: x + 1).cache(str(tmp_path / "c"))
    list(build())
    it, head, state = _resume(build, 3)
    resumed = iter(build())
    resumed.restore(state)
    assert head + [int(x) for x in resumed] == list(range(1, 8))
    os.remove(str(tmp_path / "c") + SUFFIX)
    list(build())  # rewritten: another cache id
    with pytest.raises(tx.errors.FailedPreconditionError, match="cannot resume reading .* it was rewritten"):
        iter(build()).restore(state)


def test_resume_mid_write_after_the_writer_finished_reads_the_file(tmp_path):
    calls = []

    def build():
        return _counting_source(calls).cache(str(tmp_path / "c"))
    it, head, state = _resume(build, 2)
    assert [int(x) for x in it] == [20, 30, 40, 50]  # the writer goes on and completes the cache
    calls.clear()
    resumed = iter(build())
    resumed.restore(state)
    assert head + [int(x) for x in resumed] == [0, 10, 20, 30, 40, 50] and calls == []


def test_resume_mid_write_on_the_same_iterator_goes_on_writing(tmp_path):
    def build():
        return txd.Dataset.range(6).cache(str(tmp_path / "c"))
    it, head, state = _resume(build, 4)
    next(it)
    it.restore(state)
    assert head + [int(x) for x in it] == list(range(6))
    assert _files(tmp_path) == ["c" + SUFFIX]
    assert [int(x) for x in txd.Dataset.range(0).cache(str(tmp_path / "c"))] == list(range(6))


def test_resume_mid_write_when_another_writer_completed_the_cache_passes_the_input_through(tmp_path):
    def build(n=6):
        return txd.Dataset.range(n).cache(str(tmp_path / "c"))
    it, head, state = _resume(build, 2)
    it.close()
    assert [int(x) for x in build()] == list(range(6))  # another writer completes the cache
    resumed = iter(build())
    resumed.restore(state)
    assert head + [int(x) for x in resumed] == list(range(6))
    assert _files(tmp_path) == ["c" + SUFFIX]


def test_resume_mid_write_whose_file_is_gone_writes_nothing(tmp_path):
    def build():
        return txd.Dataset.range(6).cache(str(tmp_path / "c"))
    it, head, state = _resume(build, 2)
    it.close()
    other = iter(build())
    next(other)  # a new writer removes the files of writers that are gone
    other.close()
    resumed = iter(build())
    resumed.restore(state)
    assert head + [int(x) for x in resumed] == list(range(6))
    assert _files(tmp_path) == []  # nothing written: the next complete iteration writes the cache
    assert [int(x) for x in build()] == list(range(6)) and _files(tmp_path) == ["c" + SUFFIX]


def test_resume_mid_write_after_the_writing_process_died(tmp_path):
    prefix, state_path = str(tmp_path / "c"), str(tmp_path / "state")
    code = ("import os, tensorflux_data as txd\n"
            "it = iter(txd.Dataset.range(8).map(lambda x: x * 2).cache(%r))\n"
            "[next(it) for _ in range(3)]\n"
            "open(%r, 'wb').write(it.save())\n"
            "os._exit(0)\n" % (prefix, state_path))  # no cleanup: the lock dies with the process
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert any(f.startswith("c" + SUFFIX + ".tmp-") for f in _files(tmp_path))
    resumed = iter(txd.Dataset.range(8).map(lambda x: x * 2).cache(prefix))
    resumed.restore(open(state_path, "rb").read())
    assert [int(x) for x in resumed] == [6, 8, 10, 12, 14]
    assert _files(tmp_path) == ["c" + SUFFIX, "state"]
    assert [int(x) for x in txd.Dataset.range(8).map(lambda x: x // 0).cache(prefix)] == list(range(0, 16, 2))


def test_unwritable_paths_name_the_path(tmp_path):
    with pytest.raises(tx.errors.NotFoundError, match=r"cache: cannot write .*no-such-dir/c\.txd-cache"):
        list(txd.Dataset.range(3).cache(str(tmp_path / "no-such-dir" / "c")))
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(tx.errors.NotFoundError, match=r"file/c\.txd-cache"):
        list(txd.Dataset.range(3).cache(str(tmp_path / "file" / "c")))
    if os.geteuid() != 0:  # root writes anywhere
        (tmp_path / "ro").mkdir(mode=0o500)
        with pytest.raises(tx.errors.PermissionDeniedError, match=r"ro/c\.txd-cache"):
            list(txd.Dataset.range(3).cache(str(tmp_path / "ro" / "c")))


def test_corrupt_truncated_and_foreign_caches_are_clear_errors(tmp_path):
    prefix = str(tmp_path / "c")
    path = prefix + SUFFIX
    list(txd.Dataset.range(5).map(lambda x: x * 7).cache(prefix))
    good = open(path, "rb").read()
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"c\.txd-cache holds elements .*'int64'.* but this "
                                                            r"dataset's elements are .*'float32'"):
        list(txd.Dataset.range(5).map(lambda x: tx.cast(x, tx.float32)).cache(prefix))
    bad = bytearray(good)
    bad[len(good) - 33 - 26 - 6] ^= 0xFF  # in the 4th element (26 bytes a record; 33 the end record)
    open(path, "wb").write(bytes(bad))
    with pytest.raises(tx.errors.DataLossError, match=r"c\.txd-cache: corrupt cache file \(a bad data checksum\) "
                                                      r"at byte offset \d+; delete it"):
        list(txd.Dataset.range(5).cache(prefix))
    it = iter(txd.Dataset.range(5).cache(prefix))
    assert [int(next(it)) for _ in range(3)] == [0, 7, 14]  # the records before the damage
    with pytest.raises(tx.errors.DataLossError):
        next(it)
    assert list(it) == []  # a broken cache ends after its error: ignore_errors does not loop on it
    assert [int(x) for x in txd.Dataset.range(5).cache(prefix).ignore_errors()] == [0, 7, 14]
    open(path, "wb").write(good[:-40])  # the end record and part of the last element are gone
    with pytest.raises(tx.errors.DataLossError, match=r"c\.txd-cache: corrupt cache file \(a cut record"):
        list(txd.Dataset.range(5).cache(prefix))
    open(path, "wb").write(b"not a cache at all")
    with pytest.raises(tx.errors.DataLossError, match=r"c\.txd-cache: corrupt cache file \(not a tensorflux-data "
                                                      r"cache"):
        list(txd.Dataset.range(5).cache(prefix))
    open(path, "wb").write(_cache_format.frame(b"Hxyz"))
    with pytest.raises(tx.errors.DataLossError, match=r"its header record is not JSON"):
        list(txd.Dataset.range(5).cache(prefix))


def test_a_cache_cut_at_a_record_boundary_is_truncated_not_short(tmp_path):
    prefix = str(tmp_path / "c")
    list(txd.Dataset.range(5).cache(prefix))
    path = prefix + SUFFIX
    data = open(path, "rb").read()
    end = 16 + len(b'F{"elements": 5}')
    open(path, "wb").write(data[:-end])
    it = iter(txd.Dataset.range(5).cache(prefix))
    assert [int(next(it)) for _ in range(5)] == list(range(5))
    with pytest.raises(tx.errors.DataLossError, match="ends after 5 elements without its end record"):
        next(it)


def test_elements_that_are_datasets_cannot_be_cached_in_a_file(tmp_path):
    windows = txd.Dataset.range(6).window(2)
    with pytest.raises(TypeError, match="cache\\(filename\\): elements must be tensors"):
        windows.cache(str(tmp_path / "w"))
    assert len(list(windows.cache())) == 3  # the memory cache holds them
