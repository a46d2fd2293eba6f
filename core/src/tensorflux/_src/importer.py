"""`import_graph_def`: adds the nodes of a serialized GraphDef to the default graph."""

from tensorflux._src import errors
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src.operation import Operation, Tensor

_c = lib.c


def _split_name(name):
    """("x", 0) for "x" and "x:0"; ("x", -1) for "^x" (a control input)."""
    if name.startswith("^"):
        return name[1:], -1
    op, sep, index = name.rpartition(":")
    if sep and index.isdigit():
        return op, int(index)
    return name, 0


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None):
    """Imports ``graph_def`` (a GraphDef message, or its serialized bytes) into the default graph.

    Imported names are prefixed by ``name`` ("import" when None, made unique like a name scope;
    "" for none). ``input_map`` maps names in ``graph_def`` ("x:0", or "^x" for control inputs) to
    Tensors (Operations for "^x") of the default graph that replace them. ``return_elements``
    names tensors ("x:0") or operations ("x") of ``graph_def`` to return, in order; the result is
    None without it. Errors in ``graph_def`` (malformed bytes, unknown ops, bad attrs, cycles)
    raise `tx.errors.OpError` subclasses naming the node; the graph is then left unchanged."""
    if isinstance(graph_def, (bytes, bytearray, memoryview)):
        data = bytes(graph_def)
    elif hasattr(graph_def, "SerializeToString"):
        data = graph_def.SerializeToString()
    else:
        raise TypeError("graph_def must be a GraphDef (or its serialized bytes), not %r" % type(graph_def).__name__)
    g = _graph.get_default_graph()

    inputs, controls = [], []
    for key, value in (input_map or {}).items():
        if not isinstance(key, str):
            raise TypeError("input_map keys must be names (strings), not %r" % (key,))
        src, index = _split_name(key)
        if index < 0:
            if not isinstance(value, Operation) or value.graph is not g:
                raise ValueError("input_map[%r] must be an Operation of the default graph" % key)
            controls.append((src, value._h))
        else:
            if not isinstance(value, Tensor) or value.graph is not g:
                raise ValueError("input_map[%r] must be a Tensor of the default graph, not %r" % (key, value))
            inputs.append((src, index, value._pair))

    out_names, op_names, order = [], [], []
    for el in return_elements or ():
        if not isinstance(el, str):
            raise TypeError("return_elements must be names (strings), not %r" % (el,))
        if ":" in el:
            op_name, index = _split_name(el)
            order.append((0, len(out_names)))
            out_names.append((op_name, index))
        else:
            order.append((1, len(op_names)))
            op_names.append(el)

    with g.name_scope(name if name is not None else "import") as scope:
        prefix = scope[:-1] if scope else ""
    control_deps = [op._h for op in g._control_inputs_for([])]
    try:
        outs, ops, missing = _c.import_graph_def(g._h, data, prefix, g._tls.device, True, False, inputs, controls,
                                                 control_deps, out_names, op_names)
    except errors.OpError as e:
        raise errors.attach_op(e, g) from None
    if missing:
        raise ValueError("Attempted to map inputs that were not found in graph_def: [%s]"
                         % ", ".join("%s:%d" % m for m in missing))
    if return_elements is None:
        return None
    outs = [g._tensor_from_pair(p) for p in outs]
    ops = [g._op_from_handle(h) for h in ops]
    return [outs[i] if kind == 0 else ops[i] for kind, i in order]
