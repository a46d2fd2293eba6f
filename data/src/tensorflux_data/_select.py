"""Transformations that choose, count or repeat elements: repeat, take, skip, shard, enumerate,
ignore_errors, unique and with_options."""

import warnings

import numpy as np

import tensorflux as tx

from tensorflux_data import _options
from tensorflux_data._base import END, CountingIterator, NodeIterator, check_int, invalid
from tensorflux_data._dataset import Dataset

INF, UNKNOWN = _options.INFINITE_CARDINALITY, _options.UNKNOWN_CARDINALITY




class _UnaryDataset(Dataset):
    """A transformation of one input keeping its element spec."""

    def __init__(self, input_ds):
        super().__init__((input_ds,), input_ds.element_spec)

    @property
    def _n_in(self):
        return self._inputs[0]._cardinality()


class _RepeatIterator(NodeIterator):
    """A fresh input iterator per epoch (context key + epoch, so shuffles reshuffle)."""

    def __init__(self, node, ctx):
        self._node, self._ctx, self._epoch, self._yielded = node, ctx, 0, False
        self._in = node._inputs[0]._iter(ctx.sub(0))

    def next(self):
        count = self._node._count
        while count < 0 or self._epoch < count:
            x = self._in.next()
            if x is not END:
                self._yielded = True
                return x
            if self._epoch_empty():
                return END
            self._epoch += 1
            self._in.close()
            self._in = self._node._inputs[0]._iter(self._ctx.sub(self._epoch))
        return END

    def _epoch_empty(self):
        # An input with no elements repeated forever would loop forever: tf.data ends there too.
        empty = not self._yielded
        self._yielded = False
        return empty and self._node._count < 0

    def save(self, w):
        w.put("epoch", self._epoch)
        w.put("yielded", self._yielded)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._epoch, self._yielded = r.get_int("epoch"), bool(r.get("yielded"))
        self._in = self._node._inputs[0]._iter(self._ctx.sub(self._epoch))
        self._in.restore(r.child("input"))

    def close(self):
        self._in.close()


class RepeatDataset(_UnaryDataset):
    _kind = "repeat"

    def __init__(self, input_ds, count):
        self._count = count
        super().__init__(input_ds)

    def _make_iter(self, ctx):
        return _RepeatIterator(self, ctx)

    def _cardinality(self):
        n = self._n_in
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0 or n == INF:
            return INF
        return UNKNOWN if n == UNKNOWN else n * self._count

    def _params(self):
        return str(self._count)


class _TakeIterator(CountingIterator):
    def next(self):
        if 0 <= self._node._count <= self._count:
            return END
        x = self._in.next()
        if x is not END:
            self._count += 1
        return x


class TakeDataset(_UnaryDataset):
    _kind = "take"

    def __init__(self, input_ds, count):
        self._count = count
        super().__init__(input_ds)

    def _make_iter(self, ctx):
        return _TakeIterator(self, ctx)

    def _cardinality(self):
        n = self._n_in
        if self._count < 0 or n == UNKNOWN:
            return n
        return self._count if n == INF else min(n, self._count)

    def _params(self):
        return str(self._count)


class _SkipIterator(CountingIterator):
    """Skips within one call, its count kept only when the skipping succeeds: after an error it
    starts over (tf.data's skip adds the elements its input skipped only when the input's Skip
    returns without error)."""

    def next(self):
        skipped = self._count
        while self._node._count < 0 or skipped < self._node._count:
            if self._in.next() is END:
                return END
            skipped += 1
        self._count = skipped
        return self._in.next()


class SkipDataset(TakeDataset):
    _kind = "skip"

    def _make_iter(self, ctx):
        return _SkipIterator(self, ctx)

    def _cardinality(self):
        n = self._n_in
        if n in (INF, UNKNOWN):
            return n
        return 0 if self._count < 0 else max(0, n - self._count)


class _ShardIterator(CountingIterator):
    def next(self):
        n, index = self._node._num, self._node._index
        while True:
            x = self._in.next()
            if x is END:
                return END
            self._count += 1
            if (self._count - 1) % n == index:
                return x


class ShardDataset(_UnaryDataset):
    _kind = "shard"

    def __init__(self, input_ds, num_shards, index):
        self._num = check_int(num_shards, "num_shards", 1)
        self._index = check_int(index, "shard index", 0)
        if self._index >= self._num:
            raise invalid("shard: index must be in [0, num_shards), got index %d with %d shards"
                          % (self._index, self._num))
        super().__init__(input_ds)

    def _make_iter(self, ctx):
        return _ShardIterator(self, ctx)

    def _cardinality(self):
        n = self._n_in
        return n if n < 0 else n // self._num + (1 if self._index < n % self._num else 0)

    def _params(self):
        return "%d,%d" % (self._num, self._index)


class _EnumerateIterator(CountingIterator):
    """The counter advances on errors too (tf.data's enumerate zips a range with the input)."""

    def next(self):
        try:
            x = self._in.next()
        except Exception:
            self._count += 1
            raise
        if x is END:
            return END
        self._count += 1
        return (np.asarray(self._node._start + self._count - 1, np.int64),) + x


class EnumerateDataset(Dataset):
    _kind = "enumerate"

    def __init__(self, input_ds, start):
        self._start = start
        super().__init__((input_ds,), (tx.TensorSpec([], tx.int64), input_ds.element_spec))

    def _make_iter(self, ctx):
        return _EnumerateIterator(self, ctx)

    def _cardinality(self):
        return self._inputs[0]._cardinality()


class _IgnoreErrorsIterator(CountingIterator):
    def next(self):
        while True:
            try:
                return self._in.next()
            except (tx.errors.OpError, ValueError, TypeError) as e:
                if self._node._log:
                    warnings.warn("ignore_errors dropped an element: %s" % e, stacklevel=2)


class IgnoreErrorsDataset(_UnaryDataset):
    _kind = "ignore_errors"

    def __init__(self, input_ds, log_warning):
        self._log = bool(log_warning)
        super().__init__(input_ds)

    def _make_iter(self, ctx):
        return _IgnoreErrorsIterator(self, ctx)


def _unique_key(a):
    return a.shape, (tuple(a.reshape(-1).tolist()) if a.dtype == object else a.tobytes())


class _UniqueIterator(NodeIterator):
    """The input's elements not seen before (equal: same shape and values); the state holds those
    seen, in the order they came."""

    def __init__(self, node, ctx):
        self._in = node._inputs[0]._iter(ctx)
        self._seen, self._order = set(), []

    def next(self):
        while True:
            x = self._in.next()
            if x is END:
                return END
            key = _unique_key(x[0])
            if key not in self._seen:
                self._seen.add(key)
                self._order.append(x)
                return x

    def save(self, w):
        w.put_elements("seen", self._order)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._order = r.get_elements("seen")
        self._seen = {_unique_key(x[0]) for x in self._order}
        self._in.restore(r.child("input"))


class UniqueDataset(_UnaryDataset):
    _kind = "unique"

    def __init__(self, input_ds):
        flat = tx.nest.flatten(input_ds.element_spec)
        for s in flat:
            if getattr(s, "dtype", None) not in (tx.int32, tx.int64, tx.string):
                raise TypeError("`tf.data.Dataset.unique` does not support type %s -- only `tf.int32`, `tf.int64`, "
                                "and `tf.string` are supported." % (getattr(s, "dtype", s),))
        if len(flat) != 1:
            raise invalid("UniqueDataset only supports inputs with a single component.")
        super().__init__(input_ds)

    def _make_iter(self, ctx):
        return _UniqueIterator(self, ctx)

    def _cardinality(self):
        return INF if self._n_in == INF else UNKNOWN


class _Identity(CountingIterator):
    def __init__(self, node, ctx):
        super().__init__(node, ctx)
        inner = getattr(self._in, "next_tensors", None)  # a native stage below hands tensors through
        if inner is not None:
            self.next_tensors = inner

    def next(self):
        return self._in.next()


class OptionsDataset(_UnaryDataset):
    _kind = "options"

    def __init__(self, input_ds, options):
        if not isinstance(options, _options.Options):
            raise TypeError("with_options needs a tensorflux_data.Options, got %r" % (options,))
        super().__init__(input_ds)
        self._options_value = self._options_value.merge(options)

    def _make_iter(self, ctx):
        return _Identity(self, ctx)

    def _cardinality(self):
        return self._n_in
