"""The TFRecord format: each record is its length (uint64, little-endian), the masked CRC32C of
those 8 bytes, the data, and the data's masked CRC32C (TensorFlow's record_writer.cc layout)."""

import collections
import struct
import zlib

import numpy as np

import tensorflux as tx

from tensorflux_data import _crc32c, _streams

_BATCH = 2048  # records whose data CRCs are checked in one lockstep pass
_CHUNK = 1 << 20
_HEADER = struct.Struct("<QI")


def _loss(path, offset, what):
    return tx.errors.DataLossError(None, None, "%s: %s at byte offset %d" % (path, what, offset))


def _u32(arr, at):
    """The little-endian uint32 words of byte array ``arr`` at offsets ``at``."""
    b = arr[at[:, None] + np.arange(4)].astype(np.uint32)
    return b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16) | (b[:, 3] << 24)


class RecordReader:
    """The records of one file from byte ``offset`` on. ``next()`` returns the next record (bytes)
    or None at the end; a corrupt record raises DataLossError naming the file and its offset. After
    a bad data checksum the reader goes on with the next record; after a bad length (checksum or
    truncation) nothing later in the file can be located, and the file ends there."""

    def __init__(self, path, wbits, offset=0):
        self.path = path
        self._stream = _streams.ByteStream(path, wbits, offset)
        self._ready = collections.deque()  # (offset after the record, record, exception or None)
        self._buf, self._base = b"", offset  # unparsed bytes and the file offset of their start
        self.offset = offset  # where the next record to return starts
        self._broken = False

    def _ensure(self, pos, n):
        """Reads until ``n`` bytes from ``pos`` of the buffer are there; False at the stream's end."""
        while len(self._buf) - pos < n:
            more = self._stream.take(max(_CHUNK, n))
            if not more:
                return False
            self._buf = self._buf[pos:] + more
            self._base += pos
            pos = 0
            self._pos = 0
        return True

    def _fill(self):
        # Record boundaries are found in one pass over the buffered bytes; then the header and data
        # checksums of all of them are checked in lockstep. A header is checked at once only when
        # its length reaches past the buffered bytes (a corrupt length must not make the reader
        # fetch gigabytes). Records after a bad header are dropped with it.
        starts, lengths, error = [], [], None
        self._pos = 0
        unpack = _HEADER.unpack_from
        try:
            while len(starts) < _BATCH:
                pos, buf = self._pos, self._buf
                if len(buf) - pos < 12:
                    if starts:  # reading more rebases the buffer: after the records found so far
                        break
                    if not self._ensure(pos, 12):
                        if len(self._buf) > self._pos:
                            raise _loss(self.path, self._base + self._pos, "truncated record header")
                        break
                    pos, buf = self._pos, self._buf
                length, crc = unpack(buf, pos)
                if len(buf) - pos < 16 + length:
                    if starts:
                        break
                    if _crc32c.mask(_crc32c.crc32c(buf[pos:pos + 8])) != crc:
                        raise _loss(self.path, self._base + pos, "corrupted record (bad length checksum)")
                    if not self._ensure(pos, 16 + length):
                        raise _loss(self.path, self._base + self._pos, "truncated record (%d of %d bytes)"
                                    % (len(self._buf) - self._pos - 12, length + 4))
                    pos = self._pos
                starts.append(pos)
                lengths.append(length)
                self._pos = pos + 16 + length
        except tx.errors.DataLossError as e:
            error = e
        self._push(starts, lengths, error)

    def _push(self, starts, lengths, error):
        buf, base = self._buf, self._base
        if starts:
            arr = np.frombuffer(buf, np.uint8)
            st, ln = np.array(starts, np.int64), np.array(lengths, np.int64)
            heads = _crc32c.mask(_crc32c.crc32c_spans(arr, st, np.full(len(st), 8, np.int64)))
            bad = np.flatnonzero(heads != _u32(arr, st + 8))
            if bad.size:
                cut = int(bad[0])
                error = _loss(self.path, base + starts[cut], "corrupted record (bad length checksum)")
                st, ln, starts = st[:cut], ln[:cut], starts[:cut]
            datas = _crc32c.mask(_crc32c.crc32c_spans(arr, st + 12, ln)) == _u32(arr, st + 12 + ln)
            for start, length, ok in zip(starts, lengths, datas.tolist()):
                err = None if ok else _loss(self.path, base + start, "corrupted record (bad data checksum)")
                self._ready.append((base + start + 16 + length, buf[start + 12:start + 12 + length], err))
        self._buf, self._base = buf[self._pos:], base + self._pos
        if error is not None:
            self._broken = True
            self._ready.append((None, None, error))

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
        self._out(head + struct.pack("<I", _crc32c.mask(_crc32c.crc32c(head))) + bytes(record)
                  + struct.pack("<I", _crc32c.mask(int(_crc32c.crc32c_many([bytes(record)])[0]))))

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
