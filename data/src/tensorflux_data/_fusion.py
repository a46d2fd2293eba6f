"""Map-then-batch fusion (tf.data's map_and_batch and vectorisation idea): ``batch(map(ds, f), n)``
makes one engine call per batch instead of one per element, with the elements and errors of the
same pipeline run one element at a time: an elementwise f runs once on the stacked elements (Note
[Elementwise functions]); any other f runs in a tx.map_fn loop inside one function call (Note
[Fused batches])."""

# Note [Elementwise functions]: a traced map function is run batched only when its graph is made
# solely of elementwise ops (the ELEMENTWISE set, plus Placeholder, Const and Identity) and every
# op's non-constant inputs have the rank of its output: then each output element depends only on
# the same position of the inputs, and a leading batch dimension passes through every op
# unchanged. Constants broadcast from the trailing dimensions the same way with or without it.
# Anything else (reductions, reshapes, matmuls, random ops, control flow, stateful ops) keeps the
# per-element path. The batched function is the same graph imported under a tx.function whose
# inputs have a leading None dimension, so no Python code runs twice.

# Note [Fused batches]: a fused batch reads its batch_size input elements, then calls the batched
# function on them at once; that call either succeeds for all of them or fails. It fails (an
# element's function raised, or elements of different shapes cannot be stacked), or the input raised
# while being read: then the batch is an error, tf.data's MapAndBatch one (Note [Batch errors]), the
# first failure by position. To name the same failure the unfused pipeline and debug mode name, the
# elements before the input's first error are mapped one at a time until one fails. A restored
# state's finished results and unmapped input elements (the map's layout, Note [Cross-mode states])
# are the batch's first elements.
# Per-element seeds (Note [Element seeds]) are passed in as a stacked input, so the values do not
# depend on fusion either.

import collections

import numpy as np

import tensorflux as tx

from tensorflux_data import _seeds, _structure
from tensorflux_data._base import END, NodeIterator, take_result
from tensorflux_data._map import load_map_state, save_map_state

ELEMENTWISE = frozenset("""
Abs Acos Acosh Add AddV2 Asin Asinh Atan Atan2 Atanh Cast Ceil Cos Cosh Div DivNoNan Equal Erf Erfc Exp Expm1
Floor FloorDiv FloorMod Greater GreaterEqual Inv IsFinite IsInf IsNan LeakyRelu Less LessEqual Log Log1p
LogicalAnd LogicalNot LogicalOr Maximum Minimum Mod Mul MulNoNan Neg NotEqual Pow RealDiv Reciprocal Relu Relu6
Rint Round Rsqrt Select SelectV2 Selu Sigmoid Sign Sin Sinh Softplus Softsign Sqrt Square SquaredDifference Sub
Tan Tanh TruncateDiv TruncateMod Elu Gelu ClipByValue
""".split())
_PASS = frozenset(["Placeholder", "Const", "Identity"])


def _rank(t):
    return t.shape.rank


def is_elementwise(graph):
    """Whether the traced function ``graph`` qualifies for batching (Note [Elementwise functions])."""
    for op in graph.get_operations():
        if op.type in _PASS:
            continue
        if op.type not in ELEMENTWISE or len(op.outputs) != 1:
            return False
        out_rank = _rank(op.outputs[0])
        if out_rank is None:
            return False
        for t in op.inputs:
            if t.op.type == "Const":
                if _rank(t) is None or _rank(t) > out_rank:
                    return False
            elif _rank(t) != out_rank:
                return False
    return True


def batched_function(fn):
    """The concrete function running ``fn``'s traced graph on elements stacked along a new leading
    dimension (fn: a StructuredFunction)."""
    cf = fn._concrete
    graph_def = cf.graph.as_graph_def()
    names = [t.name for t in cf.inputs]
    outputs = [t.name for t in cf.outputs]

    def run(*stacked):
        return tx.import_graph_def(graph_def, input_map=dict(zip(names, stacked)), return_elements=outputs,
                                   name="element")

    signature = [tx.TensorSpec([None] + t.shape.as_list(), t.dtype) for t in cf.inputs]
    return tx.function(run, input_signature=signature).get_concrete_function()


def looped_function(fn):
    """The concrete function running ``fn``'s per-element function over stacked elements (and,
    when ``fn`` is seeded, their stacked seeds) in a tx.map_fn loop: one engine call per batch."""
    cf = fn._concrete
    element_specs = [tx.TensorSpec(t.shape, t.dtype) for t in cf.inputs]
    out_sig = [tx.TensorSpec(t.shape, t.dtype) for t in cf.outputs]

    def run(*stacked):
        return tx.map_fn(lambda args: list(tx.nest.flatten(cf(*args))), list(stacked), fn_output_signature=out_sig)

    signature = [tx.TensorSpec([None] + s.shape.as_list(), s.dtype) for s in element_specs]
    return tx.function(run, input_signature=signature).get_concrete_function()


def fusable(map_node):
    """The map node's batched function (elementwise or looped) when its elements have fully known
    shapes, else None; made once per map node."""
    fn = map_node._fn
    if any(not s.shape.is_fully_defined() for s in fn._in_flat) or fn.graph is None or fn.outer:
        return None
    if getattr(map_node, "_batched", False) is False:
        try:
            elementwise = not fn.seeded and is_elementwise(fn.graph)
            map_node._batched = batched_function(fn) if elementwise else looped_function(fn)
        except (TypeError, ValueError, tx.errors.OpError):  # not expressible as one call: per element
            map_node._batched = None
    return map_node._batched


class FusedMapBatchIterator(NodeIterator):
    """``batch(map(input, f), size)`` with one call of f's batched form per batch. Its state is the
    unfused pair's (Note [Cross-mode states]): the map's layout, whose unmapped elements are those of
    a restored state not yet batched (Note [Fused batches])."""

    def __init__(self, batch_node, map_node, ctx):
        self._batch_node, self._map_node, self._ctx = batch_node, map_node, ctx
        self._fn = map_node._batched
        self._in = map_node._inputs[0]._iter(ctx)
        self._slicer = getattr(self._in, "next_batch", None)  # random-access sources slice directly
        self._count, self._exhausted = 0, False
        self._results, self._replay = collections.deque(), collections.deque()  # restored results; (index, input)
        self._seed0 = _seeds.iterator_seed(ctx, map_node)

    def _read(self, n):
        """Reads ``n`` input elements (fewer at the end) whatever fails among them: (runs, error), the
        runs (first index, stacked inputs or a list of elements, count) read before the first error."""
        runs, error = [], None
        while n > 0 and not self._exhausted:
            try:
                if self._slicer is not None:
                    inputs, k = self._slicer(n)
                else:
                    x = self._in.next()
                    inputs, k = ([x], 1) if x is not END else (None, 0)
            except Exception as e:  # noqa: BLE001 (Note [Fused batches]: it counts as an element)
                error, n = (e if error is None else error), n - 1
                continue
            self._exhausted = k == 0
            if k and error is None:
                if runs and isinstance(inputs, list) and isinstance(runs[-1][1], list):
                    runs[-1][1].extend(inputs)
                else:
                    runs.append((self._count, inputs))
            self._count, n = self._count + k, n - k
        return runs, error

    def _call(self, first, stacked, n):
        args = [_structure.as_tensor(a) for a in stacked]
        if self._map_node._fn.seeded:
            args.append(np.stack([_seeds.element_seed(self._seed0, first + j) for j in range(n)]))
        return tuple(_structure.with_tensor(t) for t in tx.nest.flatten(self._fn(*args)))

    def _map_run(self, first, inputs):
        """The mapped run (a tuple of stacked outputs); its first failure raised, named as the
        per-element function names it (Note [Fused batches])."""
        if not isinstance(inputs, list):
            n = len(inputs[0])
            try:
                return self._call(first, inputs, n)
            except Exception:  # noqa: BLE001 (replayed below to raise per element)
                inputs = [tuple(a[j, ...] for a in inputs) for j in range(n)]
        else:
            try:
                stacked = tuple(np.stack([e[i] for e in inputs]) for i in range(len(inputs[0])))
            except ValueError:  # shapes differ: mapped one by one below
                stacked = None
            if stacked is not None:
                try:
                    return self._call(first, stacked, len(inputs))
                except Exception:  # noqa: BLE001
                    pass
        fn = self._map_node._fn
        outs = [fn.run(x, self._ctx, first + j, self._seed0) for j, x in enumerate(inputs)]
        return _stack(outs)

    def next(self):
        size, drop = self._batch_node._size, self._batch_node._drop
        head, error, taken = [], None, 0  # a restored state's results and unmapped inputs come first
        while taken < size and (self._results or self._replay):
            taken += 1
            try:
                if self._results:
                    head.append(take_result(self._results.popleft()))
                else:
                    index, x = self._replay.popleft()
                    if error is None:
                        head.append(self._map_node._fn.run(x, self._ctx, index, self._seed0))
            except Exception as e:  # noqa: BLE001 (Note [Batch errors])
                error = e if error is None else error
        runs, read_error = self._read(size - taken)
        if error is not None:
            raise error
        blocks = [_stack(head)] if head else []
        blocks += [self._map_run(first, inputs) for first, inputs in runs]
        if read_error is not None:
            raise read_error
        n = sum(len(b[0]) for b in blocks)
        if n == 0 or (drop and n < size):
            return END
        return blocks[0] if len(blocks) == 1 else _concat(blocks)

    def save(self, w):
        save_map_state(w.child("input"), list(self._results), list(self._replay), self._count, self._exhausted,
                       self._in)

    def restore(self, r):
        self._results, self._replay, self._count, self._exhausted = load_map_state(r.child("input"), self._in)


def _stack(elements):
    """Mapped elements stacked per component (tf.data's error when their shapes differ)."""
    from tensorflux_data._batch import stack_component
    return tuple(stack_component([e[i] for e in elements], i) for i in range(len(elements[0])))


def _concat(blocks):
    """Stacked blocks joined along the batch dimension (tf.data's error when element shapes differ)."""
    from tensorflux_data._batch import stack_component
    out = []
    for i, parts in enumerate(zip(*blocks)):
        if len({p.shape[1:] for p in parts}) > 1:
            stack_component([p[0] for p in parts], i)  # raises, naming the shapes
        out.append(np.concatenate(parts))
    return tuple(out)
