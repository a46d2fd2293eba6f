"""The pipeline model: a dataset is a node with input datasets, an element spec, a cardinality and
a way to make a node iterator; node iterators return flat elements and save/restore their state."""

import time

import tensorflux as tx

from tensorflux_data import _options, _structure

END = None  # what NodeIterator.next returns at the end of its sequence

# Note [Runs of items]: a consumer that takes many elements at a time (a batch, an interleave's
# reader) asks its input for a run with read_items instead of calling next per element: per-element
# calls through Python layers (and, for a parallel interleave, lock handoffs between threads) cost
# more than the work of a small element. An error ends a run, so nothing after it is read ahead by
# a caller that stops there, and each transformation keeps raising errors at their positions.


class IterContext:
    """What every node iterator of one pipeline iterator shares: its options, whether it runs in
    debug mode, and ``key``, the position of this (sub)iteration (the top-level iteration number, then
    repeat epochs and interleave inputs), from which shuffles and per-element seeds derive."""

    def __init__(self, options, debug, key, stats=None, native=True, refreshers=None, bindings=None):
        self.options, self.debug, self.key = options, debug, tuple(key)
        self.stats = {} if stats is None else stats  # id(node) -> NodeStats, shared by the whole iterator
        self.native = native  # whether node iterators may be native segments (Note [Native segments])
        self.refreshers = [] if refreshers is None else refreshers  # bring self.stats up to date
        # id(SymbolicSource) -> the values of its graph tensors (Note [Symbolic sources] in _symbolic.py)
        self.bindings = {} if bindings is None else bindings

    def sub(self, k):
        return IterContext(self.options, self.debug, self.key + (int(k),), self.stats, self.native, self.refreshers,
                           self.bindings)

    def without_native(self):
        """This context for node iterators that the Python engine runs (Note [Native segments])."""
        return IterContext(self.options, self.debug, self.key, self.stats, False, self.refreshers, self.bindings)

    @property
    def deterministic(self):
        return self.options.deterministic is not False

    @property
    def fuse_map_and_batch(self):
        return self.options.experimental_optimization.map_and_batch_fusion is not False

    @property
    def pool_size(self):
        return self.options.threading.private_threadpool_size


class NodeIterator:
    """Iterates one dataset node. ``next()`` returns a flat tuple of arrays or END; ``save(w)`` and
    ``restore(r)`` write and read its state (Note [Iterator state] in _state.py)."""

    def next(self):
        raise NotImplementedError

    def read_items(self, n):
        """(items, ended): up to ``n`` (>= 1) next items, each ``(element, None)`` or ``(None, the
        exception reading it raised)``; the list ends after the first error, or at the end of the
        sequence (then ``ended``). Iterators that read many elements more cheaply than one at a
        time override it (Note [Runs of items])."""
        items = []
        while len(items) < n:
            try:
                x = self.next()
            except Exception as e:  # noqa: BLE001 (an item: the caller raises it at its position)
                items.append((None, e))
                break
            if x is END:
                return items, True
            items.append((x, None))
        return items, False

    def save(self, w):
        raise NotImplementedError

    def restore(self, r):
        raise NotImplementedError

    def close(self):
        """Stops background work (prefetch threads) here and below; the iterator is not used afterwards."""
        for it in self._children():
            it.close()

    def _children(self):
        inp = getattr(self, "_in", None)
        return [inp] if inp is not None else []


def take_result(result):
    """The element of a finished ``(element, None)`` result; raises the error of ``(None, error)``."""
    x, err = result
    if err is not None:
        raise err
    return x


class CountingIterator(NodeIterator):
    """A node iterator over its node's one input, with an element counter in its state."""

    def __init__(self, node, ctx):
        self._node, self._ctx = node, ctx
        self._in = node._inputs[0]._iter(ctx)
        self._count = 0

    def save(self, w):
        w.put("count", self._count)
        self._in.save(w.child("input"))

    def restore(self, r):
        self._count = r.get_int("count")
        self._in.restore(r.child("input"))


class NodeStats:
    """What one node of a running pipeline did: elements produced and seconds spent producing them
    (including its inputs' time), summed over its iterators; prefetch adds the consumer's wait."""

    def __init__(self, node):
        self.node, self.elements, self.seconds, self.wait_seconds = node, 0, 0.0, 0.0


class _Measured(NodeIterator):
    """A node iterator with its elements and time counted into its NodeStats."""

    def __init__(self, it, rec):
        self._it, self._rec = it, rec
        if hasattr(it, "next_batch"):
            self.next_batch = self._next_batch
        if hasattr(it, "next_tensors"):
            self.next_tensors = self._next_tensors

    def _timed(self, fn, *args):
        t = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self._rec.seconds += time.perf_counter() - t

    def next(self):
        x = self._timed(self._it.next)
        if x is not END:
            self._rec.elements += 1
        return x

    def read_items(self, n):
        items, ended = self._timed(self._it.read_items, n)
        self._rec.elements += len(items) - (1 if items and items[-1][1] is not None else 0)  # an error ends a run
        return items, ended

    def _next_tensors(self):
        x = self._timed(self._it.next_tensors)
        if x is not END:
            self._rec.elements += 1
        return x

    def _next_batch(self, n):
        out, k = self._timed(self._it.next_batch, n)
        self._rec.elements += k
        return out, k

    def save(self, w):
        self._it.save(w)

    def restore(self, r):
        self._it.restore(r)

    def close(self):
        self._it.close()

    @property
    def inner(self):
        return self._it


class DatasetNode:
    """A node of the pipeline graph (the public class is `tensorflux_data.Dataset`)."""

    _kind = "dataset"

    def __init__(self, inputs, element_spec):
        self._inputs = tuple(inputs)
        self._element_spec = element_spec
        self._flat_specs = _structure.flat_specs(element_spec)
        opts = _options.Options()
        for d in self._inputs:
            opts = opts.merge(d._options_value)
        self._options_value = opts
        self._iterations = 0

    @property
    def element_spec(self):
        """The structure of `TensorSpec` of this dataset's elements (tf.data's element_spec)."""
        return self._element_spec

    def _make_iter(self, ctx):
        raise NotImplementedError

    def _iter(self, ctx):
        """This node's iterator, its work counted in ``ctx.stats``: the native engine's when it runs the
        chain ending here (Note [Native segments] in _native.py)."""
        from tensorflux_data._functions import check_node_random
        check_node_random(self, ctx)
        if ctx.native and not ctx.debug:
            from tensorflux_data import _native
            it = _native.segment(self, ctx)
            if it is not None:
                return it
        rec = ctx.stats.get(id(self))
        if rec is None:
            rec = ctx.stats[id(self)] = NodeStats(self)
        return _Measured(self._make_iter(ctx), rec)

    def _cardinality(self):
        return _options.UNKNOWN_CARDINALITY

    def _params(self):
        """Parameters that distinguish this node in the pipeline's fingerprint."""
        return ""

    def _fingerprint(self):
        inner = ",".join(d._fingerprint() for d in self._inputs)
        return "%s(%s)[%s]{%s}" % (self._kind, self._params(), inner, _structure.describe(self._element_spec))


def invalid(message):
    """An InvalidArgumentError with ``message`` (tf.data raises this class for bad arguments)."""
    return tx.errors.InvalidArgumentError(None, None, message)


def check_int(value, name, minimum=None, allow=()):
    """``value`` as a Python int; ``minimum`` enforced unless the value is one of ``allow``."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise TypeError("%s must be an integer, got %r" % (name, value)) from None
    if minimum is not None and v < minimum and v not in allow:
        raise invalid("%s must be >= %d%s, got %d" % (name, minimum,
                                                      " (or %s)" % ", ".join(map(str, allow)) if allow else "", v))
    return v
