"""Transformations running a user function per element: map (sequential and parallel), filter,
take_while, scan, and the reduce that consumes a dataset."""

import collections
import concurrent.futures

import numpy as np

import tensorflux as tx

from tensorflux_data import _autotune, _in_graph, _options, _seeds, _structure, _threads
from tensorflux_data._base import END, NodeIterator, check_int, invalid, take_result
from tensorflux_data._dataset import Dataset
from tensorflux_data._functions import StructuredFunction, scalar_bool


def save_map_state(w, results, unmapped, count, exhausted, inp):
    """A map's state in every mode (Note [Cross-mode states]): finished ``results`` ((element, None)
    or (None, error)), then ``unmapped`` input elements with their indices ((index, element)), the
    count of input elements read, whether the input ended, and the input's state."""
    w.put_results("results", results)
    w.put("unmapped_index", np.array([i for i, _ in unmapped], np.int64))
    w.put_elements("unmapped", [x for _, x in unmapped])
    w.put("count", count)
    w.put("exhausted", exhausted)
    inp.save(w.child("input"))


def load_map_state(r, inp):
    """What save_map_state wrote, the input restored: (results, unmapped, count, exhausted)."""
    unmapped = collections.deque(zip(r.get("unmapped_index").tolist(), r.get_elements("unmapped")))
    inp.restore(r.child("input"))
    return collections.deque(r.get_results("results")), unmapped, r.get_int("count"), bool(r.get("exhausted"))


class _MapIterator(NodeIterator):
    """One element at a time in the calling thread (also the debug path). A parallel map's or a fused
    batch's state restores here: their finished results, then their unmapped input elements, come
    first (Note [Cross-mode states])."""

    def __init__(self, node, ctx):
        self._node, self._ctx = node, ctx
        self._in = node._inputs[0]._iter(ctx)
        self._seed0 = _seeds.iterator_seed(ctx, node)
        self._results, self._unmapped = collections.deque(), collections.deque()
        self._count, self._exhausted = 0, False

    def next(self):
        if self._results:
            return take_result(self._results.popleft())
        if self._unmapped:
            index, x = self._unmapped.popleft()
        else:
            if self._exhausted:
                return END
            x = self._in.next()
            if x is END:
                self._exhausted = True
                return END
            index, self._count = self._count, self._count + 1
        return self._node._fn.run(x, self._ctx, index, self._seed0)

    def save(self, w):
        save_map_state(w, list(self._results), list(self._unmapped), self._count, self._exhausted, self._in)

    def restore(self, r):
        self._results, self._unmapped, self._count, self._exhausted = load_map_state(r, self._in)


def _future(value=None, error=None):
    """A finished Future holding ``value`` or raising ``error``."""
    f = concurrent.futures.Future()
    if error is not None:
        f.set_exception(error)
    else:
        f.set_result(value)
    return f


class _ParallelMapIterator(NodeIterator):
    """Up to ``width`` elements in flight on the worker pool; in input order when deterministic, else
    in completion order. Saving waits for the in-flight results and records them."""

    def __init__(self, node, ctx, width, deterministic):
        self._node, self._ctx, self._det = node, ctx, deterministic
        self._tuner = _autotune.Tuner() if width == _options.AUTOTUNE else None
        self._fixed_width = width
        self._in = node._inputs[0]._iter(ctx)
        self._pool = _threads.pool(ctx.pool_size)
        self._pending = collections.deque()  # Futures of results, in input order
        self._unmapped = collections.deque()  # (index, element) read but not mapped (from a restored state)
        self._count, self._exhausted = 0, False
        self._seed0 = _seeds.iterator_seed(ctx, node)

    @property
    def _width(self):
        return self._tuner.value if self._tuner is not None else self._fixed_width

    def _fill(self):
        while len(self._pending) < self._width:
            if self._unmapped:
                index, x = self._unmapped.popleft()
            elif self._exhausted:
                break
            else:
                try:
                    x = self._in.next()
                except Exception as e:  # surfaces at its position, after the elements before it
                    self._pending.append(_future(error=e))
                    continue
                if x is END:
                    self._exhausted = True
                    break
                index, self._count = self._count, self._count + 1
            fn = self._node._fn
            seed = _seeds.element_seed(self._seed0, index) if fn.seeded else None
            self._pending.append(_threads.submit(self._pool, fn, x, seed, self._ctx))

    def next(self):
        self._fill()
        if not self._pending:
            return END
        if self._det:
            f = self._pending.popleft()
        else:
            concurrent.futures.wait(self._pending, return_when=concurrent.futures.FIRST_COMPLETED)
            f = next(p for p in self._pending if p.done())
            self._pending.remove(f)
        if self._tuner is not None:
            self._tuner.record()
        return f.result()

    def save(self, w):
        concurrent.futures.wait(self._pending)
        results = [(None, f.exception()) if f.exception() is not None else (f.result(), None) for f in self._pending]
        save_map_state(w, results, list(self._unmapped), self._count, self._exhausted, self._in)

    def restore(self, r):
        results, self._unmapped, self._count, self._exhausted = load_map_state(r, self._in)
        self._pending = collections.deque(_future(x, e) for x, e in results)


class MapDataset(Dataset):
    _kind = "map"

    def __init__(self, input_ds, map_func, num_parallel_calls, deterministic):
        self._fn = StructuredFunction(map_func, input_ds.element_spec, "map")
        if num_parallel_calls is not None:
            num_parallel_calls = check_int(num_parallel_calls, "num_parallel_calls", 1, allow=(_options.AUTOTUNE,))
        self._parallel, self._deterministic = num_parallel_calls, deterministic
        super().__init__((input_ds,), self._fn.output_spec)

    def _make_iter(self, ctx):
        if ctx.debug or self._parallel is None or self._parallel == 1:
            return _MapIterator(self, ctx)
        det = ctx.deterministic if self._deterministic is None else bool(self._deterministic)
        return _ParallelMapIterator(self, ctx, self._parallel, det)

    def _cardinality(self):
        return self._inputs[0]._cardinality()


class _PredicateIterator(NodeIterator):
    """Filter (``stop`` False: drop failing elements) or take_while (``stop`` True: end at one)."""

    def __init__(self, node, ctx, stop):
        self._node, self._ctx, self._stop = node, ctx, stop
        self._in = node._inputs[0]._iter(ctx)
        self._count, self._ended = 0, False
        self._seed0 = _seeds.iterator_seed(ctx, node)

    def next(self):
        while not self._ended:
            x = self._in.next()
            if x is END:
                return END
            self._count += 1
            keep = bool(self._node._fn.run(x, self._ctx, self._count - 1, self._seed0)[0])
            if keep:
                return x
            if self._stop:
                self._ended = True
        return END

    def save(self, w):
        w.put("count", self._count)
        w.put("ended", self._ended)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._count, self._ended = r.get_int("count"), bool(r.get("ended"))
        self._in.restore(r.child("input"))


class FilterDataset(Dataset):
    _kind = "filter"
    _stops = False

    def __init__(self, input_ds, predicate):
        self._fn = StructuredFunction(predicate, input_ds.element_spec, self._kind)
        scalar_bool(self._fn, self._kind)
        super().__init__((input_ds,), input_ds.element_spec)

    def _make_iter(self, ctx):
        return _PredicateIterator(self, ctx, self._stops)


class TakeWhileDataset(FilterDataset):
    _kind = "take_while"
    _stops = True


class _ScanIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._node, self._ctx = node, ctx
        self._in = node._inputs[0]._iter(ctx)
        self._state, self._count = node._initial, 0
        self._seed0 = _seeds.iterator_seed(ctx, node)

    def next(self):
        x = self._in.next()
        if x is END:
            return END
        n_state = len(self._state)
        out = self._node._fn.run(self._state + x, self._ctx, self._count, self._seed0)
        self._count += 1
        self._state = out[:n_state]
        return out[n_state:]

    def save(self, w):
        w.put_element("state", self._state)
        w.put("count", self._count)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._state, self._count = r.get_element("state"), r.get_int("count")
        self._in.restore(r.child("input"))


def _trace_fold(fn, initial_spec, element_spec, what, outputs):
    """Traces ``fn(state, element)`` whose result is (state, output) when ``outputs`` else state,
    relaxing the state's shapes once if the function changes them (as tf.data does)."""
    state_spec = initial_spec
    for _ in range(2):
        traced = StructuredFunction(fn, (state_spec, element_spec), what, multiple_args=True)
        out = traced.output_spec
        if outputs and not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("the %s function must return a pair (new_state, output_element), got %s" % (what, out))
        new_state = out[0] if outputs else out
        if not _structure.same_structure(state_spec, new_state) or any(
                a.dtype != b.dtype for a, b in zip(tx.nest.flatten(state_spec), tx.nest.flatten(new_state))):
            raise TypeError("the %s function's new state %s does not match the structure and dtypes of its "
                            "initial state %s" % (what, new_state, state_spec))
        relaxed = tx.nest.map_structure(_structure.relax, state_spec, new_state)
        if _structure.describe(relaxed) == _structure.describe(state_spec):
            return traced
        state_spec = relaxed
    return traced


class ScanDataset(Dataset):
    _kind = "scan"

    def __init__(self, input_ds, initial_state, scan_func):
        spec, self._initial = _structure.split(initial_state)
        self._fn = _trace_fold(scan_func, spec, input_ds.element_spec, "scan", outputs=True)
        super().__init__((input_ds,), self._fn.output_spec[1])

    def _make_iter(self, ctx):
        return _ScanIterator(self, ctx)

    def _cardinality(self):
        return self._inputs[0]._cardinality()


def reduce_dataset(ds, initial_state, reduce_func):
    """``reduce_func`` folded over ``ds`` (Dataset.reduce): the final state as tensors."""
    from tensorflux_data._iterator import Iterator

    if ds._cardinality() == _options.INFINITE_CARDINALITY:
        raise invalid("reduce: the dataset is infinite")
    if _in_graph.in_graph():
        return _in_graph.reduce_in_graph(ds, initial_state, reduce_func)
    spec, state = _structure.split(initial_state)
    fn = _trace_fold(reduce_func, spec, ds.element_spec, "reduce", outputs=False)
    it = Iterator(ds)
    count = 0
    while True:
        x = it._next_flat()
        if x is END:
            break
        state = fn.run(state + x, it._ctx, count)
        count += 1
    return tx.nest.pack_sequence_as(fn.output_spec, [tx.constant(np.asarray(a)) for a in state])
