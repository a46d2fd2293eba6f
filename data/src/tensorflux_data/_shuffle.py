"""Transformations holding elements in buffers: shuffle, prefetch (a background thread) and cache."""

import collections
import os
import threading
import time

import numpy as np

from tensorflux_data import _autotune, _options, _seeds, _threads
from tensorflux_data._base import END, NodeIterator, check_int, take_result
from tensorflux_data._dataset import Dataset


class _ShuffleIterator(NodeIterator):
    """tf.data's shuffle: a buffer of ``buffer_size`` elements; each output is a uniformly chosen
    buffered element, whose slot the last one takes (the next input is appended). The draws come
    from a keyed counter (Note [Shuffle draws]). State: buffer, key, words drawn, whether the input
    ended; the native engine writes and reads the same layout (Note [Native shuffle])."""

    def __init__(self, node, ctx):
        self._node = node
        self._in = node._inputs[0]._iter(ctx)
        self._key = _seeds.shuffle_key(node._seed, ctx.key if node._reshuffle else ())
        self._draws = 0
        self._buffer, self._in_done = [], False

    def next(self):
        while not self._in_done and len(self._buffer) < self._node._size:
            x = self._in.next()
            if x is END:
                self._in_done = True
            else:
                self._buffer.append(x)
        if not self._buffer:
            return END
        i, self._draws = _seeds.draw(self._key, self._draws, len(self._buffer))
        out = self._buffer[i]
        self._buffer[i] = self._buffer[-1]
        self._buffer.pop()
        return out

    def save(self, w):
        save_shuffle(w, self._buffer, self._key, self._draws, self._in_done)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._buffer, self._key, self._draws, self._in_done = read_shuffle(r)
        self._in.restore(r.child("input"))


def save_shuffle(w, buffer, key, draws, in_done):
    """A shuffle's own state (both engines write it): buffered elements, stream key, words drawn,
    whether the input ended."""
    w.put_elements("buffer", buffer)
    w.put("key", np.uint64(key))
    w.put("draws", np.int64(draws))
    w.put("in_done", bool(in_done))


def read_shuffle(r):
    """What save_shuffle wrote: (buffer, key, draws, in_done)."""
    return r.get_elements("buffer"), int(r.get("key")), r.get_int("draws"), bool(r.get("in_done"))


class ShuffleDataset(Dataset):
    _kind = "shuffle"

    def __init__(self, input_ds, buffer_size, seed, reshuffle_each_iteration):
        self._size = check_int(buffer_size, "shuffle buffer_size", 1)
        self._seed = int.from_bytes(os.urandom(8), "little") if seed is None else check_int(seed, "seed", 0)
        self._reshuffle = bool(reshuffle_each_iteration)
        super().__init__((input_ds,), input_ds.element_spec)

    def _make_iter(self, ctx):
        return _ShuffleIterator(self, ctx)

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _params(self):
        return "%d,%d" % (self._size, self._reshuffle)


def _is_end(item):
    """Whether a queued (element, error) item is the input's end."""
    return item[0] is END and item[1] is None


def _save_prefetch(w, items, ended, inp):
    """The prefetch state in both modes (Note [Cross-mode states]): the buffered items (elements and
    errors, in order), whether the input ended, the input's state."""
    w.put_results("buffer", items)
    w.put("ended", ended)
    inp.save(w.child("input"))


class _PrefetchIterator(NodeIterator):
    """A producer thread runs the input ahead into a bounded queue (errors are queued in order).
    Saving pauses the producer and records the queued elements and errors (Note [Iterator state])."""

    def __init__(self, node, ctx, size):
        self._in, self._autotune = node._inputs[0]._iter(ctx), size == _options.AUTOTUNE
        self._rec = ctx.stats.get(id(node))  # the consumer's waits are counted there
        self._size = 1 if self._autotune else size
        self._queue = collections.deque()  # (element or END, exception or None)
        self._cond = threading.Condition()
        self._thread, self._paused, self._busy, self._stop, self._produced_end = None, False, False, False, False

    def _produce(self):
        while True:
            with self._cond:
                while not self._stop and (self._paused or len(self._queue) >= self._size):
                    self._cond.wait()
                if self._stop:
                    return
                self._busy = True
            try:
                item = (self._in.next(), None)
            except Exception as e:  # handed to the consumer at its position
                item = (None, e)
            with self._cond:
                self._busy = False
                self._queue.append(item)
                self._cond.notify_all()
                if _is_end(item):
                    self._produced_end = True
                    return

    def next(self):
        with self._cond:
            if self._thread is None and not self._produced_end:
                self._thread = _threads.start_thread(self._produce, "txd-prefetch")
            if not self._queue and self._autotune and self._size < _autotune.MAX_BUFFER:
                self._size *= 2  # Note [Autotune]: the consumer is about to wait
                self._cond.notify_all()
            waited = time.perf_counter()
            while not self._queue:
                if self._produced_end:
                    return END
                self._cond.wait()
            if self._rec is not None:
                self._rec.wait_seconds += time.perf_counter() - waited
            x, err = self._queue[0]
            if not _is_end(self._queue[0]):
                self._queue.popleft()
            self._cond.notify_all()
        if err is not None:
            raise err
        return x

    def _pause(self):
        with self._cond:
            self._paused = True
            while self._busy:
                self._cond.wait()

    def _resume(self):
        with self._cond:
            self._paused = False
            self._cond.notify_all()

    def save(self, w):
        self._pause()
        try:
            _save_prefetch(w, [item for item in self._queue if not _is_end(item)], self._produced_end, self._in)
        finally:
            self._resume()

    def restore(self, r):
        self._pause()
        try:
            self._queue = collections.deque(r.get_results("buffer"))
            self._produced_end = bool(r.get("ended"))
            if self._produced_end:
                self._queue.append((END, None))
            self._in.restore(r.child("input"))
        finally:
            self._resume()

    def close(self):
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()  # it finishes the element it is producing; then the input closes
        super().close()


class _PassThroughIterator(NodeIterator):
    """Prefetch without a thread (debug mode, buffer_size 0): the input's elements in the calling
    thread. A state the threaded prefetch saved restores here: its buffered items come first
    (Note [Cross-mode states])."""

    def __init__(self, node, ctx):
        self._in = node._inputs[0]._iter(ctx)
        self._queue, self._ended = collections.deque(), False

    def next(self):
        if self._queue:
            return take_result(self._queue.popleft())
        if self._ended:
            return END
        x = self._in.next()
        self._ended = x is END
        return x

    def save(self, w):
        _save_prefetch(w, list(self._queue), self._ended, self._in)

    def restore(self, r):
        self._queue = collections.deque(r.get_results("buffer"))
        self._ended = bool(r.get("ended"))
        self._in.restore(r.child("input"))


class PrefetchDataset(Dataset):
    _kind = "prefetch"

    def __init__(self, input_ds, buffer_size):
        self._buffer = buffer_size
        super().__init__((input_ds,), input_ds.element_spec)

    def _make_iter(self, ctx):
        if ctx.debug or self._buffer == 0:
            return _PassThroughIterator(self, ctx)
        return _PrefetchIterator(self, ctx, self._buffer)

    def _cardinality(self):
        return self._inputs[0]._cardinality()


class _CacheIterator(NodeIterator):
    """Reads the node's completed cache by index, or fills it while passing the input through."""

    def __init__(self, node, ctx):
        self._node, self._ctx = node, ctx
        self._reading = node._cache is not None
        self._in = None if self._reading else node._inputs[0]._iter(ctx)
        self._index, self._filled, self._complete_run = 0, [], True

    def next(self):
        if self._reading:
            if self._index >= len(self._node._cache):
                return END
            self._index += 1
            return self._node._cache[self._index - 1]
        x = self._in.next()
        if x is END:
            if self._complete_run and self._node._cache is None:
                self._node._cache = self._filled
            return END
        self._filled.append(x)
        self._index += 1
        return x

    def save(self, w):
        w.put("reading", self._reading)
        w.put("index", self._index)
        if not self._reading:
            self._in.save(w.child("input"))

    def restore(self, r):
        self._reading, self._index = bool(r.get("reading")), r.get_int("index")
        if self._reading:
            if self._node._cache is None:  # a fresh process: recompute the cache (the input is pure)
                self._node._cache = self._recompute(None)
            self._in = None
        else:  # the elements before the restore are recomputed, so the cache completes as uninterrupted
            self._filled, self._complete_run = self._recompute(self._index), True
            self._in = self._node._inputs[0]._iter(self._ctx)
            self._in.restore(r.child("input"))

    def _recompute(self, count):
        """The first ``count`` (None: all) elements of a fresh input iterator, without the errors it
        raises (as tf.data, the cache holds the elements, not the errors)."""
        it, out = self._node._inputs[0]._iter(self._ctx), []
        try:
            while count is None or len(out) < count:
                try:
                    x = it.next()
                except Exception:  # noqa: BLE001, S112 (raised by the run that filled the cache)
                    continue
                if x is END:
                    break
                out.append(x)
        finally:
            it.close()
        return out


class CacheDataset(Dataset):
    _kind = "cache"

    def __init__(self, input_ds):
        self._cache = None
        super().__init__((input_ds,), input_ds.element_spec)

    def _make_iter(self, ctx):
        return _CacheIterator(self, ctx)

    def _cardinality(self):
        return self._inputs[0]._cardinality()


