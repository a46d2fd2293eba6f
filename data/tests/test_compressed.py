"""Compressed TFRecord files on the native engine (Note [Inflate] in csrc/inflate.cc): the records of
every DEFLATE block kind and framing, gzip header fields, bytes after the stream, corrupt and cut
streams and fuzzed files give the Python engine's outcomes, and TensorFlow's where it is installed."""

import gzip
import struct
import zlib

import pytest

import tensorflux as tx
import tensorflux_data as txd
from pipelines import assert_resumes_natively, native_values, outcomes, python_only

RECORDS = [b"r%05d" % i + b"." * (i % 37) for i in range(3000)]


def _plain(records=RECORDS):
    """The uncompressed bytes of a TFRecord file of ``records``."""
    from tensorflux_data import _crc32c
    out = bytearray()
    for r in records:
        length = struct.pack("<Q", len(r))
        out += length + struct.pack("<I", _crc32c.mask(_crc32c.crc32c(length)))
        out += r + struct.pack("<I", _crc32c.mask(_crc32c.crc32c(r)))
    return bytes(out)


def _compress(data, kind, level=6):
    return gzip.compress(data, level, mtime=0) if kind == "GZIP" else zlib.compress(data, level)


def _read(path, kind, batch=None):
    """The records of file ``path`` through the native engine (asserted) and through the Python one."""
    ds = txd.TFRecordDataset(str(path), compression_type=kind)
    return native_values(ds.batch(batch).map(lambda r: r) if batch else ds.map(lambda r: r), batched=bool(batch))


@pytest.mark.parametrize("level", [0, 1, 9], ids=["stored", "fast", "best"])
@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_compressed_files_give_their_records_natively(tmp_path, kind, level):
    path = tmp_path / "c.tfrecord"
    path.write_bytes(_compress(_plain(), kind, level))
    assert _read(path, kind, batch=64) == RECORDS
    assert _read(path, kind) == RECORDS


def test_fixed_huffman_blocks_and_long_matches(tmp_path):
    # zlib codes short inputs with the fixed code; a long run makes maximal (258-byte) matches.
    records = [b"", b"a", b"ab" * 3, b"x" * 5000, bytes(range(256)) * 3]
    for kind in ("GZIP", "ZLIB"):
        path = tmp_path / kind
        path.write_bytes(_compress(_plain(records), kind))
        assert _read(path, kind, batch=2) == records


def test_files_written_by_tensorflow_are_read_and_ours_by_it(tmp_path):
    tf = pytest.importorskip("tensorflow")
    for kind in ("GZIP", "ZLIB"):
        theirs = str(tmp_path / ("tf." + kind))
        with tf.io.TFRecordWriter(theirs, kind) as w:
            for r in RECORDS:
                w.write(r)
        assert _read(theirs, kind, batch=100) == RECORDS
        ours = str(tmp_path / ("ours." + kind))
        with txd.io.TFRecordWriter(ours, kind) as w:
            for r in RECORDS:
                w.write(r)
        assert [r.numpy() for r in tf.data.TFRecordDataset(ours, kind)] == RECORDS


def _gzip_with_fields(data, flags, extra=b"", name=b"", comment=b""):
    """A gzip member with optional header fields (FEXTRA 4, FNAME 8, FCOMMENT 16, FHCRC 2)."""
    header = bytes([0x1F, 0x8B, 8, flags]) + b"\0\0\0\0\0\xff"
    if flags & 4:
        header += struct.pack("<H", len(extra)) + extra
    if flags & 8:
        header += name + b"\0"
    if flags & 16:
        header += comment + b"\0"
    if flags & 2:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    body = zlib.compressobj(6, zlib.DEFLATED, -15)
    deflated = body.compress(data) + body.flush()
    return header + deflated + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def test_gzip_header_fields_are_skipped_and_its_crc_checked(tmp_path):
    data = _plain()
    path = tmp_path / "h.gz"
    path.write_bytes(_gzip_with_fields(data, 4 | 8 | 16 | 2, extra=b"xy" * 9, name=b"file.tfrecord", comment=b"hi"))
    assert _read(path, "GZIP", batch=500) == RECORDS
    bad = bytearray(path.read_bytes())
    bad[10 + 2 + 18 + 14 + 3] ^= 1  # the header's CRC-16, after its fixed part, extra, name and comment
    path.write_bytes(bytes(bad))
    assert _same_outcomes(path, "GZIP")[-1][:2] == ("error", tx.errors.DataLossError)


def test_bytes_after_the_first_stream_are_ignored(tmp_path):
    first = _compress(_plain(RECORDS[:10]), "GZIP")
    for tail in (b"garbage", _compress(_plain(RECORDS[10:20]), "GZIP")):
        path = tmp_path / "t.gz"
        path.write_bytes(first + tail)
        assert _read(path, "GZIP", batch=3) == RECORDS[:10]


def _same_outcomes(path, kind, batch=3):
    """The outcomes of reading ``path`` natively, asserted equal to the Python engine's."""
    def build():
        return txd.TFRecordDataset(str(path), compression_type=kind).batch(batch).map(lambda r: r)
    got = outcomes(tx.nest, tx.errors.OpError, iter(build()), limit=10_000)
    assert got == outcomes(tx.nest, tx.errors.OpError, iter(python_only(build())), limit=10_000)
    return got


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
@pytest.mark.parametrize("where", ["checksum", "length", "cut", "empty", "header"])
def test_broken_streams_give_their_records_then_data_loss(tmp_path, kind, where):
    data = bytearray(_compress(_plain(), kind))
    if where == "checksum":
        data[-8 if kind == "GZIP" else -1] ^= 1
    elif where == "length":
        if kind == "ZLIB":
            pytest.skip("zlib streams carry no length")
        data[-1] ^= 1
    elif where == "cut":
        data = data[:len(data) // 2]
    elif where == "empty":
        data = b""
    else:
        data[0] ^= 0xFF
    path = tmp_path / "b"
    path.write_bytes(bytes(data))
    got = _same_outcomes(path, kind, batch=100)
    records = [v for o in got if o[0] == "value" for v in o[1][0]]
    if where == "empty":
        assert got == []
        return
    assert got[-1][:2] == ("error", tx.errors.DataLossError) and "compressed" in got[-1][2]
    assert records == RECORDS[:len(records)]
    if where in ("checksum", "length"):
        assert len(records) == len(RECORDS)  # the trailer is checked after the last record
    elif where == "header":
        assert records == []


@pytest.mark.parametrize("at", [0.3, 0.7])
def test_corrupt_data_mid_stream_gives_every_record_before_it(tmp_path, at):
    # Every record decoded before the fault, wherever it falls in a read chunk. TensorFlow yields
    # those its inflate buffers delivered before the failing call: a prefix of ours (none of them
    # for a file that fits in its first buffer, as this one does).
    data = bytearray(_compress(_plain(), "GZIP"))
    data[int(len(data) * at)] ^= 0xFF
    path = tmp_path / "m.gz"
    path.write_bytes(bytes(data))
    got = _same_outcomes(path, "GZIP", batch=1)
    records = [o[1][0][0] for o in got if o[0] == "value"]
    assert records == RECORDS[:len(records)] and len(records) > 0.2 * len(RECORDS)
    assert got[-1][:2] == ("error", tx.errors.DataLossError)
    tf = pytest.importorskip("tensorflow")
    theirs = []
    with pytest.raises(tf.errors.DataLossError):
        for r in tf.data.TFRecordDataset(str(path), "GZIP"):
            theirs.append(r.numpy())
    assert theirs == records[:len(theirs)]


def test_fuzzed_compressed_files_give_the_python_engines_outcomes(tmp_path):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    records = RECORDS[:40]
    clean = {kind: _compress(_plain(records), kind) for kind in ("GZIP", "ZLIB")}

    @hypothesis.settings(max_examples=150, deadline=None, derandomize=True)
    @hypothesis.given(st.sampled_from(["GZIP", "ZLIB"]), st.data())
    def check(kind, draw):
        data = bytearray(clean[kind])
        for pos, val in draw.draw(st.lists(st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)),
                                           max_size=3)):
            data[pos] = val
        cut = draw.draw(st.integers(0, len(data)))
        path = tmp_path / "fuzz"
        path.write_bytes(bytes(data[:cut]))
        _same_outcomes(path, kind)
    check()


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_resuming_a_compressed_file_natively_mid_stream(tmp_path, kind):
    path = tmp_path / "r"
    path.write_bytes(_compress(_plain(), kind))

    def build():
        return txd.TFRecordDataset(str(path), compression_type=kind).batch(70).map(lambda r: r)
    assert_resumes_natively(build, RECORDS, (1, 20, 42))


def _gzip_files(tmp_path, n=4):
    paths, records = [], []
    for k in range(n):
        part = [b"f%d-%d" % (k, i) for i in range(100 + 37 * k)]
        paths.append(str(tmp_path / ("part%d.gz" % k)))
        with open(paths[-1], "wb") as f:
            f.write(_compress(_plain(part), "GZIP"))
        records.append(part)
    return paths, records


@pytest.mark.parametrize("parallel", [None, txd.AUTOTUNE])
def test_an_interleave_of_compressed_files_runs_natively(tmp_path, parallel):
    paths, _ = _gzip_files(tmp_path)
    ds = txd.Dataset.from_tensor_slices(paths).interleave(
        lambda f: txd.TFRecordDataset(f, "GZIP").map(lambda r: r), cycle_length=2, block_length=3,
        num_parallel_calls=parallel).batch(5)
    got = native_values(ds)
    tf = pytest.importorskip("tensorflow")
    tds = tf.data.Dataset.from_tensor_slices(paths).interleave(
        lambda f: tf.data.TFRecordDataset(f, "GZIP"), cycle_length=2, block_length=3)
    assert got == [r.numpy() for r in tds]


def test_an_interleave_choosing_compression_by_name_stays_in_python(tmp_path):
    paths, records = _gzip_files(tmp_path, 2)
    plain = str(tmp_path / "plain.tfrecord")
    with open(plain, "wb") as f:
        f.write(_plain([b"plain-%d" % i for i in range(10)]))

    def by_name(f):
        return txd.TFRecordDataset(f, "GZIP" if f.numpy().endswith(b".gz") else "")
    ds = txd.Dataset.from_tensor_slices(paths + [plain]).interleave(by_name, cycle_length=3).batch(4)
    it = iter(ds)
    got = sorted(v for b in it for v in b.numpy().tolist())
    assert got == sorted(records[0] + records[1] + [b"plain-%d" % i for i in range(10)])
