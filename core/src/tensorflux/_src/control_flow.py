"""What tx.cond, tx.case, tx.switch_case (cond.py) and tx.while_loop (while_loop.py) share when
they build ops: the graph a branch, loop condition or loop body is traced into, the conversion of
what the Python function returns, structure and shape checks, and the library function made from
a traced graph.

Note [Control-flow captures]
A branch or loop function is traced into a `ControlFlowGraph` whose outer graph is the graph the
If/Case/While op goes into. A tensor of an enclosing graph used inside (an op input, a returned
value, an eager value or variable handle inside tx.function) is captured: it gets a placeholder in
the traced graph and becomes an extra input of the op (of If/Case: an input of every branch; of
While: a loop variable the body passes through unchanged, a loop invariant). A tensor two graphs
out is captured by the graph in between first, so nesting works at any depth. Ops of enclosing
graphs named in control_dependencies inside become control inputs of the op.
"""

import itertools

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import functions
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.func_graph import FuncGraph
from tensorflux._src.nest import flatten
from tensorflux._src.operation import Operation, Tensor, TensorLike
from tensorflux._src.tensor_shape import TensorShape
from tensorflux._src.array_ops import placeholder, reshape
from tensorflux._src.constant_op import convert_to_tensor

_ids = itertools.count(1)


class ControlFlowGraph(FuncGraph):
    """The graph one branch, loop condition or loop body is traced into; it captures the tensors of
    enclosing graphs it uses (Note [Control-flow captures])."""

    _captures_outer = True  # op_def_library builds ops here even when their inputs live outside

    def __init__(self, name, outer_graph):
        super().__init__(name, outer_graph)
        self.seed = outer_graph.seed
        # Variables made inside are lifted out of a tx.function being traced, not out of a plain graph.
        self._is_function_graph = getattr(outer_graph, "_is_function_graph", False)
        self.external_captures = []  # tensors of outer_graph, in capture order
        self.internal_captures = []  # their placeholders here
        self._capture_index = {}     # outer tensor (op handle, index) -> position in the lists
        self.control_captures = []   # operations of outer_graph the op must run after

    def _captured(self, tensor):
        i = self._capture_index.get(tensor._pair)
        return None if i is None else self.internal_captures[i]

    def _record_capture(self, tensor, ph):
        self._capture_index[tensor._pair] = len(self.external_captures)
        self.external_captures.append(tensor)
        self.internal_captures.append(ph)

    def _capture_eager(self, tensor, arg_name=None, op_type=None):
        # Eager values are captured by the enclosing tx.function graph (plain graphs refuse them).
        return self.capture(self.outer_graph._capture_eager(tensor, arg_name, op_type))

    def _add_control_capture(self, op):
        if op._graph is not self.outer_graph:
            self.outer_graph._add_control_capture(op)
        elif op not in self.control_captures:
            self.control_captures.append(op)

    def control_dependencies(self, control_inputs):
        """Graph.control_dependencies; operations of enclosing graphs become control inputs of the
        control-flow op instead."""
        if control_inputs is None:
            return super().control_dependencies(None)
        inner = []
        for c in control_inputs:
            op = c._op if isinstance(c, Tensor) else c
            if isinstance(op, Operation) and op._graph is not self and self._encloses(op._graph):
                self._add_control_capture(op)
            else:
                inner.append(c)
        return super().control_dependencies(inner)


def function_name(graph, scope, kind):
    """A library function name for a control-flow op named ``scope`` ("while/") in ``graph``,
    prefixed by the name of the function ``graph`` becomes (if any): a scope is unique in its graph,
    so names do not collide with those of a GraphDef imported into the root graph."""
    outer = getattr(graph, "name", None)
    prefix = outer + "_" if isinstance(outer, str) else ""
    name = "%s%s_%s_%d" % (prefix, scope.rstrip("/") or "cf", kind, next(_ids))
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def trace(outer, name, fn, arg_specs=()):
    """Runs ``fn`` on placeholders of ``arg_specs`` ((dtype, TensorShape) pairs) in a new
    ControlFlowGraph of ``outer``; returns (graph, placeholders, what fn returned)."""
    g = ControlFlowGraph(name, outer)
    with g.as_default():
        args = [placeholder(dt, shape=s, name="arg_%d" % i) for i, (dt, s) in enumerate(arg_specs)]
        result = fn(args)
    return g, args, result


def to_graph_tensor(graph, value, what, dtype=None):
    """``value`` as a Tensor usable as an input of an op of ``graph`` (the default graph): tensors
    of enclosing graphs and eager values are captured, variables read, Python and NumPy values made
    constants (``dtype`` applies to Python numbers only)."""
    if isinstance(value, Tensor):
        return value if value._op._graph is graph or not hasattr(graph, "capture") else graph.capture(value)
    if hasattr(value, "_tensor_array_flow"):  # a TensorArray travels as its TensorList (tensor_array.py)
        return to_graph_tensor(graph, value._tensor_array_flow(what), what)
    if isinstance(value, EagerTensor):
        return graph._capture_eager(value, what, "control flow")
    if isinstance(value, TensorLike):
        return to_graph_tensor(graph, convert_to_tensor(value), what)
    if (dtype is not None and isinstance(value, (int, float)) and not isinstance(value, bool)
            and (dtype.is_floating or (dtype.is_integer and isinstance(value, int)))):
        return convert_to_tensor(value, dtype=dtype, name="Const")
    try:
        return convert_to_tensor(value, name="Const")
    except (TypeError, ValueError) as e:
        raise TypeError("%s must be a tensor or a value convertible to one, got %r (%s)" % (what, value, e)) from None


def graph_outputs(graph, structure, what, dtypes=None):
    """The flat outputs of a traced function that returned ``structure``: each leaf as a Tensor of
    ``graph`` (None stays None; an Operation becomes None and must run: a control output), made
    while ``graph`` is the default graph. ``dtypes`` hints the dtype of Python-number leaves."""
    out = []
    with graph.as_default():
        for i, leaf in enumerate(flatten(structure)):
            if leaf is None:
                out.append(None)
            elif isinstance(leaf, Operation):
                if leaf._graph is graph and leaf not in graph.stateful_ops:
                    graph.stateful_ops.append(leaf)
                out.append(None)
            else:
                hint = dtypes[i] if dtypes is not None and i < len(dtypes) else None
                out.append(to_graph_tensor(graph, leaf, "%s output %d" % (what, i), hint))
    return out


def make_function(graph, name, inputs, outputs):
    """The library function of a traced graph: ``inputs`` (its placeholders) are the arguments,
    ``outputs`` the results; its stateful operations always run (control outputs)."""
    controls = list(graph.stateful_ops)
    return functions.graph_to_function(graph, name, inputs, outputs, control_outputs=controls,
                                       control_output_names=["control_%d" % i for i in range(len(controls))],
                                       output_names=["output_%d" % i for i in range(len(outputs))])


def is_stateful(graph):
    """Whether a traced graph holds a stateful operation (its op must be If/Case/While rather than
    the Stateless form, as TensorFlow chooses)."""
    return any(op.type != "Placeholder" and graph._is_stateful(op.type) for op in graph.get_operations())


def structure_signature(structure, check_types=True):
    """A comparable description of a nested structure (leaves are not described); with
    ``check_types=False`` lists, tuples and namedtuples are alike."""
    if isinstance(structure, dict):
        return ("dict", tuple((k, structure_signature(structure[k], check_types)) for k in sorted(structure)))
    if isinstance(structure, (list, tuple)):
        kind = type(structure).__name__ if check_types else "sequence"
        return (kind, tuple(structure_signature(s, check_types) for s in structure))
    return "*"


def join_shapes(a, b):
    """The most specific shape compatible with both ``a`` and ``b`` (TensorShapes)."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def shape_at_most_as_general(shape, invariant):
    """Whether every value of ``shape`` has ``invariant`` (``shape`` is at least as specific)."""
    if invariant.rank is None:
        return True
    if shape.rank != invariant.rank:
        return False
    return all(d is None or s == d for s, d in zip(shape.as_list(), invariant.as_list()))


def scalar_predicate(pred, what):
    """``pred`` (a Tensor) checked to be a bool holding one element and made a scalar: TypeError for
    another dtype, ValueError for a static shape with another number of elements; an unknown shape
    becomes a Reshape to [], which fails at run time unless there is one element."""
    if pred.dtype != _dtypes.bool:
        raise TypeError("%s must be a bool tensor, got a %s tensor (%s)" % (what, pred.dtype.name, _name(pred)))
    shape = pred.shape
    if shape.rank == 0:
        return pred
    if shape.is_fully_defined() and shape.num_elements() != 1:
        raise ValueError("%s must be a scalar, got shape %s (%s)" % (what, shape, _name(pred)))
    return reshape(pred, np.zeros([0], np.int32), name="pred_must_be_scalar")


def _name(t):
    return getattr(t, "name", None) if isinstance(t, Tensor) else "eager value"
