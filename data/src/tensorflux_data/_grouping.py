"""group_by_window and bucket_by_sequence_length: elements grouped by a key, each full window (and,
at the end, each partial one, in ascending key order) turned into a dataset by a reduce function."""

import numpy as np

import tensorflux as tx

from tensorflux_data import _seeds, _structure
from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset
from tensorflux_data._functions import StructuredFunction


class ElementsDataset(Dataset):
    """A random-access dataset over a list of flat elements (a window of group_by_window)."""

    _kind = "window_elements"

    def __init__(self, elements, element_spec):
        self._elements, self._size = list(elements), len(elements)
        super().__init__((), element_spec)

    def _element(self, i):
        return self._elements[i]

    def _make_iter(self, ctx):
        from tensorflux_data._sources import _IndexIterator
        return _IndexIterator(self)

    def _cardinality(self):
        return self._size


class _GroupIterator(NodeIterator):
    """State: the open groups' elements, the window being emitted (recomputed from its elements on
    restore) with its iterator, and the input's state."""

    def __init__(self, node, ctx):
        self._node, self._ctx = node, ctx
        self._in = node._inputs[0]._iter(ctx)
        self._groups, self._out, self._out_key, self._out_elements = {}, None, None, None
        self._count, self._ended, self._windows = 0, False, 0
        self._seed0 = _seeds.iterator_seed(ctx, node)

    def _emit(self, key, elements):
        self._out_key, self._out_elements = key, elements
        self._out = self._node._window_dataset(key, elements)._iter(self._ctx.sub(self._windows))
        self._windows += 1

    def next(self):
        while True:
            if self._out is not None:
                x = self._out.next()
                if x is not END:
                    return x
                self._out.close()
                self._out = None
            if self._ended:
                if not self._groups:
                    return END
                key = min(self._groups)
                self._emit(key, self._groups.pop(key))
                continue
            x = self._in.next()
            if x is END:
                self._ended = True
                continue
            key = int(self._node._key_fn.run(x, self._ctx, self._count, self._seed0)[0])
            self._count += 1
            group = self._groups.setdefault(key, [])
            group.append(x)
            if len(group) >= self._node._size_of(key):
                self._emit(key, self._groups.pop(key))

    def save(self, w):
        w.put("keys", np.array(sorted(self._groups), np.int64))
        for k in sorted(self._groups):
            w.put_elements("group%d" % k, self._groups[k])
        w.put("emitting", self._out is not None)
        if self._out is not None:
            w.put("out_key", self._out_key)
            w.put_elements("out_elements", self._out_elements)
            self._out.save(w.child("out"))
        for name in ("count", "ended", "windows"):
            w.put(name, getattr(self, "_" + name))
        self._in.save(w.child("input"))

    def restore(self, r):
        self._groups = {int(k): r.get_elements("group%d" % int(k)) for k in r.get("keys")}
        self._count, self._ended = r.get_int("count"), bool(r.get("ended"))
        self._out = None
        if bool(r.get("emitting")):
            self._windows = r.get_int("windows") - 1
            self._emit(r.get_int("out_key"), r.get_elements("out_elements"))
            self._out.restore(r.child("out"))
        self._windows = r.get_int("windows")
        self._in.restore(r.child("input"))

    def _children(self):
        return [self._in] + ([self._out] if self._out is not None else [])


class GroupByWindowDataset(Dataset):
    _kind = "group_by_window"

    def __init__(self, input_ds, key_func, reduce_func, window_size, window_size_func):
        if (window_size is None) == (window_size_func is None):
            raise ValueError("group_by_window needs exactly one of window_size and window_size_func")
        self._key_fn = StructuredFunction(key_func, input_ds.element_spec, "group_by_window_key")
        spec = self._key_fn.output_spec
        if not isinstance(spec, tx.TensorSpec) or spec.dtype != tx.int64 or not spec.shape.is_compatible_with([]):
            raise ValueError("`key_func` must return a single tx.int64 scalar tensor, got %s" % (spec,))
        if not callable(reduce_func):
            raise TypeError("group_by_window: reduce_func must be callable, got %r" % (reduce_func,))
        self._reduce, self._size_func = reduce_func, window_size_func
        self._window_size = None if window_size is None else check_int(window_size, "window_size", 1)
        self._input_spec = input_ds.element_spec
        probe = self._window_dataset(0, [])
        super().__init__((input_ds,), probe.element_spec)

    def _size_of(self, key):
        if self._window_size is not None:
            return self._window_size
        n = self._size_func(tx.constant(key, tx.int64))
        return check_int(n, "window_size_func result", 1)

    def _window_dataset(self, key, elements):
        ds = self._reduce(tx.constant(key, tx.int64), ElementsDataset(elements, self._input_spec))
        if not isinstance(ds, Dataset):
            raise TypeError("group_by_window: reduce_func must return a Dataset, got %r" % (ds,))
        return ds

    def _make_iter(self, ctx):
        return _GroupIterator(self, ctx)

    def _params(self):
        return str(self._window_size)


def bucket_by_sequence_length(ds, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """tf.data's bucket_by_sequence_length: elements batched with others whose length falls in the
    same ``[boundary_i, boundary_i+1)`` bucket, ``bucket_batch_sizes[i]`` at a time, padded."""
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, got %d and %d"
                         % (len(sizes), len(boundaries)))
    if boundaries != sorted(boundaries):
        raise ValueError("bucket_boundaries must be sorted, got %s" % boundaries)
    lows = np.array([np.iinfo(np.int32).min] + boundaries, np.int64)
    highs = np.array(boundaries + [np.iinfo(np.int32).max], np.int64)

    def bucket_id(*args):
        length = tx.cast(element_length_func(*args), tx.int64)
        inside = tx.logical_and(tx.less_equal(lows, length), tx.less(length, highs))
        return tx.reduce_min(tx.cast(tx.where(inside)[:, 0], tx.int64))

    def batching(key, window):
        batch_size = sizes[int(key)]
        if no_padding:
            return window.batch(batch_size, drop_remainder=drop_remainder)
        filler = None
        if pad_to_bucket_boundary:
            if int(key) >= len(boundaries):
                raise invalid("bucket_by_sequence_length: pad_to_bucket_boundary=True, but an element's length "
                              "is >= the last bucket boundary %d" % boundaries[-1])
            filler = boundaries[int(key)] - 1
        shapes = padded_shapes if padded_shapes is not None else tx.nest.map_structure(
            lambda s: [d if d is not None else filler for d in _structure.shape_list(s)], window.element_spec)
        if filler is not None and padded_shapes is not None:
            shapes = tx.nest.map_structure(lambda s: [filler if d in (None, -1) else d for d in s], shapes)
        return window.padded_batch(batch_size, shapes, padding_values, drop_remainder=drop_remainder)

    def unpack(fn):
        return lambda *a: fn(*a)

    return ds.group_by_window(unpack(bucket_id), batching, window_size_func=lambda key: sizes[int(key)])
