"""Map-then-batch fusion (tf.data's map_and_batch and vectorisation idea): ``batch(map(ds, f), n)``
makes one engine call per batch instead of one per element, with the same elements as the unfused
pipeline: an elementwise f runs once on the stacked elements (Note [Elementwise functions]); any
other f runs in a tx.map_fn loop inside one function call (Note [Fused batches])."""

# Note [Elementwise functions]: a traced map function is run batched only when its graph is made
# solely of elementwise ops (the ELEMENTWISE set, plus Placeholder, Const and Identity) and every
# op's non-constant inputs have the rank of its output: then each output element depends only on
# the same position of the inputs, and a leading batch dimension passes through every op
# unchanged. Constants broadcast from the trailing dimensions the same way with or without it.
# Anything else (reductions, reshapes, matmuls, random ops, control flow, stateful ops) keeps the
# per-element path. The batched function is the same graph imported under a tx.function whose
# inputs have a leading None dimension, so no Python code runs twice.

# Note [Fused batches]: a fused batch call either succeeds for all its elements or fails; when it
# fails (an element's function raised, or elements of different shapes cannot be stacked), the
# batch's input elements are replayed one at a time through the per-element function, which raises
# at the failing element exactly as the unfused pipeline would (the elements before it stay in the
# partial batch, the iterator goes on after it). The replay queue is part of the iterator state (as
# the map's unmapped elements, Note [Cross-mode states]).
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
    if any(not s.shape.is_fully_defined() for s in fn._in_flat) or fn.graph is None:
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
    unfused pair's (Note [Cross-mode states]): the mapped elements of a partial batch over the map's
    layout, whose unmapped elements are the replay queue (Note [Fused batches])."""

    def __init__(self, batch_node, map_node, ctx):
        self._batch_node, self._map_node, self._ctx = batch_node, map_node, ctx
        self._fn = map_node._batched
        self._in = map_node._inputs[0]._iter(ctx)
        self._slicer = getattr(self._in, "next_batch", None)  # random-access sources slice directly
        self._count, self._exhausted, self._partial = 0, False, []
        self._results, self._replay = collections.deque(), collections.deque()  # restored results; (index, input)
        self._seed0 = _seeds.iterator_seed(ctx, map_node)

    def _inputs(self, n):
        if self._exhausted:
            return None, 0
        if self._slicer is not None:
            stacked, k = self._slicer(n)
            self._exhausted = k == 0
            return stacked, k
        elements = []
        while len(elements) < n:
            x = self._in.next()
            if x is END:
                self._exhausted = True
                break
            elements.append(x)
        if not elements:
            return None, 0
        try:
            return tuple(np.stack([e[i] for e in elements]) for i in range(len(elements[0]))), len(elements)
        except ValueError:  # shapes differ: the per-element path says so, element by element
            self._replay.extend((self._count + j, e) for j, e in enumerate(elements))
            return None, 0

    def _call(self, stacked, n):
        args = [_structure.as_tensor(a) for a in stacked]
        if self._map_node._fn.seeded:
            args.append(np.stack([_seeds.element_seed(self._seed0, self._count + j) for j in range(n)]))
        return tuple(_structure.with_tensor(t) for t in tx.nest.flatten(self._fn(*args)))

    def _drain_into_partial(self, size):
        """Restored results, then replayed inputs (mapped one by one), into the partial batch; raises
        at the first error."""
        fn = self._map_node._fn
        while len(self._partial) < size and (self._results or self._replay):
            if self._results:
                self._partial.append(take_result(self._results.popleft()))
            else:
                index, x = self._replay.popleft()
                self._partial.append(fn.run(x, self._ctx, index, self._seed0))

    def next(self):
        size, drop = self._batch_node._size, self._batch_node._drop
        self._drain_into_partial(size)
        outs, n = (), 0
        if len(self._partial) < size:
            stacked, n = self._inputs(size - len(self._partial))
            if self._replay:  # unstackable inputs: replay them
                self._count += len(self._replay)
                self._drain_into_partial(size)
            elif n:
                try:
                    outs = self._call(stacked, n)
                except Exception:  # noqa: BLE001 (Note [Fused batches]: replay to raise per element)
                    self._replay.extend((self._count + j, tuple(a[j, ...] for a in stacked)) for j in range(n))
                    self._count += n
                    return self.next()
                self._count += n
        if self._partial:
            from tensorflux_data._batch import stack_component
            partial, self._partial = self._partial, []  # a batch that cannot be stacked is dropped, as unfused
            head = [stack_component([e[i] for e in partial], i) for i in range(len(partial[0]))]
            outs = tuple(np.concatenate([h, o]) for h, o in zip(head, outs)) if n else tuple(head)
            n += len(partial)
        if n == 0 or (drop and n < size):
            return END
        return outs

    def save(self, w):
        w.put_elements("partial", self._partial)
        save_map_state(w.child("input"), list(self._results), list(self._replay), self._count, self._exhausted,
                       self._in)

    def restore(self, r):
        self._partial = r.get_elements("partial")
        self._results, self._replay, self._count, self._exhausted = load_map_state(r.child("input"), self._in)
