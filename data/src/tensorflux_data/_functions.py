"""User functions of a pipeline (map, filter, scan, ...): traced once with tx.function over the
element spec, called by the fast path with arrays; in debug mode the Python function itself runs
eagerly on each element and its result is checked against the traced structure.

Note [Captured outer tensors]: a function traced while a tx.function is built (a dataset made inside
it) may use that function's tensors, as tf.data's functions capture them: core's FuncGraph records
them as captures (Note [Nested captures] in core), after the eager ones, in ConcreteFunction's
captured_inputs, so the trace runs only inside that graph. The StructuredFunction keeps them as
``outer``; the ops that iterate a dataset in a graph take the outer tensors of every function below
it as inputs, next to its symbolic sources' (graph_inputs in _symbolic.py), and when the function
runs each function's values are bound (IterContext.bindings, by function): a Binding is the trace
with those values as its captured inputs (ConcreteFunction.with_captured_inputs), which the Python engine calls
and the native engine registers (its captures are the values), so each run of the function uses its
own values. Debug mode runs the Python function itself, whose closure holds the graph tensors, which
do not exist eagerly: it raises, naming them (tf.data's debug mode fails there too), and so does an
eager iteration of such a dataset (outside its function).
"""

import numpy as np

import tensorflux as tx

from tensorflux_data import _seeds, _structure
from tensorflux_data._base import invalid


def call_unpacked(fn, args):
    """tf.data's calling convention: a tuple element is passed as positional arguments."""
    return fn(*args) if type(args) is tuple else fn(args)


def _normalize(value, what):
    if value is None:
        raise TypeError("the %s function returned None; it must return a tensor or a structure of tensors" % what)
    if isinstance(value, list):
        value = tuple(value)  # tf.data: a list returned by a function is a tuple
    return tx.nest.map_structure(tx.convert_to_tensor, value)


class StructuredFunction:
    """``fn`` over elements of ``input_spec`` (a structure of TensorSpec, or a list of such structures
    passed as separate arguments when ``multiple_args``): ``output_spec`` is what it returns."""

    def __init__(self, fn, input_spec, what, multiple_args=False):
        if not callable(fn):
            raise TypeError("the %s function must be callable, got %r" % (what, fn))
        self.fn, self.what, self.input_spec = fn, what, input_spec
        self._multiple = multiple_args
        self._in_flat = _structure.flat_specs(input_spec)
        self.seeded = False
        self._trace()
        if self.seeded:  # it calls tx.random: trace again with the element seed as an input
            self._trace()

    def _trace(self):
        holder = {}
        input_spec, what, seeded = self.input_spec, self.what, self.seeded

        def flat_fn(*flat):
            seed = flat[-1] if seeded else None
            args = tx.nest.pack_sequence_as(input_spec, list(flat[:-1] if seeded else flat))
            with _seeds.element_seeds(seed) as src:
                out = _normalize(self._call_python(args), what)
            holder["structure"], holder["random_calls"] = out, src.calls
            # Identity: an output may be a captured eager tensor, which a trace cannot return as is.
            return [tx.identity(t) for t in tx.nest.flatten(out)]

        flat_fn.__name__ = "%s_%s" % (what, getattr(self.fn, "__name__", "fn").strip("<>"))
        signature = self._in_flat + ([tx.TensorSpec([1], tx.uint64)] if seeded else [])
        self._function = tx.function(flat_fn, input_signature=signature)
        try:
            self._concrete = self.concrete = self._function.get_concrete_function()
        except ValueError as e:
            if not tx.executing_eagerly() or "must be from the same graph" not in str(e):
                raise
            raise ValueError("the %s function uses a tensor of a tx.function's graph but is traced when that function "
                             "runs (%s): a dataset made by a function that runs in Python for each element "
                             "(interleave, flat_map, group_by_window's reduce_func) cannot capture the tx.function's "
                             "tensors"
                             % (what, e)) from None
        # Tensors of the tx.function being built (Note [Captured outer tensors]).
        self.outer = [t for t in self.concrete.captured_inputs if not hasattr(t, "numpy")]
        unsupported = [t.name for t in self.outer if t.dtype in (tx.resource, tx.variant)]
        if unsupported:
            raise ValueError("the %s function uses %s tensors of the tx.function being traced (%s), which a dataset's "
                             "function cannot capture (their values do not leave the graph); pass what it reads "
                             "instead (for example, a variable's value)"
                             % (what, "/".join(sorted({t.dtype.name for t in self.outer if t.name in unsupported})),
                                ", ".join(unsupported)))
        self.output_spec = tx.nest.pack_sequence_as(
            holder["structure"], [tx.TensorSpec(t.shape, t.dtype) for t in self._concrete.outputs])
        self._out_flat = _structure.flat_specs(self.output_spec)
        self.seeded = holder["random_calls"] > 0

    def _call_python(self, args):
        if self._multiple:
            return self.fn(*args)
        return call_unpacked(self.fn, args)

    @property
    def stateful_random_ops(self):
        """The sorted op types with random state in the traced function and the functions it calls
        (Note [Element seeds]): ones the per-element seeds did not replace."""
        found = getattr(self, "_stateful_random", None)
        if found is None:
            graph_def = self._concrete.graph.as_graph_def()
            types = {n.op for n in graph_def.node}
            for f in graph_def.library.function:
                types.update(n.op for n in f.node_def)
            found = self._stateful_random = sorted(types & tx.random.experimental.STATEFUL_RANDOM_OPS)
        return found

    @property
    def graph(self):
        """The traced function's graph (map-and-batch fusion inspects it)."""
        return self._concrete.graph

    def bind(self, values):
        """This function's Binding for ``values`` of its outer tensors (Note [Captured outer tensors])."""
        return Binding(self, values)

    def bound(self, ctx):
        """What runs this function in an iterator of context ``ctx``: the function itself, or, when it
        captures outer tensors, its Binding there; either has ``concrete`` and holds the engine's
        Function (Note [Captured outer tensors])."""
        if not self.outer:
            return self
        b = ctx.bindings.get(id(self))
        if b is None:
            raise ValueError("the %s function uses tensors of the tx.function it was traced in (%s): its dataset is "
                             "iterated only inside that function (inside it, iter(), `for` and reduce read it when "
                             "the function runs)" % (self.what, self._outer_names()))
        return b

    def _outer_names(self):
        return ", ".join(t.name for t in self.outer)

    def __call__(self, flat, seed=None, ctx=None):
        """The traced function on one element (flat arrays; ``seed``, its Philox key when the function
        is ``seeded``, Note [Element seeds]) in an iterator of context ``ctx`` (needed when it
        captures outer tensors): its flat output arrays."""
        flat = [_structure.as_tensor(a) if getattr(a, "tensor", None) is not None else a for a in flat]
        cf = self.bound(ctx).concrete if self.outer else self._concrete
        outs = cf(*flat, seed) if self.seeded else cf(*flat)
        return tuple(_structure.with_tensor(t) for t in tx.nest.flatten(outs))

    def call_eager(self, flat, index=None, seed=None):
        """The Python function itself, eagerly, on one element; its output checked against the
        traced structure (debug mode)."""
        args = tx.nest.pack_sequence_as(self.input_spec, [_structure.as_tensor(a) for a in flat])
        with _seeds.element_seeds(tx.constant(seed) if self.seeded else None):
            out = _normalize(self._call_python(args), self.what)
        where = "the %s function" % self.what + ("" if index is None else " on element %d" % index)
        if not _structure.same_structure(self.output_spec, out):
            raise invalid("%s returned %s, whose structure differs from the traced %s"
                          % (where, tx.nest.map_structure(lambda t: t.dtype.name, out),
                             tx.nest.map_structure(lambda s: s.dtype.name, self.output_spec)))
        arrays = tuple(_structure.with_tensor(t) for t in tx.nest.flatten(out))
        _structure.check_element(self.output_spec, arrays, where)
        return arrays

    def run(self, flat, ctx, index, seed0=0):
        """One element the way ``ctx`` says (debug mode: eagerly); ``index`` is its position and
        ``seed0`` the iterator's seed word (Note [Element seeds])."""
        seed = _seeds.element_seed(seed0, index) if self.seeded else None
        if not ctx.debug:
            return self(flat, seed, ctx)
        if self.outer:
            raise invalid("debug mode runs the %s function eagerly in Python, but it uses tensors of the tx.function "
                          "it was traced in (%s), which exist only inside that function's graph (tf.data's debug "
                          "mode cannot run it either); iterate without debug mode" % (self.what, self._outer_names()))
        return self.call_eager(flat, index, seed)


class Binding:
    """A StructuredFunction's trace with the values of its outer tensors in place of them, for one
    iterator (Note [Captured outer tensors])."""

    def __init__(self, fn, values):
        values = iter(values)
        self.concrete = fn.concrete.with_captured_inputs(
            [t if hasattr(t, "numpy") else np.asarray(next(values)) for t in fn.concrete.captured_inputs])


def scalar_bool(fn, what):
    """Raises when a predicate's traced output is not a scalar bool (tf.data's check)."""
    spec = fn.output_spec
    if not isinstance(spec, tx.TensorSpec) or spec.dtype != tx.bool or not spec.shape.is_compatible_with([]):
        raise ValueError("Invalid `predicate`. `predicate` of %s must return a scalar tx.bool tensor, "
                         "but its return type was %s." % (what, tx.nest.map_structure(
                             lambda s: "%s%s" % (s.dtype.name, s.shape), spec)))


def _node_random(node):
    """[(function, its stateful random op types, its transformation's deterministic argument)] of
    ``node`` and the nodes below it, computed once per node (Note [Element seeds])."""
    found = node.__dict__.get("_stateful_random")
    if found is None:
        found = []
        for value in vars(node).values():
            for fn in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(fn, StructuredFunction) and fn.stateful_random_ops:
                    found.append((fn, fn.stateful_random_ops, getattr(node, "_deterministic", None)))
        for d in node._inputs:
            found.extend(_node_random(d))
        node._stateful_random = found
    return found


def check_node_random(node, ctx):
    """Raises when a deterministic pipeline's function holds stateful random ops, whose values would
    depend on thread timing (Note [Element seeds])."""
    if not ctx.deterministic:
        return
    for fn, types, deterministic in _node_random(node):
        if deterministic is False:
            continue
        name = getattr(fn.fn, "__name__", "fn")
        raise invalid("the %s function %s holds the stateful random op%s %s, whose values would depend on which "
                      "thread runs which element first and on restores, so the deterministic pipeline cannot run "
                      "it; draw with tx.random's samplers (uniform, normal, shuffle, gamma, ..., which take "
                      "per-element seeds in pipeline functions) or their stateless_* forms, or set "
                      "deterministic=False (Options.deterministic, or the transformation's argument) to run it "
                      "as is" % (fn.what, name, "s" if len(types) > 1 else "", ", ".join(types)))
