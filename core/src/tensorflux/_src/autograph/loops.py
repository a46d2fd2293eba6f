"""The loop operators of converted code (`ag__.while_stmt`, `ag__.for_stmt`): a Python loop, or
one tx.while_loop whose loop variables are the statement's live written names (Note [AutoGraph
state] in analysis.py) when the condition is a tensor or the iterable is a tensor (iterated along
its first axis; tx.range gives a tensor, so `for i in tx.range(n)` is a graph loop too)."""

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


_CHANGED_TO_TENSOR = ("The condition of %s loop started as non-Tensor, then changed to Tensor. This may happen either "
                      "because variables changed type, or when a break or return statement inside the loop depends "
                      "on a Tensor condition. In both cases, changing to a loop on a tensor (a tensor condition, "
                      "tx.range) should remove the error. (%s statement at %s)")


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
        _tensor_loop(lambda _: test(), lambda _: body(), None, get_state, set_state, names, nloop, where, "while",
                     opts)
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

    def test(i):
        more = i < n
        return more if extra_test is None else and_(lambda: more, extra_test)

    def step(i):
        body(x[i])

    _tensor_loop(test, step, 0, get_state, set_state, names, nloop, where, "for", opts)


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


def _tensor_loop(test, step, counter, get_state, set_state, names, nloop, where, kind, opts):
    """One tx.while_loop: loop variables ``[counter] + state[:nloop]`` (no counter when None);
    ``test(i)`` and ``step(i)`` run with the state set from the loop variables; ``opts`` are the
    loop's set_loop_options arguments."""
    init = tuple(get_state())
    loop_names = names[:nloop]
    _check_defined(loop_names, init[:nloop], where, kind)
    rest = init[nloop:]
    start = [pack_sequence_as(v, [leaf if isinstance(leaf, TensorArray) else convert_to_tensor(leaf)
                                  for leaf in flatten(v)]) for v in init[:nloop]]
    opts = dict(opts or {})
    invariants = _shape_invariants(init[:nloop], start, opts.pop("shape_invariants", None) or ())
    has_counter = counter is not None
    head = [convert_to_tensor(counter)] if has_counter else []
    if not start and not has_counter:  # tx.while_loop needs a loop variable
        head = [convert_to_tensor(0)]

    def split(args):
        args = list(args)
        return (args[0] if head else None), args[len(head):]

    def cond_fn(*args):
        i, values = split(args)
        set_state(tuple(values) + rest)
        return test(i)

    def body_fn(*args):
        i, values = split(args)
        set_state(tuple(values) + rest)
        step(i)
        new = tuple(get_state())[:nloop]
        for name, before, after, inv in zip(loop_names, start, new, invariants):
            _check_iteration(name, before, after, inv, where, kind)
        return tuple(([i + 1] if has_counter else head) + list(new))


    out = while_loop(cond_fn, body_fn, head + start, shape_invariants=[TensorShape([])] * len(head) + invariants,
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
