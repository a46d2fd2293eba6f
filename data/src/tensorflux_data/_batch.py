"""Batching transformations: batch, padded_batch, unbatch, rebatch and window."""

import numpy as np

import tensorflux as tx

from tensorflux_data import _options, _structure
from tensorflux_data._base import END, CountingIterator, NodeIterator, check_int, invalid
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


# Note [Batch errors]: tf.data's batch reads its input element by element and returns an error as
# soon as one comes: the elements it had collected for that batch are dropped, and the next batch
# starts after the failing element (batch_dataset_op.cc collects them in a local vector; padded_batch
# and batch(num_parallel_calls) do the same). A batch right after a map (any num_parallel_calls) is
# replaced by tf.data's map_and_batch_fusion, on by default, with MapAndBatch, which reads
# batch_size input elements whatever fails among them and reports the first failure (of the input or
# of the function) in place of the whole batch; it looks through the no-ops that noop_elimination
# removes first (take(-1), skip(0), repeat(1), shard(1, 0)), not through other transformations
# (prefetch, with_options). Both rules hold here in every mode, whether or not the map actually runs
# fused (Note [Fused batches]): `BatchDataset.whole_batch_errors` says which.
# So no partial batch outlives a next() call and none is in the state. A final partial batch with an
# error is that error, also with drop_remainder.


class _BatchIterator(NodeIterator):
    """Collects ``size`` elements and hands them to the node's ``_assemble``; an error drops the
    batch (Note [Batch errors]), so the state is the input's alone."""

    def __init__(self, node, ctx):
        self._node = node
        self._in = node._inputs[0]._iter(ctx)
        self._whole = node.whole_batch_errors(ctx)
        # Sources that stack a batch themselves (slices, file records) skip the per-element path.
        self._fast = getattr(self._in, "next_batch", None) if type(node) is BatchDataset else None

    def next(self):
        size, drop = self._node._size, self._node._drop
        if self._fast is not None:
            return self._next_stacked(size, drop)
        batch, error, taken, ended = [], None, 0, False
        while taken < size and not ended:  # runs of the input's items (Note [Runs of items])
            items, ended = self._in.read_items(size - taken)
            taken += len(items)
            for x, e in items:
                if e is None:
                    batch.append(x)
                elif not self._whole:
                    raise e  # the elements collected are dropped (Note [Batch errors])
                elif error is None:
                    error = e
        if error is not None:
            raise error
        if not batch or (len(batch) < size and drop):
            return END
        return self._node._assemble(batch)

    def _next_stacked(self, size, drop):
        """The batch from the source's ``next_batch``, which returns fewer than asked only at its end
        or before an error it raises on the next call (dropping the parts read, as tf.data does)."""
        parts, count = [], 0
        while count < size:
            stacked, n = self._fast(size - count)
            if n == 0:
                break
            parts.append(stacked)
            count += n
        if count == 0 or (count < size and drop):
            return END
        if len(parts) == 1:
            return parts[0]
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(len(parts[0])))

    def save(self, w):
        self._in.save(w.child("input"))

    def restore(self, r):
        self._in.restore(r.child("input"))


class BatchDataset(Dataset):
    _kind = "batch"

    def __init__(self, input_ds, batch_size, drop_remainder, num_parallel_calls=None):
        self._size = check_int(batch_size, "batch_size", 1)
        self._drop = bool(drop_remainder)
        if num_parallel_calls is not None:
            num_parallel_calls = check_int(num_parallel_calls, "num_parallel_calls", 1, allow=(_options.AUTOTUNE,))
        self._parallel = num_parallel_calls  # tf.data's ParallelBatch: never fused with a map before it
        lead = self._size if self._drop else None
        spec = tx.nest.map_structure(lambda s: _batched_spec(s, lead), input_ds.element_spec)
        super().__init__((input_ds,), spec)

    def _assemble(self, batch):
        return tuple(stack_component([e[i] for e in batch], i) for i in range(len(batch[0])))

    def whole_batch_errors(self, ctx):
        """Whether tf.data fuses this batch with the map before it, so that an error fails the whole
        batch of input elements (Note [Batch errors]); no-ops between them do not count, as tf.data's
        noop_elimination removes them first."""
        from tensorflux_data._map import MapDataset
        return type(self) is BatchDataset and self._parallel is None and ctx.fuse_map_and_batch and \
            type(_without_noops(self._inputs[0])) is MapDataset

    def _make_iter(self, ctx):
        from tensorflux_data import _fusion
        from tensorflux_data._map import MapDataset
        inp = self._inputs[0]
        if self.whole_batch_errors(ctx) and type(inp) is MapDataset and not ctx.debug and \
                _fusion.fusable(inp) is not None:
            return _fusion.FusedMapBatchIterator(self, inp, ctx)
        return _BatchIterator(self, ctx)

    def _cardinality(self):
        return _batched_cardinality(self._inputs[0]._cardinality(), self._size, self._drop)

    def _params(self):
        return "%d,%d,%s" % (self._size, self._drop, self._parallel is not None)


def _without_noops(ds):
    """``ds`` under the transformations tf.data's noop_elimination removes: take(-1), skip(0),
    repeat(1) and shard(1, 0)."""
    from tensorflux_data._select import RepeatDataset, ShardDataset, SkipDataset, TakeDataset
    while (type(ds) is TakeDataset and ds._count < 0) or (type(ds) is SkipDataset and ds._count == 0) or \
            (type(ds) is RepeatDataset and ds._count == 1) or (type(ds) is ShardDataset and ds._num == 1):
        ds = ds._inputs[0]
    return ds


# Note [Unknown ranks]: a component of unknown rank (a tx.py_function's output, say) is batched as
# tf.data batches it: by the shapes its elements have when they come, an element whose shape differs
# from its batch's first being an InvalidArgumentError at that batch (Note [Batch errors]). The
# batched spec is of unknown rank too (tf.data's TensorShape([n]).concatenate(unknown)), as is
# unbatch's and rebatch's; padded_batch needs padded_shapes for it (a ValueError otherwise, in
# tf.data's words), and an element whose rank is not the padded shape's fails its batch.


def _dims(spec, what):
    """``spec``'s dimensions as a list, or None for an unknown rank (Note [Unknown ranks])."""
    if not isinstance(spec, tx.TensorSpec):
        raise TypeError("%s: cannot batch elements of %r" % (what, spec))
    return _structure.shape_list(spec)


def _batched_spec(spec, lead):
    """The spec of a batch of ``spec``'s elements, its first dimension ``lead``."""
    dims = _dims(spec, "batch")
    return tx.TensorSpec(None if dims is None else [lead] + dims, spec.dtype)


def _default_padding(spec):
    return np.array(b"", object) if spec.dtype == tx.string else np.zeros((), spec.dtype.as_numpy_dtype)


class PaddedBatchDataset(BatchDataset):
    _kind = "padded_batch"

    def __init__(self, input_ds, batch_size, padded_shapes, padding_values, drop_remainder):
        specs = _structure.flat_specs(input_ds.element_spec)
        if padded_shapes is None:
            shapes = [_dims(s, "padded_batch") for s in specs]
            unknown = [i for i, p in enumerate(shapes) if p is None]
            if unknown:
                raise ValueError("You must provide `padded_shapes` argument because component %d has unknown rank."
                                 % unknown[0])
        else:
            shapes = [_shape_arg(p) for p in _flat_like(input_ds.element_spec, padded_shapes, "padded_shapes")]
        for s, p in zip(specs, shapes):
            d = _dims(s, "padded_batch")
            if d is None:
                continue  # checked per element (Note [Unknown ranks])
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
            for a in arrays:
                if a.ndim != len(shape):
                    raise invalid("All elements in a batch must have the same rank as the padded shape for component"
                                  "%d: expected rank %d but got element with rank %d" % (i, len(shape), a.ndim))
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
            if any(a.ndim == 0 for a in x):  # possible with a component of unknown rank
                raise invalid("Input element must have a non-scalar value in each component.")
            sizes = {a.shape[0] for a in x}
            if len(sizes) != 1:
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
        specs, rows = [], set()
        for s in _structure.flat_specs(input_ds.element_spec):
            dims = _dims(s, "unbatch")
            if dims is None:  # Note [Unknown ranks]
                specs.append(s)
                continue
            if not dims:
                raise invalid("unbatch needs elements of rank >= 1, got %s" % s)
            specs.append(tx.TensorSpec(dims[1:], s.dtype))
            rows.add(dims[0])
        self._rows = rows - {None}
        super().__init__((input_ds,), tx.nest.pack_sequence_as(input_ds.element_spec, specs))

    def _make_iter(self, ctx):
        return _UnbatchIterator(self, ctx)

    def _cardinality(self):
        """tf.data's: the input's times the elements' first dimension where the specs fix it (and
        it is not 0)."""
        n = self._inputs[0]._cardinality()
        if n < 0:
            return n
        rows = next(iter(self._rows)) if len(self._rows) == 1 else 0
        return n * rows if rows > 0 else _options.UNKNOWN_CARDINALITY


class _RebatchIterator(CountingIterator):
    """Batches of the unbatched input's elements, their sizes cycling through the node's; the count
    is the batches made, an error drops the partial batch (Note [Batch errors])."""

    def next(self):
        sizes = self._node._sizes
        size = sizes[self._count % len(sizes)]
        batch, ended = [], False
        while len(batch) < size and not ended:
            items, ended = self._in.read_items(size - len(batch))
            for x, e in items:
                if e is not None:
                    raise e
                batch.append(x)
        if (size and not batch) or (len(batch) < size and self._node._drop):
            return END
        self._count += 1
        return tuple(self._node._stack(batch, i) for i in range(len(self._node._parts)))


class RebatchDataset(Dataset):
    """tf.data's rebatch: ``input.unbatch().batch(n)`` with n cycling through ``batch_sizes`` (a
    size-0 batch is empty, also after the input's end), and the batch dimension static only where
    every batch must have it."""

    _kind = "rebatch"

    def __init__(self, input_ds, batch_sizes, drop_remainder):
        sizes = np.asarray(batch_sizes)
        if sizes.ndim > 1:
            raise ValueError("Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a vector. Received "
                             "`batch_sizes` of rank %d." % sizes.ndim)
        self._sizes = [check_int(n, "batch_sizes", 0) for n in sizes.reshape(-1).tolist()]
        if not self._sizes:
            raise invalid("rebatch: batch_sizes must not be empty")
        self._drop = bool(drop_remainder)
        specs = _structure.flat_specs(input_ds.element_spec)
        firsts, self._parts = [], []
        for s in specs:
            dims = _dims(s, "rebatch")
            self._parts.append((s.dtype, None if dims is None else dims[1:]))  # unknown rank: Note [Unknown ranks]
            if dims is None:
                firsts.append(None)
                continue
            if not dims:
                raise ValueError("Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset "
                                 "with scalar elements. Fix the issue by adding the `batch` transformation to "
                                 "the dataset.")
            firsts.append(dims[0])
        known = {d for d in firsts if d is not None}
        if len(known) > 1:
            raise ValueError("Invalid `input_dataset.` The batch dimension of component 0 is %s, while the batch "
                             "dimension of component i is %s." % (firsts[0], firsts))
        same = len(set(self._sizes)) == 1
        whole = self._drop or (known and known.pop() % self._sizes[0] == 0)
        lead = self._sizes[0] if same and whole else None
        spec = tx.nest.pack_sequence_as(input_ds.element_spec, [_batched_spec(tx.TensorSpec(dims, dtype), lead)
                                                                for dtype, dims in self._parts])
        super().__init__((UnbatchDataset(input_ds),), spec)

    def _stack(self, batch, i):
        if batch:
            return stack_component([e[i] for e in batch], i)
        dtype, dims = self._parts[i]
        return np.zeros([0] + [d or 0 for d in dims or []], object if dtype == tx.string else dtype.as_numpy_dtype)

    def _make_iter(self, ctx):
        return _RebatchIterator(self, ctx)

    def _cardinality(self):
        return _options.UNKNOWN_CARDINALITY  # as tf.data's

    def _params(self):
        return "%s,%s" % (self._sizes, self._drop)


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
        """The dataset of ``stacked``'s slices, of this spec's element_spec (as tf.data's window datasets:
        not the values' own shapes, Note [Unknown ranks])."""
        from tensorflux_data._sources import TensorSlicesDataset
        ds = TensorSlicesDataset(stacked)
        ds._element_spec, ds._flat_specs = self.element_spec, _structure.flat_specs(self.element_spec)
        return ds


class _WindowIterator(NodeIterator):
    """tf.data's window: a buffer of the input's items (an element or the error reading it raised)
    filled to the window's span; a window holding an error (at a position its stride picks) is that
    error, and the window shifts either way; elements shifted past unread are read and dropped, their
    errors ignored; a final window too short for drop_remainder ends the sequence, errors and all."""

    def __init__(self, node, ctx):
        self._node = node
        self._in = node._inputs[0]._iter(ctx)
        self._buffer, self._ended = [], False  # (element, None) or (None, exception)

    def _read(self):
        try:
            x = self._in.next()
        except Exception as e:  # noqa: BLE001 (an item of the window, raised when a window picks it)
            return None, e
        if x is END:
            self._ended = True
        return x, None

    def next(self):
        n = self._node
        span = (n._size - 1) * n._stride + 1
        while len(self._buffer) < span and not self._ended:
            item = self._read()
            if item[0] is not END or item[1] is not None:
                self._buffer.append(item)
        if not self._buffer or (n._drop and len(self._buffer) < span):
            return END
        picked = self._buffer[0:span:n._stride]
        error = next((e for _, e in picked if e is not None), None)
        if n._shift >= len(self._buffer):
            for _ in range(n._shift - len(self._buffer)):
                if self._ended:
                    break
                self._read()
            self._buffer = []
        else:
            del self._buffer[:n._shift]
        if error is not None:
            raise error
        return tuple(stack_component([x[i] for x, _ in picked], i) for i in range(len(picked[0][0])))

    def save(self, w):
        w.put_results("buffer", self._buffer)
        w.put("ended", self._ended)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._buffer, self._ended = r.get_results("buffer"), bool(r.get("ended"))
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

