"""TFRecord reading a chunk at a time (Note [Framing a chunk]): the vectorised CRC32C against the
bytewise one, records found in and around runs of equal lengths and across read chunks and files,
corrupt and cut records inside runs, batches whose string tensor is cut out of the read buffer,
resuming mid-chunk, compressed files; against tf.data where TensorFlow is installed."""

import os

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd
from tensorflux_data import _crc32c, _structure, _tfrecord

RNG = np.random.default_rng(7)


def _write(path, records, compression=""):
    with txd.io.TFRecordWriter(str(path), compression) as w:
        for r in records:
            w.write(r)
    return str(path)


@pytest.fixture(params=[4096, None], ids=["4k_chunks", "1m_chunks"])
def chunk(request, monkeypatch):
    """The reader's chunk size: small, so that runs and batches cross many chunk boundaries, or its own."""
    if request.param is not None:
        monkeypatch.setattr(_tfrecord, "_CHUNK", request.param)
    return request.param or _tfrecord._CHUNK


def _runs(long_run=3000):
    """Records in runs of equal lengths between single lengths and variable ones, then empty ones."""
    records = [b"a%04d" % i for i in range(10)] + [b"seven!!"] + [b"b%04d" % i for i in range(300)]
    records += [RNG.bytes(int(n)) for n in RNG.integers(0, 90, 500)]
    return records + [b"c%037d" % i for i in range(long_run)] + [b"", b"", b"", b"", b"", b"", b"tail"]


@pytest.mark.parametrize("lengths", ["equal53", "equal8", "variable", "with_long", "empty"])
def test_crc32c_spans_equal_the_bytewise_crc(lengths):
    n = 300
    lens = {"equal53": np.full(n, 53), "equal8": np.full(n, 8), "variable": RNG.integers(0, 300, n),
            "with_long": np.concatenate([RNG.integers(0, 50, n), [5000, 70001, 1 << 20]]),
            "empty": np.zeros(4, np.int64)}[lengths]
    starts = np.cumsum(lens + RNG.integers(0, 20, len(lens))) - lens
    data = np.frombuffer(RNG.bytes(int(starts[-1] + lens[-1])), np.uint8)  # the last span ends the buffer
    got = _crc32c.crc32c_spans(data, starts, lens)
    assert got.dtype == np.uint32
    assert got.tolist() == [_crc32c.crc32c(data[s:s + m].tobytes()) for s, m in zip(starts, lens)]
    check = np.frombuffer(b"xx123456789", np.uint8)
    assert _crc32c.crc32c_spans(check, [2], [9]).tolist() == [0xE3069283]  # the CRC-32C check value


@pytest.mark.parametrize("batch", [None, 1, 17, 128])
def test_records_in_and_around_equal_length_runs_across_read_chunks(tmp_path, batch, chunk):
    records = _runs(3000 if chunk < 1 << 20 else 22000)
    path = _write(tmp_path / "runs.tfrecord", records)
    assert os.path.getsize(path) > chunk
    ds = txd.TFRecordDataset(path)
    if batch is None:
        assert [r.numpy() for r in ds] == records
        return
    got = [b.numpy() for b in ds.batch(batch)]
    assert [len(b) for b in got[:-1]] == [batch] * (len(got) - 1)
    assert [r for b in got for r in b.tolist()] == records
    if batch < 100:
        return
    tf = pytest.importorskip("tensorflow")
    theirs = [b.numpy() for b in tf.data.TFRecordDataset(path).batch(batch)]
    assert [b.tolist() for b in got] == [b.tolist() for b in theirs]


def test_batches_across_files_and_compressed_files(tmp_path, chunk):
    records = _runs()[:3500]
    parts = [records[:1000], records[1000:2000], records[2000:]]
    for part, compression in zip(parts, ["", "GZIP", "ZLIB"]):
        path = _write(tmp_path / ("part." + compression), part, compression)
        assert [r for b in txd.TFRecordDataset(path, compression).batch(300) for r in b.numpy().tolist()] == part
    plain = [_write(tmp_path / "p0", records[:1000]), _write(tmp_path / "p1", records[1000:1010]),
             _write(tmp_path / "p2", records[1010:])]
    batches = [b.numpy().tolist() for b in txd.TFRecordDataset(plain).batch(999)]
    assert batches[1] == records[999:1998]  # one batch from the ends of a file, a short file and the next
    assert [r for b in batches for r in b] == records


def _outcomes(ds):
    it, out = iter(ds), []
    while True:
        try:
            out.append(next(it).numpy())
        except StopIteration:
            return out
        except tx.errors.DataLossError as e:
            out.append(e.message)


def _offset(records, i):
    return sum(16 + len(r) for r in records[:i])


def _flip(path, offset):
    data = bytearray(open(path, "rb").read())
    data[offset] ^= 0x40
    open(path, "wb").write(bytes(data))


def test_a_bad_data_checksum_inside_a_run_ends_the_file_there(tmp_path, chunk):
    records = [b"r%05d" % i for i in range(2000)]
    path = _write(tmp_path / "d.tfrecord", records)
    _flip(path, _offset(records, 1234) + 14)
    message = path[:-len("d.tfrecord")] + "d.tfrecord: corrupted record (bad data checksum) at byte offset %d" \
        % _offset(records, 1234)
    assert _outcomes(txd.TFRecordDataset(path)) == records[:1234] + [message]  # tf.data skips the rest
    batched = _outcomes(txd.TFRecordDataset(path).batch(100))
    # the records read before the error in its batch are dropped with it (Note [Batch errors])
    assert [r for o in batched[:-1] for r in o.tolist()] == records[:1200] and batched[-1] == message
    assert [r.numpy() for r in txd.TFRecordDataset(path).ignore_errors()] == records[:1234]


def test_a_bad_length_or_a_cut_inside_a_run_ends_the_file_there(tmp_path, chunk):
    records = [b"r%05d" % i for i in range(2000)]
    path = _write(tmp_path / "h.tfrecord", records)
    _flip(path, _offset(records, 777) + 3)
    out = _outcomes(txd.TFRecordDataset(path))
    assert out[:777] == records[:777] and len(out) == 778
    assert out[777].endswith("h.tfrecord: corrupted record (bad length checksum) at byte offset %d"
                             % _offset(records, 777))
    cut = _write(tmp_path / "c.tfrecord", records)
    data = open(cut, "rb").read()
    open(cut, "wb").write(data[:_offset(records, 1500) + 14])
    out = _outcomes(txd.TFRecordDataset(cut).batch(64))
    assert [r for o in out[:-1] for r in o.tolist()] == records[:1472]  # the last batch's records go with it
    assert out[-1].endswith("truncated record (2 of 10 bytes) at byte offset %d" % _offset(records, 1500))


def test_a_truncated_compressed_file_yields_its_records_before_the_cut_then_the_error(tmp_path):
    records = [b"z%05d" % i for i in range(30000)]
    path = _write(tmp_path / "z.gz", records, "GZIP")
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    out = _outcomes(txd.TFRecordDataset(path, "GZIP"))
    assert 0 < len(out) - 1 < len(records) and out[:-1] == records[:len(out) - 1]
    assert "corrupt compressed data" in out[-1]
    tf = pytest.importorskip("tensorflow")
    assert [r.numpy() for r in tf.data.TFRecordDataset(path, "GZIP").ignore_errors()] == out[:-1]


@pytest.mark.parametrize("debug", [False, True], ids=["fast", "debug"])
@pytest.mark.parametrize("compression", ["", "GZIP"])
def test_resuming_mid_chunk_and_mid_run(tmp_path, compression, debug, chunk):
    records = _runs()
    path = _write(tmp_path / "r.tfrecord", records, compression)

    def build():
        return txd.TFRecordDataset(path, compression).batch(100)
    with txd.debug_mode(debug):
        for k in (0, 3, 21, 38):
            it = iter(build())
            head = [r for _ in range(k) for r in next(it).numpy().tolist()]
            resumed = iter(build())
            resumed.restore(it.save())
            assert head + [r for b in resumed for r in b.numpy().tolist()] == records


def test_a_batch_and_a_functions_string_output_hold_their_tensor(tmp_path):
    path = _write(tmp_path / "t.tfrecord", [b"x%d" % i for i in range(40)])
    it = iter(txd.TFRecordDataset(path).batch(32))
    root = getattr(it._root, "inner", it._root)  # a Python node iterator, or the native engine's
    (batch,) = root.next()  # the batch node's element, before the iterator makes it tensors
    assert isinstance(batch, _structure.WithTensor) and batch.tensor.shape == (32,)
    assert batch.tolist() == [b"x%d" % i for i in range(32)] == batch.tensor.numpy().tolist()
    assert _structure.as_tensor(batch) is batch.tensor
    assert batch[1:].tensor is None and np.asarray(batch).__class__ is np.ndarray  # derived arrays hold none
    t = tx.constant([b"a", b"bc"])
    held = _structure.with_tensor(t)
    assert held.tensor is t and held.tolist() == [b"a", b"bc"]
    numbers = tx.constant([1, 2])
    assert _structure.with_tensor(numbers).tensor is numbers
    assert not isinstance(_structure.with_tensor(tx.constant(b"scalar")), _structure.WithTensor)
    ds = txd.TFRecordDataset(path).batch(8).map(lambda r: tx.strings.join([r, r], "-"))
    assert [b.numpy().tolist() for b in ds][0] == [b"x%d-x%d" % (i, i) for i in range(8)]
