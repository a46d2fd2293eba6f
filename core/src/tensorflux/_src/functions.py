"""Engine functions from Python: build a function from graph operations, move FunctionDefs in and
out of graphs, and call functions with PartitionedCall / StatefulPartitionedCall.

This is the base `tx.function` builds on (tracing a Python function into a graph, then calling
it as one op); it is private and carries no compatibility promise. Everything goes through the C
API (TX_GraphToFunction, TX_GraphCopyFunction, ...).
"""

import collections
import threading

from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src import context
from tensorflux._src.generated import gen_ops

_c = lib.c

# Note [Freeing context functions]
# The eager context's library holds every function added to it (and, derived from it, instantiated
# bodies, plans and call kernels), so functions must leave it when Python no longer uses them, or
# each discarded tx.function would keep its engine memory for the life of the process. Several
# Function objects may add the same name (a function and the wrappers of it listed as another
# function's dependencies), so the names in the context are counted: each Function that added one
# holds a count, released when it is garbage-collected; at zero the name is removed
# (TXE_ContextRemoveFunction, which also drops its bodies and cached kernels). A function's
# dependencies are Functions it references, so they are released after it. Releases run from
# __del__, which may fire inside the lock's own critical section (a collection triggered there),
# so they are queued and applied whenever the lock is free.
_context_counts = collections.Counter()
_pending_release = collections.deque()
_context_lock = threading.Lock()


def _release_pending():
    """Applies queued releases of context function names, unless another release is running."""
    if not _context_lock.acquire(blocking=False):
        return
    try:
        while _pending_release:
            name = _pending_release.popleft()
            _context_counts[name] -= 1
            if _context_counts[name] <= 0:
                del _context_counts[name]
                try:
                    _c.eager_remove_function(name)
                except Exception:  # noqa: BLE001 - already removed, or the process is exiting
                    pass
    finally:
        _context_lock.release()


class Function:
    """A function held by the engine: a named, typed graph body (TensorFlow's FunctionDef).

    Pass one as the ``f`` attr of a call op (or to `call`) and it is added to the calling graph's
    library first; adding the same definition twice is a no-op, a different one under a taken
    name an InvalidArgumentError.
    """

    __slots__ = ("_h", "_grad", "_deps", "_in_context")

    def __init__(self, handle, grad=None, deps=()):
        self._h = handle
        self._grad = grad
        self._deps = tuple(deps)  # functions the body may call, added to graphs along with it
        self._in_context = False

    @classmethod
    def from_function_def(cls, function_def, grad=None):
        """A Function from a FunctionDef (a ``function_pb2.FunctionDef`` or its serialized bytes);
        ``grad`` (a Function) becomes its gradient function when it is added to a graph."""
        if hasattr(function_def, "SerializeToString"):
            function_def = function_def.SerializeToString()
        return cls(_c.function_from_function_def(bytes(function_def)), grad)

    @property
    def name(self):
        """The function's name (what a call's ``f`` attr refers to)."""
        return self._h.name

    def to_function_def_bytes(self):
        """The serialized FunctionDef (map entries sorted, as TensorFlow's deterministic form)."""
        return self._h.to_function_def()

    @property
    def definition(self):
        """The FunctionDef, as a ``tensorflux.proto.function_pb2.FunctionDef``."""
        from tensorflux.proto import function_pb2

        return function_pb2.FunctionDef.FromString(self.to_function_def_bytes())

    def add_to_graph(self, graph=None):
        """Adds the function (and its gradient function, if any) to ``graph``'s library (default:
        the default graph)."""
        g = graph if graph is not None else _graph.get_default_graph()
        for dep in self._deps + (self._grad._deps if self._grad is not None else ()):
            dep.add_to_graph(g)  # the gradient function's own callees too (a while_loop's body in it)
        _c.graph_copy_function(g._h, self._h, self._grad._h if self._grad is not None else None)
        if self._grad is not None:  # remembered, so functions made from `g` carry the gradient along
            if not hasattr(g, "_functions_added"):
                g._functions_added = {}
            g._functions_added[self.name] = self

    def add_to_context(self):
        """Adds the function (and the functions it calls) to the eager context's library, once."""
        if self._in_context:
            return

        context.ensure_initialized()
        for dep in self._deps:
            dep.add_to_context()
        if self._grad is not None:
            self._grad.add_to_context()
        with _context_lock:
            _c.eager_add_function(self._h, self._grad._h if self._grad is not None else None)
            _context_counts[self.name] += 1
            self._in_context = True
        _release_pending()

    def __del__(self):
        # Note [Freeing context functions]
        if getattr(self, "_in_context", False):
            try:
                _pending_release.append(self.name)
                _release_pending()
            except Exception:  # noqa: BLE001 - interpreter teardown
                pass

    def __repr__(self):
        return "<tx Function %r>" % self.name


def graph_to_function(graph, name, inputs, outputs, output_names=None, operations=None, control_outputs=(),
                      control_output_names=None, append_hash=False, description=""):
    """Builds a Function from ``graph``: ``inputs`` (Tensors) become its arguments, ``outputs``
    (Tensors) its results; the body is ``operations`` or, when None, every operation between the
    inputs and the outputs / ``control_outputs`` (Operations that must run). The functions in
    ``graph``'s library (those the body may call) go wherever the new function goes."""
    pairs = lambda ts: [(t.op._h, t.value_index) for t in ts]  # noqa: E731
    opers = None if operations is None else [op._h for op in operations]
    handle = _c.graph_to_function(graph._h, name, bool(append_hash), opers, pairs(inputs), pairs(outputs),
                                  None if output_names is None else list(output_names),
                                  [op._h for op in control_outputs],
                                  None if control_output_names is None else list(control_output_names), description)
    # Functions the graph's ops call; those with a recorded gradient function keep it.
    known = getattr(graph, "_functions_added", {})
    deps = [known.get(f.name, f) for f in graph_functions(graph)]
    return Function(handle, deps=deps)


def graph_functions(graph=None):
    """The functions in ``graph``'s library (default: the default graph), sorted by name."""
    g = graph if graph is not None else _graph.get_default_graph()
    return [Function(h) for h in _c.graph_get_functions(g._h)]


def call(f, args, stateful=None, name=None):
    """Calls Function ``f`` on ``args`` (Tensors or convertible values) in the default graph;
    returns the list of its results. ``stateful`` picks StatefulPartitionedCall (default: when
    the function's signature is stateful)."""
    sig = f.definition.signature
    tout = [a.type for a in sig.output_arg]
    if stateful is None:
        stateful = sig.is_stateful
    op = gen_ops.stateful_partitioned_call if stateful else gen_ops.partitioned_call
    return op(list(args), Tout=tout, f=f, name=name)
