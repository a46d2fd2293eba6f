"""Source datasets: slices of arrays, one element, ranges and Python generators."""

import numpy as np

import tensorflux as tx

from tensorflux_data import _structure
from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset


class _IndexIterator(NodeIterator):
    """Iterates a random-access source by index: its state is the next index alone."""

    def __init__(self, node):
        self._node, self._i = node, 0

    def next(self):
        if self._i >= self._node._size:
            return END
        self._i += 1
        return self._node._element(self._i - 1)

    def next_batch(self, n):
        """(the next up-to-``n`` elements stacked, how many) when the source can slice them."""
        if not hasattr(self._node, "_batch"):
            return self._one_by_one(n)
        stop = min(self._i + n, self._node._size)
        out, count = self._node._batch(self._i, stop), stop - self._i
        self._i = stop
        return (out if count else None), count

    def _one_by_one(self, n):
        elements = []
        while len(elements) < n and self._i < self._node._size:
            elements.append(self.next())
        if not elements:
            return None, 0
        return tuple(np.stack([e[i] for e in elements]) for i in range(len(elements[0]))), len(elements)

    def save(self, w):
        w.put("index", self._i)

    def restore(self, r):
        self._i = r.get_int("index")


class TensorSlicesDataset(Dataset):
    _kind = "from_tensor_slices"

    def __init__(self, tensors):
        structure, flat = _structure.split(tensors)
        if not flat:
            raise invalid("from_tensor_slices needs at least one tensor")
        if any(a.ndim == 0 for a in flat):
            raise invalid("from_tensor_slices: every component needs a leading dimension to slice, "
                          "got shapes %s" % [list(a.shape) for a in flat])
        sizes = {a.shape[0] for a in flat}
        if len(sizes) > 1:
            raise invalid("from_tensor_slices: all components must have the same size in dimension 0, "
                          "got shapes %s" % [list(a.shape) for a in flat])
        self._arrays = flat
        self._size = sizes.pop()
        specs = [tx.TensorSpec(a.shape[1:], s.dtype) for a, s in zip(flat, tx.nest.flatten(structure))]
        super().__init__((), tx.nest.pack_sequence_as(structure, specs))

    def _element(self, i):
        return tuple(a[i, ...] for a in self._arrays)

    def _batch(self, start, stop):
        return tuple(a[start:stop] for a in self._arrays)

    def _make_iter(self, ctx):
        return _IndexIterator(self)

    def _cardinality(self):
        return self._size

    def _params(self):
        return str(self._size)


class TensorsDataset(Dataset):
    _kind = "from_tensors"

    def __init__(self, tensors):
        structure, self._flat = _structure.split(tensors)
        self._size = 1
        super().__init__((), structure)

    def _element(self, i):
        return self._flat

    def _make_iter(self, ctx):
        return _IndexIterator(self)

    def _cardinality(self):
        return 1


class RangeDataset(Dataset):
    _kind = "range"

    def __init__(self, *args, dtype=tx.int64):
        if not 1 <= len(args) <= 3:
            raise TypeError("range takes 1 to 3 positional arguments (start, stop, step), got %d" % len(args))
        vals = [check_int(a, "range argument") for a in args]
        start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals + [1])[:3]
        if step == 0:
            raise invalid("range: step must not be 0")
        self._start, self._step = start, step
        self._size = max(0, -(-(stop - start) // step)) if step > 0 else max(0, -(-(start - stop) // -step))
        self._np_dtype = tx.as_dtype(dtype).as_numpy_dtype
        super().__init__((), tx.TensorSpec([], tx.as_dtype(dtype)))

    def _element(self, i):
        return (np.asarray(self._start + i * self._step, self._np_dtype),)

    def _batch(self, start, stop):
        return (np.arange(self._start + start * self._step, self._start + stop * self._step, self._step,
                          dtype=self._np_dtype),)

    def _make_iter(self, ctx):
        return _IndexIterator(self)

    def _cardinality(self):
        return self._size

    def _params(self):
        return "%d,%d,%d" % (self._start, self._step, self._size)


def _generator_error(e):
    """A constructor of the error class tf.data raises for exception ``e`` from a generator (its
    py_func's mapping: ValueError and TypeError are invalid arguments, MemoryError exhausted
    resources, NotImplementedError unimplemented, anything else unknown)."""
    cls = tx.errors.UnknownError
    if isinstance(e, (ValueError, TypeError)):
        cls = tx.errors.InvalidArgumentError
    elif isinstance(e, MemoryError):
        cls = tx.errors.ResourceExhaustedError
    elif isinstance(e, NotImplementedError):
        cls = tx.errors.UnimplementedError
    return lambda message: cls(None, None, message)


class _GeneratorIterator(NodeIterator):
    """Runs the generator under the GIL (the slow path); its state is the count of elements yielded,
    and restoring replays the generator that far (Note [Iterator state]: it must be pure)."""

    def __init__(self, node):
        self._node, self._count, self._it = node, 0, None

    def _start(self):
        args = self._node._args
        self._it = iter(self._node._generator(*args) if args is not None else self._node._generator())

    def next(self):
        if self._it is None:
            self._start()
        try:
            value = next(self._it)
        except StopIteration:
            return END
        except Exception as e:
            self._count += 1
            raise _generator_error(e)("from_generator: the generator raised %s: %s (element %d)"
                                      % (type(e).__name__, e, self._count - 1)) from e
        self._count += 1
        return self._node._convert(value, self._count - 1)

    def save(self, w):
        w.put("count", self._count)

    def restore(self, r):
        count = r.get_int("count")
        self._start()
        self._count = 0
        for _ in range(count):
            try:
                next(self._it)
            except StopIteration:
                break
            self._count += 1


class GeneratorDataset(Dataset):
    _kind = "from_generator"

    def __init__(self, generator, output_signature, args=None):
        if not callable(generator):
            raise TypeError("from_generator: `generator` must be callable, got %r" % (generator,))
        self._generator, self._args = generator, (tuple(args) if args is not None else None)
        specs = tx.nest.flatten(output_signature)
        if not specs or not all(isinstance(s, tx.TensorSpec) for s in specs):
            raise TypeError("from_generator: output_signature must be a structure of tx.TensorSpec, got %r"
                            % (output_signature,))
        super().__init__((), output_signature)

    def _convert(self, value, index):
        what = "from_generator element %d" % index
        if isinstance(value, list) and isinstance(self._element_spec, tuple):
            value = tuple(value)
        try:
            leaves = _structure.leaves_like(self._element_spec, value)
        except (TypeError, ValueError):
            raise invalid("%s: the generator yielded %r, which does not match the structure of output_signature "
                          "%s" % (what, value, self._element_spec)) from None
        flat = []
        for spec, v in zip(self._flat_specs, leaves):
            try:
                a = _structure.as_array(v) if spec.dtype == tx.string else np.asarray(v)
                if spec.dtype != tx.string and a.dtype != spec.dtype.as_numpy_dtype:
                    if not np.can_cast(a.dtype, spec.dtype.as_numpy_dtype, "same_kind"):
                        raise TypeError("%s values" % a.dtype)
                    a = a.astype(spec.dtype.as_numpy_dtype)
            except (TypeError, ValueError) as e:
                raise invalid("%s: cannot convert %r to %s (%s)" % (what, v, spec.dtype.name, e)) from None
            flat.append(a)
        _structure.check_element(self._element_spec, flat, what)
        return tuple(flat)

    def _make_iter(self, ctx):
        return _GeneratorIterator(self)
