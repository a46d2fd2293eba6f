"""TFRecord files (byte-compatible with TensorFlow both ways, checksums, GZIP/ZLIB, corrupt records
naming file and offset, a fuzzed reader), text lines and list_files, against tf.data."""

import os
import struct

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from tensorflux_data import _crc32c

RECORDS = [b"", b"a", b"hello world", bytes(range(256)) * 5, b"\x00" * 1000] + [b"r%d" % i for i in range(40)]


def _write(path, records, compression=""):
    with txd.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)
    return str(path)


def _read(*args, **kwargs):
    return [r.numpy() for r in txd.TFRecordDataset(*args, **kwargs)]


def test_crc32c_known_values():
    assert _crc32c.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert _crc32c.crc32c(b"") == 0
    chunks = [os.urandom(n) for n in (0, 1, 7, 64, 300)]
    assert _crc32c.crc32c_many(chunks).tolist() == [_crc32c.crc32c(c) for c in chunks]


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_round_trip_and_compatible_with_tensorflow_both_ways(tmp_path, compression):
    tf = pytest.importorskip("tensorflow")
    ours = _write(tmp_path / "ours", RECORDS, compression)
    assert _read(ours, compression_type=compression) == RECORDS
    assert [r.numpy() for r in tf.data.TFRecordDataset(ours, compression_type=compression)] == RECORDS
    theirs = str(tmp_path / "theirs")
    with tf.io.TFRecordWriter(theirs, tf.io.TFRecordOptions(compression_type=compression)) as w:
        for r in RECORDS:
            w.write(r)
    assert _read(theirs, compression_type=compression) == RECORDS
    if compression == "":
        assert open(ours, "rb").read() == open(theirs, "rb").read()  # byte for byte


def _corrupt(path, offset, value=None):
    data = bytearray(open(path, "rb").read())
    data[offset] = (data[offset] ^ 0xFF) if value is None else value
    open(path, "wb").write(bytes(data))


def test_a_bad_data_checksum_names_the_file_and_offset_and_ends_that_file_as_in_tf(tmp_path):
    path = _write(tmp_path / "f.tfrecord", [b"one", b"two", b"three"])
    second = 12 + 3 + 4
    _corrupt(path, second + 12)  # a byte of b"two"
    other = _write(tmp_path / "o.tfrecord", [b"next"])
    it = iter(txd.TFRecordDataset([path, other]))
    assert next(it).numpy() == b"one"
    with pytest.raises(tx.errors.DataLossError, match=r"f\.tfrecord: corrupted record \(bad data checksum\) at "
                                                      r"byte offset %d" % second):
        next(it)
    assert next(it).numpy() == b"next"  # the iterator survives; tf.data goes on with the next file
    assert [r.numpy() for r in txd.TFRecordDataset([path, other]).ignore_errors()] == [b"one", b"next"]
    tf = pytest.importorskip("tensorflow")
    assert [r.numpy() for r in tf.data.TFRecordDataset([path, other]).ignore_errors()] == [b"one", b"next"]


def test_a_bad_length_or_a_truncated_record_ends_the_file_with_its_offset(tmp_path):
    path = _write(tmp_path / "g.tfrecord", [b"one", b"two", b"three"])
    _corrupt(path, 19)  # the length of the second record
    with pytest.raises(tx.errors.DataLossError, match=r"bad length checksum\) at byte offset 19"):
        _read(path)
    other = _write(tmp_path / "h.tfrecord", [b"x"])
    ds = txd.TFRecordDataset([path, other]).ignore_errors()
    assert [r.numpy() for r in ds] == [b"one", b"x"]
    whole = _write(tmp_path / "t.tfrecord", [b"one", b"two"])
    data = open(whole, "rb").read()
    open(whole, "wb").write(data[:-3])
    with pytest.raises(tx.errors.DataLossError, match=r"t\.tfrecord: truncated record \(4 of 7 bytes\) at byte "
                                                      r"offset 19"):
        _read(whole)


def test_a_missing_file_is_not_found_and_the_next_file_is_read(tmp_path):
    good = _write(tmp_path / "good", [b"g"])
    it = iter(txd.TFRecordDataset([str(tmp_path / "missing"), good]))
    with pytest.raises(tx.errors.NotFoundError, match="missing: No such file"):
        next(it)
    assert next(it).numpy() == b"g"


def test_a_truncated_gzip_stream_is_data_loss(tmp_path):
    path = _write(tmp_path / "z.gz", RECORDS, "GZIP")
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    with pytest.raises(tx.errors.DataLossError, match="z.gz"):
        _read(path, compression_type="GZIP")


@pytest.mark.parametrize("compression", ["", "GZIP"])
def test_resume_mid_file_and_across_files(tmp_path, compression):
    paths = [_write(tmp_path / ("p%d" % i), [b"%d-%d" % (i, j) for j in range(5)], compression) for i in range(3)]

    def build():
        return txd.TFRecordDataset(paths, compression_type=compression).map(lambda r: r)
    full = [r.numpy() for r in build()]
    for k in (0, 3, 5, 7, 14, 15):
        it = iter(build())
        head = [next(it).numpy() for _ in range(k)]
        state = it.save()
        it2 = iter(build())
        it2.restore(state)
        assert head + [r.numpy() for r in it2] == full


def test_num_parallel_reads_interleaves_like_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    paths = [_write(tmp_path / ("q%d" % i), [b"%d-%d" % (i, j) for j in range(i + 2)]) for i in range(4)]
    ours = _read(paths, num_parallel_reads=3)
    theirs = [r.numpy() for r in tf.data.TFRecordDataset(paths, num_parallel_reads=3)]
    assert ours == theirs


def test_text_lines_like_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"first\r\nsecond\n\nlast without newline")
    b.write_bytes(b"x\ny\n")
    ours = [line.numpy() for line in txd.TextLineDataset([str(a), str(b)])]
    theirs = [line.numpy() for line in tf.data.TextLineDataset([str(a), str(b)])]
    assert ours == theirs
    it = iter(txd.TextLineDataset([str(a), str(b)]))
    head = [next(it).numpy() for _ in range(2)]
    state = it.save()
    it2 = iter(txd.TextLineDataset([str(a), str(b)]))
    it2.restore(state)
    assert head + [line.numpy() for line in it2] == ours


def test_list_files_like_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    for name in ("b.rec", "a.rec", "c.txt"):
        (tmp_path / name).write_bytes(b"")
    pattern = str(tmp_path / "*.rec")
    ours = [f.numpy() for f in txd.list_files(pattern, shuffle=False)]
    assert ours == [f.numpy() for f in tf.data.Dataset.list_files(pattern, shuffle=False)]
    assert sorted(f.numpy() for f in txd.Dataset.list_files(pattern, seed=1)) == ours
    with pytest.raises(tx.errors.InvalidArgumentError, match="No files matched pattern"):
        txd.list_files(str(tmp_path / "*.none"))


def test_bad_arguments():
    with pytest.raises(ValueError, match="compression_type must be"):
        txd.TFRecordDataset("x", compression_type="LZ4")
    with pytest.raises(TypeError, match="dataset of scalar strings"):
        txd.TFRecordDataset(txd.Dataset.range(3))


def test_fuzzed_files_give_records_or_data_loss_never_anything_else(tmp_path):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    path = _write(tmp_path / "fuzz", RECORDS[:8])
    clean = open(path, "rb").read()

    @hypothesis.settings(max_examples=150, deadline=None, derandomize=True)
    @hypothesis.given(st.lists(st.tuples(st.integers(0, len(clean) - 1), st.integers(0, 255)), max_size=4),
                      st.integers(0, len(clean)))
    def check(edits, cut):
        data = bytearray(clean[:cut])
        for pos, val in edits:
            if pos < len(data):
                data[pos] = val
        f = tmp_path / "mutated"
        f.write_bytes(bytes(data))
        it = iter(txd.TFRecordDataset(str(f)))
        for _ in range(20):
            try:
                r = next(it)
            except StopIteration:
                break
            except tx.errors.DataLossError as e:
                assert "mutated" in str(e) and "byte offset" in str(e)
                continue
            assert r.numpy() in RECORDS
    check()


def test_masked_crc_matches_tensorflows_layout():
    head = struct.pack("<Q", 5)
    raw = struct.pack("<Q", 5) + struct.pack("<I", int(_crc32c.mask(_crc32c.crc32c(head)))) + b"hello" + \
        struct.pack("<I", int(_crc32c.mask(_crc32c.crc32c(b"hello"))))
    assert np.frombuffer(raw, np.uint8).size == 12 + 5 + 4


def test_records_across_read_chunks_and_larger_than_a_chunk(tmp_path):
    rng = np.random.default_rng(0)
    records = [rng.bytes(int(n)) for n in rng.integers(0, 300, 12000)] + [rng.bytes(3 << 20), b"tail"]
    path = _write(tmp_path / "big", records)
    assert _read(path) == records
    it = iter(txd.TFRecordDataset(path))
    for _ in range(7000):
        next(it)
    state = it.save()
    it2 = iter(txd.TFRecordDataset(path))
    it2.restore(state)
    assert [r.numpy() for r in it2] == records[7000:]


def test_npy_and_safetensors_sources_are_memory_mapped_and_resumable(tmp_path):
    safetensors = pytest.importorskip("safetensors.numpy")
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    y = np.arange(10, dtype=np.int64) * 3
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    ds = txd.experimental.from_npy((str(tmp_path / "x.npy"), str(tmp_path / "y.npy"))).batch(4)
    got = [(a.numpy(), b.numpy()) for a, b in ds]
    np.testing.assert_array_equal(np.concatenate([g[0] for g in got]), x)
    np.testing.assert_array_equal(np.concatenate([g[1] for g in got]), y)
    safetensors.save_file({"x": x, "y": y}, str(tmp_path / "d.safetensors"))
    st = txd.experimental.from_safetensors(str(tmp_path / "d.safetensors")).global_shuffle(seed=2)
    it = iter(st)
    head = [int(next(it)["y"]) for _ in range(4)]
    it2 = iter(txd.experimental.from_safetensors(str(tmp_path / "d.safetensors")).global_shuffle(seed=2))
    it2.restore(it.save())
    uninterrupted = [int(e["y"]) for e in txd.experimental.from_safetensors(str(tmp_path / "d.safetensors"))
                     .global_shuffle(seed=2)]
    assert head + [int(e["y"]) for e in it2] == uninterrupted  # the same order, resumed mid-epoch
    assert sorted(uninterrupted) == y.tolist() and uninterrupted != y.tolist()  # a permutation, shuffled
    one = txd.experimental.from_safetensors(str(tmp_path / "d.safetensors"), keys=["x"])
    np.testing.assert_array_equal(next(iter(one))["x"].numpy(), x[0])


def test_bad_array_files(tmp_path):
    with pytest.raises(tx.errors.NotFoundError, match="nothing.npy"):
        txd.experimental.from_npy(str(tmp_path / "nothing.npy"))
    (tmp_path / "bad.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}......")
    with pytest.raises(tx.errors.InvalidArgumentError, match="bad.safetensors: the safetensors header is not JSON"):
        txd.experimental.from_safetensors(str(tmp_path / "bad.safetensors"))
    (tmp_path / "short.safetensors").write_bytes(b"\xff\xff")
    with pytest.raises(tx.errors.InvalidArgumentError, match="not a safetensors file"):
        txd.experimental.from_safetensors(str(tmp_path / "short.safetensors"))
    header = b'{"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 64]}}'
    (tmp_path / "off.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\x00" * 16)
    with pytest.raises(tx.errors.InvalidArgumentError, match="data offsets"):
        txd.experimental.from_safetensors(str(tmp_path / "off.safetensors"))


CSV = b'id,score,name\n1,0.5,"ann, jr"\n2,,bob\n3,2.5,"say ""hi"""\n'


def test_csv_like_tf(tmp_path):
    tf = pytest.importorskip("tensorflow")
    path = tmp_path / "a.csv"
    path.write_bytes(CSV)

    def build(D, T):
        return D(str(path), [T.int64, [1.0], ["?"]], header=True)  # (TensorFlow makes a bare 1.0 required)
    ours = [tuple(v.numpy() for v in e) for e in build(txd.experimental.CsvDataset, tx)]
    theirs = [tuple(v.numpy() for v in e) for e in build(tf.data.experimental.CsvDataset, tf)]
    assert ours == theirs
    sel = txd.experimental.CsvDataset(str(path), [["?"], ["?"]], header=True, select_cols=[0, 2])
    assert [tuple(v.numpy() for v in e) for e in sel] == [(b"1", b"ann, jr"), (b"2", b"bob"), (b"3", b'say "hi"')]
    it = iter(build(txd.experimental.CsvDataset, tx))
    next(it)
    it2 = iter(build(txd.experimental.CsvDataset, tx))
    it2.restore(it.save())
    assert [tuple(v.numpy() for v in e) for e in it2] == ours[1:]


def test_csv_errors_name_the_record_and_the_iterator_survives(tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes(b"1,2\n3\nx,4\n,5\n6,7\n")
    it = iter(txd.experimental.CsvDataset(str(path), [tx.int64, tx.int64]))
    assert [int(v) for v in next(it)] == [1, 2]
    with pytest.raises(tx.errors.InvalidArgumentError, match="Expect 2 fields but have 1 in record 1"):
        next(it)
    with pytest.raises(tx.errors.InvalidArgumentError, match="Field 0 in record 2 is not a valid int: x"):
        next(it)
    with pytest.raises(tx.errors.InvalidArgumentError, match="Field 0 is required but missing in record 3!"):
        next(it)
    assert [int(v) for v in next(it)] == [6, 7]
    with pytest.raises(TypeError, match="unsupported type bool"):
        txd.experimental.CsvDataset(str(path), [tx.bool])
