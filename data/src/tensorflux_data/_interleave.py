"""Interleave and flat_map: ``map_func`` maps each input element to a dataset, ``cycle_length`` of
which are read round-robin, ``block_length`` elements at a time; with ``num_parallel_calls`` they
are read ahead on the add-on's worker threads (Note [Parallel interleave])."""

# Note [Parallel interleave]: one state machine serves the sequential, debug and parallel modes, so
# they yield the same elements in the same order by construction. The consumer (the thread calling
# next) walks TensorFlow's deterministic order: cycle_length slots visited round-robin, block_length
# elements each; an empty slot takes the next opened input element. An opened input element is a
# Reader: its dataset's iterator and a buffer of items read from it (an element or an error, in
# order), and whether its end was read. The consumer takes the current slot's next item from the
# buffer, or reads it itself when the buffer is empty and nobody is reading that reader.
#
# With num_parallel_calls (not in debug mode) two things run ahead of the consumer, as in tf.data:
# the consumer opens up to CYCLE_PREFETCH_FACTOR * cycle_length input elements before a slot needs
# them (the "futures": an input error or a map_func error waits in that queue at its position), and
# up to num_parallel_calls tasks on a worker pool of a thread per slot (_threads.pool; at least one
# per CPU, or the pipeline's private_threadpool_size) fill readers' buffers up to BUFFER_FACTOR *
# block_length + 1 items, a run at a time (Note [Runs of items] in _base.py): the current slot
# first, then the slots after it in cycle order, then the futures. A reader's iterator is read by
# one thread at a time (its ``busy`` flag, under the iterator's lock); a task goes on reading the
# reader it took until its buffer is full. Only the consumer takes items out of buffers, without
# the lock. When the consumer reads a reader itself, it does so as a worker would (Note [Nested
# work] in _threads.py). AUTOTUNE climbs the task count (Note [Autotune]) up to cycle_length.
#
# Note [Cheap reads]: a handoff to a worker (a task queued, a thread woken, the GIL passed, a lock
# per run) costs tens of microseconds. Reads cheaper than that per item (records of a file in the
# page cache, elements of arrays) are Python work that holds the GIL, so workers cannot overlap them
# and their handoffs only add to the consumer's time (the parallel interleave used to be half as
# fast as the sequential one on small records). So the consumer times its own reads: while they
# cost less than CHEAP_READ_S per item, it starts no tasks (running ones stop) and reads CHEAP_RUN
# items at a time itself; reads that wait (I/O, sleeps) or run in the engine cost more, and the
# consumer reads one item when it must, leaving the rest to the workers, which overlap them. The
# items and their order do not depend on which thread reads them, so this only moves the work.
#
# Errors follow tf.data's two interleaves, chosen by num_parallel_calls alone (so debug mode, which
# reads sequentially, keeps them): without it (InterleaveDataset), an error read from a sub-dataset
# is raised where the order reaches it and does not count toward the block, and an input element
# that fails (the input or map_func raised) is raised while the slot stays empty for the next one.
# With it (ParallelInterleaveDatasetV4), every item counts toward the block, errors too, and a
# failed input element is a reader holding that error and its end, so it takes the slot's turn as a
# one-item sub-dataset would. deterministic=False: when the current slot has nothing ready, the
# consumer moves to the next slot that has (and starts a block there), so elements come in
# completion order.
#
# Saving pauses the tasks and records the read-ahead items with each reader (its input element and
# index, buffered elements and errors, end flag, iterator state). They are recorded, not
# recomputed: the sub-iterator has already moved past them, so recomputing would need each
# sub-iterator's state from before its buffer (a save per element read ahead), and a sub-dataset
# need not be pure (generators, files being written). The sequential mode saves the same layout
# with empty buffers, so a state restores in either mode.

import collections
import math
import threading
import time

import numpy as np

import tensorflux as tx

from tensorflux_data import _autotune, _options, _structure, _threads
from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset
from tensorflux_data._functions import call_unpacked

CYCLE_PREFETCH_FACTOR = 2  # input elements opened ahead per slot (tf.data's default)
BUFFER_FACTOR = 2  # a reader buffers BUFFER_FACTOR * block_length + 1 items (tf.data's default)
CHEAP_READ_S = 20e-6  # reads faster than this per item are not handed to workers (Note [Cheap reads])
CHEAP_RUN = 16  # items the consumer reads at once from a sub-dataset whose reads are cheap


class _Reader:
    """One opened input element: its dataset's iterator and the items read from it ahead."""

    __slots__ = ("element", "index", "it", "items", "ended", "busy")

    def __init__(self, element, index, it):
        self.element, self.index, self.it = element, index, it
        self.items = collections.deque()  # (element, None) or (None, exception), in order
        self.ended = self.busy = False

    @classmethod
    def failed(cls, error):
        """An input element that could not be opened, in a parallel interleave: its one item is the
        error (Note [Parallel interleave])."""
        reader = cls((), FAILED, _NoIterator())
        if error is not None:
            reader.items.append((None, error))
        reader.ended = True
        return reader

    def wants(self, limit):
        return not self.busy and not self.ended and len(self.items) < limit


class _NoIterator(NodeIterator):
    """The iterator of a failed reader: nothing to read or save."""

    def next(self):
        return END

    def save(self, w):
        pass

    def restore(self, r):
        pass


FAILED = -1  # the index of a failed reader


class _InterleaveIterator(NodeIterator):
    """TensorFlow's deterministic interleave order, read ahead by up to ``width`` pool tasks (None:
    sequential); Note [Parallel interleave]."""

    def __init__(self, node, ctx, width, deterministic):
        self._node, self._ctx, self._det = node, ctx, deterministic
        self._in = node._inputs[0]._iter(ctx)
        self._errors_count = node._parallel is not None  # tf.data's parallel interleave (Note [Parallel interleave])
        cycle = node._cycle
        self._parallel = width is not None
        self._tuner = _autotune.Tuner(high=cycle) if width == _options.AUTOTUNE else None
        self._fixed_width = width
        # A thread per slot by default, as tf.data has: reads that wait (files, generators) overlap.
        self._pool = _threads.pool(ctx.pool_size or max(cycle, _options.default_parallelism())) \
            if self._parallel else None
        self._ahead = CYCLE_PREFETCH_FACTOR * cycle if self._parallel else 0
        self._limit = BUFFER_FACTOR * node._block + 1
        self._cond = threading.Condition(threading.Lock())
        self._slots = [None] * cycle  # a _Reader per open slot
        self._futures = collections.deque()  # opened ahead: _Reader or the exception opening raised
        self._cycle_index = self._block_index = self._opened = 0
        self._input_done = False  # the input ended (seen while opening)
        self._end_of_input = False  # the order reached the input's end
        self._tasks, self._paused, self._stopped = 0, False, False
        self._read_cost = None  # seconds per item of the consumer's last read (Note [Cheap reads])

    @property
    def _width(self):
        return self._tuner.value if self._tuner is not None else self._fixed_width

    # -- opening input elements (consumer thread) -------------------------------------------------
    def _open(self, element, index):
        ds = self._node._dataset_for(element)
        return _Reader(element, index, ds._iter(self._ctx.sub(index)))

    def _pull(self):
        """The next input element opened: a _Reader, the exception the input or map_func raised, or END."""
        try:
            x = self._in.next()
        except Exception as e:  # raised when the order reaches it
            return e
        if x is END:
            self._input_done = True
            return END
        self._opened += 1
        try:
            return self._open(x, self._opened - 1)
        except Exception as e:
            return e

    def _top_up(self):
        """Opens input elements ahead (parallel mode); whether it opened any."""
        if self._input_done or len(self._futures) >= self._ahead or _threads.in_worker():  # Note [Nested work]
            return False
        while not self._input_done and len(self._futures) < self._ahead:
            entry = self._pull()
            if entry is not END:
                with self._cond:
                    self._futures.append(entry)
        return True

    def _next_input(self):
        if self._futures:
            with self._cond:
                return self._futures.popleft()
        return END if self._input_done else self._pull()

    # -- reading sub-datasets ---------------------------------------------------------------------
    def _read_run(self, reader, n, keep=False):
        """Reads a run of up to ``n`` items of ``reader`` (marked busy by the caller) into its buffer
        (Note [Runs of items]); with ``keep``, keeps the reader (returns True) while its task may go
        on reading it."""
        items, ended = reader.it.read_items(n)
        with self._cond:
            reader.items.extend(items)
            reader.ended = reader.ended or ended
            keep = keep and not (reader.ended or len(reader.items) >= self._limit or self._stopped or self._paused
                                 or self._tasks > self._width)
            reader.busy = keep
            self._cond.notify_all()
        return keep

    def _take(self, reader):
        """The next item of ``reader``: from its buffer, else read here (or waited for while a task
        reads it). Only this thread takes items, so a buffered one needs no lock."""
        if reader.items:
            return reader.items.popleft()
        if not self._parallel:  # one item, read here: the sequential modes read nothing ahead
            if reader.ended:
                return END, None
            items, reader.ended = reader.it.read_items(1)
            return items[0] if items else (END, None)
        while True:
            with self._cond:
                while True:
                    if reader.items:
                        return reader.items.popleft()
                    if reader.ended:
                        return END, None
                    if not reader.busy:
                        break
                    self._cond.wait()
                reader.busy = True
            # Read here as a worker would (Note [Nested work]): a run when reads are cheap, one item
            # when they wait or work, so the workers overlap them (Note [Cheap reads]).
            run = CHEAP_RUN if self._cheap() else 1
            t = time.perf_counter()
            with _threads.working():
                self._read_run(reader, run)
            self._read_cost = (time.perf_counter() - t) / run

    def _cheap(self):
        """Whether reads cost less than a handoff to a worker (Note [Cheap reads])."""
        return self._read_cost is not None and self._read_cost < CHEAP_READ_S

    def _readers(self):
        """Open readers by urgency: the current slot, the slots after it, then the futures (lock held)."""
        n = len(self._slots)
        for k in range(n):
            r = self._slots[(self._cycle_index + k) % n]
            if r is not None:
                yield r
        for r in self._futures:
            if isinstance(r, _Reader):
                yield r

    def _work(self):
        """A pool task: fills the most urgent buffer while there is work for it."""
        while True:
            with self._cond:
                reader = None
                if not (self._stopped or self._paused or self._tasks > self._width or self._cheap()):
                    reader = next((r for r in self._readers() if r.wants(self._limit)), None)
                if reader is None:
                    self._tasks -= 1
                    self._cond.notify_all()
                    return
                reader.busy = True
            while self._read_run(reader, max(1, self._limit - len(reader.items)), keep=True):
                pass

    def _schedule(self):
        """Starts pool tasks while there are fewer than the width and buffers to fill; how many."""
        if not self._parallel or self._cheap():
            return 0
        with self._cond:
            room = self._width - self._tasks
            if room <= 0 or self._stopped or self._paused or _threads.in_worker():  # Note [Nested work]
                return 0
            start = 0
            for r in self._readers():
                if r.wants(self._limit):
                    start += 1
                    if start == room:
                        break
            self._tasks += start
        for _ in range(start):
            _threads.submit(self._pool, self._work)
        return start

    # -- the order -----------------------------------------------------------------------------
    def _advance_slot(self):
        self._block_index = 0
        self._cycle_index = (self._cycle_index + 1) % len(self._slots)

    def _ready(self, i):
        r = self._slots[i]
        if r is None:
            return not self._end_of_input
        return bool(r.items) or r.ended

    def _move_to_ready(self):
        """deterministic=False: when the current slot has nothing ready, moves to the next slot that
        has; while none has, waits for the pool tasks (read here when there are none)."""
        n = len(self._slots)
        while True:
            with self._cond:
                for k in range(n):
                    i = (self._cycle_index + k) % n
                    if self._ready(i):
                        if k:
                            self._cycle_index, self._block_index = i, 0
                        return
                if self._slots[self._cycle_index] is None:
                    return
                if self._tasks:
                    self._cond.wait()
                    continue
            if not self._schedule():
                return

    def next(self):
        x, err = self._step()
        if err is not None:
            raise err
        return x

    def read_items(self, n):
        items = []
        while len(items) < n:
            item = self._step()
            if item[1] is not None:
                items.append(item)
                break
            if item[0] is END:
                return items, True
            items.append(item)
        return items, False

    def _step(self):
        """The next item in the order: (element, None), (None, exception) or (END, None)."""
        if len(self._futures) < self._ahead and self._top_up():
            self._schedule()
        while not self._end_of_input or any(s is not None for s in self._slots):
            if not self._det:
                self._move_to_ready()
            reader = self._slots[self._cycle_index]
            if reader is not None:
                x, err = self._take(reader)
                if x is END and err is None:
                    with self._cond:
                        self._slots[self._cycle_index] = None
                    reader.it.close()
                    self._advance_slot()
                    continue
                if err is None or self._errors_count:
                    self._block_index += 1
                    if self._block_index == self._node._block:
                        self._advance_slot()
                if self._tuner is not None:
                    self._tuner.record()
                if self._parallel and self._tasks < self._width and reader.wants(self._limit):
                    self._schedule()
                return x, err
            if not self._end_of_input:
                entry = self._next_input()
                if entry is END:
                    self._end_of_input = True
                    continue
                if isinstance(entry, Exception):
                    if not self._errors_count:
                        return None, entry
                    entry = _Reader.failed(entry)
                with self._cond:
                    self._slots[self._cycle_index] = entry
                self._top_up()
                self._schedule()
            else:
                self._advance_slot()
        return END, None

    # -- state and shutdown ----------------------------------------------------------------------
    def _quiesce(self, stop=False):
        """Stops handing out reads (for good when ``stop``) and waits for the running tasks."""
        with self._cond:
            self._paused = True
            self._stopped = self._stopped or stop
            self._cond.notify_all()
            while self._tasks:
                self._cond.wait()

    def _resume(self):
        with self._cond:
            self._paused = False
        self._schedule()

    def save(self, w):
        self._quiesce()
        try:
            for name in ("cycle_index", "block_index", "opened", "input_done", "end_of_input"):
                w.put(name, getattr(self, "_" + name))
            for i, reader in enumerate(self._slots):
                w.put("slot%d.open" % i, reader is not None)
                if reader is not None:
                    _save_reader(w.child("slot%d" % i), reader)
            w.put("futures", len(self._futures))
            for i, entry in enumerate(self._futures):
                if isinstance(entry, _Reader):
                    _save_reader(w.child("future%d" % i), entry)
                else:
                    f = w.child("future%d" % i)
                    f.put("open", False)
                    f.put_results("error", [(None, entry)])
            self._in.save(w.child("input"))
        finally:
            self._resume()

    def _load_reader(self, r):
        if r.get_int("index") == FAILED:  # its error, or nothing once the error was raised
            reader = _Reader.failed(None)
            reader.items.extend(r.get_results("items"))
            return reader
        reader = self._open(r.get_element("element"), r.get_int("index"))
        reader.it.restore(r.child("iterator"))
        reader.items.extend(r.get_results("items"))
        reader.ended = bool(r.get("ended"))
        return reader

    def restore(self, r):
        self._quiesce()
        try:
            self._close_readers()
            self._cycle_index, self._block_index = r.get_int("cycle_index"), r.get_int("block_index")
            self._opened, self._input_done = r.get_int("opened"), bool(r.get("input_done"))
            self._end_of_input = bool(r.get("end_of_input"))
            for i in range(len(self._slots)):
                if bool(r.get("slot%d.open" % i)):
                    self._slots[i] = self._load_reader(r.child("slot%d" % i))
            for i in range(r.get_int("futures")):
                f = r.child("future%d" % i)
                self._futures.append(self._load_reader(f) if bool(f.get("open")) else f.get_results("error")[0][1])
            self._in.restore(r.child("input"))
        finally:
            self._resume()

    def _close_readers(self):
        readers = [s for s in self._slots if s is not None] + [f for f in self._futures if isinstance(f, _Reader)]
        self._slots = [None] * len(self._slots)
        self._futures.clear()
        for reader in readers:
            reader.it.close()

    def close(self):
        self._quiesce(stop=True)
        self._close_readers()
        self._in.close()


def _save_reader(w, reader):
    w.put("open", True)
    w.put_element("element", reader.element)
    w.put("index", reader.index)
    w.put_results("items", list(reader.items))
    w.put("ended", reader.ended)
    reader.it.save(w.child("iterator"))


def cycle_length_for(cycle_length, num_parallel_calls):
    """The cycle length tf.data uses: ``cycle_length`` when set; unset (None or AUTOTUNE), the CPU count
    for a sequential interleave, else ``num_parallel_calls`` capped by the CPU count, or with both
    AUTOTUNE the CPU count over 1 + CYCLE_PREFETCH_FACTOR (a thread per slot and per future)."""
    cpus = _options.default_parallelism()
    if cycle_length not in (None, _options.AUTOTUNE):
        cycle = check_int(cycle_length, "cycle_length", 1)
        if num_parallel_calls not in (None, _options.AUTOTUNE) and num_parallel_calls > cycle:
            raise invalid("If `cycle_length` is set to a fixed value, `num_parallel_calls` must be either "
                          "`tf.data.AUTOTUNE` or a value less than or equal to `cycle_length`. However, "
                          "`num_parallel_calls` is %d and `cycle_length` is %d" % (num_parallel_calls, cycle))
        return cycle
    if num_parallel_calls is None:
        return cpus
    if num_parallel_calls == _options.AUTOTUNE:
        return math.ceil(cpus / (1 + CYCLE_PREFETCH_FACTOR))
    return min(num_parallel_calls, cpus)


class InterleaveDataset(Dataset):
    _kind = "interleave"

    def __init__(self, input_ds, map_func, cycle_length, block_length, num_parallel_calls, deterministic=None):
        if not callable(map_func):
            raise TypeError("interleave: map_func must be callable, got %r" % (map_func,))
        self._func = map_func
        if num_parallel_calls is not None:
            num_parallel_calls = check_int(num_parallel_calls, "num_parallel_calls", 1, allow=(_options.AUTOTUNE,))
        self._parallel, self._deterministic = num_parallel_calls, deterministic
        self._cycle = cycle_length_for(cycle_length, num_parallel_calls)
        self._block = 1 if block_length is None else check_int(block_length, "block_length", 1)
        self._input_spec = input_ds.element_spec
        probe = self._dataset_for(None)
        super().__init__((input_ds,), probe.element_spec)

    def _dataset_for(self, element):
        """The dataset ``map_func`` makes of an input element (None: of a stand-in, for the spec)."""
        if element is None:
            return self._probe()
        ds = call_unpacked(self._func, _structure.to_tensors(self._input_spec, element))
        if not isinstance(ds, Dataset):
            raise TypeError("interleave: map_func must return a Dataset, got %r" % (ds,))
        if _structure.describe(ds.element_spec) != _structure.describe(self._element_spec):
            if not _structure.same_structure(ds.element_spec, self._element_spec):
                raise invalid("interleave: map_func returned datasets of different element structures: %s vs %s"
                              % (ds.element_spec, self._element_spec))
        return ds

    def _probe(self):
        """map_func's dataset for a stand-in input element (zeros, then ones when the zeros make
        map_func raise: tf.data traces map_func, it does not run it on a value)."""
        first = None
        for fill in (0, 1):
            args = tx.nest.map_structure(lambda s: s.value(_placeholder(s.element_spec)) if hasattr(s, "value")
                                         else tx.constant(_stand_in(s, fill=fill)), self._input_spec)
            try:
                ds = call_unpacked(self._func, args)
            except tx.errors.OpError as e:
                first = first or e
                continue
            if not isinstance(ds, Dataset):
                raise TypeError("interleave: map_func must return a Dataset, got %r" % (ds,))
            return ds
        raise invalid("interleave: map_func failed on the stand-in elements (zeros and ones) it is called with to "
                      "find its element_spec: %s" % (first.message,))

    def _make_iter(self, ctx):
        width = None if ctx.debug else self._parallel
        det = ctx.deterministic if self._deterministic is None else bool(self._deterministic)
        return _InterleaveIterator(self, ctx, width, det)

    def _params(self):
        return "cycle_length=%d,block_length=%d" % (self._cycle, self._block)


def _stand_in(spec, lead=(), fill=0):
    """An array of ``spec`` filled with ``fill`` (unknown dims 0, preceded by ``lead``): a stand-in
    element for tracing."""
    shape = list(lead) + [d or 0 for d in _structure.shape_list(spec) or []]
    return np.full(shape, b"", object) if spec.dtype == tx.string else np.full(shape, fill, spec.dtype.as_numpy_dtype)


def _placeholder(element_spec):
    return tx.nest.map_structure(lambda s: _stand_in(s, (0,)), element_spec)
