"""The TFRecord format: each record is its length (uint64, little-endian), the masked CRC32C of
those 8 bytes, the data, and the data's masked CRC32C (TensorFlow's record_writer.cc layout)."""

import collections
import struct
import zlib

import tensorflux as tx

from tensorflux_data import _crc32c, _streams

_BATCH = 512  # records whose data CRCs are checked in one lockstep pass


def _loss(path, offset, what):
    return tx.errors.DataLossError(None, None, "%s: %s at byte offset %d" % (path, what, offset))


class RecordReader:
    """The records of one file from byte ``offset`` on. ``next()`` returns the next record (bytes)
    or None at the end; a corrupt record raises DataLossError naming the file and its offset. After
    a bad data checksum the reader goes on with the next record; after a bad length (checksum or
    truncation) nothing later in the file can be located, and the file ends there."""

    def __init__(self, path, wbits, offset=0):
        self.path = path
        self._stream = _streams.ByteStream(path, wbits, offset)
        self._ready = collections.deque()  # (offset after the record, record, or an exception)
        self.offset = offset  # where the next record to return starts
        self._broken = False

    def _header(self):
        start = self._stream.offset
        head = self._stream.take(12)
        if not head:
            return None
        if len(head) < 12:
            raise _loss(self.path, start, "truncated record header")
        length, crc = struct.unpack("<QI", head)
        if int(_crc32c.mask(_crc32c.crc32c(head[:8]))) != crc:
            raise _loss(self.path, start, "corrupted record (bad length checksum)")
        return start, length

    def _fill(self):
        batch = []
        try:
            while len(batch) < _BATCH:
                h = self._header()
                if h is None:
                    break
                start, length = h
                body = self._stream.take(length + 4)
                if len(body) < length + 4:
                    raise _loss(self.path, start, "truncated record (%d of %d bytes)" % (len(body), length + 4))
                batch.append((start, body[:length], struct.unpack("<I", body[length:])[0]))
        except tx.errors.DataLossError as e:
            self._broken = True
            self._push(batch)
            self._ready.append((None, None, e))
            return
        self._push(batch)

    def _push(self, batch):
        if not batch:
            return
        crcs = _crc32c.mask(_crc32c.crc32c_many([b[1] for b in batch]))
        for (start, data, want), got in zip(batch, crcs):
            end = start + 12 + len(data) + 4
            err = None if int(got) == want else _loss(self.path, start, "corrupted record (bad data checksum)")
            self._ready.append((end, data, err))

    def next(self):
        if not self._ready and not self._broken:
            self._fill()
        if not self._ready:
            return None
        end, data, err = self._ready.popleft()
        if end is not None:
            self.offset = end
        if err is not None:
            raise err
        return data

    def close(self):
        self._stream.close()


class TFRecordOptions:
    """How a TFRecord file is written: ``compression_type`` ("", "ZLIB" or "GZIP") and
    ``compression_level`` (0-9; default zlib's)."""

    def __init__(self, compression_type=None, compression_level=None):
        self.compression_type = compression_type or ""
        _streams.compression_wbits(self.compression_type)
        self.compression_level = -1 if compression_level is None else int(compression_level)


class TFRecordWriter:
    """Writes records to a TFRecord file that TensorFlow reads (and that `TFRecordDataset` reads).

    >>> import os, tempfile, tensorflux_data as txd
    >>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
    >>> with txd.io.TFRecordWriter(path) as w:
    ...     w.write(b"hello"); w.write(b"world")
    >>> [r.numpy() for r in txd.TFRecordDataset(path)]
    [b'hello', b'world']
    """

    def __init__(self, path, options=None):
        if isinstance(options, str) or options is None:
            options = TFRecordOptions(options)
        self._path = _streams.as_path(path)
        wbits = _streams.compression_wbits(options.compression_type)
        self._z = zlib.compressobj(options.compression_level, zlib.DEFLATED, wbits) if wbits is not None else None
        try:
            self._f = open(self._path, "wb")  # noqa: SIM115 (closed by close())
        except OSError as e:
            raise tx.errors.NotFoundError(None, None, "%s: cannot create: %s" % (self._path, e)) from None

    def _out(self, data):
        self._f.write(self._z.compress(data) if self._z is not None else data)

    def write(self, record):
        """Appends one record (bytes, or a scalar string tensor)."""
        if hasattr(record, "numpy"):
            record = record.numpy()
        if isinstance(record, str):
            record = record.encode()
        if self._f is None:
            raise ValueError("write on a closed TFRecordWriter (%s)" % self._path)
        head = struct.pack("<Q", len(record))
        self._out(head + struct.pack("<I", int(_crc32c.mask(_crc32c.crc32c(head)))) + bytes(record)
                  + struct.pack("<I", int(_crc32c.mask(_crc32c.crc32c_many([bytes(record)])[0]))))

    def flush(self):
        """Writes buffered bytes to the file (a compressed stream is flushed to a byte boundary)."""
        if self._z is not None:
            self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()

    def close(self):
        """Finishes the file; later writes are errors."""
        if self._f is None:
            return
        if self._z is not None:
            self._f.write(self._z.flush())
        self._f.close()
        self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
