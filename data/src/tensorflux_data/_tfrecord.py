"""The TFRecord format: each record is its length (uint64, little-endian), the masked CRC32C of
those 8 bytes, the data, and the data's masked CRC32C (TensorFlow's record_writer.cc layout)."""

import struct
import zlib

import numpy as np

import tensorflux as tx

from tensorflux_data import _crc32c, _streams

_CHUNK = 1 << 20  # bytes read (and framed, checked) at once
_LENGTH = struct.Struct("<Q")
_RUN = 4  # equal lengths in a row before the rest of a run is found in one NumPy pass

# Note [Framing a chunk]: the reader reads about a megabyte, finds every record that is complete in
# it, then checks all their checksums at once (Note [Vectorised CRC32C]) and hands the records out
# from arrays of offsets. Finding records is sequential (a record's length gives the next one's
# start) except in runs of equal lengths, where the next starts are an arithmetic sequence: after
# _RUN equal lengths, one strided view of the candidate length fields finds where the run ends. A
# record that does not fit the bytes read has its length checksum checked before the reader reads
# on (a corrupt length must not make it read gigabytes). After a bad length checksum or a cut
# record nothing later in the file can be located: the records before it are handed out, then the
# error, then the file ends. A bad data checksum loses only that record.


def _loss(path, offset, what):
    return tx.errors.DataLossError(None, None, "%s: %s at byte offset %d" % (path, what, offset))


def _u32_at(arr, at):
    """The little-endian uint32 words of byte array ``arr`` at offsets ``at``."""
    return np.lib.stride_tricks.sliding_window_view(arr, 4)[at].view("<u4").reshape(-1)


def _frame(buf, pos):
    """(starts, lengths, end) of the complete records of ``buf`` from ``pos``: int64 arrays of their
    offsets and data lengths, and the offset after the last (Note [Framing a chunk])."""
    starts, lengths, runs = [], [], []
    stop, unpack = len(buf), _LENGTH.unpack_from
    previous, same = -1, 0
    while stop - pos >= 16:
        (length,) = unpack(buf, pos)
        size = length + 16
        if stop - pos < size:
            break
        same = same + 1 if length == previous else 0
        previous = length
        if same < _RUN:
            starts.append(pos)
            lengths.append(length)
            pos += size
            continue
        count = (stop - pos) // size
        fields = np.ndarray((count,), "<u8", buf, pos, (size,))  # the length fields if the run goes on
        other = np.flatnonzero(fields != length)
        run = count if other.size == 0 else int(other[0])
        runs.append((len(starts), pos, size, run))
        pos += run * size
        same = 0
    if not runs:
        return np.array(starts, np.int64), np.array(lengths, np.int64), pos
    parts_s, parts_l, done = [], [], 0
    for at, first, size, run in runs:
        parts_s += [np.array(starts[done:at], np.int64), first + size * np.arange(run, dtype=np.int64)]
        parts_l += [np.array(lengths[done:at], np.int64), np.full(run, size - 16, np.int64)]
        done = at
    parts_s.append(np.array(starts[done:], np.int64))
    parts_l.append(np.array(lengths[done:], np.int64))
    return np.concatenate(parts_s), np.concatenate(parts_l), pos


class RecordReader:
    """The records of one file from byte ``offset`` on. ``next()`` returns the next record (bytes)
    or None at the end, ``next_many(n)`` up to n of them; a corrupt record raises DataLossError
    naming the file and its offset. ``offset`` is where the next record to return starts (Note
    [Framing a chunk])."""

    def __init__(self, path, wbits, offset=0):
        self.path = path
        self._stream = _streams.ByteStream(path, wbits, offset)
        self._buf, self._base = b"", offset  # unframed bytes and the file offset of their start
        self.offset = offset
        self._chunk, self._chunk_base = b"", offset  # the bytes the framed records are in
        self._starts = self._stops = np.empty(0, np.int64)  # where the framed records' data start and end
        self._starts_list, self._stops_list, self._count = [], [], 0  # the same as lists (next())
        self._bad = []  # indices of records whose data checksum failed, descending
        self._next = 0  # index of the next framed record to hand out
        self._error, self._broken = None, False  # the error after the framed records; the file ended

    def _read(self, n):
        """Reads until the buffer holds ``n`` bytes; False at the stream's end."""
        while len(self._buf) < n:
            more = self._stream.take(max(_CHUNK, n - len(self._buf)))
            if not more:
                return False
            self._buf += more
        return True

    def _fill(self):
        """Frames and checks the next chunk's records (Note [Framing a chunk])."""
        error = None
        try:
            self._read(_CHUNK)
        except tx.errors.DataLossError as e:  # corrupt compressed bytes: the records before them come first
            error = e
        buf = self._buf
        starts, lengths, end = _frame(buf, 0)
        if not len(starts) and error is None:  # the next record does not fit: check its length, read it all
            if not buf:
                self._broken = True
                return
            error = self._whole_record()
            buf = self._buf
            if error is None:
                starts, lengths, end = _frame(buf, 0)
        self._bad = []
        if len(starts):
            arr = np.frombuffer(buf, np.uint8)
            heads = _crc32c.mask(_crc32c.crc32c_spans(arr, starts, np.full(len(starts), 8, np.int64)))
            wrong = np.flatnonzero(heads != _u32_at(arr, starts + 8))
            if wrong.size:
                cut = int(wrong[0])
                error = _loss(self.path, self._base + int(starts[cut]), "corrupted record (bad length checksum)")
                starts, lengths = starts[:cut], lengths[:cut]
            datas = _crc32c.mask(_crc32c.crc32c_spans(arr, starts + 12, lengths))
            self._bad = np.flatnonzero(datas != _u32_at(arr, starts + 12 + lengths)).tolist()[::-1]
        data = starts + 12
        self._chunk, self._chunk_base, self._next = buf, self._base, 0
        self._starts, self._stops = data, data + lengths
        self._starts_list, self._stops_list, self._count = data.tolist(), self._stops.tolist(), len(data)
        self._error = error
        if error is None:
            self._buf, self._base = buf[end:], self._base + end
        else:
            self._buf, self._broken = b"", True

    def _whole_record(self):
        """Reads the whole of the record at the buffer's start, its length checked first; the
        DataLossError when it is corrupt or cut, else None."""
        buf = self._buf
        if len(buf) < 12:
            return _loss(self.path, self._base, "truncated record header")
        length, crc = struct.unpack_from("<QI", buf, 0)
        if _crc32c.mask(_crc32c.crc32c(buf[:8])) != crc:
            return _loss(self.path, self._base, "corrupted record (bad length checksum)")
        try:
            complete = self._read(16 + length)
        except tx.errors.DataLossError as e:
            return e
        if not complete:
            return _loss(self.path, self._base, "truncated record (%d of %d bytes)" % (len(self._buf) - 12, length + 4))
        return None

    def next_spans(self, n):
        """(buffer, starts, stops): up to ``n`` next records as the int64 offsets of their data in
        ``buffer`` (bytes), fewer before a corrupt record, none at the end; DataLossError when the
        next record is corrupt (the reader then goes on after it, or ends)."""
        i = self._next
        if i == len(self._starts):
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            if self._broken:
                return self._chunk, self._starts[:0], self._stops[:0]
            self._fill()
            return self.next_spans(n)
        stop = min(i + n, len(self._starts))
        if self._bad and self._bad[-1] < stop:
            stop = self._bad[-1]
            if stop == i:
                self._bad.pop()
                self._next, self.offset = i + 1, self._chunk_base + int(self._stops[i]) + 4
                raise _loss(self.path, self._chunk_base + int(self._starts[i]) - 12,
                            "corrupted record (bad data checksum)")
        self._next, self.offset = stop, self._chunk_base + int(self._stops[stop - 1]) + 4
        return self._chunk, self._starts[i:stop], self._stops[i:stop]

    def next_many(self, n):
        """Up to ``n`` next records as a list of bytes (see next_spans)."""
        i = self._next
        stop = min(i + n, self._count)
        if i < stop and (not self._bad or self._bad[-1] >= stop):  # the common case, without arrays
            chunk, ends = self._chunk, self._stops_list[i:stop]
            self._next, self.offset = stop, self._chunk_base + ends[-1] + 4
            return [chunk[a:b] for a, b in zip(self._starts_list[i:stop], ends)]
        chunk, starts, stops = self.next_spans(n)
        return [chunk[a:b] for a, b in zip(starts.tolist(), stops.tolist())]

    def next(self):
        """The next record (bytes), or None at the end (see next_spans)."""
        i = self._next
        if i < self._count and (not self._bad or self._bad[-1] != i):  # the common case, without arrays
            a, b = self._starts_list[i], self._stops_list[i]
            self._next, self.offset = i + 1, self._chunk_base + b + 4
            return self._chunk[a:b]
        records = self.next_many(1)
        return records[0] if records else None

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
                  + struct.pack("<I", _crc32c.mask(_crc32c.crc32c(bytes(record)))))

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
