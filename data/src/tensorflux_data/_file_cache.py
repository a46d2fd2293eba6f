"""``Dataset.cache(filename)``: the elements written to a file by the first complete iteration and
read from it by later iterations, later pipelines and other processes (Note [File cache])."""

# Note [File cache]: for a prefix P there are three files. "P.txd-cache" is a complete cache;
# "P.txd-cache.tmp-<id>" is being written by the writer with that random id; "P.txd-cache.lock" is
# held (flock, so the kernel releases it when a process dies) by the one writer. The first two are
# files of checksummed records (_cache_format.py): a header record naming the element spec, one
# record per element, an end record with the element count.
#
# An iterator decides at its first element: when P.txd-cache exists it reads it (its header must
# name this dataset's element spec); otherwise it takes the lock — tf.data's AlreadyExistsError
# when another live iterator holds it — deletes temporary files of writers that are gone, and
# writes a temporary file while passing its input's elements through. At the input's end it
# writes the end record and renames the file to P.txd-cache: a cache is visible only complete. An
# iterator closed (or dropped) before the end deletes its temporary file, as tf.data discards a
# partial cache, unless its state was saved (a checkpoint may resume the write).
#
# Iterator state. Reading: the cache's id, the byte offset of the next record and the count read.
# Writing: the input's state, the temporary file's id, its length and the count written. A writing
# state is restored (1) as a reader at the saved offset when P.txd-cache is the file that writer
# completed (same id); (2) as a pass-through of the restored input, writing nothing, when another
# writer completed the cache; (3) otherwise as the writer again: the lock is taken, the temporary
# file truncated to the saved length and the write goes on, so the cache completes at the end of
# this iteration as it would have uninterrupted; when that file is gone (another writer started
# since and deleted it), as a pass-through that writes nothing (a later complete iteration writes
# the cache). The elements after a restore are always those of the uninterrupted run.

import fcntl
import glob
import os

import numpy as np

import tensorflux as tx

from tensorflux_data import _cache_format as fmt
from tensorflux_data import _structure
from tensorflux_data._base import END, NodeIterator
from tensorflux_data._dataset import Dataset

SUFFIX = ".txd-cache"
_IDLE, _READ, _WRITE, _PASS = 0, 1, 2, 3  # the modes of an iterator


def os_error(path, e):
    """A tensorflux error naming ``path`` for an OSError ``e`` while writing the cache."""
    if isinstance(e, (FileNotFoundError, NotADirectoryError)):
        cls = tx.errors.NotFoundError
    elif isinstance(e, PermissionError):
        cls = tx.errors.PermissionDeniedError
    else:
        cls = tx.errors.UnknownError
    return cls(None, None, "cache: cannot write %s: %s" % (path, e.strerror or e))


class _Lock:
    """The writer's lock on ``path``: an flock'ed file; AlreadyExistsError when another open file
    (in this or another live process) holds it."""

    def __init__(self, path):
        self.path, self._fd = path, None
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise os_error(path, e) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise tx.errors.AlreadyExistsError(
                    None, None, "cache: another iterator is writing this cache (the lock file %s is held): "
                    "only one iterator may write a cache; finish or close that iterator first" % path) from None
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:  # else a finishing writer removed the file between our open and flock
                self._fd = fd
                return
            os.close(fd)

    def release(self):
        if self._fd is not None:
            try:
                os.unlink(self.path)  # while locked: a waiter that opened it sees another inode
            except OSError:
                pass
            os.close(self._fd)
            self._fd = None

    def __del__(self):  # a lock dropped unreleased must not block this process's next writer
        self.release()


class _FileCacheIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._node, self._ctx = node, ctx
        self._mode, self._in, self._reader, self._out, self._lock = _IDLE, None, None, None, None
        self._id, self._offset, self._count, self._done, self._saved = "", 0, 0, False, False

    # -- starting ----------------------------------------------------------------------------
    def _input(self):
        if self._in is None:
            self._in = self._node._inputs[0]._iter(self._ctx)
        return self._in

    def _start(self):
        header = self._node._complete_header()
        if header is not None:
            self._read_from(header["id"], None, 0)
            return
        self._lock = _Lock(self._node._path + ".lock")
        header = self._node._complete_header()  # a writer may have finished before we locked
        if header is not None:
            self._unlock()
            self._read_from(header["id"], None, 0)
            return
        self._remove_stale_temps(keep=None)
        self._id = os.urandom(8).hex()
        path = self._temp()
        try:
            self._out = open(path, "wb")  # noqa: SIM115 (closed by _finish or close)
        except OSError as e:
            self._unlock()
            raise os_error(path, e) from None
        self._mode, self._count, self._offset = _WRITE, 0, 0
        self._write(fmt.header_record(self._id, self._node._spec_text))
        self._input()

    def _temp(self, cache_id=None):
        return "%s.tmp-%s" % (self._node._path, cache_id or self._id)

    def _remove_stale_temps(self, keep):
        for path in glob.glob(glob.escape(self._node._path) + ".tmp-*"):
            if path != keep:
                try:
                    os.unlink(path)
                except OSError:
                    pass

    def _read_from(self, cache_id, offset, count):
        self._mode, self._id, self._count = _READ, cache_id, count
        self._reader = fmt.RecordReader(self._node._path, 0 if offset is None else offset)
        if offset is None:
            self._reader.next()  # the header, checked by _complete_header

    # -- elements ----------------------------------------------------------------------------
    def next(self):
        if self._done:
            return END
        if self._mode == _IDLE:
            self._start()
        if self._mode == _READ:
            return self._next_read()
        x = self._in.next()
        if self._mode == _PASS:
            return x
        if x is END:
            self._finish()
            return END
        self._write(fmt.element_record(x, self._node._flat_specs))
        self._count += 1
        return x

    def _next_read(self):
        try:
            return self._read_one()
        except tx.errors.DataLossError:
            self._done = True  # a broken cache ends here (ignore_errors must not see the error forever)
            self._close_reader()
            raise

    def _read_one(self):
        path = self._node._path
        start = self._reader.offset
        record = self._reader.next()
        if record is None:
            raise fmt.corrupt(path, start, "the file ends after %d elements without its end record (truncated)"
                              % self._count)
        kind, body = record[:1], record[1:]
        if kind == fmt.END_RECORD:
            n = fmt.end_count(path, start, body)
            if n != self._count:
                raise fmt.corrupt(path, start, "the end record counts %d elements, the file holds %d"
                                  % (n, self._count))
            self._done = True
            self._close_reader()
            return END
        x = fmt.decode_element(path, start, record, self._node._layout)
        self._count += 1
        return x

    def _write(self, record):
        data = fmt.frame(record)
        try:
            self._out.write(data)
        except OSError as e:
            raise os_error(self._temp(), e) from None
        self._offset += len(data)

    def _finish(self):
        self._write(fmt.end_record(self._count))
        temp = self._temp()
        try:
            self._out.flush()
            os.fsync(self._out.fileno())
            self._out.close()
            self._out = None
            os.replace(temp, self._node._path)
        except OSError as e:
            raise os_error(self._node._path, e) from None
        self._unlock()
        self._done = True
        self._mode = _PASS

    # -- state -------------------------------------------------------------------------------
    def save(self, w):
        w.put("mode", self._mode)
        w.put("done", self._done)
        w.put("count", self._count)
        w.put("offset", self._reader.offset if self._mode == _READ and self._reader is not None else self._offset)
        w.put("id", np.array(self._id.encode(), object))
        if self._mode in (_WRITE, _PASS) and not self._done:
            self._in.save(w.child("input"))
        if self._mode == _WRITE:  # the temporary file must hold what the state counts, even after a crash
            try:
                self._out.flush()
                os.fsync(self._out.fileno())
            except OSError as e:
                raise os_error(self._temp(), e) from None
            self._saved = True

    def restore(self, r):
        self.close()
        mode, self._done, count = r.get_int("mode"), bool(r.get("done")), r.get_int("count")
        offset, cache_id = r.get_int("offset"), r.get("id").item().decode()
        self._mode, self._in = _IDLE, None
        if self._done or mode == _IDLE:
            self._mode = _PASS if self._done else _IDLE
            return
        header = None if mode == _PASS else self._node._complete_header()
        if mode == _READ:
            if header is None or header["id"] != cache_id:
                raise tx.errors.FailedPreconditionError(
                    None, None, "cache: cannot resume reading %s: %s since the state was saved"
                    % (self._node._path, "the file is gone" if header is None else "it was rewritten"))
            self._read_from(cache_id, offset, count)
            return
        if mode == _WRITE and header is not None and header["id"] == cache_id:
            self._read_from(cache_id, offset, count)  # case (1) of Note [File cache]
            return
        self._input().restore(r.child("input"))
        self._mode = _PASS
        if mode == _WRITE and header is None:
            self._resume_write(cache_id, offset, count)

    def _resume_write(self, cache_id, offset, count):
        self._lock = _Lock(self._node._path + ".lock")
        path = self._temp(cache_id)
        if self._node._complete_header() is not None or not os.path.exists(path) \
                or os.path.getsize(path) < offset:
            self._remove_stale_temps(keep=None)
            self._unlock()  # case (2) or the file is gone: pass through
            return
        self._remove_stale_temps(keep=path)
        try:
            self._out = open(path, "r+b")  # noqa: SIM115 (closed by _finish or close)
            self._out.truncate(offset)
            self._out.seek(offset)
        except OSError as e:
            self._unlock()
            raise os_error(path, e) from None
        self._mode, self._id, self._offset, self._count = _WRITE, cache_id, offset, count
        self._saved = True  # the state restored names this file: keep it if this iterator is closed early

    # -- closing -----------------------------------------------------------------------------
    def _unlock(self):
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _close_reader(self):
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def close(self):
        self._close_reader()
        if self._out is not None:
            self._out.close()
            self._out = None
            if not self._saved:
                try:
                    os.unlink(self._temp())
                except OSError:
                    pass
        self._unlock()
        if self._in is not None:
            self._in.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: S110 (interpreter shutdown)
            pass


class FileCacheDataset(Dataset):
    """The input's elements, kept in files with prefix ``filename`` by the first complete iteration
    and read from there by every later one (tf.data's ``cache(filename)``; Note [File cache]).

    >>> import os, tempfile, tensorflux_data as txd
    >>> prefix = os.path.join(tempfile.mkdtemp(), "squares")
    >>> ds = txd.Dataset.range(4).map(lambda x: x * x).cache(prefix)
    >>> [int(x) for x in ds], os.path.exists(prefix + ".txd-cache")
    ([0, 1, 4, 9], True)
    >>> [int(x) for x in txd.Dataset.range(0).cache(prefix)]  # read from the file: the input is not run
    [0, 1, 4, 9]
    """

    _kind = "file_cache"

    def __init__(self, input_ds, filename):
        from tensorflux_data import _streams
        self._filename = _streams.as_path(filename)
        self._path = self._filename + SUFFIX
        for i, spec in enumerate(_structure.flat_specs(input_ds.element_spec)):
            if not isinstance(spec, tx.TensorSpec):
                raise TypeError("cache(filename): elements must be tensors to be written to a file; component %d "
                                "is %s" % (i, spec))
        self._spec_text = _structure.describe(input_ds.element_spec)
        self._layout = fmt.layout(_structure.flat_specs(input_ds.element_spec))
        super().__init__((input_ds,), input_ds.element_spec)

    def _complete_header(self):
        """The header of the complete cache file (checked against this dataset), or None if absent."""
        if not os.path.exists(self._path):
            return None
        return fmt.read_header(self._path, self._spec_text)

    def _make_iter(self, ctx):
        return _FileCacheIterator(self, ctx)

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _params(self):
        return repr(self._filename)
