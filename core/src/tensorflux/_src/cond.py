"""`tx.cond`, `tx.case` and `tx.switch_case` (TensorFlow 2 semantics).

Executing eagerly, they run the chosen Python function at once (a GradientTape sees its ops). While
a graph is built (graph mode, or inside tx.function) each branch is traced into a library function
and one If/Case op (StatelessIf/StatelessCase when no branch holds a stateful op) chooses which to
run (control_flow.py, Note [Control-flow captures]).
"""

import collections
import functools

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import errors
from tensorflux._src import graph as _graph
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.control_flow import (function_name, graph_outputs, is_stateful, join_shapes, make_function,
                                          scalar_predicate, structure_signature, to_graph_tensor, trace)
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.nest import flatten, pack_sequence_as
from tensorflux._src.tensor_array import TensorArray, with_flow
from tensorflux._src.operation import Tensor


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if the scalar bool ``pred`` is true, else ``false_fn()``.

    Both functions take no arguments and return the same nested structure (lists, tuples, dicts,
    namedtuples) of tensors with the same dtypes; a result's static shape is the most specific
    shape compatible with both branches'. Executing eagerly only the chosen function runs; in a
    graph both are traced and one If op runs the chosen one. A Python bool ``pred`` is refused in
    a graph (as in TensorFlow).

    >>> x = tx.constant(3.0)
    >>> float(tx.cond(x > 0.0, lambda: x * 2.0, lambda: -x))
    6.0
    """
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if _context.executing_eagerly():
        return true_fn() if eager_truth(pred, "cond: pred") else false_fn()
    if isinstance(pred, bool):
        raise TypeError("cond: pred must not be a Python bool (%r) while building a graph; use a bool tensor" % pred)
    g = _graph.get_default_graph()
    with g.name_scope(name or "cond") as scope:
        p = scalar_predicate(to_graph_tensor(g, pred, "pred"), "[%s] pred" % scope[:-1])
        return build_branches(g, scope, p, [true_fn, false_fn], ["true_fn", "false_fn"], "tx.cond")


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs ``branch_fns[branch_index]()``: an integer-indexed conditional (a Case op in graphs).

    ``branch_fns`` is a list of callables, a dict from int to callable, or a list of (int,
    callable) pairs; the keys must be 0 .. n-1. An index out of range runs ``default`` (when given)
    or the branch with the largest key. All branches return the same structure and dtypes.

    >>> branches = [lambda: tx.constant(10), lambda: tx.constant(20)]
    >>> int(tx.switch_case(tx.constant(1), branches))
    20
    """
    fns = _branch_list(branch_fns, default)
    if _context.executing_eagerly():
        index = convert_to_tensor(branch_index)
        _check_index(index, "switch_case")
        i = int(index.numpy())
        return fns[i if 0 <= i < len(fns) else -1]()
    g = _graph.get_default_graph()
    with g.name_scope(name or "switch_case") as scope:
        index = to_graph_tensor(g, branch_index, "branch_index")
        _check_index(index, "[%s]" % scope[:-1])
        if index.dtype != _dtypes.int32:  # Case takes int32: clamp in int64 first, out of range stays out of range
            wide = gen_ops.cast(index, DstT=_dtypes.int64)
            index = gen_ops.cast(gen_ops.minimum(gen_ops.maximum(wide, -1), len(fns)), DstT=_dtypes.int32)
        labels = ["branches[%d]" % i for i in range(len(fns))]
        return build_branches(g, scope, index, fns, labels, "tx.switch_case")


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the first ``fn`` whose ``pred`` is true in ``pred_fn_pairs`` ((bool scalar
    tensor, callable) pairs, or a dict), else of ``default()``.

    Without ``default`` the last function is the default, and no predicate being true is an
    InvalidArgumentError at run time; with ``exclusive=True`` more than one true predicate is. In a
    graph the predicates select a branch of one Case op (the errors are Assert ops it depends on).
    ``strict`` is accepted for TensorFlow compatibility (structures are always kept).

    >>> x = tx.constant(5)
    >>> branches = [(x < 0, lambda: tx.constant(-1)), (x < 10, lambda: tx.constant(1))]
    >>> int(tx.case(branches, default=lambda: tx.constant(2)))
    1
    """
    preds, fns = _case_pairs(pred_fn_pairs, exclusive)
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    if _context.executing_eagerly():
        truth = [eager_truth(p, "case: pred") for p in preds]
        if exclusive and sum(truth) > 1:
            raise errors.InvalidArgumentError(None, None, "[case] Input error: exclusive=True: more than 1 conditions "
                                              "evaluated as True: %s" % truth)
        for t, fn in zip(truth, fns):
            if t:
                return fn()
        if default is None:
            raise errors.InvalidArgumentError(None, None, "[case] Input error: None of conditions evaluated as True: %s"
                                              % truth)
        return default()
    g = _graph.get_default_graph()
    with g.name_scope(name or "case") as scope:
        what = "[%s] pred" % scope[:-1]
        preds = [scalar_predicate(to_graph_tensor(g, p, "pred"), what) for p in preds]
        stacked = gen_ops.pack(preds, axis=0, name="preds")
        first = gen_ops.pack(preds + [gen_ops.const(value=True, dtype=_dtypes.bool)], axis=0)
        index = gen_ops.arg_max(gen_ops.cast(first, DstT=_dtypes.int32), 0, output_type=_dtypes.int32,
                                name="branch_index")  # the first true predicate, else n (the default)
        count = gen_ops.sum(gen_ops.cast(stacked, DstT=_dtypes.int32), [0], name="num_true")
        checks = []
        if exclusive:  # TensorFlow's "Input error: exclusive=True: more than 1 conditions evaluated as True"
            checks.append(gen_ops.assert_(count <= 1, [stacked], summarize=len(preds), name="more_than_one_true"))
        if default is None:  # TensorFlow's "Input error: None of conditions evaluated as True"
            checks.append(gen_ops.assert_(count >= 1, [stacked], summarize=len(preds), name="none_true"))
        branches = list(fns) + ([default] if default is not None else [])
        labels = ["fn %d" % i for i in range(len(fns))] + (["default"] if default is not None else [])
        with g.control_dependencies(checks):
            index = gen_ops.identity(index)
        return build_branches(g, scope, index, branches, labels, "tx.case")


def eager_truth(pred, what):
    """The value of a predicate executing eagerly: a bool holding one element (TypeError for
    another dtype, ValueError for another size, as in graphs)."""
    p = convert_to_tensor(pred)
    if p.dtype != _dtypes.bool:
        raise TypeError("%s must be a bool tensor, got a %s tensor" % (what, p.dtype.name))
    if p.shape.num_elements() != 1:
        raise ValueError("%s must be a scalar, got shape %s" % (what, p.shape))
    return bool(p.numpy().reshape(()))


def _check_index(index, what):
    if not index.dtype.is_integer:
        raise TypeError("%s: branch_index must be an integer tensor, got %s" % (what, index.dtype.name))
    if index.shape.rank is not None and index.shape.rank != 0:
        raise ValueError("%s: branch_index must be a scalar, got shape %s" % (what, index.shape))


def _branch_list(branch_fns, default):
    """switch_case's branch functions in key order, ``default`` last (TensorFlow's rules)."""
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    items = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in items):
        items = list(enumerate(items))
    for pair in items:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in 'branch_fns' must be a 2-tuple. Received %r." % (pair,))
        key, fn = pair
        if not isinstance(key, int) or isinstance(key, bool):
            raise TypeError("key must be a Python `int`, got %s" % type(key).__name__)
        if not callable(fn):
            raise TypeError("fn for key %d must be callable." % key)
    keys = sorted(k for k, _ in items)
    if keys != list(range(len(keys))):
        raise ValueError("branch indices (keys) must form contiguous range of [0 to %d) but found {%s}"
                         % (len(keys), ",".join(map(str, keys))))
    fns = [fn for _, fn in sorted(items, key=lambda kv: kv[0])]
    if default is not None:
        if not callable(default):
            raise TypeError("default must be callable.")
        fns.append(default)
    return fns


def _case_pairs(pred_fn_pairs, exclusive):
    """case's predicates and functions in test order (TensorFlow's rules for dicts)."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError("'pred_fn_pairs' must be a list, tuple, or dict. Received: %s" % type(pred_fn_pairs).__name__)
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        if _context.executing_eagerly() and not exclusive:
            raise ValueError("Unordered dictionaries are not supported for the 'pred_fn_pairs' argument when "
                             "`exclusive=False` and eager mode is enabled.")
        pairs = list(pred_fn_pairs.items())
        if not _context.executing_eagerly():
            pairs.sort(key=lambda kv: getattr(kv[0], "name", ""))
    else:
        pairs = list(pred_fn_pairs)
    if not pairs:
        raise ValueError("'pred_fn_pairs' must not be empty")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in 'pred_fn_pairs' must be a 2-tuple. Received %r." % (pair,))
        pred, fn = pair
        if not isinstance(pred, (Tensor, EagerTensor)):
            raise TypeError("pred must be a Tensor, got: %r" % (pred,))
        if pred.dtype != _dtypes.bool:
            raise TypeError("pred must be Tensor of type bool: %s" % getattr(pred, "name", pred))
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % getattr(pred, "name", pred))
    return [p for p, _ in pairs], [fn for _, fn in pairs]


def build_branches(g, scope, selector, fns, labels, api):
    """Traces ``fns`` (no arguments) into branch functions of one If (two branches, ``selector`` a
    bool) or Case op (``selector`` an int32 index) named ``scope`` in graph ``g``; returns the
    results in the structure of the first branch's."""
    op_name = scope[:-1]
    traced = []
    for fn, label in zip(fns, labels):
        graph, _, result = trace(g, function_name(g, scope, label), lambda _, fn=fn: fn())
        traced.append((graph, result, graph_outputs(graph, result, label)))
    _check_same_outputs(op_name, api, traced, labels)
    _, first_result, first = traced[0]
    positions = [i for i, t in enumerate(first) if t is not None]
    shapes = [functools.reduce(join_shapes, [flat[i].shape for _, _, flat in traced]) for i in positions]
    captures = {}
    for graph, _, _ in traced:
        for t in graph.external_captures:
            captures.setdefault(t._pair, t)
    inputs = list(captures.values())
    funcs = [make_function(graph, graph.name, [graph.capture(t) for t in inputs], [t for t in flat if t is not None])
             for graph, _, flat in traced]
    stateful = any(is_stateful(graph) for graph, _, _ in traced)
    tout = [first[i].dtype for i in positions]
    controls = []
    for graph, _, _ in traced:
        controls += [op for op in graph.control_captures if op not in controls]
    with g.control_dependencies(controls):
        if len(fns) == 2 and selector.dtype == _dtypes.bool:
            op = gen_ops.if_ if stateful else gen_ops.stateless_if
            outs = op(selector, inputs, tout, funcs[0], funcs[1], output_shapes=shapes, name=scope)
        else:
            op = gen_ops.case if stateful else gen_ops.stateless_case
            outs = op(selector, inputs, tout, funcs, output_shapes=shapes, name=scope)
    it = iter(outs)
    # A TensorArray result comes back as its flow; it is rebuilt like the first branch's.
    leaves = [None if t is None else next(it) for t in first]
    firsts = flatten(first_result)
    leaves = [with_flow(a, v) if isinstance(a, TensorArray) else v for a, v in zip(firsts, leaves)]
    return pack_sequence_as(first_result, leaves)


def _check_same_outputs(op_name, api, traced, labels):
    _, r0, f0 = traced[0]
    for (_, rb, fb), label in zip(traced[1:], labels[1:]):
        detail = None
        if structure_signature(r0) != structure_signature(rb):
            detail = "they have different structures"
        else:
            for i, (a, b) in enumerate(zip(f0, fb)):
                if (a is None) != (b is None):
                    detail = "value %d is None in one branch only" % i
                elif a is not None and a.dtype != b.dtype:
                    detail = "value %d has type %s in %s but %s in %s" % (i, a.dtype.name, labels[0], b.dtype.name,
                                                                         label)
                if detail:
                    break
        if detail:
            raise TypeError("[%s] %s and %s arguments to %s must have the same number, type, and overall structure "
                            "of return values: %s.\n%s output: %r\n%s output: %r"
                            % (op_name, labels[0], label, api, detail, labels[0], r0, label, rb))
