"""File sources: TFRecordDataset, TextLineDataset (both resumable at a file and byte offset) and
list_files."""

import glob

import numpy as np

import tensorflux as tx

from tensorflux_data import _streams, _tfrecord
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

    def close(self):
        self._stream.close()


class _FilesIterator(NodeIterator):
    """Reads the files the input dataset names, one after another; state: the input's state, the
    current file and the byte offset of its next element."""

    def __init__(self, node, ctx):
        self._node = node
        self._in = node._inputs[0]._iter(ctx)
        self._path, self._reader, self._carry = None, None, []

    def _open(self, path, offset):
        self._path = path
        self._reader = self._node._reader(path, self._node._wbits, offset)

    def next(self):
        while True:
            if self._reader is None:
                x = self._in.next()
                if x is END:
                    return END
                self._open(_streams.as_path(x[0].item()), 0)
            try:
                data = self._reader.next()
            except tx.errors.NotFoundError:
                self._drop()
                raise
            if data is not None:
                return (np.array(data, object),)
            self._drop()

    def next_batch(self, n):
        """(up to ``n`` next records as a string array, how many): the batch fast path. Records read
        before an error are kept for the next call (and in the state)."""
        records = self._carry
        self._carry = []
        try:
            while len(records) < n:
                x = self.next()
                if x is END:
                    break
                records.append(x[0].item())
        except Exception:
            self._carry = records
            raise
        if not records:
            return None, 0
        out = np.empty(len(records), object)
        out[:] = records
        return (out,), len(records)

    def _drop(self):
        self._reader.close()
        self._reader = None

    def save(self, w):
        w.put_elements("carry", [(np.array(r, object),) for r in self._carry])
        w.put("open", self._reader is not None)
        if self._reader is not None:
            w.put("path", np.array(self._path.encode(), object))
            w.put("offset", self._reader.offset)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._carry = [e[0].item() for e in r.get_elements("carry")]
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
