"""What `fit`, `evaluate` and `predict` accept as data, turned into batches (x, y, sample_weight):
NumPy arrays and tensors (and lists/dicts of them), Python generators and iterators, re-iterable
datasets (any iterable of batches, e.g. a tensorflux-data pipeline) and Keras-style
``PyDataset``/``Sequence`` objects (``__len__`` + ``__getitem__``)."""

import math
import warnings

import numpy as np

from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.nest import flatten, map_structure, pack_sequence_as
from tensorflux._src.variables import Variable


def unpack_x_y_sample_weight(data):
    """(x, y, sample_weight) from a batch: a tuple of 1 to 3 entries, or x alone."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     "a tuple of %d entries" % len(data))


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _is_array(v):
    return isinstance(v, (np.ndarray, EagerTensor, Variable)) or (
        hasattr(v, "__array__") and hasattr(v, "shape") and not hasattr(v, "__next__"))


def _is_array_structure(x):
    leaves = flatten(x)
    return bool(leaves) and all(v is None or _is_array(v) or isinstance(v, (list, tuple, int, float)) for v in leaves)


def _as_numpy(v):
    if v is None:
        return None
    if isinstance(v, Variable):
        v = v.numpy()
    arr = np.asarray(v)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return arr


def is_batch_source(x):
    """Whether ``x`` yields batches itself (generator, iterator, dataset, PyDataset) rather than
    being arrays to slice."""
    if isinstance(x, (np.ndarray, EagerTensor, Variable, list, tuple, dict)) or x is None:
        return False
    return hasattr(x, "__next__") or hasattr(x, "__iter__") or (hasattr(x, "__getitem__") and hasattr(x, "__len__"))


def _class_weights(y, class_weight):
    y = np.asarray(y)
    classes = y.argmax(-1) if y.ndim > 1 and y.shape[-1] > 1 else y.reshape(y.shape[0], -1)[:, 0]
    classes = np.round(classes).astype(np.int64)
    missing = set(np.unique(classes).tolist()) - set(int(k) for k in class_weight)
    if missing:
        raise ValueError("class_weight has no entry for classes %s found in the targets" % sorted(missing))
    table = {int(k): float(v) for k, v in class_weight.items()}
    return np.array([table[int(c)] for c in classes], np.float32)


class ArrayData:
    """In-memory arrays sliced into batches (shuffled per epoch when asked)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, shuffle=False, class_weight=None):
        self.x, self.y, self.sw = (map_structure(_as_numpy, v) if v is not None else None
                                   for v in (x, y, sample_weight))
        sizes = {}
        for what, v in (("x", self.x), ("y", self.y), ("sample_weight", self.sw)):
            if v is not None:
                sizes[what] = [a.shape[0] if a.ndim else 1 for a in flatten(v) if a is not None]
        all_sizes = {n for s in sizes.values() for n in s}
        if len(all_sizes) > 1:
            detail = "\n".join("%s sizes: %s" % (k, ", ".join(map(str, v))) for k, v in sizes.items())
            raise ValueError("Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                             "samples.\n" + detail)
        self.num_samples = all_sizes.pop() if all_sizes else 0
        if class_weight is not None:
            if self.sw is not None:
                raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
            if self.y is None or len(flatten(self.y)) != 1:
                raise ValueError("class_weight needs a single target array (a one-output model)")
            self.sw = _class_weights(flatten(self.y)[0], class_weight)
        self.batch_size = int(batch_size or 32)
        self.shuffle = shuffle

    @property
    def num_batches(self):
        return int(math.ceil(self.num_samples / self.batch_size)) if self.num_samples else 0

    def batches(self):
        n, bs = self.num_samples, self.batch_size
        if self.shuffle == "batch":
            order = np.arange(n)
            starts = np.random.permutation(self.num_batches) * bs
        else:
            order = np.random.permutation(n) if self.shuffle else None
            starts = range(0, n, bs)
        for start in starts:
            if order is None:
                sl = slice(start, start + bs)
                take = lambda a, sl=sl: a[sl]  # noqa: E731
            else:
                idx = order[start:start + bs]
                take = lambda a, idx=idx: a[idx]  # noqa: E731
            parts = [map_structure(take, v) if v is not None else None for v in (self.x, self.y, self.sw)]
            yield pack_x_y_sample_weight(*parts)

    def split(self, validation_split):
        """(train part, validation part): the last ``validation_split`` of the samples held out
        (before any shuffling), as Keras."""
        if not 0.0 < validation_split < 1.0:
            raise ValueError("validation_split must be in (0, 1), got %r" % (validation_split,))
        cut = int(self.num_samples * (1.0 - validation_split))
        if cut == 0 or cut == self.num_samples:
            raise ValueError("validation_split=%r leaves an empty training or validation set of %d samples"
                             % (validation_split, self.num_samples))

        def part(v, sl):
            return map_structure(lambda a: a[sl], v) if v is not None else None
        train = ArrayData.__new__(ArrayData)
        val = ArrayData.__new__(ArrayData)
        for obj, sl in ((train, slice(0, cut)), (val, slice(cut, None))):
            obj.x, obj.y, obj.sw = part(self.x, sl), part(self.y, sl), part(self.sw, sl)
            obj.num_samples = len(range(self.num_samples)[sl])
            obj.batch_size, obj.shuffle = self.batch_size, self.shuffle
        val.shuffle = False
        return train, val


class BatchSource:
    """Batches yielded by a generator/iterator (consumed across epochs), a re-iterable dataset
    (iterated afresh each epoch) or a PyDataset/Sequence (indexed)."""

    def __init__(self, source, shuffle=False):
        self.source = source
        self.shuffle = shuffle
        self.indexed = hasattr(source, "__getitem__") and hasattr(source, "__len__") and \
            not hasattr(source, "__next__") and not hasattr(source, "__iter__")
        if hasattr(source, "__getitem__") and hasattr(source, "__len__") and hasattr(source, "num_batches"):
            self.indexed = True
        self.is_iterator = hasattr(source, "__next__")

    @property
    def num_batches(self):
        if self.indexed:
            return len(self.source)
        try:
            return len(self.source)
        except TypeError:
            return None

    def batches(self):
        if self.indexed:
            order = np.random.permutation(len(self.source)) if self.shuffle else range(len(self.source))
            for i in order:
                yield self.source[int(i)]
            if hasattr(self.source, "on_epoch_end"):
                self.source.on_epoch_end()
            return
        it = self.source if self.is_iterator else iter(self.source)
        for item in it:
            yield item


class EpochIterator:
    """Steps of one epoch: (step index, batch) pairs, ``steps_per_epoch`` of them when given (then
    a single iterator runs on across epochs, restarted when exhausted)."""

    def __init__(self, data, steps_per_epoch=None):
        self.data = data
        self.steps_per_epoch = steps_per_epoch
        self._iterator = None
        self.ran_out = False

    @property
    def num_steps(self):
        if self.steps_per_epoch is not None:
            return int(self.steps_per_epoch)
        return self.data.num_batches

    def __iter__(self):
        if self.steps_per_epoch is None:
            count = 0
            for count, batch in enumerate(self.data.batches(), 1):
                yield count - 1, batch
            if count == 0:
                self.ran_out = True
            return
        for step in range(int(self.steps_per_epoch)):
            if self._iterator is None:
                self._iterator = self.data.batches()
            try:
                batch = next(self._iterator)
            except StopIteration:
                self._iterator = self.data.batches()
                try:
                    batch = next(self._iterator)
                except StopIteration:
                    self.ran_out = True
                    return
                if isinstance(self.data, BatchSource) and self.data.is_iterator:
                    self.ran_out = True
                    return
            yield step, batch


def warn_ran_out(num_steps):
    warnings.warn("Your input ran out of data; interrupting training. Make sure that your dataset or generator can "
                  "generate at least `steps_per_epoch * epochs` batches (in this case, %s batches)." % (num_steps,),
                  stacklevel=3)


def to_tensors(batch):
    """A batch with its arrays as tensors (None entries kept)."""
    return map_structure(lambda v: v if v is None or isinstance(v, EagerTensor) else convert_to_tensor(v), batch)


def make_data(x, y=None, sample_weight=None, batch_size=None, shuffle=False, class_weight=None):
    """ArrayData or BatchSource for the arguments of fit/evaluate/predict, with Keras's errors."""
    if is_batch_source(x):
        if y is not None:
            raise ValueError("`y` argument is not supported when using a generator, dataset or PyDataset as "
                             "input (it yields (x, y) itself).")
        if sample_weight is not None:
            raise ValueError("`sample_weight` argument is not supported when using a generator, dataset or "
                             "PyDataset as input.")
        if class_weight is not None:
            raise ValueError("`class_weight` is only supported with array inputs in tx.keras.")
        return BatchSource(x, shuffle=shuffle)
    if x is None:
        raise ValueError("No data given: pass `x` (and `y`)")
    if batch_size is not None and (not isinstance(batch_size, (int, np.integer)) or batch_size < 1):
        raise ValueError("batch_size must be a positive integer, got %r" % (batch_size,))
    return ArrayData(x, y, sample_weight, batch_size, shuffle, class_weight)


def concat_outputs(outputs):
    """The per-batch outputs of predict joined along the batch axis, in their structure."""
    if not outputs:
        return None
    flat = [flatten(o) for o in outputs]
    joined = [np.concatenate([np.asarray(f[i]) for f in flat], axis=0) for i in range(len(flat[0]))]
    return pack_sequence_as(outputs[0], joined)
