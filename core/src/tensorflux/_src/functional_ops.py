"""Higher-order functions over the leading dimension of tensors: map_fn, scan, foldl, foldr and
vectorized_map (TensorFlow 2 semantics and signatures).

Executing eagerly they loop in Python (a GradientTape sees every call of ``fn``). While a graph
is built they run as one tx.while_loop whose body gathers element i of every input; per-element
results are stacked by concatenating onto an accumulator whose leading dimension grows (a
shape invariant of [None, ...]). map_fn calls ``fn`` once outside the loop on element 0 to learn
its output structure, dtypes and shapes, so in a graph its input must not be empty at run time
(a statically empty input needs ``fn_output_signature``)."""

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import concat, expand_dims, stack
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.function import TensorSpec
from tensorflux._src.gather_ops import gather
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.nest import flatten, pack_sequence_as
from tensorflux._src.shape_ops import shape as _shape
from tensorflux._src.tensor_shape import TensorShape
from tensorflux._src.while_loop import while_loop


def _tensor(x):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x)


def _flat_elems(elems, fn_name):
    flat = [_tensor(e) for e in flatten(elems)]
    if not flat:
        raise ValueError("%s: elems must contain at least one tensor" % fn_name)
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError("%s: elements in elems must be 1+ dimensional tensors, not scalars" % fn_name)
    return flat


def _length(flat):
    """The common static leading dimension of ``flat`` (None when unknown), and a scalar int32 tensor of it."""
    static = None
    for t in flat:
        d = t.shape.as_list()[0] if t.shape.rank is not None else None
        if d is not None:
            if static is not None and d != static:
                raise ValueError("elems must have the same size in their first dimension, got %d and %d" % (static, d))
            static = d
    n = gen_ops.strided_slice(_shape(flat[0]), [0], [1], [1], shrink_axis_mask=1)
    return static, n


def _element(flat, structure, i):
    return pack_sequence_as(structure, [gather(t, i) for t in flat])


def _specs(signature):
    """fn_output_signature leaves as TensorSpecs (a bare DType leaves the shape unknown)."""
    def spec(s):
        if isinstance(s, TensorSpec):
            return s
        return TensorSpec(None, _dtypes.as_dtype(s))
    return [spec(s) for s in flatten(signature)]


def _empty_from_signature(signature, fn_name):
    if signature is None:
        raise ValueError("%s: elems is empty; pass fn_output_signature to give the result's dtype and shape" % fn_name)
    out = []
    for s in _specs(signature):
        dims = s.shape.as_list() if s.shape.rank is not None else None
        if dims is None or any(d is None for d in dims):
            raise ValueError("%s: elems is empty and fn_output_signature %s does not give a full shape"
                             % (fn_name, s.shape))
        out.append(gen_ops.fill(convert_to_tensor([0] + dims, dtype=_dtypes.int32),
                                convert_to_tensor(0, dtype=s.dtype)))
    return pack_sequence_as(signature, out)


def _check_signature(flat_out, signature, fn_name):
    if signature is None:
        return
    specs = _specs(signature)
    if len(specs) != len(flat_out):
        raise ValueError("%s: fn returned %d tensors but fn_output_signature has %d" % (fn_name, len(flat_out),
                                                                                       len(specs)))
    for t, s in zip(flat_out, specs):
        if t.dtype != s.dtype:
            raise TypeError("%s: fn returned a %s tensor where fn_output_signature says %s" % (fn_name, t.dtype.name,
                                                                                            s.dtype.name))


def _grow_invariant(t):
    return TensorShape([None] + (t.shape.as_list()[1:] if t.shape.rank is not None else [])) \
        if t.shape.rank is not None else TensorShape(None)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """[fn(elems[0]), fn(elems[1]), ...] stacked along a new leading dimension. ``elems`` is a
    tensor or a nested structure of tensors sharing their first dimension (fn gets one slice of
    each, in that structure); fn may return a nested structure, stacked leaf by leaf.
    ``fn_output_signature`` (or the older ``dtype``) gives the result's dtypes (a DType,
    TensorSpec or a structure of them) and is checked against what fn returns."""
    signature = fn_output_signature if fn_output_signature is not None else dtype
    with name_scope(name or "map"):
        flat = _flat_elems(elems, "map_fn")
        static_n, n = _length(flat)
        if _context.executing_eagerly():
            count = int(n.numpy())
            if count == 0:
                return _empty_from_signature(signature, "map_fn")
            outs = [fn(_element(flat, elems, i)) for i in range(count)]
            structure = outs[0]
            flat_outs = [[_tensor(v) for v in flatten(o)] for o in outs]
            _check_signature(flat_outs[0], signature, "map_fn")
            stacked = [stack([f[k] for f in flat_outs]) for k in range(len(flat_outs[0]))]
            return pack_sequence_as(structure, stacked)
        if static_n == 0:
            return _empty_from_signature(signature, "map_fn")
        first = fn(_element(flat, elems, 0))
        structure = first
        acc0 = [expand_dims(_tensor(v), 0) for v in flatten(first)]
        _check_signature(acc0, signature, "map_fn")
        one = convert_to_tensor(1, dtype=_dtypes.int32)

        def cond(i, acc):
            return gen_ops.less(i, n)

        def body(i, acc):
            out = [expand_dims(_tensor(v), 0) for v in flatten(fn(_element(flat, elems, i)))]
            return gen_ops.add_v2(i, one), [concat([a, o], 0) for a, o in zip(acc, out)]

        invariants = [TensorShape([]), [_grow_invariant(a) for a in acc0]]
        _, acc = while_loop(cond, body, [one, acc0], shape_invariants=invariants,
                            parallel_iterations=parallel_iterations or 10, back_prop=back_prop)
        return pack_sequence_as(structure, acc)


def _empty_like(t):
    """A [0, *t.shape] tensor of t's dtype."""
    return gen_ops.fill(concat([convert_to_tensor([0], dtype=_dtypes.int32), _shape(t)], 0),
                        convert_to_tensor(0, dtype=t.dtype))


def _fold(fn, elems, initializer, reverse, collect, fn_name, back_prop=True, parallel_iterations=10):
    """The shared loop of scan and the folds: acc = fn(acc, elems[i]) for i in order (or reversed),
    returning the final acc, or (with ``collect``) every acc stacked in element order."""
    flat = _flat_elems(elems, fn_name)
    static_n, n = _length(flat)
    one = convert_to_tensor(1, dtype=_dtypes.int32)
    zero = convert_to_tensor(0, dtype=_dtypes.int32)

    def index(i):  # the element visited at step i
        return gen_ops.sub(gen_ops.sub(n, one), i) if reverse else i

    start = 0
    if initializer is None:
        if static_n == 0:
            raise ValueError("%s: elems is empty and there is no initializer" % fn_name)
        acc = _element(flat, elems, index(zero))
        start = 1
    else:
        acc = initializer
    structure = acc
    flat_acc = [_tensor(v) for v in flatten(acc)]
    if _context.executing_eagerly():
        count = int(n.numpy())
        if count == 0 and initializer is None:
            raise ValueError("%s: elems is empty and there is no initializer" % fn_name)
        collected = [flat_acc] if start == 1 else []
        for i in range(start, count):
            k = count - 1 - i if reverse else i
            acc = fn(pack_sequence_as(structure, flat_acc), _element(flat, elems, k))
            flat_acc = [_tensor(v) for v in flatten(acc)]
            collected.append(flat_acc)
        if not collect:
            return pack_sequence_as(structure, flat_acc)
        if not collected:
            return pack_sequence_as(structure, [_empty_like(t) for t in flat_acc])
        if reverse:
            collected = collected[::-1]
        return pack_sequence_as(structure, [stack([c[k] for c in collected]) for k in range(len(flat_acc))])

    stacked0 = [expand_dims(t, 0) if start == 1 else _empty_like(t) for t in flat_acc]

    def cond(i, acc, stacked):
        return gen_ops.less(i, n)

    def body(i, acc, stacked):
        new = [_tensor(v) for v in flatten(fn(pack_sequence_as(structure, acc), _element(flat, elems, index(i))))]
        if collect:
            pieces = [expand_dims(v, 0) for v in new]
            stacked = [concat([p, s] if reverse else [s, p], 0) for s, p in zip(stacked, pieces)]
        return gen_ops.add_v2(i, one), new, stacked

    shapes = [t.shape for t in flat_acc]
    invariants = [TensorShape([]), shapes, [TensorShape([None] + s.as_list()) if s.rank is not None
                                            else TensorShape(None) for s in shapes]]
    _, final, stacked = while_loop(cond, body, [convert_to_tensor(start, dtype=_dtypes.int32), flat_acc, stacked0],
                                   shape_invariants=invariants, parallel_iterations=parallel_iterations,
                                   back_prop=back_prop)
    return pack_sequence_as(structure, stacked if collect else final)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The running accumulations acc_i = fn(acc_{i-1}, elems[i]) stacked along a new leading
    dimension (acc_{-1} = ``initializer``; without one the first element is the first
    accumulation). ``reverse`` runs from the last element, keeping results in element order."""
    with name_scope(name or "scan"):
        return _fold(fn, elems, initializer, bool(reverse), True, "scan", back_prop, parallel_iterations)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1]) (the first element is the
    initial accumulator when ``initializer`` is None)."""
    with name_scope(name or "foldl"):
        return _fold(fn, elems, initializer, False, False, "foldl", back_prop, parallel_iterations)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """foldl from the last element to the first (the last element is the initial accumulator when
    ``initializer`` is None)."""
    with name_scope(name or "foldr"):
        return _fold(fn, elems, initializer, True, False, "foldr", back_prop, parallel_iterations)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """map_fn's result for ``fn`` over the leading dimension of ``elems``. Tensorflux does not
    vectorize ``fn``: it always runs map_fn (TensorFlow's fallback for functions it cannot
    vectorize), so the result is the same and only the speed differs; ``fallback_to_while_loop``
    and ``warn`` are accepted and have no effect."""
    return map_fn(fn, elems)
