"""The native engine's interleave of TFRecord files: finding the inner chain an interleave's function
makes of each file, and moving its states between the engines (Note [Native interleave] in
csrc/interleave.cc; Note [Native segments] in _native.py)."""

import numpy as np

from tensorflux_data import _native, _structure

# Note [Native interleave] in csrc/interleave.cc; the interleave stamp's head slots (nodes.h has the same).
HEAD = 4
# No file has these names; their lengths differ, so a value map_func derives from the name differs.
# Their extensions differ too, so a compression type chosen from the name's differs.
_PROBE_NAMES = (b"txd-interleave-probe-0.gz", b"txd-interleave-probe-one.tfrecord")
_INNER_KINDS = frozenset(["map", "fused_map", "filter", "batch"])


def names_source(node):
    """Whether ``node`` is slices of one vector of byte-string file names."""
    from tensorflux_data._sources import TensorSlicesDataset
    if type(node) is not TensorSlicesDataset or len(node._arrays) != 1:
        return False
    a = node._arrays[0]
    return a.ndim == 1 and a.dtype == object and all(isinstance(x, bytes) and _utf8(x) for x in a.tolist())


def _utf8(name):
    """Whether ``name`` decodes as the Python engine opens it (other names keep its error)."""
    try:
        name.decode()
    except UnicodeDecodeError:
        return False
    return True


def inner_chain(node, ctx):
    """The steps (bottom first, slots from 0) interleave ``node``'s map_func makes of each file name f:
    TFRecordDataset(f), one uncompressed file, then maps, filters and batches the engine runs, the
    same for two probe names but for the file (Note [Native interleave]); None when there are none."""
    probes = _probes(node)
    if probes is None:
        return None
    chains = [_native._walk(ds, ctx) for ds in probes]
    if not all(c is not None and _inner_ok(c, name) for c, name in zip(chains, _PROBE_NAMES)):
        return None
    return _native._placed(chains[0]) if _same_chain(*chains) else None


def _probes(node):
    """map_func's datasets for the probe names (remembered on the node); None when it fails on one."""
    known = getattr(node, "_native_probes", None)
    if known is None:
        try:
            known = [node._dataset_for((np.array(name, object),)) for name in _PROBE_NAMES]
        except Exception:  # noqa: BLE001 (map_func fails on a probe: not this case)
            known = False
        node._native_probes = known
    return known or None


def _inner_ok(steps, name):
    """Whether ``steps`` read file ``name`` alone, then run maps, filters and batches with unseeded functions."""
    names = steps[0].node._inputs[0] if steps[0].kind == "tfrecord" else None
    if names is None or len(names._arrays) != 1 or _native._paths(steps[0].node) != [name]:
        return False
    return all(s.kind in _INNER_KINDS and (s.kind == "batch" or not s.node._fn.seeded) for s in steps[1:])


def _same_chain(a, b):
    """Whether inner chains ``a`` and ``b`` (of two probe names) do the same above their files."""
    if [s.kind for s in a] != [s.kind for s in b] or a[0].node._wbits != b[0].node._wbits:
        return False  # (the probe names' extensions differ, so a compression chosen by name differs)
    for x, y in zip(a[1:], b[1:]):
        if type(x.node) is not type(y.node) or x.node._params() != y.node._params() or \
                _structure.describe(x.node.element_spec) != _structure.describe(y.node.element_spec):
            return False
        if x.kind != "batch" and not _same_function(x.node._fn._concrete, y.node._fn._concrete):
            return False
    return True


def _same_function(f, g):
    """Whether concrete functions ``f`` and ``g`` are the same trace (their names aside) capturing the
    same values (a function that called others, whose names differ, counts as different)."""
    a, b = f.function_def.__deepcopy__(), g.function_def.__deepcopy__()
    a.signature.name = b.signature.name = ""
    if a.SerializeToString() != b.SerializeToString() or len(f.graph.as_graph_def().library.function) or \
            len(f.captured_inputs) != len(g.captured_inputs):
        return False
    eager = all(hasattr(t, "numpy") for t in f.captured_inputs + g.captured_inputs)  # Note [Captured outer tensors]
    return eager and all(x.dtype == y.dtype and np.array_equal(x.numpy(), y.numpy())
                         for x, y in zip(f.captured_inputs, g.captured_inputs))


def write_interleave(w, step, v):
    """The interleave iterator's state (no read-ahead) at its stamp slots ``v`` (Note [Native
    interleave] in csrc/interleave.cc)."""
    node, width = step.node, 2 + _native._width(step.inner)
    names = node._inputs[0]._arrays[0]
    cycle_index, block_index, opened, ended = (int(x) for x in v[:HEAD])
    for name, value in (("cycle_index", cycle_index), ("block_index", block_index), ("opened", opened)):
        w.put(name, value)
    w.put("input_done", bool(ended))
    w.put("end_of_input", bool(ended))
    for i in range(node._cycle):
        at = HEAD + width * i
        is_open, index = int(v[at]), int(v[at + 1])
        w.put("slot%d.open" % i, bool(is_open))
        if is_open:
            r = w.child("slot%d" % i)
            r.put("open", True)
            r.put_element("element", (names[index, ...],))
            r.put("index", index)
            r.put_results("items", [])
            r.put("ended", False)
            _native._write_state(step.inner, v[at + 2:at + width], r.child("iterator"), None, [bytes(names[index])])
    w.put("futures", 0)
    w.child("input").put("index", opened)


def _read_reader(r, names, inner):
    """[name index] + inner chain stamp slots of an interleave reader's state; None when it holds
    items read ahead or its end, or its sub-iterator is not at a position of the chain over its file."""
    index = r.get_int("index")
    if not 0 <= index < len(names) or r.get_results("items") or bool(r.get("ended")):
        return None
    element = r.get_element("element")
    if len(element) != 1 or np.asarray(element[0]).item() != names[index]:
        return None
    position = _native._read_state(inner, r.child("iterator"), [names[index]])
    return None if position is None else [index] + position[0]


def read_interleave(r, step):
    """The stamp slots of an interleave iterator's state; None when it holds items read ahead, or
    futures other than fresh readers of the next names (those are given back to the input)."""
    node, inner = step.node, step.inner
    names, cycle = _native._paths(node), node._cycle
    opened = r.get_int("opened")
    if r.child("input").get_int("index") != opened:
        return None
    futures = [r.child("future%d" % k) for k in range(r.get_int("futures"))]
    opened -= len(futures)
    for k, f in enumerate(futures):
        if not bool(f.get("open")) or _read_reader(f, names, inner) != [opened + k] + _native._initial(inner):
            return None
    ended = bool(r.get("end_of_input")) and not futures
    v = [r.get_int("cycle_index"), r.get_int("block_index"), opened, int(ended)]
    if not (0 <= v[0] < cycle and 0 <= v[1] < node._block and 0 <= opened <= len(names)):
        return None
    for i in range(cycle):
        slot = [0] * (2 + _native._width(inner))
        if bool(r.get("slot%d.open" % i)):
            reader = _read_reader(r.child("slot%d" % i), names, inner)
            if reader is None or reader[0] >= opened:
                return None
            slot = [1] + reader
        v += slot
    return v


# ---------------------------------------------------------------------------------------------
# Elements
