"""Map-then-batch fusion (tf.data's map_and_batch and vectorisation idea): when a map function is
elementwise, ``batch(map(ds, f), n)`` runs f once per batch on the stacked elements instead of once
per element, with the same elements as the unfused pipeline (Note [Elementwise functions])."""

# Note [Elementwise functions]: a traced map function is run batched only when its graph is made
# solely of elementwise ops (the ELEMENTWISE set, plus Placeholder, Const and Identity) and every
# op's non-constant inputs have the rank of its output: then each output element depends only on
# the same position of the inputs, and a leading batch dimension passes through every op
# unchanged. Constants broadcast from the trailing dimensions the same way with or without it.
# Anything else (reductions, reshapes, matmuls, random ops, control flow, stateful ops) keeps the
# per-element path. The batched function is the same graph imported under a tx.function whose
# inputs have a leading None dimension, so no Python code runs twice.

import numpy as np

import tensorflux as tx

from tensorflux_data._base import END, NodeIterator

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


def fusable(map_node):
    """The map node's batched function when it can be fused with a following batch, else None."""
    fn = map_node._fn
    if fn.seeded or any(not s.shape.is_fully_defined() for s in fn._in_flat) or fn.graph is None:
        return None
    if getattr(map_node, "_batched", False) is False:
        map_node._batched = batched_function(fn) if is_elementwise(fn.graph) else None
    return map_node._batched


class FusedMapBatchIterator(NodeIterator):
    """``batch(map(input, f), size)`` with f run once per batch. State: the map's element counter,
    mapped elements of a partial batch (from a restore) and the input's state."""

    def __init__(self, batch_node, map_node, ctx):
        self._batch_node, self._map_node = batch_node, map_node
        self._fn = map_node._batched
        self._in = map_node._inputs[0]._iter(ctx)
        self._slicer = getattr(self._in, "next_batch", None)  # random-access sources slice directly
        self._count, self._partial = 0, []

    def _inputs(self, n):
        if self._slicer is not None:
            return self._slicer(n)
        elements = []
        while len(elements) < n:
            x = self._in.next()
            if x is END:
                break
            elements.append(x)
        if not elements:
            return None, 0
        return tuple(np.stack([e[i] for e in elements]) for i in range(len(elements[0]))), len(elements)

    def next(self):
        size, drop = self._batch_node._size, self._batch_node._drop
        want = size - len(self._partial)
        stacked, n = self._inputs(want)
        self._count += n
        outs = ()
        if n:
            outs = tuple(np.asarray(t.numpy()) for t in tx.nest.flatten(self._fn(*stacked)))
        if self._partial:
            outs = tuple(np.concatenate([np.stack([e[i] for e in self._partial])] + ([outs[i]] if n else []))
                         for i in range(len(self._partial[0])))
            n += len(self._partial)
            self._partial = []
        if n == 0 or (drop and n < size):
            return END
        return outs

    def save(self, w):
        w.put("fused_count", self._count)
        w.put_elements("fused_partial", self._partial)
        self._in.save(w.child("fused_input"))

    def restore(self, r):
        self._count, self._partial = r.get_int("fused_count"), r.get_elements("fused_partial")
        self._in.restore(r.child("fused_input"))
