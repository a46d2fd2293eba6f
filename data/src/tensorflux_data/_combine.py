"""Transformations combining datasets: zip, concatenate and interleave (flat_map)."""

import numpy as np

import tensorflux as tx

from tensorflux_data import _options, _structure
from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset
from tensorflux_data._functions import call_unpacked

INF, UNKNOWN = _options.INFINITE_CARDINALITY, _options.UNKNOWN_CARDINALITY


class _ZipIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._ins = [d._iter(ctx) for d in node._inputs]

    def next(self):
        out = ()
        for it in self._ins:
            x = it.next()
            if x is END:
                return END
            out += x
        return out

    def save(self, w):
        for i, it in enumerate(self._ins):
            it.save(w.child("input%d" % i))

    def restore(self, r):
        for i, it in enumerate(self._ins):
            it.restore(r.child("input%d" % i))

    def _children(self):
        return self._ins


class ZipDataset(Dataset):
    _kind = "zip"

    def __init__(self, datasets):
        flat = tx.nest.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError("zip takes datasets (or a tuple or dict of them), got %r" % (datasets,))
        super().__init__(flat, tx.nest.map_structure(lambda d: d.element_spec, datasets))

    def _make_iter(self, ctx):
        return _ZipIterator(self, ctx)

    def _cardinality(self):
        ns = [d._cardinality() for d in self._inputs]
        finite = [n for n in ns if n >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in ns else INF


class _ConcatIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._node, self._ctx, self._which = node, ctx, 0
        self._in = node._inputs[0]._iter(ctx)

    def next(self):
        while True:
            x = self._in.next()
            if x is not END or self._which == 1:
                return x
            self._in.close()
            self._which = 1
            self._in = self._node._inputs[1]._iter(self._ctx)

    def save(self, w):
        w.put("which", self._which)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._which = r.get_int("which")
        self._in = self._node._inputs[self._which]._iter(self._ctx)
        self._in.restore(r.child("input"))


class ConcatenateDataset(Dataset):
    _kind = "concatenate"

    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError("concatenate takes a dataset, got %r" % (second,))
        a, b = first.element_spec, second.element_spec
        if not _structure.same_structure(a, b) or any(
                x.dtype != y.dtype for x, y in zip(tx.nest.flatten(a), tx.nest.flatten(b))):
            raise TypeError("Incompatible dataset elements:\n  %s\nvs.\n  %s" % (a, b))
        super().__init__((first, second), tx.nest.map_structure(_structure.relax, a, b))

    def _make_iter(self, ctx):
        return _ConcatIterator(self, ctx)

    def _cardinality(self):
        a, b = (d._cardinality() for d in self._inputs)
        if INF in (a, b):
            return INF
        return UNKNOWN if UNKNOWN in (a, b) else a + b


class _InterleaveIterator(NodeIterator):
    """TensorFlow's deterministic interleave order: ``cycle_length`` open slots visited round-robin,
    ``block_length`` elements each; an empty slot opens the next input element's dataset. The state
    holds each open slot's input element (its dataset is recomputed) and that dataset's iterator."""

    def __init__(self, node, ctx):
        self._node, self._ctx = node, ctx
        self._in = node._inputs[0]._iter(ctx)
        self._slots = [None] * node._cycle  # (input element, input index, iterator) per slot
        self._cycle_index = self._block_index = self._opened = 0
        self._end_of_input = False

    def _open(self, element, index):
        ds = self._node._dataset_for(element)
        return (element, index, ds._iter(self._ctx.sub(index)))

    def _advance_slot(self):
        self._block_index = 0
        self._cycle_index = (self._cycle_index + 1) % self._node._cycle

    def next(self):
        while not self._end_of_input or any(s is not None for s in self._slots):
            slot = self._slots[self._cycle_index]
            if slot is not None:
                x = slot[2].next()
                if x is not END:
                    self._block_index += 1
                    if self._block_index == self._node._block:
                        self._advance_slot()
                    return x
                slot[2].close()
                self._slots[self._cycle_index] = None
                self._advance_slot()
            elif not self._end_of_input:
                x = self._in.next()
                if x is END:
                    self._end_of_input = True
                else:
                    self._opened += 1
                    self._slots[self._cycle_index] = self._open(x, self._opened - 1)
            else:
                self._advance_slot()
        return END

    def save(self, w):
        for name in ("cycle_index", "block_index", "opened", "end_of_input"):
            w.put(name, getattr(self, "_" + name))
        for i, slot in enumerate(self._slots):
            w.put("slot%d.open" % i, slot is not None)
            if slot is not None:
                w.put_element("slot%d.element" % i, slot[0])
                w.put("slot%d.index" % i, slot[1])
                slot[2].save(w.child("slot%d" % i))
        self._in.save(w.child("input"))

    def restore(self, r):
        self._cycle_index, self._block_index = r.get_int("cycle_index"), r.get_int("block_index")
        self._opened, self._end_of_input = r.get_int("opened"), bool(r.get("end_of_input"))
        for i in range(len(self._slots)):
            self._slots[i] = None
            if bool(r.get("slot%d.open" % i)):
                self._slots[i] = self._open(r.get_element("slot%d.element" % i), r.get_int("slot%d.index" % i))
                self._slots[i][2].restore(r.child("slot%d" % i))
        self._in.restore(r.child("input"))

    def _children(self):
        return [self._in] + [s[2] for s in self._slots if s is not None]


class InterleaveDataset(Dataset):
    _kind = "interleave"

    def __init__(self, input_ds, map_func, cycle_length, block_length, num_parallel_calls):
        if not callable(map_func):
            raise TypeError("interleave: map_func must be callable, got %r" % (map_func,))
        self._func = map_func
        auto = (None, _options.AUTOTUNE)
        self._cycle = _options.default_parallelism() if cycle_length in auto else \
            check_int(cycle_length, "cycle_length", 1)
        self._block = 1 if block_length is None else check_int(block_length, "block_length", 1)
        if num_parallel_calls is not None:
            check_int(num_parallel_calls, "num_parallel_calls", 1, allow=(_options.AUTOTUNE,))
        self._input_spec = input_ds.element_spec
        probe = self._dataset_for(None)
        super().__init__((input_ds,), probe.element_spec)

    def _dataset_for(self, element):
        """The dataset ``map_func`` makes of an input element (None: of a placeholder, for the spec)."""
        if element is None:
            args = tx.nest.map_structure(lambda s: s.value(_placeholder(s.element_spec)) if hasattr(s, "value")
                                         else tx.constant(_zeros(s)), self._input_spec)
        else:
            args = _structure.to_tensors(self._input_spec, element)
        ds = call_unpacked(self._func, args)
        if not isinstance(ds, Dataset):
            raise TypeError("interleave: map_func must return a Dataset, got %r" % (ds,))
        if element is not None and _structure.describe(ds.element_spec) != _structure.describe(self._element_spec):
            if not _structure.same_structure(ds.element_spec, self._element_spec):
                raise invalid("interleave: map_func returned datasets of different element structures: %s vs %s"
                              % (ds.element_spec, self._element_spec))
        return ds

    def _make_iter(self, ctx):
        return _InterleaveIterator(self, ctx)

    def _params(self):
        return "%d,%d" % (self._cycle, self._block)


def _zeros(spec, lead=()):
    """An array of ``spec`` (unknown dims 0, preceded by ``lead``): a stand-in element for tracing."""
    shape = list(lead) + [d or 0 for d in _structure.shape_list(spec) or []]
    return np.full(shape, b"", object) if spec.dtype == tx.string else np.zeros(shape, spec.dtype.as_numpy_dtype)


def _placeholder(element_spec):
    return tx.nest.map_structure(lambda s: _zeros(s, (0,)), element_spec)
