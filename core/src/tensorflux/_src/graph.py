"""`Graph`: a dataflow graph held by the engine, with TensorFlow-1-style name scopes, device
scopes, control dependencies and a thread-local default graph."""

import contextlib
import re
import threading

from tensorflux._src import device as _device
from tensorflux._src import lib
from tensorflux._src.operation import Operation, Tensor, TensorLike

_c = lib.c

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class _ThreadState(threading.local):
    """Per-thread scopes of one graph (as TensorFlow keeps them)."""

    def __init__(self):
        self.name_stack = ""
        self.device = ""
        self.controllers = []


class _Controller:
    """One ``control_dependencies`` block: its control inputs and the ops created inside it."""

    __slots__ = ("control_inputs", "created")

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs
        self.created = set()


class Graph:
    """A dataflow graph. Operations are added by op functions (``tx.matmul``, ...) while the
    graph is the default one (``with g.as_default():``).

    >>> g = tx.Graph()
    >>> with g.as_default():
    ...     c = tx.constant(5.0, name="c")
    ...     d = tx.multiply(c, 2.0, name="d")
    ...
    >>> [op.name for op in g.get_operations()]
    ['c', 'd/y', 'd']
    >>> d.graph is g
    True
    """

    def __init__(self):
        self._h = _c.Graph()
        self._ops = {}  # handle -> Operation (one Python object per node)
        self._tls = _ThreadState()
        self._finalized = False

    # -- default graph, scopes -------------------------------------------------------------------

    def as_default(self):
        """A context manager that makes this graph the default graph of the current thread."""
        return _default_graph_stack.get_controller(self)

    @contextlib.contextmanager
    def name_scope(self, name):
        """A context manager opening name scope ``name`` (made unique: reopening "layer1" gives
        "layer1_1"); yields the scope string ending in "/". A name ending in "/" reopens that exact
        scope; None or "" returns to the root scope."""
        tls = self._tls
        old = tls.name_stack
        if name:
            if not isinstance(name, str):
                raise TypeError("name_scope expects a string, not %r" % (name,))
            pattern = _VALID_SCOPE_NAME if old else _VALID_OP_NAME
            if not pattern.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
            new = name[:-1] if name.endswith("/") else self.unique_name(name)
        else:
            new = ""
        tls.name_stack = new
        try:
            yield new + "/" if new else ""
        finally:
            tls.name_stack = old

    def get_name_scope(self):
        """The current name scope, without a trailing "/"."""
        return self._tls.name_stack

    def unique_name(self, name, mark_as_used=True):
        """``name`` prefixed by the current name scope and made unique in the graph (by the
        engine: "x", "x_1", ...; case-insensitive). With ``mark_as_used=False`` the name is not
        reserved; the answer then only accounts for existing operations."""
        stack = self._tls.name_stack
        if stack:
            name = stack + "/" + name
        if mark_as_used:
            return _c.graph_unique_name(self._h, name)
        candidate, i = name, 0
        while _c.graph_operation_by_name(self._h, candidate):
            i += 1
            candidate = "%s_%d" % (name, i)
        return candidate

    @contextlib.contextmanager
    def device(self, device_name):
        """A context manager requesting ``device_name`` (e.g. "/cpu:0") for new operations; nested
        scopes merge field by field; None clears the device."""
        tls = self._tls
        old = tls.device
        if device_name is None:
            tls.device = ""
        else:
            if hasattr(device_name, "to_string"):
                device_name = device_name.to_string()
            if not isinstance(device_name, str):
                raise TypeError("device expects a device string or None, not %r" % (device_name,))
            tls.device = _device.merge(old, device_name)
        try:
            yield
        finally:
            tls.device = old

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """A context manager making new operations run after ``control_inputs`` (Operations or
        Tensors); None clears the dependencies of enclosing blocks."""
        tls = self._tls
        old = tls.controllers
        if control_inputs is None:
            tls.controllers = []
        else:
            ops = []
            for c in control_inputs:
                op = c._op if isinstance(c, Tensor) else c
                if not isinstance(op, Operation):
                    raise TypeError("Control input must be an Operation or a Tensor, not %r" % (c,))
                if op._graph is not self:
                    raise ValueError("Control input %s is not an element of this graph." % op.name)
                if op not in ops:
                    ops.append(op)
            tls.controllers = old + [_Controller(ops)]
        try:
            yield
        finally:
            tls.controllers = old

    def _control_inputs_for(self, input_ops):
        # A block's dependencies are implied when an input was created inside that block.
        result = []
        for controller in self._tls.controllers:
            if any(op in controller.created for op in input_ops):
                continue
            for c in controller.control_inputs:
                if c not in input_ops and c not in result:
                    result.append(c)
        return result

    # -- building --------------------------------------------------------------------------------

    def _create_op(self, op_type, name, inputs, attrs):
        """Adds an operation named ``name`` (final, already unique) with ``inputs`` (Tensors, or
        lists of Tensors for list arguments) and attrs as the binding's (name, kind, value)."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        tls = self._tls
        handles = []
        input_ops = []
        for x in inputs:
            if type(x) is list:
                handles.append([t._pair for t in x])
                input_ops.extend(t._op for t in x)
            else:
                handles.append(x._pair)
                input_ops.append(x._op)
        controllers = tls.controllers
        control = [c._h for c in self._control_inputs_for(input_ops)] if controllers else ()
        ordered = self._ordering_inputs(op_type, inputs)
        if ordered:
            control = list(control) + [c._h for c in ordered if c._h not in control]
        h, output_types = _c.finish_operation(self._h, op_type, name, tls.device, handles, control, attrs)
        op = Operation(self, h, name, op_type, tls.device, output_types)
        self._ops[h] = op
        for controller in controllers:
            controller.created.add(op)
        self._created(op, inputs)
        return op

    def _ordering_inputs(self, op_type, inputs):
        """Extra control inputs for a new op (function graphs order stateful ops); none here."""
        return ()

    def _created(self, op, inputs):
        """Called after each op is added (function graphs track stateful ops)."""

    def _capture_eager(self, tensor, arg_name, op_type):
        """The graph tensor standing for EagerTensor ``tensor`` used as input ``arg_name`` of a new
        ``op_type`` op. Plain graphs cannot hold eager values (function graphs capture them)."""
        raise TypeError("Attempting to capture an EagerTensor (input '%s' of %s) in a graph without building a "
                        "function: eager tensors cannot be mixed with graph tensors. Create the value inside the "
                        "graph (tx.constant) or use tx.function." % (arg_name, op_type))

    def _op_from_handle(self, h):
        op = self._ops.get(h)
        if op is None:
            name, op_type, device, output_types = _c.op_info(h)
            op = self._ops.setdefault(h, Operation(self, h, name, op_type, device, output_types))
        return op

    def _tensor_from_pair(self, pair):
        return self._op_from_handle(pair[0])._outputs[pair[1]]

    def _op_by_name_or_none(self, name):
        h = _c.graph_operation_by_name(self._h, name)
        return self._op_from_handle(h) if h else None

    def finalize(self):
        """Makes the graph read-only: adding an operation raises RuntimeError."""
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    # -- queries ---------------------------------------------------------------------------------

    def get_operations(self):
        """All operations, in creation order."""
        handles, _ = _c.graph_operations(self._h, 0)
        return [self._op_from_handle(h) for h in handles]

    @property
    def version(self):
        """The number of operations in the graph (grows as operations are added)."""
        return _c.graph_num_operations(self._h)

    @property
    def seed(self):
        """The graph-level random seed (``tx.random.set_seed``), or None when unset."""
        return self.__dict__.get("_seed")

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    def get_operation_by_name(self, name):
        """The operation called ``name``; KeyError if there is none."""
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        """The tensor called ``name`` ("op:index"); KeyError if there is none."""
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """The Tensor or Operation that ``obj`` (one of them, or a name) denotes in this graph."""
        kinds = "Tensor or Operation" if allow_tensor and allow_operation else (
            "Tensor" if allow_tensor else "Operation")
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, kinds)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj._op._graph is not self:
                raise ValueError("Tensor %s is not an element of this graph." % obj.name)
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj._graph is not self:
                raise ValueError("Operation %s is not an element of this graph." % obj.name)
            return obj
        if isinstance(obj, TensorLike) and allow_tensor:
            return self.as_graph_element(obj._as_graph_element(), allow_tensor, allow_operation)
        raise TypeError("Can not convert a %s into a %s." % (type(obj).__name__, kinds))

    def _element_by_name(self, name, allow_tensor, allow_operation, kinds):
        if ":" in name:
            if not allow_tensor:
                raise ValueError("Name %r appears to refer to a Tensor, not a %s." % (name, kinds))
            op_name, _, index = name.rpartition(":")
            if not index.isdigit():
                raise ValueError("The name %r looks like a Tensor name, but is not a valid one. Tensor names "
                                 "must be of the form \"<op_name>:<output_index>\"." % name)
            op = self._op_by_name_or_none(op_name)
            if op is None:
                raise KeyError("The name %r refers to a Tensor which does not exist. The operation, %r, does not "
                               "exist in the graph." % (name, op_name))
            i = int(index)
            if i >= len(op._outputs):
                raise KeyError("The name %r refers to a Tensor which does not exist. The operation, %r, exists but "
                               "only has %d outputs." % (name, op_name, len(op._outputs)))
            return op._outputs[i]
        op = self._op_by_name_or_none(name)
        if allow_operation:
            if op is None:
                raise KeyError("The name %r refers to an Operation not in the graph." % name)
            return op
        if op is not None:
            raise ValueError("The name %r refers to an Operation, not a %s. Tensor names must be of the form "
                             "\"<op_name>:<output_index>\"." % (name, kinds))
        raise ValueError("The name %r looks like an (invalid) Operation name, not a %s. Tensor names must be of "
                         "the form \"<op_name>:<output_index>\"." % (name, kinds))

    # -- serialization ---------------------------------------------------------------------------

    def as_graph_def(self, add_shapes=False):
        """The graph as a ``tensorflux.proto.graph_pb2.GraphDef`` (TensorFlow wire format). With
        ``add_shapes``, each node gets an ``_output_shapes`` attr with its static output shapes."""
        from tensorflux.proto import graph_pb2

        graph_def = graph_pb2.GraphDef.FromString(_c.graph_to_graph_def(self._h))
        if add_shapes:
            for node in graph_def.node:
                op = self._op_by_name_or_none(node.name)
                if op is None or not op._outputs:
                    continue
                shapes = node.attr["_output_shapes"].list.shape
                for t in op._outputs:
                    proto = shapes.add()
                    dims = t.shape.dims
                    if dims is None:
                        proto.unknown_rank = True
                    else:
                        for d in dims:
                            proto.dim.add().size = -1 if d is None else d
        return graph_def

    @property
    def graph_def_versions(self):
        """The graph's ``tensorflux.proto.versions_pb2.VersionDef``."""
        from tensorflux.proto import versions_pb2

        return versions_pb2.VersionDef.FromString(_c.graph_versions(self._h))

    def __repr__(self):
        return "<tx.Graph with %d operations>" % self.version


class _DefaultGraphStack(threading.local):
    """The per-thread stack of graphs entered with ``as_default``; a global graph underneath."""

    def __init__(self):
        self.stack = []

    @contextlib.contextmanager
    def get_controller(self, graph):
        self.stack.append(graph)
        try:
            yield graph
        finally:
            # Graphs may be exited out of order only by misuse; remove this entry either way.
            if self.stack and self.stack[-1] is graph:
                self.stack.pop()
            else:
                self.stack.remove(graph)


_default_graph_stack = _DefaultGraphStack()
_global_default_graph = None
_global_lock = threading.Lock()


def get_default_graph():
    """The graph new operations go into: the innermost ``as_default`` graph of this thread, or
    the global default graph."""
    stack = _default_graph_stack.stack
    if stack:
        return stack[-1]
    global _global_default_graph
    if _global_default_graph is None:
        with _global_lock:
            if _global_default_graph is None:
                _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph():
    """Replaces the global default graph with a new, empty one. Not allowed inside
    ``as_default`` blocks."""
    if _default_graph_stack.stack:
        raise AssertionError("Do not use tx.reset_default_graph() to clear nested graphs. If you need a cleared "
                             "graph, exit the nesting and create a new graph.")
    global _global_default_graph
    _global_default_graph = Graph()


def name_scope(name):
    """``get_default_graph().name_scope(name)``: hierarchical op names ("layer1/MatMul").

    >>> with tx.Graph().as_default():
    ...     with tx.name_scope("layer1"):
    ...         w = tx.constant(1.0, name="w")
    ...     w.name
    ...
    'layer1/w:0'
    """
    return get_default_graph().name_scope(name)


def device(device_name):
    """``get_default_graph().device(device_name)``; in eager mode the device ops run on."""
    # Imported here: context imports this module.
    from tensorflux._src import context

    if context.executing_eagerly():
        return context.eager_device(device_name)
    return get_default_graph().device(device_name)


def control_dependencies(control_inputs):
    """``get_default_graph().control_dependencies(control_inputs)``; in eager mode a no-op (ops
    run in program order), as in TensorFlow.

    >>> with tx.Graph().as_default():
    ...     v = tx.Variable(0, name="counter")
    ...     inc = v.assign_add(1)
    ...     with tx.control_dependencies([inc]):
    ...         out = tx.identity(v.read_value())
    ...     with tx.Session() as sess:
    ...         sess.run(tx.global_variables_initializer())
    ...         print(sess.run(out), sess.run(out))
    ...
    1 2
    """
    # Imported here: context imports this module.
    from tensorflux._src import context

    if context.executing_eagerly():
        return contextlib.nullcontext()
    return get_default_graph().control_dependencies(control_inputs)
