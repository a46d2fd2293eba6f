"""Transformations combining datasets: zip, concatenate, choose_from_datasets and
sample_from_datasets (interleave and flat_map: _interleave.py)."""

import numpy as np

import tensorflux as tx

from tensorflux_data import _options, _structure
from tensorflux_data._base import END, NodeIterator, invalid
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


class _ChooseIterator(NodeIterator):
    """Each element of the choice dataset picks the input that gives the next element; an input that
    ended ends the output (stop_on_empty) or makes its choices skipped, until all have ended."""

    def __init__(self, node, ctx):
        self._node = node
        self._choice = node._inputs[0]._iter(ctx)
        self._ins = [d._iter(ctx) for d in node._inputs[1:]]
        self._empty = [False] * len(self._ins)
        self._ended = False

    def next(self):
        while not self._ended:
            c = self._choice.next()
            if c is END:
                self._ended = True
                break
            i = int(c[0])
            if not 0 <= i < len(self._ins):
                raise invalid("Selector index out of range: %d >= %d" % (i, len(self._ins)))
            x = END if self._empty[i] else self._ins[i].next()
            if x is not END:
                return x
            self._empty[i] = True
            if self._node._stop_on_empty or all(self._empty):  # all ended: no choice can give more
                self._ended = True
        return END

    def save(self, w):
        w.put("ended", self._ended)
        w.put("empty", np.array(self._empty, bool))
        self._choice.save(w.child("choice"))
        for i, it in enumerate(self._ins):
            it.save(w.child("input%d" % i))

    def restore(self, r):
        self._ended = bool(r.get("ended"))
        empty = [bool(e) for e in np.asarray(r.get("empty")).reshape(-1)]
        if len(empty) != len(self._ins):
            raise invalid("choose_from_datasets: the state is of %d datasets, this pipeline has %d"
                          % (len(empty), len(self._ins)))
        self._empty = empty
        self._choice.restore(r.child("choice"))
        for i, it in enumerate(self._ins):
            it.restore(r.child("input%d" % i))

    def _children(self):
        return [self._choice] + self._ins


class ChooseDataset(Dataset):
    _kind = "choose_from_datasets"

    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset=True):
        datasets = list(datasets) if isinstance(datasets, (list, tuple)) else datasets
        if not isinstance(datasets, list) or not datasets or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("Invalid `datasets`. `datasets` should be a non-empty list of datasets, got %r"
                            % (datasets,))
        spec = choice_dataset.element_spec if isinstance(choice_dataset, Dataset) else None
        if not (isinstance(spec, tx.TensorSpec) and spec.dtype == tx.int64 and spec.shape.rank == 0):
            raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tx.int64` "
                            "tensors but are %s." % (spec,))
        specs = [d.element_spec for d in datasets]
        for d in specs[1:]:
            if not _structure.same_structure(specs[0], d) or any(
                    x.dtype != y.dtype for x, y in zip(tx.nest.flatten(specs[0]), tx.nest.flatten(d))):
                raise TypeError("Invalid `datasets`. `datasets` must have compatible element specs.\n %s\nvs.\n %s"
                                % (specs[0], d))
        element_spec = specs[0]
        for d in specs[1:]:
            element_spec = tx.nest.map_structure(_structure.relax, element_spec, d)
        self._stop_on_empty = bool(stop_on_empty_dataset)
        super().__init__([choice_dataset] + datasets, element_spec)

    def _make_iter(self, ctx):
        return _ChooseIterator(self, ctx)

    def _cardinality(self):
        """Infinite when the choices are and every dataset is (with stop_on_empty_dataset) or any
        dataset is (without: the others' ends are skipped); unknown otherwise. (tf.data says
        infinite whenever a dataset is, also for finite choices, which then end the output.)"""
        choices, data = self._inputs[0]._cardinality(), [d._cardinality() for d in self._inputs[1:]]
        infinite = all if self._stop_on_empty else any
        return INF if choices == INF and infinite(n == INF for n in data) else UNKNOWN

    def _params(self):
        return "stop_on_empty_dataset=%s" % self._stop_on_empty


# Note [Sampling datasets]: sample_from_datasets is tf.data's composition, so it makes tf.data's
# choices for the same seed: Dataset.random(seed) (Note [Random source]) batched in pairs seeds one
# stateless multinomial draw per element over log(weights), and choose_from_datasets follows the
# draws. Datasets whose listed weight is not positive are dropped first (all of them: an empty
# dataset); one dataset left is returned as is.


def _select(logits, seed):
    return tx.squeeze(tx.random.stateless_categorical(logits, 1, seed=seed, dtype=tx.int64), [0, 1])


def sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration):
    """Dataset.sample_from_datasets (Note [Sampling datasets])."""
    datasets = list(datasets) if isinstance(datasets, (list, tuple)) else datasets
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    seeds = Dataset.random(seed, rerandomize_each_iteration).batch(2)
    if isinstance(weights, Dataset):
        choices = Dataset.zip((weights.map(lambda *p: tx.math.log(tx.stack(p))), seeds)).map(_select)
        return ChooseDataset(datasets, choices, stop_on_empty_dataset)
    if weights is None:
        logits = tx.ones([1, len(datasets)])
    else:
        if tx.is_tensor(weights):
            if not weights.shape.is_compatible_with([len(datasets)]):
                raise ValueError("Invalid `weights`. The shape of `weights` should be compatible with "
                                 "`[len(datasets)]` but is %s." % (weights.shape,))
        else:
            if len(datasets) != len(weights):
                raise ValueError("Invalid `weights`. `weights` should have the same length as `datasets` but got "
                                 "`len(weights)=%d` vs. `len(datasets)=%d`." % (len(weights), len(datasets)))
            kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
            datasets, weights = ([d for d, _ in kept], [w for _, w in kept]) if kept else ([datasets[0].take(0)], [1.0])
        weights = tx.convert_to_tensor(weights)
        if weights.dtype not in (tx.float32, tx.float64):
            raise TypeError("Invalid `weights`. `weights` type must be either `tx.float32` or `tx.float64` but is "
                            "%s." % weights.dtype.name)
        logits = tx.math.log(weights)[tx.newaxis]
    if len(datasets) == 1:
        return datasets[0]
    return ChooseDataset(datasets, seeds.map(lambda s: _select(logits, s)), stop_on_empty_dataset)
