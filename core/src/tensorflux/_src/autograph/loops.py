"""The loop operators of converted code (`ag__.while_stmt`, `ag__.for_stmt`): a Python loop, or
one tx.while_loop whose loop variables are the statement's live written names (Note [AutoGraph
state] in analysis.py) when the condition is a tensor or the iterable is a tensor (iterated along
its first axis; tx.range gives a tensor, so `for i in tx.range(n)` is a graph loop too), or, in a
graph, an object with `__tx_graph_iter__` (Note [Graph iterables])."""

from tensorflux._src.autograph.operators import (Undefined, UndefinedReturnValue, _check_same_structure, _leaf_dtype,
                                                 _python_number_fits, _where, and_, is_tensor)
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.nest import flatten, pack_sequence_as
from tensorflux._src.tensor_array import TensorArray
from tensorflux._src import dtypes as _dtypes
from tensorflux._src.shape_ops import shape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.while_loop import while_loop
from tensorflux._src.tensor_shape import TensorShape, as_shape
from tensorflux._src.control_flow import shape_at_most_as_general
from tensorflux._src.context import executing_eagerly


_CHANGED_TO_TENSOR = ("The condition of %s loop started as non-Tensor, then changed to Tensor. This may happen either "
                      "because variables changed type, or when a break or return statement inside the loop depends "
                      "on a Tensor condition. In both cases, changing to a loop on a tensor (a tensor condition, "
                      "tx.range) should remove the error. (%s statement at %s)")

# Note [Graph iterables]: an object that is not a tensor (a dataset of an add-on, say) can make a
# converted `for x in obj` a loop of the graph: while ops are added to a graph (inside a
# tx.function), `for_stmt` calls `obj.__tx_graph_iter__()` for a reader whose `next_or_end()` adds
# the ops fetching the next element and returns `(more, element)`: `more` a scalar bool tensor, false
# once there is no element, `element` a structure of tensors of the same dtypes and compatible shapes
# at every call (any values when `more` is false). The loop is one tx.while_loop: the element is
# fetched before it and at the end of each iteration, and the body runs while `more` is true.


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Options of the converted loop whose body calls this first (TensorFlow's
    tf.autograph.experimental.set_loop_options): ``shape_invariants`` is a list of (loop variable,
    TensorShape) pairs, ``maximum_iterations`` bounds the loop, ``parallel_iterations`` is recorded
    on the While op, ``swap_memory`` is accepted. AutoGraph takes the call out of the loop body and
    applies it to the tx.while_loop; anywhere else it does nothing."""
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants


def while_stmt(test, body, get_state, set_state, names, nloop, opts=None):
    """``while test(): body()``; a tx.while_loop over the first ``nloop`` of ``names`` when the
    first evaluation of ``test()`` gives a tensor."""
    where = _where()
    first = test()
    if is_tensor(first):
        _tensor_loop(lambda _: test(), lambda _: body(), [], None, get_state, set_state, names, nloop, where,
                     "while", opts)
        return
    while first:
        body()
        first = test()
        if is_tensor(first):
            raise NotImplementedError(_CHANGED_TO_TENSOR % ("while", "while", where))


def for_stmt(iterable, extra_test, body, get_state, set_state, names, nloop, opts=None):
    """``for x in iterable: body(x)``, stopping early when ``extra_test()`` (break/return flags)
    is false; a tx.while_loop over the rows of ``iterable`` when it is a tensor."""
    where = _where()
    if is_tensor(iterable):
        _tensor_for(iterable, extra_test, body, get_state, set_state, names, nloop, where, opts)
        return
    if hasattr(type(iterable), "__tx_graph_iter__") and not executing_eagerly():
        _graph_iterable_for(iterable.__tx_graph_iter__(), extra_test, body, get_state, set_state, names, nloop,
                            where, opts)
        return
    if isinstance(iterable, EagerTensor):
        iterable = [iterable[i] for i in range(len(iterable))]
    for x in iterable:
        if extra_test is not None:
            more = extra_test()
            if is_tensor(more):
                raise NotImplementedError(_CHANGED_TO_TENSOR % ("for", "for", where))
            if not more:
                break
        body(x)


def _tensor_for(x, extra_test, body, get_state, set_state, names, nloop, where, opts):
    if x.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor (for statement at %s)" % where)
    n = x.shape.as_list()[0] if x.shape.rank is not None and x.shape.as_list()[0] is not None else None
    if n is None:
        n = shape(x, out_type=_dtypes.int32)[0]

    def test(head):
        more = head[0] < n
        return more if extra_test is None else and_(lambda: more, extra_test)

    def step(head):
        body(x[head[0]])

    _tensor_loop(test, step, [convert_to_tensor(0)], lambda head: [head[0] + 1], get_state, set_state, names, nloop,
                 where, "for", opts)


def _graph_iterable_for(reader, extra_test, body, get_state, set_state, names, nloop, where, opts):
    """`for x in obj` for an object with `__tx_graph_iter__` (Note [Graph iterables])."""
    more, element = reader.next_or_end()
    n = len(flatten(element))

    def fetch():
        more, element = reader.next_or_end()
        return [more] + flatten(element)

    def test(head):
        return head[0] if extra_test is None else and_(lambda: head[0], extra_test)

    def step(head):
        body(pack_sequence_as(element, head[1:1 + n]))

    _tensor_loop(test, step, [more] + flatten(element), lambda _: fetch(), get_state, set_state, names, nloop,
                 where, "for", opts)


def _check_defined(names, values, where, kind):
    for name, v in zip(names, values):
        if isinstance(v, UndefinedReturnValue):
            raise NotImplementedError("a return statement cannot be placed inside this TensorFlow loop; this may "
                                      "happen if a return statement depends on a static Python condition such as a "
                                      "hyperparameter (%s statement at %s)" % (kind, where))
        if isinstance(v, Undefined):
            raise ValueError("'%s' must be defined before the loop (%s statement at %s)" % (name, kind, where))
        if v is None:
            raise ValueError("'%s' is not allowed to be None before the loop (%s statement at %s)"
                             % (name, kind, where))
        bad = [leaf for leaf in flatten(v) if _leaf_dtype(leaf) is None]
        if bad:
            raise TypeError("'%s' is a loop variable of a loop on a tensor (%s statement at %s): it must be a tensor, "
                            "a number or a nested structure of them, got %r" % (name, kind, where, bad[0]))


def _tensor_loop(test, step, head, advance, get_state, set_state, names, nloop, where, kind, opts):
    """One tx.while_loop: loop variables ``head + state[:nloop]``; ``test(h)`` and ``step(h)`` run
    with the state set from the loop variables and ``h`` the head's current tensors, and
    ``advance(h)`` gives the head's next tensors (a counter's increment, an iterable's next element);
    ``opts`` are the loop's set_loop_options arguments."""
    init = tuple(get_state())
    loop_names = names[:nloop]
    _check_defined(loop_names, init[:nloop], where, kind)
    rest = init[nloop:]
    start = [pack_sequence_as(v, [leaf if isinstance(leaf, TensorArray) else convert_to_tensor(leaf)
                                  for leaf in flatten(v)]) for v in init[:nloop]]
    opts = dict(opts or {})
    invariants = _shape_invariants(init[:nloop], start, opts.pop("shape_invariants", None) or ())
    head = list(head)
    has_head = bool(head)
    if not start and not has_head:  # tx.while_loop needs a loop variable
        head = [convert_to_tensor(0)]

    def split(args):
        args = list(args)
        return args[:len(head)], args[len(head):]

    def cond_fn(*args):
        h, values = split(args)
        set_state(tuple(values) + rest)
        return test(h)

    def body_fn(*args):
        h, values = split(args)
        set_state(tuple(values) + rest)
        step(h)
        new = tuple(get_state())[:nloop]
        for name, before, after, inv in zip(loop_names, start, new, invariants):
            _check_iteration(name, before, after, inv, where, kind)
        return tuple((list(advance(h)) if has_head else h) + list(new))

    out = while_loop(cond_fn, body_fn, head + start, shape_invariants=[h.shape for h in head] + invariants,
                     maximum_iterations=opts.get("maximum_iterations"),
                     parallel_iterations=opts.get("parallel_iterations") or 10)
    set_state(tuple(out[len(head):]) + rest)


def _shape_invariants(values, start, pairs):
    """The shape invariant of each loop variable (the structure of its value, TensorShape
    leaves): its own shape, or the shape set_loop_options gave for it (matched by identity)."""
    given = {}
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError("shape_invariants must be a list of (loop variable, shape) pairs, got %r" % (pair,))
        given[id(pair[0])] = as_shape(pair[1])
    out = []
    for value, tensors in zip(values, start):
        if id(value) in given and len(flatten(tensors)) == 1:
            out.append(pack_sequence_as(tensors, [given[id(value)]]))
        else:
            # A TensorArray's invariant is that of its flow (tx.while_loop keeps it a scalar).
            out.append(pack_sequence_as(tensors, [TensorShape([]) if isinstance(t, TensorArray) else t.shape
                                                  for t in flatten(tensors)]))
    return out


def _check_iteration(name, before, after, invariant, where, kind):
    """TensorFlow's checks of a loop variable after one iteration: defined, same structure,
    dtype and shape (at least as specific as its invariant)."""
    if isinstance(after, (Undefined, UndefinedReturnValue)) or after is None:
        raise ValueError("'%s' is %s after one iteration of the loop (%s statement at %s)"
                         % (name, "None" if after is None else "undefined", kind, where))
    _check_same_structure(name, before, after, "before the loop", "after one iteration", where, "%s statement" % kind)
    for a, b, inv in zip(flatten(before), flatten(after), flatten(invariant)):
        db = _leaf_dtype(b)
        if db is None:
            raise TypeError("'%s' must stay a tensor in the loop, got %r after one iteration (%s statement at %s)"
                            % (name, b, kind, where))
        if a.dtype != db and not _python_number_fits(b, a.dtype):
            raise TypeError("'%s' has dtype %s before the loop, but dtype %s after one iteration (%s statement at %s)"
                            % (name, a.dtype.name, db.name, kind, where))
        shape_b = getattr(b, "shape", None)
        if shape_b is not None and not _at_most_as_general(shape_b, inv):
            raise ValueError("'%s' has shape %s before the loop, but shape %s after one iteration. Use "
                             "tx.autograph.experimental.set_loop_options to set shape invariants. (%s statement at "
                             "%s)" % (name, inv, shape_b, kind, where))


def _at_most_as_general(shape, invariant):
    return shape_at_most_as_general(as_shape(shape), invariant)
