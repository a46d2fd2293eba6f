"""`tx.while_loop` (TensorFlow 2 semantics).

Executing eagerly, the loop runs in Python on eager tensors (a GradientTape sees every iteration's
ops). While a graph is built (graph mode, or inside tx.function) ``cond`` and ``body`` are traced
once into library functions and one While op (StatelessWhile when neither holds a stateful op)
runs the whole loop in the engine. Tensors the functions capture from enclosing graphs become
extra loop variables that the body passes through unchanged (control_flow.py, Note [Control-flow
captures]); ``maximum_iterations`` adds an iteration counter as the first loop variable.
"""

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import graph as _graph
from tensorflux._src.cond import eager_truth
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.control_flow import (function_name, graph_outputs, is_stateful, make_function,
                                          scalar_predicate, shape_at_most_as_general, structure_signature,
                                          to_graph_tensor, trace)
from tensorflux._src.generated import gen_ops
from tensorflux._src.nest import flatten, pack_sequence_as
from tensorflux._src.tensor_array import TensorArray, with_flow
from tensorflux._src.tensor_shape import TensorShape, as_shape


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` is true; returns the
    final loop variables in the structure of ``loop_vars``.

    ``loop_vars`` is a list or tuple (or namedtuple) of tensors, Python or NumPy values (made
    tensors) and nested lists, tuples, dicts and namedtuples of them. ``body`` returns the same
    structure (a single value for a single loop variable may be returned bare) with the same
    dtypes; in a graph each variable must keep its shape unless ``shape_invariants`` (the same
    structure of TensorShapes) allows it to vary. ``cond`` returns a scalar bool. With
    ``maximum_iterations`` the loop also stops after that many iterations. ``back_prop=False``
    stops gradients at the results; ``parallel_iterations`` is recorded on the While op (iterations
    run one after another); ``swap_memory`` is accepted and ignored.

    >>> i, total = tx.while_loop(lambda i, t: i < 5, lambda i, t: (i + 1, t + i), [0, 0])
    >>> int(i), int(total)
    (5, 10)
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if isinstance(parallel_iterations, bool) or not isinstance(parallel_iterations, (int, np.integer)) \
            or parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError("loop_vars must be a list or tuple (or namedtuple) of loop variables, got %s; for one "
                        "variable pass [x]" % type(loop_vars).__name__)
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    if _context.executing_eagerly():
        return _eager_while(cond, body, loop_vars, maximum_iterations)
    return _graph_while(cond, body, loop_vars, shape_invariants, int(parallel_iterations), back_prop,
                        maximum_iterations, name)


def _eager_value(v):
    """A loop value eagerly: a TensorArray stays one (a Python list of tensors), the rest become tensors."""
    return v if isinstance(v, TensorArray) else convert_to_tensor(v)


def _eager_while(cond, body, loop_vars, maximum_iterations):
    flat = [_eager_value(v) for v in flatten(loop_vars)]
    dtypes = [t.dtype for t in flat]
    paths = _leaf_paths(loop_vars)
    limit = None
    if maximum_iterations is not None:
        m = convert_to_tensor(maximum_iterations)
        _check_limit(m, "while_loop")
        limit = int(m.numpy())
    values = pack_sequence_as(loop_vars, flat)
    i = 0
    while (limit is None or i < limit) and eager_truth(cond(*values), "while_loop: cond"):
        out = _body_structure(body(*values), loop_vars, "while_loop")
        flat = []
        for k, leaf in enumerate(flatten(out)):
            _check_not_none(leaf, paths[k], "while_loop")
            t = leaf if isinstance(leaf, TensorArray) else _convert_hinted(leaf, dtypes[k])
            _check_dtype(t.dtype, dtypes[k], paths[k], "while_loop")
            flat.append(t)
        values = pack_sequence_as(loop_vars, flat)
        i += 1
    return values


def _graph_while(cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop, maximum_iterations, name):
    g = _graph.get_default_graph()
    with g.name_scope(name or "while") as scope:
        where = "[%s]" % scope[:-1]
        leaves = flatten(loop_vars)
        paths = _leaf_paths(loop_vars)
        flat_in = [to_graph_tensor(g, v, "loop_var") for v in leaves]
        # TensorArrays travel as their flows (TensorLists) and are rebuilt around the loop's values.
        arrays = {i: v for i, v in enumerate(leaves) if isinstance(v, TensorArray)}

        def rebuild(values):
            return pack_sequence_as(loop_vars, [with_flow(arrays[i], v) if i in arrays else v
                                                for i, v in enumerate(values)])

        names = [v.name if hasattr(v, "_op") else flat_in[i].name for i, v in enumerate(leaves)]
        invariants = _invariants(loop_vars, shape_invariants, flat_in, paths, names, where)
        invariants = [TensorShape([]) if i in arrays else s for i, s in enumerate(invariants)]
        dtypes = [t.dtype for t in flat_in]
        counter, limit = [], None
        if maximum_iterations is not None:
            limit = to_graph_tensor(g, maximum_iterations, "maximum_iterations", _dtypes.int32)
            _check_limit(limit, where)
            counter = [gen_ops.const(value=np.zeros((), limit.dtype.as_numpy_dtype), dtype=limit.dtype,
                                     name="iteration_counter")]
        k = len(counter)
        specs = [(t.dtype, TensorShape([])) for t in counter] + list(zip(dtypes, invariants))

        def cond_fn(args):
            pred = to_graph_tensor(_graph.get_default_graph(), cond(*rebuild(args[k:])), "cond output")
            pred = scalar_predicate(pred, "%s cond output" % where)
            return gen_ops.logical_and(gen_ops.less(args[0], limit), pred) if k else pred

        cond_graph, cond_args, pred = trace(g, function_name(g, scope, "cond"), cond_fn, specs)

        def body_fn(args):
            return _body_structure(body(*rebuild(args[k:])), loop_vars, where)

        body_graph, body_args, result = trace(g, function_name(g, scope, "body"), body_fn, specs)
        flat_out = graph_outputs(body_graph, result, "body", dtypes)
        for t, dtype, inv, path, nm in zip(flat_out, dtypes, invariants, paths, names):
            _check_not_none(t, path, where)
            _check_dtype(t.dtype, dtype, "%s (`%s`)" % (path, nm), where)
            if not shape_at_most_as_general(t.shape, inv):
                raise ValueError("%s Input tensor `%s` (%s) enters the loop with shape %s, but has shape %s after one "
                                 "iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
                                 "argument of tx.while_loop to specify a less-specific shape."
                                 % (where, nm, path, inv, t.shape))
        if k:
            with body_graph.as_default():
                flat_out = [gen_ops.add(body_args[0], 1, name="next_iteration")] + flat_out
        # Captures of either function are loop invariants, inputs of both (and passed through by the body).
        captured = {}
        for graph in (cond_graph, body_graph):
            for t in graph.external_captures:
                captured.setdefault(t._pair, t)
        extra = list(captured.values())
        cond_f = make_function(cond_graph, cond_graph.name, cond_args + [cond_graph.capture(t) for t in extra], [pred])
        passed = [body_graph.capture(t) for t in extra]
        body_f = make_function(body_graph, body_graph.name, body_args + passed, flat_out + passed)
        op = gen_ops.while_ if is_stateful(cond_graph) or is_stateful(body_graph) else gen_ops.stateless_while
        shapes = [TensorShape([])] * k + invariants + [t.shape for t in extra]
        controls = list(cond_graph.control_captures) + [c for c in body_graph.control_captures
                                                        if c not in cond_graph.control_captures]
        with g.control_dependencies(controls):
            outs = op(counter + flat_in + extra, cond_f, body_f, output_shapes=shapes,
                      parallel_iterations=parallel_iterations, name=scope)
        results = outs[k:k + len(flat_in)]
        if not back_prop:
            results = [gen_ops.stop_gradient(t) for t in results]
        return rebuild(results)


def _check_limit(limit, where):
    if not limit.dtype.is_integer:
        raise TypeError("%s 'maximum_iterations' must be an integer, got %s" % (where, limit.dtype.name))
    if limit.shape.rank != 0:
        raise ValueError("%s 'maximum_iterations' must be a scalar. Received shape: %s" % (where, limit.shape))


def _convert_hinted(value, dtype):
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            dtype.is_floating or (dtype.is_integer and isinstance(value, int))):
        return convert_to_tensor(value, dtype=dtype)
    return convert_to_tensor(value)


def _body_structure(out, loop_vars, where):
    """What ``body`` returned, checked to have the structure of ``loop_vars`` (lists and tuples
    alike); for a single loop variable its value may be returned bare."""
    want = structure_signature(loop_vars, check_types=False)
    got = structure_signature(out, check_types=False)
    if got != want and len(loop_vars) == 1 and got == structure_signature(loop_vars[0], check_types=False):
        out, got = [out], want
    if got != want:
        raise ValueError("%s body must return the same structure as loop_vars (%d values): it returned %d values.\n"
                         "loop_vars: %r\nbody returned: %r" % (where, len(flatten(loop_vars)), len(flatten(out)),
                                                              loop_vars, out))
    return out


def _check_not_none(value, path, where):
    if value is None:
        raise TypeError("%s body returned None for loop variable %s" % (where, path))


def _check_dtype(got, expected, what, where):
    if got != expected:
        raise TypeError("%s Loop variable %s enters the loop with type %s but has type %s after one iteration; a loop "
                        "variable's type must stay the same." % (where, what, expected.name, got.name))


def _leaf_paths(structure, prefix="loop_vars"):
    """Where each leaf of ``structure`` is, in flatten order ("loop_vars[1]['a']")."""
    if isinstance(structure, dict):
        return [p for key in sorted(structure) for p in _leaf_paths(structure[key], "%s[%r]" % (prefix, key))]
    if isinstance(structure, (list, tuple)):
        return [p for i, s in enumerate(structure) for p in _leaf_paths(s, "%s[%d]" % (prefix, i))]
    return [prefix]


def _flatten_up_to(structure, value, where):
    """The items of ``value`` at the leaves of ``structure`` (a leaf may be a list: a shape)."""
    if isinstance(structure, dict):
        if not isinstance(value, dict) or sorted(value) != sorted(structure):
            raise ValueError("%s shape_invariants must have the structure of loop_vars: %r vs %r" % (where, value,
                                                                                                     structure))
        return [v for key in sorted(structure) for v in _flatten_up_to(structure[key], value[key], where)]
    if isinstance(structure, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(structure):
            raise ValueError("%s shape_invariants must have the structure of loop_vars: %r vs %r" % (where, value,
                                                                                                     structure))
        return [v for s, x in zip(structure, value) for v in _flatten_up_to(s, x, where)]
    return [value]


def _invariants(loop_vars, shape_invariants, flat_in, paths, names, where):
    if shape_invariants is None:
        return [t.shape for t in flat_in]
    out = []
    for t, inv, path, nm in zip(flat_in, _flatten_up_to(loop_vars, shape_invariants, where), paths, names):
        if t.dtype == _dtypes.variant:  # a TensorArray's flow: its invariant is about the elements, not the flow
            out.append(TensorShape([]))
            continue
        inv = as_shape(inv)
        if not shape_at_most_as_general(t.shape, inv):
            raise ValueError("%s The shape invariant specified for %s (`%s`) is not compatible with the initial shape "
                             "of the loop variable. It enters the loop with shape %s, but the specified shape "
                             "invariant is %s." % (where, path, nm, t.shape, inv))
        out.append(inv)
    return out
