"""`FuncGraph`: the graph a function body is traced into (tx.function, control-flow branches and
bodies, graph custom gradients, Keras output specs). It captures the eager values the body uses
and orders and keeps its stateful ops (Note [Function state])."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src.array_ops import placeholder
from tensorflux._src.variables import variable_by_handle_id

_c = lib.c


# Note [Function state]
# A function's state is what its ops reach besides their inputs and outputs: resources (variables,
# captured by handle) and stateful ops (variable reads and updates, random ops, prints, asserts).
# FuncGraph records it as ops are created (_ordering_inputs, _created):
# - program order: an op with a resource input gets a control input on the last op that used each
#   of those resources, and a stateful op one on the last stateful op without resource inputs, so
#   the body runs reads, updates and side effects in the order the Python function made them;
# - control outputs: every stateful op and every op with a resource input is in `stateful_ops`,
#   which become the FunctionDef's control outputs (control_ret).
# The call kernel prunes the body to what its outputs need, keeping its control outputs and stateful
# nodes (Note [Call kernel] in csrc/tensorflux/kernels/cpu/function.cc), so an update no output
# depends on still runs (`v.assign_add(1.0)` in a function returning nothing), as with TensorFlow's
# tf.function, which reads the same control outputs from an exported FunctionDef.


# Note [Nested captures]
# A tx.function traced while another graph is being built (called inside another tx.function, or
# in a TensorFlow-1-style graph) may use that graph's tensors, as a nested tf.function does:
# FuncGraph records the graph it is traced in (outer_graph) and, like a control-flow body (Note
# [Control-flow captures]), builds every op itself, replacing each input from an enclosing graph by
# a placeholder made once per tensor (a tensor of a graph further out is captured by the graphs in
# between first). The call op passes those tensors after the eager captures
# (ConcreteFunction.captured_inputs), so such a trace can only be called inside that graph.


def resource_shape(t):
    """The shape of the variable behind resource tensor ``t`` when known (else None)."""
    s = getattr(t._op._graph, "_resource_shapes", {}).get(t._pair)
    if s is None and t._op.type == "VarHandleOp":
        s = t._op.get_attr("shape")
    return s


class FuncGraph(_graph.Graph):
    """The graph a tx.function is traced into: captures eager values, and the tensors of the graph
    it is traced in (``outer_graph``, or None), as placeholders, and orders stateful ops."""

    _is_function_graph = True

    def __init__(self, name, outer_graph=None):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self._captures_outer = outer_graph is not None  # op_def_library builds ops here (Note [Nested captures])
        # eager tensor id -> (eager value, placeholder); ("graph", (op handle, index)) -> (tensor of
        # outer_graph, placeholder)
        self.captures = {}
        self.variables = []      # eager Variables whose handles were captured
        self.stateful_ops = []   # control outputs of the function
        self.called = []         # ConcreteFunctions called inside (their definitions travel along)
        self._last_use = {}      # resource (op handle, index) -> last op touching it
        self._last_stateful = None
        self._stateful_types = {}
        self._resource_shapes = {}  # resource placeholder (op handle, index) -> shape of its variable

    def _capture_eager(self, tensor, arg_name=None, op_type=None):
        key = _c.eager_tensor_id(tensor)
        hit = self.captures.get(key)
        if hit is not None:
            return hit[1]
        with self.as_default(), self.name_scope(None), self.control_dependencies(None):
            ph = placeholder(tensor.dtype, shape=tensor.shape, name="capture")
        self.captures[key] = (tensor, ph)
        var = variable_by_handle_id(key)
        if var is not None:
            self._resource_shapes[ph._pair] = var.shape
            if not any(v is var for v in self.variables):
                self.variables.append(var)
        return ph

    def _encloses(self, graph):
        g = self.outer_graph
        while g is not None:
            if g is graph:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def capture(self, tensor):
        """The tensor of this graph standing for ``tensor``, a Tensor of this graph or of an
        enclosing one (Note [Nested captures]); ValueError for a tensor of an unrelated graph."""
        g = tensor._op._graph
        if g is self:
            return tensor
        if not self._encloses(g):
            raise ValueError("Tensor %s is used in %s but belongs to a graph that neither is this one nor encloses "
                             "it." % (tensor.name, self.name))
        if g is not self.outer_graph:
            tensor = self.outer_graph.capture(tensor)
        ph = self._captured(tensor)
        if ph is not None:
            return ph
        with self.as_default(), self.name_scope(None), self.control_dependencies(None):
            ph = placeholder(tensor.dtype, shape=tensor.shape, name="capture")
        if tensor.dtype == _dtypes.resource and resource_shape(tensor) is not None:
            self._resource_shapes[ph._pair] = resource_shape(tensor)
        self._record_capture(tensor, ph)
        return ph

    def _captured(self, tensor):
        """The placeholder already standing for ``tensor`` of outer_graph, or None."""
        hit = self.captures.get(("graph", tensor._pair))
        return None if hit is None else hit[1]

    def _record_capture(self, tensor, ph):
        self.captures[("graph", tensor._pair)] = (tensor, ph)

    def _create_op(self, op_type, name, inputs, attrs):
        if self.outer_graph is not None:
            inputs = [[t if t._op._graph is self else self.capture(t) for t in x] if type(x) is list
                      else (x if x._op._graph is self else self.capture(x)) for x in inputs]
        return super()._create_op(op_type, name, inputs, attrs)

    def _is_stateful(self, op_type):
        s = self._stateful_types.get(op_type)
        if s is None:
            from tensorflux.proto import op_def_pb2

            s = self._stateful_types[op_type] = op_def_pb2.OpDef.FromString(
                _c.graph_get_op_def(self._h, op_type)).is_stateful
        return s

    @staticmethod
    def _resources(inputs):
        out = []
        for x in inputs:
            for t in (x if type(x) is list else (x,)):
                if t._dtype == _dtypes.resource:
                    out.append(t._pair)
        return out

    def _ordering_inputs(self, op_type, inputs):
        deps = [self._last_use[k] for k in self._resources(inputs) if k in self._last_use]
        if self._last_stateful is not None and op_type != "Placeholder" and self._is_stateful(op_type):
            deps.append(self._last_stateful)
        return deps

    def _created(self, op, inputs):
        if op.type == "ReadVariableOp" and inputs[0]._pair in self._resource_shapes:
            # A placeholder carries no variable shape: give reads of captured variables theirs.
            op._outputs[0].set_shape(self._resource_shapes[inputs[0]._pair])
        res = self._resources(inputs)
        for k in res:
            self._last_use[k] = op
        stateful = op.type != "Placeholder" and self._is_stateful(op.type)
        if stateful and not res:
            self._last_stateful = op
        if stateful or res:
            self.stateful_ops.append(op)
