"""Sources built inside a tx.function from its symbolic tensors: `from_tensor_slices(x)`,
`from_tensors(x)` and `range(n)` where x or n is a tensor of the graph being traced.

Note [Symbolic sources]: such a dataset's values exist only when the function runs, so its source is
a SymbolicSource holding the graph tensors and a builder of the concrete source. The ops that iterate
a dataset in a graph (Note [Iteration in graphs] in _in_graph.py) take the tensors of every symbolic
source below the dataset as inputs; when the function runs, their values are bound to the sources
(IterContext.bindings, by node) and each source iterates the concrete dataset built from them, so the
pipeline above it runs as it does eagerly, with tf.data's elements (the pipeline's functions that
capture the function's tensors get their values the same way: Note [Captured outer tensors] in
_functions.py). Element specs and cardinality come from the tensors' static shapes. Iterated eagerly
(outside its function), such a dataset raises.
"""

import numpy as np

import tensorflux as tx

from tensorflux_data import _options
from tensorflux_data._dataset import Dataset


def is_symbolic(value):
    """Whether ``value`` is, or holds, a tensor of a graph being built (not an eager tensor); such
    tensors exist only while one is (so an eager call walks nothing: a big list costs no time)."""
    if tx.executing_eagerly():
        return False
    return any(tx.is_tensor(v) and not hasattr(v, "numpy") for v in tx.nest.flatten(value))


class SymbolicSource(Dataset):
    _kind = "symbolic_source"

    def __init__(self, kind, tensors, element_spec, build, cardinality):
        self._source_kind = kind
        self._structure = tensors
        self._tensors = [tx.convert_to_tensor(t) for t in tx.nest.flatten(tensors)]
        self._build = build  # the concrete source from the tensors' values (a structure like `tensors`)
        self._static_cardinality = cardinality
        super().__init__((), element_spec)

    def _make_iter(self, ctx):
        values = ctx.bindings.get(id(self))
        if values is None:
            raise ValueError("%s of tensors of a tx.function's graph is iterated only inside that function (inside "
                             "it, iter(), `for` and reduce read it when the function runs)" % self._source_kind)
        return self._build(tx.nest.pack_sequence_as(self._structure, list(values)))._iter(ctx.without_native())

    def _cardinality(self):
        return self._static_cardinality

    def _params(self):
        return "%s@%x" % (self._source_kind, id(self))


def _graph_nodes(dataset):
    """The SymbolicSource nodes below ``dataset`` and the functions of its nodes that capture outer
    tensors (Note [Captured outer tensors] in _functions.py), each once, in a fixed order."""
    from tensorflux_data._functions import StructuredFunction

    found, seen, stack = [], set(), [dataset]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SymbolicSource):
            found.append(node)
        found.extend(v for _, v in sorted(vars(node).items()) if isinstance(v, StructuredFunction) and v.outer)
        stack.extend(reversed(node._inputs))
    return found


def graph_inputs(dataset):
    """(tensors, bind): the graph tensors the symbolic sources below ``dataset`` and its functions'
    captures need, and ``bind(values)`` -> {id(source or function): its values, or the function's
    Binding} for the values of those tensors."""
    nodes = _graph_nodes(dataset)
    counts = [len(n._tensors) if isinstance(n, SymbolicSource) else len(n.outer) for n in nodes]
    tensors = [t for n in nodes for t in (n._tensors if isinstance(n, SymbolicSource) else n.outer)]

    def bind(values):
        out, i = {}, 0
        for n, k in zip(nodes, counts):
            v = values[i:i + k]
            out[id(n)] = v if isinstance(n, SymbolicSource) else n.bind(v)
            i += k
        return out

    return tensors, bind


def _spec(t, drop_first):
    shape = t.shape
    return tx.TensorSpec(shape[1:] if drop_first else shape, t.dtype)


def tensor_slices(tensors):
    """from_tensor_slices of a structure holding graph tensors."""
    from tensorflux_data._sources import TensorSlicesDataset

    flat = [tx.convert_to_tensor(t) for t in tx.nest.flatten(tensors)]
    if any(t.shape.rank == 0 for t in flat):
        raise tx.errors.InvalidArgumentError(None, None, "from_tensor_slices: every component needs a leading "
                                             "dimension to slice, got shapes %s" % [t.shape for t in flat])
    spec = tx.nest.pack_sequence_as(tensors, [_spec(t, True) for t in flat])
    firsts = {t.shape[0] for t in flat if t.shape.rank is not None and t.shape[0] is not None}
    n = firsts.pop() if len(firsts) == 1 else _options.UNKNOWN_CARDINALITY
    return SymbolicSource("from_tensor_slices", tensors, spec, TensorSlicesDataset, n)


def tensors_source(tensors):
    """from_tensors of a structure holding graph tensors."""
    from tensorflux_data._sources import TensorsDataset

    spec = tx.nest.map_structure(lambda t: _spec(tx.convert_to_tensor(t), False), tensors)
    return SymbolicSource("from_tensors", tensors, spec, TensorsDataset, 1)


def range_source(args, dtype):
    """range(*args) where some argument is a graph tensor."""
    from tensorflux_data._sources import RangeDataset

    def build(values):
        return RangeDataset(*[int(np.asarray(v)) for v in values], dtype=dtype)

    return SymbolicSource("range", list(args), tx.TensorSpec([], tx.as_dtype(dtype)), build,
                          _options.UNKNOWN_CARDINALITY)
