"""File sources: TFRecordDataset, TextLineDataset (both resumable at a file and byte offset) and
list_files."""

import glob

import numpy as np

import tensorflux as tx

from tensorflux_data import _streams, _structure, _tfrecord
from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset


class _LineReader:
    """The lines of one file from byte ``offset`` on, without their "\\n" or "\\r\\n"."""

    def __init__(self, path, wbits, offset=0):
        self._stream = _streams.ByteStream(path, wbits, offset)
        self._buf, self.offset = b"", offset

    def next(self):
        while b"\n" not in self._buf:
            more = self._stream.take(1 << 16)
            if not more:
                break
            self._buf += more
        if not self._buf:
            return None
        i = self._buf.find(b"\n")
        line, self._buf = (self._buf, b"") if i < 0 else (self._buf[:i], self._buf[i + 1:])
        self.offset += len(line) + (0 if i < 0 else 1)
        return line[:-1] if line.endswith(b"\r") else line

    def next_many(self, n):
        """Up to ``n`` next lines (none at the end)."""
        lines = []
        while len(lines) < n:
            line = self.next()
            if line is None:
                break
            lines.append(line)
        return lines

    def close(self):
        self._stream.close()




def _records(part):
    """The records (bytes) of a part: a list of them, or (buffer, starts, stops) spans."""
    if not isinstance(part, tuple):
        return part
    buf, starts, stops = part
    return [buf[a:b] for a, b in zip(starts.tolist(), stops.tolist())]


def _bytes_array(records):
    out = np.empty(len(records), object)
    out[:] = records
    return out


def _string_batch(parts, count):
    """The ``count`` records of ``parts`` as one object array; from TENSOR_STRINGS records on, a
    WithTensor whose tensor is cut out of the read buffers by tx.strings.substr (Note [Held tensors])."""
    if count < _structure.TENSOR_STRINGS or not any(isinstance(p, tuple) for p in parts):
        return _bytes_array([r for part in parts for r in _records(part)])
    tensors = []
    for part in parts:
        if isinstance(part, tuple):
            buf, starts, stops = part
            lo, hi = int(starts[0]), int(stops[-1])
            tensors.append(tx.strings.substr(tx.constant(buf[lo:hi]), starts - lo, stops - starts))
        else:
            tensors.append(tx.constant(_bytes_array(part)))
    return _structure.with_tensor(tensors[0] if len(tensors) == 1 else tx.concat(tensors, 0))


class _FilesIterator(NodeIterator):
    """Reads the files the input dataset names, one after another; state: the input's state, the
    current file and the byte offset of its next element. After an error reading a file (a corrupt
    or cut record) the rest of that file is skipped, as tf.data does; a file that cannot be opened
    is skipped too (tf.data raises its error again at every call, so ignore_errors never ends)."""

    def __init__(self, node, ctx):
        self._node = node
        self._in = node._inputs[0]._iter(ctx)
        self._path, self._reader, self._pending = None, None, None

    def _open(self, path, offset):
        self._path = path
        self._reader = self._node._reader(path, self._node._wbits, offset)

    def _reader_for_next(self):
        """The open reader, the next file opened when none is; None after the last file."""
        while self._reader is None:
            x = self._in.next()
            if x is END:
                return None
            self._open(_streams.as_path(x[0].item()), 0)
        return self._reader

    def _failed(self):
        """Drops the file whose read raised (tf.data goes on with the next file)."""
        if self._reader is not None:
            self._drop()

    def next(self):
        self._raise_pending()
        while self._reader_for_next() is not None:
            try:
                record = self._reader.next()
            except Exception:
                self._failed()
                raise
            if record is not None:
                return (np.array(record, object),)
            self._drop()
        return END

    def read_items(self, n):
        """A run of records read from the file at once (Note [Runs of items])."""
        if self._pending is not None:
            error, self._pending = self._pending, None
            return [(None, error)], False
        items = []
        while len(items) < n:
            try:
                if self._reader_for_next() is None:
                    return items, True
            except Exception as e:  # noqa: BLE001 (a file that cannot be opened: an item)
                items.append((None, e))
                break
            try:
                records = self._reader.next_many(n - len(items))
            except Exception as e:  # noqa: BLE001 (a corrupt record ends its file: an item)
                self._failed()
                items.append((None, e))
                break
            if not records:
                self._drop()
            items.extend(((np.array(r, object),), None) for r in records)
        return items, False

    def _raise_pending(self):
        if self._pending is not None:
            error, self._pending = self._pending, None
            raise error

    def next_batch(self, n):
        """(up to ``n`` next records as a string array, how many): the batch fast path. Fewer than
        ``n`` come only at the end or before an error, raised by the next call (so a batch drops the
        records read before it, Note [Batch errors])."""
        self._raise_pending()
        parts, count = [], 0
        try:
            while count < n and self._reader_for_next() is not None:
                spans = getattr(self._reader, "next_spans", None)
                try:
                    part = spans(n - count) if spans is not None else self._reader.next_many(n - count)
                except Exception:
                    self._failed()
                    raise
                size = len(part[1]) if isinstance(part, tuple) else len(part)
                if size:
                    parts.append(part)
                    count += size
                else:
                    self._drop()
        except Exception as e:
            if not count:
                raise
            self._pending = e
        if not count:
            return None, 0
        return (_string_batch(parts, count),), count

    def _drop(self):
        self._reader.close()
        self._reader = None

    def save(self, w):
        w.put_results("pending", [] if self._pending is None else [(None, self._pending)])
        w.put("open", self._reader is not None)
        if self._reader is not None:
            w.put("path", np.array(self._path.encode(), object))
            w.put("offset", self._reader.offset)
        self._in.save(w.child("input"))

    def restore(self, r):
        pending = r.get_results("pending")
        self._pending = pending[0][1] if pending else None
        if self._reader is not None:
            self._drop()
        if bool(r.get("open")):
            self._open(r.get("path").item().decode(), r.get_int("offset"))
        self._in.restore(r.child("input"))

    def close(self):
        if self._reader is not None:
            self._drop()
        super().close()


def _filenames_dataset(filenames):
    if isinstance(filenames, Dataset):
        spec = filenames.element_spec
        if not isinstance(spec, tx.TensorSpec) or spec.dtype != tx.string or spec.shape.rank != 0:
            raise TypeError("filenames must be a dataset of scalar strings, got elements %s" % (spec,))
        return filenames
    names = [filenames] if isinstance(filenames, (str, bytes)) or (
        hasattr(filenames, "shape") and len(filenames.shape) == 0) else list(filenames)
    names = [_streams.as_path(n).encode() for n in names]
    if not names:
        raise invalid("filenames is empty")
    from tensorflux_data._sources import TensorSlicesDataset
    return TensorSlicesDataset(np.array(names, object))


class _FileDataset(Dataset):
    _reader = None

    def __init__(self, filenames, compression_type):
        self._wbits = _streams.compression_wbits(compression_type)
        super().__init__((_filenames_dataset(filenames),), tx.TensorSpec([], tx.string))

    def _make_iter(self, ctx):
        return _FilesIterator(self, ctx)

    def _params(self):
        return str(self._wbits)


class _TFRecordFiles(_FileDataset):
    _kind = "tfrecord"
    _reader = _tfrecord.RecordReader


class _TextLineFiles(_FileDataset):
    _kind = "text_line"
    _reader = _LineReader


def _parallel(files_ds, make, num_parallel_reads):
    """The records of the files in order, or, as tf.data does, ``num_parallel_reads`` files
    interleaved record by record and read on worker threads (AUTOTUNE: the cycle length tf.data
    picks, Note [Parallel interleave])."""
    if num_parallel_reads is None or num_parallel_reads == 1:
        return make(files_ds)
    from tensorflux_data._options import AUTOTUNE
    n = check_int(num_parallel_reads, "num_parallel_reads", 1, allow=(AUTOTUNE,))
    if n == AUTOTUNE:
        return files_ds.interleave(lambda f: make(f), num_parallel_calls=AUTOTUNE)
    return files_ds.interleave(lambda f: make(f), cycle_length=n, block_length=1, num_parallel_calls=n)


def TFRecordDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
    """The records of TFRecord files (scalar strings), checksums verified; ``num_parallel_reads`` files
    are interleaved record by record and read on worker threads, as tf.data does.

    >>> import os, tempfile, tensorflux_data as txd
    >>> path = os.path.join(tempfile.mkdtemp(), "r.tfrecord.gz")
    >>> with txd.io.TFRecordWriter(path, "GZIP") as w:
    ...     w.write(b"x")
    >>> [r.numpy() for r in txd.TFRecordDataset(path, compression_type="GZIP")]
    [b'x']
    """
    return _parallel(_filenames_dataset(filenames), lambda f: _TFRecordFiles(f, compression_type),
                     num_parallel_reads)


def TextLineDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
    """The lines of text files (scalar strings without the line end).

    >>> import os, tempfile, tensorflux_data as txd
    >>> path = os.path.join(tempfile.mkdtemp(), "t.txt")
    >>> _ = open(path, "w").write("a\\nbc\\n")
    >>> [l.numpy() for l in txd.TextLineDataset(path)]
    [b'a', b'bc']
    """
    return _parallel(_filenames_dataset(filenames), lambda f: _TextLineFiles(f, compression_type),
                     num_parallel_reads)


def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """The files matching ``file_pattern`` (a glob, or a list of them) as scalar strings, sorted, then
    shuffled each iteration unless ``shuffle=False``; InvalidArgumentError when nothing matches."""
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    patterns = [_streams.as_path(p) for p in patterns]
    names = sorted({m for p in patterns for m in glob.glob(p)})
    if not names:
        raise invalid("No files matched pattern: %s" % ", ".join(patterns))
    ds = Dataset.from_tensor_slices(np.array([n.encode() for n in names], object))
    return ds.shuffle(len(names), seed=seed) if shuffle is None or shuffle else ds
