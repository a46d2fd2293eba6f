"""Datasets inside a tx.function (or a graph): `next(iterator)`, `iter(dataset)`, `for x in dataset`
and `dataset.reduce` become ops that run the pipeline when the function runs, not while it is traced.

Note [Iteration in graphs]: an element is fetched by a stateful `tx.numpy_function` op (core's host
callbacks) whose callback takes the next element from a Python-side iterator, so the pipeline runs
as it does eagerly (its native stage included, with the GIL released) and each call of the function
gets the next elements, as with tf.data's IteratorGetNext. The op's outputs are the element's flat
components with the static shapes of `element_spec`, after a scalar bool that says whether there
was an element; at the end of the sequence `next` fails with OutOfRangeError (the callback raises
it) while a loop's fetch returns false and placeholder values of the right dtypes. A tx.function
orders stateful ops in program order (core's FuncGraph), so fetches happen in the order the Python
code made them.

Which iterator an op reads:
- an eager `Iterator` used inside a function: that iterator, held by the op (its position is the
  one `save()` records eagerly);
- `iter(dataset)` inside a function: a fresh iterator each time the function runs. A "make" op
  creates it and passes its number to the fetch ops; the iterators a trace site made stay alive,
  up to `MAX_LIVE` of them (the oldest is closed past that: a call still reading it then gets a
  FailedPreconditionError naming the limit), and one that reached its end is dropped at once;
- `for x in dataset` (AutoGraph, through core's `__tx_graph_iter__` protocol) and `dataset.reduce`
  in a graph: such a fresh iterator, read by one tx.while_loop.
A dataset built from the function's own tensors gets them as inputs of the make op (and of
get_single_element's fetch), which binds their values to its sources (Note [Symbolic sources] in
_symbolic.py), and so does one whose functions capture them (Note [Captured outer tensors] in
_functions.py).
"""

import itertools
import threading
import weakref

import numpy as np

import tensorflux as tx

from tensorflux_data import _seeds, _structure
from tensorflux_data._base import END

MAX_LIVE = 16  # iterators one `iter(dataset)` site of a function keeps alive (Note [Iteration in graphs])
# `next` calls on one iterator in one trace past which the trace is taken to be a Python loop that
# cannot end (tf.data's heuristic and number): a `for` statement AutoGraph did not convert.
NEXT_CALLS_LIMIT = 32
_TOO_MANY_NEXT = (
    "An unusually high number of get_next() calls on one iterator (more than %d) while a graph is built. This "
    "suggests that the `for elem in dataset: ...` idiom is used inside a tx.function in code AutoGraph does not "
    "convert (autograph=False, a lambda, a function of an installed package): such a loop only ends when the "
    "dataset does, so it never ends while tracing. Write the loop in a converted function, or use "
    "Dataset.reduce." % NEXT_CALLS_LIMIT)


def count_next_call(owner):
    """Counts a `next` on ``owner`` in the graph being built; ValueError past NEXT_CALLS_LIMIT."""
    graph = tx.get_default_graph()
    seen = getattr(owner, "_graph_next_calls", None)
    calls = seen[1] + 1 if seen is not None and seen[0]() is graph else 1
    owner._graph_next_calls = (weakref.ref(graph), calls)
    if calls > NEXT_CALLS_LIMIT:
        raise ValueError(_TOO_MANY_NEXT)


def in_graph():
    """True while ops are being added to a graph (a tx.function being traced)."""
    return not tx.executing_eagerly()


def _leaf_specs(element_spec, what):
    specs = _structure.flat_specs(element_spec)
    for s in specs:
        if not isinstance(s, tx.TensorSpec):
            raise TypeError("%s inside a tx.function: elements whose components are datasets (%s) are only "
                            "iterated eagerly" % (what, s))
    return specs


def _placeholder(spec):
    """A value of ``spec``'s dtype and shape (unknown dims 0) returned with `more` false."""
    dims = [0 if d is None else d for d in (_structure.shape_list(spec) or [])]
    if spec.dtype == tx.string:
        return np.full(dims, b"", dtype=object)
    return np.zeros(dims, spec.dtype.as_numpy_dtype)


def _fetch_op(fetch, inputs, specs, extra_dtypes=()):
    """The stateful op calling ``fetch(*inputs)`` -> [more, *components, *extras]; its outputs with
    static shapes: (more, components, extras)."""
    dtypes = [tx.bool] + [s.dtype for s in specs] + list(extra_dtypes)
    outs = tx.numpy_function(fetch, list(inputs), dtypes, stateful=True)
    outs[0].set_shape([])
    for t, s in zip(outs[1:], specs):
        t.set_shape(s.shape)
    n = 1 + len(specs)
    return outs[0], outs[1:n], outs[n:]


def _take(iterator, at_end):
    """The next element of eager ``iterator`` as [True, *arrays]; at the end, ``at_end()``."""
    x = iterator._next_flat()
    if x is END:
        return at_end()
    iterator._elements += 1
    return [np.asarray(True)] + [np.asarray(a) for a in x]


def _end_of_sequence():
    raise tx.errors.OutOfRangeError(None, None, "End of sequence")


class _Reader:
    """Adds the ops fetching elements of an iterator that exists when the graph runs:
    ``_iterator(*values)`` finds it from the values of ``self._inputs``."""

    _inputs = []

    def __init__(self, element_spec, what):
        self._spec = element_spec
        self._specs = _leaf_specs(element_spec, what)

    @property
    def element_spec(self):
        """The structure of TensorSpec of the elements."""
        return self._spec

    def _iterator(self, *values):
        raise NotImplementedError

    def _drop(self, *values):
        """Called once the iterator reached its end in a loop."""

    def get_next(self):
        """The next element (an op); OutOfRangeError when the graph runs past the end."""
        def fetch(*values):
            return _take(self._iterator(*values), _end_of_sequence)

        _, flat, _ = _fetch_op(fetch, self._inputs, self._specs)
        return tx.nest.pack_sequence_as(self._spec, flat)

    def next_or_end(self, with_seed=False):
        """(more, element) (Note [Graph iterables] in core's AutoGraph): ``more`` a scalar bool tensor,
        false after the last element (the element then holds placeholder values); with
        ``with_seed`` also the element's Philox key as Dataset.reduce derives it (Note [Element
        seeds])."""
        specs = self._specs
        ends = [_placeholder(s) for s in specs]

        def fetch(*values):
            it = self._iterator(*values)
            seed = [_seeds.element_seed(0, it._elements)] if with_seed else []

            def at_end():
                self._drop(*values)
                return [np.asarray(False)] + ends

            return _take(it, at_end) + seed

        more, flat, extra = _fetch_op(fetch, self._inputs, specs, [tx.uint64] if with_seed else [])
        element = tx.nest.pack_sequence_as(self._spec, flat)
        if not with_seed:
            return more, element
        extra[0].set_shape([1])
        return more, element, extra[0]


class EagerReader(_Reader):
    """An eager Iterator read by ops of a graph: `next(iterator)` or `for x in iterator` inside a
    tx.function."""

    def __init__(self, iterator):
        super().__init__(iterator.element_spec, "next(iterator)")
        self._it = iterator

    def _iterator(self):
        return self._it


class _Site:
    """The iterators one `iter(dataset)` of a traced function made, by number (Note [Iteration in
    graphs])."""

    def __init__(self, dataset, bind=None):
        self.dataset, self.bind = dataset, bind  # bind: Note [Symbolic sources]
        self.live = {}
        self.lock = threading.Lock()
        self.numbers = itertools.count()

    def make(self, *values):
        """A fresh iterator, its symbolic sources bound to ``values`` (Note [Symbolic sources])."""
        from tensorflux_data._iterator import Iterator

        it = Iterator(self.dataset, self.bind(values) if self.bind else None)
        with self.lock:
            n = next(self.numbers)
            self.live[n] = it
            while len(self.live) > MAX_LIVE:
                self.live.pop(min(self.live)).close()
        return np.asarray(n, np.int64)

    def get(self, n):
        with self.lock:
            it = self.live.get(int(n))
        if it is None:
            raise tx.errors.FailedPreconditionError(
                None, None, "the iterator made by iter(dataset) in a tx.function was closed: a function keeps at "
                "most %d iterators of one iter(dataset) alive" % MAX_LIVE)
        return it

    def drop(self, n):
        with self.lock:
            it = self.live.pop(int(n), None)
        if it is not None:
            it.close()


class GraphIterator(_Reader):
    """``iter(dataset)`` inside a tx.function: each run of the function reads a fresh iterator.
    ``next(it)`` / ``it.get_next()`` add an op returning the next element (OutOfRangeError at the
    end)."""

    def __init__(self, dataset):
        from tensorflux_data._symbolic import graph_inputs

        super().__init__(dataset.element_spec, "iter(dataset)")
        tensors, bind = graph_inputs(dataset)
        self._site = _Site(dataset, bind)
        number = tx.numpy_function(self._site.make, tensors, tx.int64, stateful=True)
        number.set_shape([])
        self._inputs = [number]

    def _iterator(self, n):
        return self._site.get(n)

    def _drop(self, n):
        self._site.drop(n)

    def __iter__(self):
        return self

    def __next__(self):
        count_next_call(self)
        return self.get_next()

    def __tx_graph_iter__(self):
        return self


def _single_flat(dataset, bindings=None):
    """The flat arrays of ``dataset``'s only element; InvalidArgumentError (tf.data's messages) when
    it has none or more."""
    from tensorflux_data._iterator import Iterator

    it = Iterator(dataset, bindings)
    try:
        first = it._next_flat()
        if first is END:
            raise tx.errors.InvalidArgumentError(None, None, "Dataset was empty.")
        if it._next_flat() is not END:
            raise tx.errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
    finally:
        it.close()
    return [np.asarray(a) for a in first]


def single_element(dataset):
    """Dataset.get_single_element: the element as tensors, read when called eagerly and at every run
    inside a function (a fetch op, as `iter(dataset)` there)."""
    specs = _leaf_specs(dataset.element_spec, "get_single_element")
    if not in_graph():
        flat = [tx.constant(a, dtype=s.dtype) for a, s in zip(_single_flat(dataset), specs)]
    else:
        from tensorflux_data._symbolic import graph_inputs

        tensors, bind = graph_inputs(dataset)
        _, flat, _ = _fetch_op(lambda *v: [np.asarray(True)] + _single_flat(dataset, bind(v)), tensors, specs)
    return tx.nest.pack_sequence_as(dataset.element_spec, flat)


def reduce_in_graph(dataset, initial_state, reduce_func):
    """Dataset.reduce while a graph is built: one tx.while_loop over a fresh iterator, folding
    ``reduce_func`` (traced into the loop body, so it may use the graph's tensors) from
    ``initial_state``. Its tx.random calls draw from the same per-element seeds as eagerly."""
    state = tx.nest.map_structure(tx.convert_to_tensor, initial_state)
    flat_state = tx.nest.flatten(state)
    state_spec = tx.nest.pack_sequence_as(state, [tx.TensorSpec(t.shape, t.dtype) for t in flat_state])
    state_spec = _relaxed_state(reduce_func, state_spec, dataset.element_spec)
    reader = GraphIterator(dataset)
    more, element, seed = reader.next_or_end(with_seed=True)
    flat_element = tx.nest.flatten(element)
    n_state, n_elem = len(flat_state), len(flat_element)

    def cond(more, *rest):
        return more

    def body(more, *rest):
        s = tx.nest.pack_sequence_as(state_spec, list(rest[:n_state]))
        e = tx.nest.pack_sequence_as(dataset.element_spec, list(rest[n_state:n_state + n_elem]))
        with _seeds.element_seeds(rest[-1]):
            new = tx.nest.flatten(reduce_func(s, e))
        if len(new) != n_state:
            raise TypeError("the reduce function's new state %s does not match the structure of its initial "
                            "state %s" % (new, state_spec))
        new = [tx.convert_to_tensor(t, dtype=x.dtype) for t, x in zip(new, flat_state)]
        more, element, seed = reader.next_or_end(with_seed=True)
        return [more] + new + tx.nest.flatten(element) + [seed]

    loop_vars = [more] + flat_state + flat_element + [seed]
    invariants = [t.shape for t in loop_vars]
    invariants[1:1 + n_state] = [s.shape for s in _structure.flat_specs(state_spec)]
    out = tx.while_loop(cond, body, loop_vars, shape_invariants=invariants)
    return tx.nest.pack_sequence_as(state_spec, list(out[1:1 + n_state]))


def _relaxed_state(reduce_func, state_spec, element_spec):
    """``state_spec`` relaxed where ``reduce_func`` changes a shape, as the eager reduce finds it by
    tracing the function apart; unchanged when that trace fails (the function uses tensors of the
    graph being built that the trace cannot capture, which only the loop body can see)."""
    from tensorflux_data._map import _trace_fold

    try:
        return _trace_fold(reduce_func, state_spec, element_spec, "reduce", outputs=False).input_spec[0]
    except (TypeError, ValueError) as e:
        if "must be from the same graph" not in str(e) and "cannot capture" not in str(e):
            raise
        return state_spec
