"""Source datasets: slices of arrays, one element, ranges, Python generators and random words."""

import os

import numpy as np

import tensorflux as tx

from tensorflux_data import _structure
from tensorflux_data._base import END, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset
from tensorflux_data._options import INFINITE_CARDINALITY


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


# Note [Random source]: Dataset.random gives TensorFlow's values bit for bit. TensorFlow's
# RandomDataset hands out, as int64, the 32-bit words of the Philox4x32-10 stream whose key is
# `seed` and whose counter's high 64 bits are `seed2` (block j has counter (j, seed2)), the pair
# coming from tf.compat.v1.get_seed (None: seeds drawn from the OS, once per dataset). With
# rerandomize_each_iteration, every iterator made of the dataset (each iteration, each repeat epoch)
# takes the next two words of that stream as its own (seed, seed2); restoring an iterator's state
# sets the dataset's count of draws after the restored one, as TensorFlow restores its seed
# generator, so the repeat epochs after it draw as they would have. The engine's
# StatelessRandomUniformFullIntV2 computes the same words from an explicit key and counter, so a run
# of them is one op call; an iterator's state is its seed draw and the next index.
_WORDS = 1024  # words generated per op call (256 Philox blocks)
_MASK64 = (1 << 64) - 1


def _philox_words(seed, seed2, start, count):
    """Words [start, start + count) of the Philox stream keyed by (seed, seed2), as int64."""
    first = start // 4
    n = -(-(start % 4 + count) // 4) * 4
    words = tx.raw_ops.StatelessRandomUniformFullIntV2(
        shape=[n], key=np.array([seed & _MASK64], np.uint64), counter=np.array([first, seed2 & _MASK64], np.uint64),
        alg=1, dtype=tx.uint32)
    return words.numpy().astype(np.int64)[start % 4:start % 4 + count]


class _RandomIterator(NodeIterator):
    def __init__(self, node, draw):
        self._node, self._i, self._start, self._words = node, 0, None, None
        self._use_draw(draw)

    def _use_draw(self, draw):
        self._draw, self._seeds, self._start = draw, self._node._seeds_of(draw), None

    def next(self):
        first = self._i - self._i % _WORDS
        if self._start != first:
            self._words, self._start = _philox_words(*self._seeds, first, _WORDS), first
        self._i += 1
        return (self._words[self._i - 1 - first],)

    def save(self, w):
        w.put("draw", self._draw)
        w.put("index", self._i)

    def restore(self, r):
        self._use_draw(r.get_int("draw"))
        self._i = r.get_int("index")
        self._node._draws = self._draw + 1  # later iterators draw as after the saving one (TensorFlow's too)


class RandomDataset(Dataset):
    _kind = "random"

    def __init__(self, seed=None, rerandomize_each_iteration=None):
        seed, seed2 = tx.compat.v1.get_seed(seed)
        if seed is None:
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") >> 1 for _ in range(2))
        self._seed, self._seed2 = seed, seed2
        self._rerandomize = bool(rerandomize_each_iteration)
        self._draws = 0  # iterators made so far, each taking its seeds' draw (Note [Random source])
        super().__init__((), tx.TensorSpec([], tx.int64))

    def _seeds_of(self, draw):
        if not self._rerandomize:
            return self._seed, self._seed2
        return tuple(int(w) for w in _philox_words(self._seed, self._seed2, 2 * draw, 2))

    def _make_iter(self, ctx):
        draw, self._draws = self._draws, self._draws + 1
        return _RandomIterator(self, draw)

    def _cardinality(self):
        return INFINITE_CARDINALITY

    def _params(self):
        return "%d,%d,%s" % (self._seed, self._seed2, self._rerandomize)
