"""The public iterator: elements as tensors, and the whole pipeline's position as bytes
(`save`/`restore`), also through tx.train.Checkpoint (Note [Iterator state] in _state.py)."""

import time

import numpy as np

import tensorflux as tx

from tensorflux_data import _in_graph, _options, _state, _structure
from tensorflux_data._base import END, IterContext

FORMAT = "tensorflux-data-iterator-v1"


class Iterator:
    """Iterates a dataset: ``next(it)`` (or ``it.get_next()``) returns the next element as a structure
    of tensors. ``save()`` returns the pipeline's position as bytes and ``restore(state)`` resumes
    there: the elements after a restore are exactly those an uninterrupted run would yield.

    >>> import tensorflux_data as txd
    >>> it = iter(txd.Dataset.range(5).shuffle(5, seed=1))
    >>> first = int(next(it)); state = it.save(); rest = [int(x) for x in it]
    >>> it2 = iter(txd.Dataset.range(5).shuffle(5, seed=1)); it2.restore(state)
    >>> [int(x) for x in it2] == rest
    True
    """

    def __init__(self, dataset, bindings=None):
        self._dataset = dataset
        self._bindings = bindings  # values of its symbolic sources (Note [Symbolic sources] in _symbolic.py)
        self._spec = dataset.element_spec
        self._number = dataset._iterations
        dataset._iterations += 1
        self._root = None
        self._make_root()

    def _make_root(self):
        opts = self._dataset.options()
        debug = opts.debug_mode if opts.debug_mode is not None else _options.debug_enabled()
        if self._root is not None:
            self._root.close()
        self._ctx = IterContext(opts, bool(debug), (self._number,), bindings=self._bindings)
        self._root = self._dataset._iter(self._ctx)
        # A native stage at the root hands its elements over as tensors (no arrays made for them).
        self._root_tensors = getattr(self._root, "next_tensors", None)
        self._pack = _structure.packer(self._spec)
        self._elements, self._inside, self._outside, self._last = 0, 0.0, 0.0, None

    @property
    def element_spec(self):
        """The structure of TensorSpec of the elements."""
        return self._spec

    def _next_flat(self):
        return self._root.next()

    def __iter__(self):
        return self

    def _next_element(self):
        """The next element as the user sees it (a structure of tensors), or END."""
        if self._root_tensors is not None:
            flat = self._root_tensors()
            return END if flat is END else self._pack(flat)
        x = self._root.next()
        return END if x is END else _structure.to_tensors(self._spec, x)

    def __next__(self):
        if _in_graph.in_graph():  # inside a tx.function: an op (Note [Iteration in graphs])
            _in_graph.count_next_call(self)
            return _in_graph.EagerReader(self).get_next()
        t = time.perf_counter()
        if self._last is not None:
            self._outside += t - self._last
        try:
            x = self._next_element()
            if x is END:
                raise StopIteration
            self._elements += 1
            return x
        finally:
            self._last = time.perf_counter()
            self._inside += self._last - t

    def get_next(self):
        """The next element; tx.errors.OutOfRangeError at the end of the sequence. Inside a
        tx.function, an op that takes the next element each time the function runs."""
        if _in_graph.in_graph():
            return _in_graph.EagerReader(self).get_next()
        x = self._next_element()
        if x is END:
            raise tx.errors.OutOfRangeError(None, None, "End of sequence")
        return x

    def __tx_graph_iter__(self):
        """`for x in iterator` inside a tx.function: one loop of the graph (Note [Iteration in graphs])."""
        return _in_graph.EagerReader(self)

    def save(self):
        """The pipeline's position (every node's state) as bytes."""
        arrays = {}
        w = _state.StateWriter(arrays)
        w.put_json("meta", {"format": FORMAT, "pipeline": self._dataset._fingerprint(), "number": self._number})
        self._root.save(w.child("root"))
        return _state.encode(arrays)

    def restore(self, state):
        """Resumes at the position ``state`` (from `save`) recorded; InvalidArgumentError when it
        was saved from another pipeline or is not an iterator state."""
        arrays = _state.decode(state)
        r = _state.StateReader(arrays)
        meta = r.get_json("meta")
        if meta.get("format") != FORMAT:
            raise _state.bad_state("unknown state format %r" % meta.get("format"))
        if meta.get("pipeline") != self._dataset._fingerprint():
            raise _state.bad_state("it was saved from a different pipeline:\n  saved:   %s\n  this one: %s"
                                   % (meta.get("pipeline"), self._dataset._fingerprint()))
        self._number = int(meta["number"])
        self._make_root()
        try:
            self._root.restore(r.child("root"))
        except Exception:
            self._make_root()  # a failed restore leaves a fresh iterator, not a half-restored one
            raise

    def _stats(self):
        """Per-node counters of this iterator (txd.experimental.stats)."""
        for refresh in self._ctx.refreshers:
            refresh()
        return self._ctx.stats, (self._elements, self._inside, self._outside)

    # tx.train.Checkpoint saves objects with these two methods under their path.
    def _serialize_to_tensors(self):
        return {"ITERATOR_STATE": np.frombuffer(self.save(), np.uint8)}

    def _restore_from_tensors(self, tensors):
        self.restore(np.asarray(tensors["ITERATOR_STATE"]).tobytes())

    def close(self):
        """Stops the pipeline's background threads."""
        if self._root is not None:
            self._root.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: S110 (interpreter shutdown)
            pass
