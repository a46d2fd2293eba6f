"""Transformations combining datasets: zip and concatenate (interleave and flat_map: _interleave.py)."""

import tensorflux as tx

from tensorflux_data import _options, _structure
from tensorflux_data._base import END, NodeIterator
from tensorflux_data._dataset import Dataset

INF, UNKNOWN = _options.INFINITE_CARDINALITY, _options.UNKNOWN_CARDINALITY


class _ZipIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._ins = [d._iter(ctx) for d in node._inputs]
        self._ended = False

    def next(self):
        """Every input advances, also after one raised (tf.data's zip keeps them in step); the first
        error is raised, and an input's end ends the zip, the inputs after it unread unless one
        before it raised."""
        if self._ended:
            return END
        out, error = (), None
        for it in self._ins:
            try:
                x = it.next()
            except Exception as e:  # noqa: BLE001 (raised after the other inputs advanced)
                error = e if error is None else error
                continue
            if x is END:
                self._ended = True
                if error is None:
                    return END
                continue
            out += x
        if error is not None:
            raise error
        return out

    def save(self, w):
        w.put("ended", self._ended)
        for i, it in enumerate(self._ins):
            it.save(w.child("input%d" % i))

    def restore(self, r):
        self._ended = bool(r.get("ended"))
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
