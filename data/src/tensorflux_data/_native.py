"""The native pipeline engine's Python side: which chains of nodes it runs, building them through
its C interface (csrc/txd_engine.h, loaded with ctypes, so the calls release the GIL), its elements
as arrays or tensors, and its position as the Python nodes' own state (Note [Native pipelines] in
csrc/engine.h; Note [Native segments] below)."""

# Note [Native segments]: when a node iterator is made (DatasetNode._iter), the longest chain below
# the node that the engine can run becomes one NativeIterator, if it does work worth moving (a map,
# filter, shuffle or interleave, or a batch of file records): sources of numeric arrays, ranges,
# TFRecord and text-line files named by a list (plain or compressed), and the interleave of
# TFRecordDataset(f) over a list of file names f, with the maps, filters and batches the engine runs
# above it per file when they depend on f only through its file (found by calling its function on
# two probe names and comparing the chains it returns, their traced functions and captured values;
# Note [Native interleave] in csrc/interleave.cc); map and filter whose traced functions are
# stateless and capture only numeric values (tx.random calls in them take the same per-element
# seeds); shuffle (drawing as the Python engine draws; its buffer as of any position handed out,
# Note [Native shuffle] in csrc/shuffle.cc); batch (with the map before it fused when the Python
# engine would fuse them); and prefetch. The Python nodes above it see an ordinary node iterator.
# Its state is what the Python iterators of the same nodes would save at the same position, written
# from the stamp of the last element handed out, so states restore in either engine. A restored
# state whose buffers hold elements other than a shuffle's numeric ones of its element spec (saved
# by the Python engine mid-batch, say, a shuffle buffer of TFRecord strings, or an interleave's
# read-ahead), any error the engine reports, and debug mode run the same nodes in the Python engine
# instead, from the same position, so every error is raised (or skipped by ignore_errors) exactly as
# there. Functions are pure, so the elements in flight when the engine stopped are computed again,
# with the same values.

import ctypes
import os
import threading

import numpy as np

import tensorflux as tx

from tensorflux_data import _native_interleave, _seeds, _shuffle, _state, _streams, _structure
from tensorflux_data._base import END, NodeIterator

LIBRARY = "_tensorflux_data_engine.so"
_ERR = 1024  # bytes of an error message buffer
_MAX_COMPONENTS = 256
_NUMERIC = frozenset(t.as_datatype_enum for t in (
    tx.float16, tx.bfloat16, tx.float32, tx.float64, tx.int8, tx.int16, tx.int32, tx.int64, tx.uint8, tx.uint16,
    tx.uint32, tx.uint64, tx.bool, tx.complex64, tx.complex128))

_lock = threading.Lock()
_engine = None
_engine_error = None


class _Engine:
    """The loaded engine library, its functions typed for ctypes, initialized on the process's engine."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        txlib = os.path.join(tx.sysconfig.get_lib(), "lib%s.so" % tx.sysconfig.LIBRARY_NAME)
        c_err, i64, i32, vp = ctypes.c_char_p, ctypes.c_int64, ctypes.c_int, ctypes.c_void_p
        pi32, pi64, pvp = ctypes.POINTER(i32), ctypes.POINTER(i64), ctypes.POINTER(vp)
        file_source = [vp, i32, i32, i32, ctypes.POINTER(ctypes.c_char_p), i32, i64, i32, i64, c_err, i64]
        sigs = {
            "txd_init": (i32, [ctypes.c_char_p, c_err, i64]),
            "txd_add_function_def": (i32, [ctypes.c_char_p, ctypes.c_char_p, i64, c_err, i64]),
            "txd_function_new": (vp, [ctypes.c_char_p, i32, pi32, i32, pi32, pi32, pi64, pvp, c_err, i64]),
            "txd_function_delete": (None, [vp]),
            "txd_remove_function": (None, [ctypes.c_char_p]),
            "txd_pipeline_new": (vp, [i32, i32]),
            "txd_pipeline_delete": (None, [vp]),
            "txd_slices": (i32, [vp, i32, i32, i32, pi32, pi32, pi64, pvp, i64, i64, c_err, i64]),
            "txd_range": (i32, [vp, i32, i32, i64, i64, i64, i32, i64, c_err, i64]),
            "txd_tfrecord": (i32, file_source),
            "txd_text_line": (i32, file_source),
            "txd_interleave": (i32, [vp, i32, i32, i32, ctypes.POINTER(ctypes.c_char_p), i64, i64, i32, pi32, pvp, pi64,
                                     i32, i32, i32, pi64, c_err, i64]),
            "txd_map": (i32, [vp, i32, i32, vp, i32, ctypes.c_uint64, i32, i32, i64, i32, i64, c_err, i64]),
            "txd_filter": (i32, [vp, i32, i32, vp, i32, ctypes.c_uint64, i64, c_err, i64]),
            "txd_batch": (i32, [vp, i32, i64, i32, c_err, i64]),
            "txd_prefetch": (i32, [vp, i32, i32, i64, c_err, i64]),
            "txd_shuffle": (i32, [vp, i32, i32, i64, ctypes.c_uint64, pi64, i64, i32, pi32, pi32, pi64, pvp, c_err,
                                  i64]),
            "txd_shuffle_buffer": (i64, [vp, i32, i64, pvp, i64, pi32, c_err, i64]),
            "txd_next": (i32, [vp, pvp, i32, pi64, c_err, i64]),
            "txd_node_stats": (None, [vp, i32, pi64]),
        }
        for name, (res, args) in sigs.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        err = ctypes.create_string_buffer(_ERR)
        if lib.txd_init(txlib.encode(), err, _ERR) != 0:
            raise RuntimeError(err.value.decode(errors="replace"))


def engine():
    """The engine, loaded on first use; None where the package was installed without it."""
    global _engine, _engine_error
    with _lock:
        if _engine is None and _engine_error is None:
            path = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY)
            try:
                _engine = _Engine(path)
            except (OSError, RuntimeError, AttributeError) as e:
                _engine_error = "%s: %s" % (path, e)
        return _engine


def unavailable_reason():
    """Why the engine did not load (None when it did or was not tried)."""
    engine()
    return _engine_error


def _check(rc, err, what):
    if rc < 0:
        raise RuntimeError("tensorflux-data engine: %s: %s" % (what, err.value.decode(errors="replace")))
    return rc


def _int_array(ctype, values):
    return (ctype * max(1, len(values)))(*values)


def _arrays_args(arrays, rows=False):
    """The (count, dtypes, ranks, dims, data) arguments describing C-contiguous ``arrays`` (with
    ``rows``, the shapes of their rows)."""
    shapes = [a.shape[1:] if rows else a.shape for a in arrays]
    dtypes = _int_array(ctypes.c_int, [tx.as_dtype(a.dtype).as_datatype_enum for a in arrays])
    ranks = _int_array(ctypes.c_int, [len(s) for s in shapes])
    dims = _int_array(ctypes.c_int64, [d for s in shapes for d in s])
    data = _int_array(ctypes.c_void_p, [a.ctypes.data for a in arrays])
    return len(arrays), dtypes, ranks, dims, data


# ---------------------------------------------------------------------------------------------
# Functions


# Stateful only so that graphs keep them: running them again changes nothing (Note [Native segments]).
_PURE_CHECKS = frozenset(["Assert", "CheckNumerics", "CheckNumericsV2"])


def _stateless(graph):
    return all(not op.op_def.is_stateful or op.type in _PURE_CHECKS for op in graph.get_operations())


def _plain_capture(t):
    return t.dtype.as_datatype_enum in _NUMERIC


def function_ok(fn):
    """Whether the engine can run StructuredFunction ``fn``: stateless (its tx.random calls take
    per-element seeds, Note [Element seeds] in _seeds.py), capturing only numeric values."""
    cf = fn._concrete
    return _stateless(cf.graph) and all(_plain_capture(t) for t in cf.captured_inputs)


_registered = {}  # function name -> how many live Functions registered it (a nested one may be shared)
_registered_lock = threading.RLock()  # re-entrant: a Function's __del__ may run inside a registration


class Function:
    """A concrete function registered in the engine's context (with the functions it calls) while
    this object lives (the iterators running one hold it)."""

    def __init__(self, eng, cf):
        err = ctypes.create_string_buffer(_ERR)
        library = cf.graph.as_graph_def().library.function
        fdef = cf.function_def
        self._lib, self._names = eng.lib, []
        for f in list(library) + [fdef]:
            data = f.SerializeToString()
            name = f.signature.name.encode()
            with _registered_lock:
                _check(eng.lib.txd_add_function_def(name, data, len(data), err, _ERR), err, "registering %s" % name)
                _registered[name] = _registered.get(name, 0) + 1
            self._names.append(name)
        self._captures = [np.array(t.numpy(), order="C") for t in cf.captured_inputs]  # 0-d stays 0-d
        n, dtypes, ranks, dims, data = _arrays_args(self._captures)
        outs = [t.dtype.as_datatype_enum for t in cf.outputs]
        self.handle = eng.lib.txd_function_new(fdef.signature.name.encode(), len(outs), _int_array(ctypes.c_int, outs),
                                               n, dtypes, ranks, dims, data, err, _ERR)
        if not self.handle:
            _check(-1, err, "function " + fdef.signature.name)
        self._delete = eng.lib.txd_function_delete

    def __del__(self):
        if getattr(self, "handle", None):
            self._delete(self.handle)
        with _registered_lock:
            for name in reversed(getattr(self, "_names", [])):
                _registered[name] -= 1
                if not _registered[name]:
                    del _registered[name]
                    self._lib.txd_remove_function(name)


def _native_function(owner, attr, cf):
    """The engine's Function for concrete function ``cf``, made once and kept on ``owner``."""
    f = getattr(owner, attr, None)
    if f is None:
        f = Function(engine(), cf)
        setattr(owner, attr, f)
    return f


# ---------------------------------------------------------------------------------------------
# Planning: which chain the engine runs (Note [Native segments])


class _Step:
    """One node of a native chain: its kind, the Python node, and its first stamp slot."""

    def __init__(self, kind, node, width):
        self.kind, self.node, self.width, self.slot = kind, node, width, 0


def _numeric(a):
    """Whether array ``a`` passes to the engine as it is (a numeric dtype)."""
    return a.dtype != object and tx.as_dtype(a.dtype).as_datatype_enum in _NUMERIC


def _fits(element_spec, element):
    """Whether ``element`` (a restored buffer's) has numeric components of ``element_spec``'s dtypes
    and shapes (any other runs in the Python engine, which has the errors for it)."""
    try:
        _structure.check_element(element_spec, element, "shuffle")
    except tx.errors.InvalidArgumentError:
        return False
    return all(_numeric(a) for a in element)


def _source_step(node, ctx):
    from tensorflux_data._files import _TextLineFiles, _TFRecordFiles
    from tensorflux_data._interleave import InterleaveDataset
    from tensorflux_data._sources import RangeDataset, TensorSlicesDataset
    t = type(node)
    if t is TensorSlicesDataset:
        if all(_numeric(a) for a in node._arrays):
            return _Step("slices", node, 1)
    elif t is RangeDataset:
        if node._np_dtype in (np.int32, np.int64):
            return _Step("range", node, 1)
    elif t in (_TFRecordFiles, _TextLineFiles) and type(node._inputs[0]) is TensorSlicesDataset:
        return _Step("tfrecord" if t is _TFRecordFiles else "text_line", node, _TFRECORD_SLOTS)
    elif t is InterleaveDataset and _native_interleave.names_source(node._inputs[0]) and \
            (ctx.deterministic if node._deterministic is None else bool(node._deterministic)):
        inner = _native_interleave.inner_chain(node, ctx)
        if inner is not None:
            step = _Step("interleave", node, _native_interleave.HEAD + (2 + _width(inner)) * node._cycle)
            step.inner = inner
            return step
    return None


# Note [Native interleave] in csrc/interleave.cc; the TFRecord source's stamp slots (nodes.h has the same).
_TFRECORD_SLOTS = 3
_FILE_KINDS = ("tfrecord", "text_line")  # file sources: the same stamp and Python state layout


def _chain(top, ctx):
    """The steps of the native chain ending at ``top``, bottom first; None when there is none."""
    steps = _walk(top, ctx)
    if steps is None:
        return None
    kinds = {s.kind for s in steps}
    worth = {"map", "fused_map", "filter", "shuffle", "interleave"}
    if not kinds & worth and not (steps[0].kind in _FILE_KINDS and "batch" in kinds):
        return None  # nothing worth moving (Note [Native segments])
    return _placed(steps)


def _walk(top, ctx):
    """The steps the engine can run from ``top`` down to a source, bottom first; None when it cannot run one."""
    from tensorflux_data import _fusion
    from tensorflux_data._batch import BatchDataset
    from tensorflux_data._map import FilterDataset, MapDataset
    from tensorflux_data._shuffle import PrefetchDataset, ShuffleDataset
    steps, node = [], top
    while True:
        t = type(node)
        if t is PrefetchDataset and node._buffer != 0:
            steps.append(_Step("prefetch", node, 1))
        elif t is ShuffleDataset:
            steps.append(_Step("shuffle", node, 3))
        elif t is BatchDataset:
            inp = node._inputs[0]
            if node.whole_batch_errors(ctx) and type(inp) is MapDataset and function_ok(inp._fn) and \
                    _fusion.fusable(inp) is not None:
                steps.append(_Step("batch", node, 0))
                steps.append(_Step("fused_map", inp, 2))
                node = inp
            else:
                steps.append(_Step("batch", node, 0))
        elif t is MapDataset and function_ok(node._fn):
            steps.append(_Step("map", node, 2))
        elif t is FilterDataset and function_ok(node._fn):
            steps.append(_Step("filter", node, 1))
        else:
            source = _source_step(node, ctx)
            if source is None:
                return None
            steps.append(source)
            break
        node = node._inputs[0]
    steps.reverse()
    return steps


def _placed(steps):
    """``steps`` with their first stamp slots assigned."""
    slot = 0
    for s in steps:
        s.slot, slot = slot, slot + s.width
    return steps


def _width(steps):
    """The stamp slots of ``steps``."""
    return sum(s.width for s in steps)


def segment(node, ctx):
    """A NativeIterator for the chain ending at ``node``, or None (Note [Native segments])."""
    if ctx.debug or not ctx.native or ctx.options.experimental_optimization.native_engine is False:
        return None
    steps = _chain(node, ctx)
    if steps is None or engine() is None:
        return None
    return NativeIterator(steps, ctx)


# ---------------------------------------------------------------------------------------------
# Positions: stamps and the Python nodes' states


def _initial(steps):
    return [0] * _width(steps)


def _write_state(steps, stamp, w, shuffles, files=None):
    """The Python iterators' state of the chain at ``stamp`` (top node first); ``shuffles(i)`` is
    (stream key, buffered elements) of shuffle step ``i`` at ``stamp``; ``files``, the names a
    TFRecord step reads (default: its node's; an interleave's inner chain reads another's)."""
    for i in reversed(range(len(steps))):
        s = steps[i]
        v = stamp[s.slot:s.slot + s.width]
        if s.kind == "prefetch":
            w.put_results("buffer", [])
            w.put("ended", bool(v[0]))
        elif s.kind in ("map", "fused_map"):
            w.put_results("results", [])
            w.put("unmapped_index", np.zeros(0, np.int64))
            w.put_elements("unmapped", [])
            w.put("count", int(v[0]))
            w.put("exhausted", bool(v[1]))
        elif s.kind == "filter":
            w.put("count", int(v[0]))
            w.put("ended", False)
        elif s.kind == "shuffle":
            key, buffer = shuffles(i)
            _shuffle.save_shuffle(w, buffer, key, int(v[1]), bool(v[2]))
        elif s.kind in ("slices", "range"):
            w.put("index", int(v[0]))
        elif s.kind in _FILE_KINDS:
            _write_tfrecord(w, _paths(s.node) if files is None else files, v)
        elif s.kind == "interleave":
            _native_interleave.write_interleave(w, s, v)
        w = w.child("input")


def _read_state(steps, r, files=None):
    """(stamp, {shuffle step: (stream key, buffered elements)}) a state of the chain's Python
    iterators describes; None when it holds buffered elements other than a shuffle's numeric ones,
    errors or a finished take_while (the Python engine resumes it then). ``files`` as _write_state's."""
    stamp, shuffles = _initial(steps), {}
    for i in reversed(range(len(steps))):
        s = steps[i]
        at = s.slot
        if s.kind == "prefetch":
            if r.get_results("buffer"):
                return None
            stamp[at] = int(bool(r.get("ended")))
        elif s.kind in ("map", "fused_map"):
            if r.get_results("results") or len(r.get("unmapped_index")):
                return None
            stamp[at:at + 2] = [r.get_int("count"), int(bool(r.get("exhausted")))]
        elif s.kind == "filter":
            if bool(r.get("ended")):
                return None
            stamp[at] = r.get_int("count")
        elif s.kind == "shuffle":
            buffer, key, draws, in_done = _shuffle.read_shuffle(r)
            if len(buffer) > s.node._size or not all(_fits(s.node.element_spec, e) for e in buffer):
                return None
            stamp[at:at + 3] = [0, draws, int(in_done)]
            shuffles[i] = (key, buffer)
        elif s.kind in ("slices", "range"):
            stamp[at] = r.get_int("index")
        elif s.kind in _FILE_KINDS + ("interleave",):
            v = _read_tfrecord(r, s.node, files) if s.kind in _FILE_KINDS else _native_interleave.read_interleave(r, s)
            if v is None:
                return None
            stamp[at:at + s.width] = v
        r = r.child("input")
    return stamp, shuffles


def _paths(node):
    return [bytes(p) for p in node._inputs[0]._arrays[0].tolist()]


def _write_tfrecord(w, paths, v):
    """The TFRecord files iterator's state over ``paths`` at its stamp slots ``v``."""
    next_file, is_open, offset = (int(x) for x in v)
    w.put_results("pending", [])
    w.put("open", bool(is_open))
    if is_open:
        w.put("path", np.array(paths[next_file - 1], object))
        w.put("offset", offset)
    w.child("input").put("index", next_file)


def _read_tfrecord(r, node, paths=None):
    """The stamp slots of a TFRecord files iterator's state (over ``paths``, default ``node``'s); None
    with an error pending or a position not in those files."""
    paths = _paths(node) if paths is None else paths
    if r.get_results("pending"):
        return None
    is_open, next_file = bool(r.get("open")), r.child("input").get_int("index")
    if not 0 <= next_file <= len(paths):
        return None
    if is_open and not (next_file >= 1 and r.get("path").item() == paths[next_file - 1]):
        return None
    return [next_file, int(is_open), r.get_int("offset") if is_open else 0]


def _array(address):
    """The element component of the TX_Tensor at ``address`` (ownership taken): an array holding the
    eager tensor that shares its memory (Note [Held tensors] in _structure.py)."""
    return _structure.with_tensor(tx.experimental.c_api.from_c_tensor(address))


# ---------------------------------------------------------------------------------------------
# The iterator


class NativeIterator(NodeIterator):
    """The chain ``steps`` run by the engine (Note [Native segments]); after an error, or a restore of
    a state with buffered elements, the same nodes' Python iterators from that position."""

    def __init__(self, steps, ctx):
        from tensorflux_data._base import NodeStats
        self._steps, self._ctx = steps, ctx
        self._eng = engine()
        self._stamp = _initial(steps)
        self._pipeline, self._python, self._arrays = None, None, None
        self._err = ctypes.create_string_buffer(_ERR)
        self._out = (ctypes.c_void_p * _MAX_COMPONENTS)()
        self._stamp_buf = (ctypes.c_int64 * max(1, len(self._stamp)))()
        self._recs = []  # (engine node index, NodeStats): a fused map's work is its batch's
        for i, s in enumerate(steps):
            if _fused_batch(steps, i):
                continue
            node = steps[i + 1].node if s.kind == "fused_map" else s.node
            rec = ctx.stats.get(id(node))
            if rec is None:
                rec = ctx.stats[id(node)] = NodeStats(node)
            self._recs.append((i, rec))
        self._base = [(r.elements, r.seconds, r.wait_seconds) for _, r in self._recs]
        self._shuffles = {i: (_seeds.shuffle_key(s.node._seed, ctx.key if s.node._reshuffle else ()), [])
                          for i, s in enumerate(steps) if s.kind == "shuffle"}  # as of self._stamp until built
        ctx.refreshers.append(self._refresh)

    @property
    def kinds(self):
        """The kinds of the engine's nodes, bottom first (tests and debugging)."""
        return [s.kind for s in self._steps]

    @property
    def in_python(self):
        """Whether the Python engine runs these nodes now (after an error or a restore)."""
        return self._python is not None

    # -- building

    def _build(self):
        err, lib = self._err, self._eng.lib
        p = lib.txd_pipeline_new(len(self._steps), max(1, len(self._stamp)))
        if not p:
            raise MemoryError("tensorflux-data engine: cannot make a pipeline")
        self._pipeline = p
        threads = self._ctx.pool_size  # 0: the engine's pool of one worker per core
        for i, s in enumerate(self._steps):
            n, v = s.node, self._stamp[s.slot:s.slot + s.width]
            if s.kind == "slices":
                arrays = [np.ascontiguousarray(a) for a in n._arrays]
                self._arrays = arrays  # the engine reads them while the pipeline lives
                rc = lib.txd_slices(p, i, s.slot, *_arrays_args(arrays, rows=True), n._size, v[0], err, _ERR)
            elif s.kind == "range":
                rc = lib.txd_range(p, i, s.slot, n._start, n._step, n._size, tx.as_dtype(n._np_dtype).as_datatype_enum,
                                   v[0], err, _ERR)
            elif s.kind in _FILE_KINDS:
                paths = _paths(n)
                make = lib.txd_tfrecord if s.kind == "tfrecord" else lib.txd_text_line
                rc = make(p, i, s.slot, len(paths), (ctypes.c_char_p * len(paths))(*paths),
                          _streams.compression_code(n._wbits), v[0], v[1], v[2], err, _ERR)
            elif s.kind == "interleave":
                rc = self._build_interleave(p, i, s, v)
            elif s.kind in ("map", "fused_map"):
                fn, batch, drop = _map_function(self._steps, i, self._ctx)
                rc = lib.txd_map(p, i, s.slot, fn.handle, *self._seeds(n), self._width(n), threads, batch, drop, v[0],
                                 err, _ERR)
            elif s.kind == "filter":
                fn = _function_of(n, self._ctx)
                rc = lib.txd_filter(p, i, s.slot, fn.handle, *self._seeds(n), v[0], err, _ERR)
            elif s.kind == "shuffle":
                key, buffer = self._shuffles[i]
                flat = [np.asarray(a, order="C") for e in buffer for a in e]  # 0-d stays 0-d
                _, dtypes, ranks, dims, data = _arrays_args(flat)
                rc = lib.txd_shuffle(p, i, s.slot, n._size, key, _int_array(ctypes.c_int64, self._stamp), len(buffer),
                                     len(buffer[0]) if buffer else 0, dtypes, ranks, dims, data, err, _ERR)
            elif s.kind == "batch":
                if _fused_batch(self._steps, i):
                    continue  # the fused map batched already
                rc = lib.txd_batch(p, i, n._size, int(n._drop), err, _ERR)
            else:  # prefetch
                rc = lib.txd_prefetch(p, i, s.slot, int(n._buffer), err, _ERR)
            _check(rc, err, "building " + s.kind)

    def _build_interleave(self, p, i, s, v):
        """Adds interleave step ``s`` (node ``i``, stamp slots ``v``) and its inner chain to pipeline ``p``."""
        paths, inner = _paths(s.node), s.inner
        kinds, fns, params = [], [], []
        for k in range(1, len(inner)):
            t = inner[k]
            if _fused_batch(inner, k):
                continue
            if t.kind == "batch":
                kinds.append(2)
                fns.append(None)
                params += [1, t.node._size, int(t.node._drop), t.slot]
            elif t.kind == "filter":
                kinds.append(1)
                fns.append(_function_of(t.node, self._ctx).handle)
                params += [1, 0, 0, t.slot]
            else:
                fn, batch, drop = _map_function(inner, k, self._ctx)
                kinds.append(0)
                fns.append(fn.handle)
                params += [self._width(t.node), batch, drop, t.slot]
        return self._eng.lib.txd_interleave(
            p, i, s.slot, len(paths), (ctypes.c_char_p * len(paths))(*paths), s.node._cycle, s.node._block, len(kinds),
            _int_array(ctypes.c_int, kinds), _int_array(ctypes.c_void_p, fns), _int_array(ctypes.c_int64, params),
            _width(inner), self._ctx.pool_size, _streams.compression_code(inner[0].node._wbits),
            _int_array(ctypes.c_int64, v), self._err, _ERR)

    def _width(self, node):
        """The calls a map keeps in flight: 1 (sequential), its num_parallel_calls, or AUTOTUNE (-1,
        the engine's measured width, Note [Native autotune] in csrc/map.cc)."""
        return 1 if node._parallel is None else node._parallel

    def _seeds(self, node):
        """(seeded, seed word) of a function node's per-element seeds (Note [Element seeds])."""
        return (1, _seeds.iterator_seed(self._ctx, node)) if node._fn.seeded else (0, 0)

    def _shuffle_at(self, i):
        """(stream key, buffered elements) of shuffle step ``i`` as of the last element handed out."""
        key, buffer = self._shuffles[i]
        if self._pipeline is None:
            return key, buffer
        s = self._steps[i]
        cap = s.node._size * len(_structure.flat_specs(s.node.element_spec))
        out, ncomp = (ctypes.c_void_p * max(1, cap))(), ctypes.c_int(0)
        n = self._eng.lib.txd_shuffle_buffer(self._pipeline, i, self._stamp[s.slot], out, cap, ctypes.byref(ncomp),
                                             self._err, _ERR)
        _check(n, self._err, "reading a shuffle buffer")
        k = ncomp.value
        arrays = [_array(out[j]) for j in range(n * k)]
        return key, [tuple(arrays[e * k:(e + 1) * k]) for e in range(n)]

    def _drop_pipeline(self):
        if self._pipeline is not None:
            self._refresh()
            self._base = [(r.elements, r.seconds, r.wait_seconds) for _, r in self._recs]
            self._eng.lib.txd_pipeline_delete(self._pipeline)
            self._pipeline = self._arrays = None

    # -- iterating

    def next(self):
        if self._python is not None:
            return self._python.next()
        n = self._pull()
        if n is None:
            return self._python.next()
        return END if n < 0 else tuple(_array(self._out[i]) for i in range(n))

    def next_tensors(self):
        """next() as eager tensors, for the iterator's consumer (no arrays made for it)."""
        if self._python is None:
            n = self._pull()
            if n is not None:
                return END if n < 0 else tuple(tx.experimental.c_api.from_c_tensor(self._out[i]) for i in range(n))
        x = self._python.next()
        return END if x is END else tuple(_structure.as_tensor(a) for a in x)

    def _pull(self):
        """The engine's next element into self._out: its component count, -1 at the end, None when the
        Python engine takes over (after an error)."""
        if self._pipeline is None:
            self._build()
        n = self._eng.lib.txd_next(self._pipeline, self._out, _MAX_COMPONENTS, self._stamp_buf, self._err, _ERR)
        if n < -1:
            self._to_python()
            return None
        self._stamp = list(self._stamp_buf)
        return n

    def _python_chain(self):
        """The Python iterators of the same nodes, in a context that plans no native chain."""
        return self._steps[-1].node._iter(self._ctx.without_native())

    def _to_python(self):
        """Continues in the Python engine from the last element handed out (Note [Native segments])."""
        arrays = {}
        _write_state(self._steps, self._stamp, _state.StateWriter(arrays), self._shuffle_at)
        self._drop_pipeline()
        it = self._python_chain()
        it.restore(_state.StateReader(arrays))
        self._python = it

    # -- state

    def save(self, w):
        if self._python is not None:
            self._python.save(w)
        else:
            _write_state(self._steps, self._stamp, w, self._shuffle_at)

    def restore(self, r):
        self._drop_pipeline()
        if self._python is not None:
            self._python.close()
            self._python = None
        position = _read_state(self._steps, r)
        if position is None:
            it = self._python_chain()
            it.restore(r)
            self._python = it
        else:
            self._stamp, self._shuffles = position

    def close(self):
        self._drop_pipeline()
        if self._python is not None:
            self._python.close()

    def __del__(self):
        try:
            self._drop_pipeline()
        except Exception:  # noqa: S110 (interpreter shutdown)
            pass

    # -- stats

    def _refresh(self):
        if self._pipeline is None:
            return
        out = (ctypes.c_int64 * 3)()
        for (i, rec), (elements, seconds, wait) in zip(self._recs, self._base):
            self._eng.lib.txd_node_stats(self._pipeline, i, out)
            rec.elements, rec.seconds = elements + out[0], seconds + out[1] * 1e-9
            rec.wait_seconds = wait + out[2] * 1e-9


def _function_of(node, ctx):
    """The engine's Function of map or filter ``node`` in an iterator of context ``ctx`` (one bound to
    its captured outer tensors' values there, Note [Captured outer tensors] in _functions.py)."""
    owner = node._fn.bound(ctx)
    return _native_function(owner, "_native", owner.concrete)


def _map_function(steps, i, ctx):
    """(engine Function, batch size, drop remainder) of map step ``i``: its function, or with a
    "fused_map" step its batched function and the batch after it (batch size 0: not fused)."""
    from tensorflux_data import _fusion
    n = steps[i].node
    if steps[i].kind != "fused_map":
        return _function_of(n, ctx), 0, 0
    batch = steps[i + 1].node
    return _native_function(n, "_native_batched", _fusion.fusable(n)), batch._size, int(batch._drop)


def _fused_batch(steps, i):
    """Whether step ``i`` is a batch whose map the step below runs fused (no engine node of its own)."""
    return steps[i].kind == "batch" and i > 0 and steps[i - 1].kind == "fused_map"



