"""Batching transformations: batch, padded_batch, unbatch and window."""

import numpy as np

import tensorflux as tx

from tensorflux_data import _structure
from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset


def _batched_cardinality(n, size, drop):
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


def stack_component(arrays, index):
    """``arrays`` (one component of the batch's elements) stacked; an InvalidArgumentError in
    tf.data's words when their shapes differ."""
    first = arrays[0].shape
    for j, a in enumerate(arrays):
        if a.shape != first:
            raise invalid("Cannot batch tensors with different shapes in component %d. First element had shape "
                          "%s and element %d had shape %s." % (index, list(first), j, list(a.shape)))
    return np.stack(arrays)


class _BatchIterator(NodeIterator):
    """Collects ``size`` elements and hands them to the node's ``_assemble``; the partial batch is
    part of the state."""

    def __init__(self, node, ctx):
        self._node = node
        self._in = node._inputs[0]._iter(ctx)
        self._partial = []
        # Sources that stack a batch themselves (slices, file records) skip the per-element path.
        self._fast = getattr(self._in, "next_batch", None) if type(node) is BatchDataset else None

    def next(self):
        size = self._node._size
        if not self._partial and self._fast is not None:
            stacked, n = self._fast(size)
            if n == 0 or (n < size and self._node._drop):
                return END
            return stacked
        while len(self._partial) < size:
            x = self._in.next()
            if x is END:
                break
            self._partial.append(x)
        batch, self._partial = self._partial, []
        if not batch or (len(batch) < size and self._node._drop):
            return END
        return self._node._assemble(batch)

    def save(self, w):
        w.put_elements("partial", self._partial)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._partial = r.get_elements("partial")
        self._in.restore(r.child("input"))


class BatchDataset(Dataset):
    _kind = "batch"

    def __init__(self, input_ds, batch_size, drop_remainder):
        self._size = check_int(batch_size, "batch_size", 1)
        self._drop = bool(drop_remainder)
        lead = self._size if self._drop else None
        spec = tx.nest.map_structure(lambda s: tx.TensorSpec([lead] + _dims(s, "batch"), s.dtype),
                                     input_ds.element_spec)
        super().__init__((input_ds,), spec)

    def _assemble(self, batch):
        return tuple(stack_component([e[i] for e in batch], i) for i in range(len(batch[0])))

    def _make_iter(self, ctx):
        from tensorflux_data import _fusion
        from tensorflux_data._map import MapDataset
        inp = self._inputs[0]
        if type(self) is BatchDataset and isinstance(inp, MapDataset) and not ctx.debug and \
                ctx.fuse_map_and_batch and _fusion.fusable(inp) is not None:
            return _fusion.FusedMapBatchIterator(self, inp, ctx)
        return _BatchIterator(self, ctx)

    def _cardinality(self):
        return _batched_cardinality(self._inputs[0]._cardinality(), self._size, self._drop)

    def _params(self):
        return "%d,%d" % (self._size, self._drop)


def _dims(spec, what):
    if not isinstance(spec, tx.TensorSpec):
        raise TypeError("%s: cannot batch elements of %r" % (what, spec))
    dims = _structure.shape_list(spec)
    if dims is None:
        raise invalid("%s needs elements of known rank, got %s" % (what, spec))
    return dims


def _default_padding(spec):
    return np.array(b"", object) if spec.dtype == tx.string else np.zeros((), spec.dtype.as_numpy_dtype)


class PaddedBatchDataset(BatchDataset):
    _kind = "padded_batch"

    def __init__(self, input_ds, batch_size, padded_shapes, padding_values, drop_remainder):
        specs = _structure.flat_specs(input_ds.element_spec)
        if padded_shapes is None:
            shapes = [_dims(s, "padded_batch") for s in specs]
        else:
            shapes = [_shape_arg(p) for p in _flat_like(input_ds.element_spec, padded_shapes, "padded_shapes")]
        for s, p in zip(specs, shapes):
            d = _dims(s, "padded_batch")
            if len(p) != len(d) or any(x is not None and y is not None and y > x for x, y in zip(p, d)):
                raise invalid("padded_batch: padded shape %s does not fit elements of shape %s" % (p, d))
        if padding_values is None:
            pads = [_default_padding(s) for s in specs]
        else:
            pads = [_structure.as_array(v) for v in _flat_like(input_ds.element_spec, padding_values,
                                                                 "padding_values")]
            for s, v in zip(specs, pads):
                if v.ndim != 0 or _structure.dtype_of(v) != s.dtype:
                    raise TypeError("padded_batch: a padding value must be a %s scalar, got %r" % (s.dtype.name, v))
        self._shapes, self._pads = shapes, pads
        super().__init__(input_ds, batch_size, drop_remainder)
        lead = self._size if self._drop else None
        self._element_spec = tx.nest.pack_sequence_as(
            input_ds.element_spec, [tx.TensorSpec([lead] + p, s.dtype) for s, p in zip(specs, shapes)])
        self._flat_specs = _structure.flat_specs(self._element_spec)

    def _assemble(self, batch):
        out = []
        for i, (shape, pad) in enumerate(zip(self._shapes, self._pads)):
            arrays = [e[i] for e in batch]
            longest = [max(a.shape[k] for a in arrays) for k in range(len(shape))]
            target = [longest[k] if shape[k] is None else shape[k] for k in range(len(shape))]
            res = np.full([len(arrays)] + target, pad, dtype=arrays[0].dtype)
            for j, a in enumerate(arrays):
                if any(x > y for x, y in zip(a.shape, target)):
                    raise invalid("padded_batch: component %d of element %d has shape %s, larger than the padded "
                                  "shape %s" % (i, j, list(a.shape), target))
                res[(j,) + tuple(slice(0, n) for n in a.shape)] = a
            out.append(res)
        return tuple(out)


def _flat_like(structure, value, what):
    try:
        return tx.nest.flatten_up_to(structure, value) if hasattr(tx.nest, "flatten_up_to") else \
            _flatten_up_to(structure, value)
    except (TypeError, ValueError) as e:
        raise TypeError("padded_batch: %s must have the element structure %s (%s)" % (what, structure, e)) from None


def _flatten_up_to(structure, value):
    if isinstance(structure, tx.TensorSpec):
        return [value]
    if isinstance(structure, dict):
        if set(structure) != set(value):
            raise ValueError("keys %s vs %s" % (sorted(structure), sorted(value)))
        return [x for k in sorted(structure) for x in _flatten_up_to(structure[k], value[k])]
    if len(structure) != len(value):
        raise ValueError("%d entries vs %d" % (len(structure), len(value)))
    return [x for s, v in zip(structure, value) for x in _flatten_up_to(s, v)]


def _shape_arg(p):
    if isinstance(p, tx.TensorShape):
        p = p.as_list()
    p = _structure.as_array(p).tolist() if not isinstance(p, (list, tuple)) else list(p)
    return [None if d is None or d == -1 else int(d) for d in p]


class _UnbatchIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._in = node._inputs[0]._iter(ctx)
        self._current, self._i = None, 0

    def next(self):
        while self._current is None or self._i >= self._current[0].shape[0]:
            x = self._in.next()
            if x is END:
                return END
            sizes = {a.shape[0] if a.ndim else None for a in x}
            if None in sizes or len(sizes) != 1:
                raise invalid("unbatch: the components of an element need the same leading dimension, got "
                              "shapes %s" % [list(a.shape) for a in x])
            self._current, self._i = x, 0
        self._i += 1
        return tuple(a[self._i - 1, ...] for a in self._current)

    def save(self, w):
        w.put("has_current", self._current is not None)
        if self._current is not None:
            w.put_element("current", self._current)
        w.put("index", self._i)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._current = r.get_element("current") if bool(r.get("has_current")) else None
        self._i = r.get_int("index")
        self._in.restore(r.child("input"))


class UnbatchDataset(Dataset):
    _kind = "unbatch"

    def __init__(self, input_ds):
        specs = []
        for s in _structure.flat_specs(input_ds.element_spec):
            dims = _dims(s, "unbatch")
            if not dims:
                raise invalid("unbatch needs elements of rank >= 1, got %s" % s)
            specs.append(tx.TensorSpec(dims[1:], s.dtype))
        super().__init__((input_ds,), tx.nest.pack_sequence_as(input_ds.element_spec, specs))

    def _make_iter(self, ctx):
        return _UnbatchIterator(self, ctx)


class DatasetSpec:
    """The spec of a component that is itself a dataset (the elements of `Dataset.window`)."""

    def __init__(self, element_spec):
        self.element_spec = element_spec

    def __repr__(self):
        return "DatasetSpec(%s)" % (self.element_spec,)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and repr(self) == repr(other)

    def __hash__(self):
        return hash(repr(self))

    def value(self, stacked):
        from tensorflux_data._sources import TensorSlicesDataset
        return TensorSlicesDataset(stacked)


class _WindowIterator(NodeIterator):
    def __init__(self, node, ctx):
        self._node = node
        self._in = node._inputs[0]._iter(ctx)
        self._buffer, self._to_drop, self._ended = [], 0, False

    def _read(self):
        x = self._in.next()
        if x is END:
            self._ended = True
        return x

    def next(self):
        n = self._node
        while self._to_drop > 0 and not self._ended:
            if self._buffer:
                self._buffer.pop(0)
            elif self._read() is END:
                break
            self._to_drop -= 1
        span = (n._size - 1) * n._stride + 1
        while len(self._buffer) < span and not self._ended:
            x = self._read()
            if x is not END:
                self._buffer.append(x)
        picked = self._buffer[0:span:n._stride]
        if not picked or (n._drop and len(picked) < n._size):
            return END
        self._to_drop = n._shift
        return tuple(stack_component([e[i] for e in picked], i) for i in range(len(picked[0])))

    def save(self, w):
        w.put_elements("buffer", self._buffer)
        w.put("to_drop", self._to_drop)
        w.put("ended", self._ended)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._buffer, self._to_drop = r.get_elements("buffer"), r.get_int("to_drop")
        self._ended = bool(r.get("ended"))
        self._in.restore(r.child("input"))


class WindowDataset(Dataset):
    _kind = "window"

    def __init__(self, input_ds, size, shift, stride, drop_remainder):
        self._size = check_int(size, "window size", 1)
        self._shift = check_int(self._size if shift is None else shift, "window shift", 1)
        self._stride = check_int(stride, "window stride", 1)
        self._drop = bool(drop_remainder)
        spec = tx.nest.map_structure(DatasetSpec, input_ds.element_spec)
        super().__init__((input_ds,), spec)

    def _make_iter(self, ctx):
        return _WindowIterator(self, ctx)

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        if self._drop:
            return max(0, (n - (self._size - 1) * self._stride - 1) // self._shift + 1)
        return -(-n // self._shift)

    def _params(self):
        return "%d,%d,%d,%d" % (self._size, self._shift, self._stride, self._drop)

