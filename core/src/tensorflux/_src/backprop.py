"""`GradientTape` and `custom_gradient`: eager automatic differentiation, recorded in the engine
(TXE_ tape C API) and differentiated with the same C++ gradient functions as graph mode."""

import contextlib
import functools
import itertools
import threading
import weakref

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import lib
from tensorflux._src.nest import flatten, pack_sequence_as
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.gradients_impl import UnconnectedGradients
from tensorflux._src.variables import Variable

_c = lib.c

# Eager Variables by the identity of their handle, for GradientTape.watched_variables().
_variables_by_handle_id = weakref.WeakValueDictionary()


class _TapeThreadState(threading.local):
    def __init__(self):
        self.active = []  # the GradientTapes recording on this thread, innermost last


_tls = _TapeThreadState()


def register_variable(var):
    """Makes an eager Variable findable from its handle (called by Variable)."""
    _variables_by_handle_id[_c.eager_tensor_id(var.handle)] = var


def _handle_of(x, what):
    if isinstance(x, Variable):
        if not x._eager:
            raise TypeError("GradientTape works in eager mode; %s is a graph Variable (use tx.gradients)." % x.name)
        return x.handle
    if isinstance(x, EagerTensor):
        return x
    raise TypeError("%s must be an eager tensor or Variable, got %r" % (what, x))


class GradientTape:
    """Records the ops run eagerly inside its ``with`` block so that `gradient` can differentiate
    them, as TensorFlow's tf.GradientTape: trainable Variables read inside are watched
    automatically (``watch_accessed_variables``), other tensors with `watch`. A non-persistent tape
    computes one gradient; ``persistent=True`` allows several (and `jacobian`). Tapes nest: an
    outer tape records the gradient computation of an inner one, which gives higher derivatives."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._tape = None
        self._recording = False
        self._graph = None  # set when entered while building a graph (a tx.function being traced)
        # Engine functions called while recording, kept in the context's library for gradient()
        # (Note [Freeing context functions] in functions.py).
        self._functions = []

    def __enter__(self):
        if not _context.executing_eagerly():
            # Symbolic tape (Note [Tapes in graphs]): gradients become graph ops via tx.gradients.
            from tensorflux._src.graph import get_default_graph

            self._graph = get_default_graph()
            self._tape = "symbolic"
            return self
        self._graph = None
        if self._tape is None:
            _context.ensure_initialized()
            self._tape = _c.tape_new(self._persistent, self._watch_accessed)
        else:
            _c.tape_set_recording(self._tape, True)
        self._recording = True
        _tls.active.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._graph is not None:
            return False
        if self._recording:
            _c.tape_set_recording(self._tape, False)
            self._recording = False
        if self in _tls.active:
            _tls.active.remove(self)
        return False

    def _require(self):
        if self._tape is None:
            raise RuntimeError("This GradientTape was never entered: use `with tx.GradientTape() as tape:`.")
        return self._tape

    def watch(self, tensor):
        """Makes gradients with respect to ``tensor`` (a tensor, Variable or nested structure of
        them) trackable from now on."""
        tape = self._require()
        if self._graph is not None:
            return  # symbolic tapes differentiate every path
        for t in flatten(tensor):
            _c.tape_watch(tape, _handle_of(t, "A watched value"))

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops inside this block are not recorded."""
        tape = self._require()
        if self._graph is not None:
            raise NotImplementedError("GradientTape.stop_recording inside tx.function is not supported; use "
                                      "tx.stop_gradient on the values instead.")
        if not self._recording:
            raise ValueError("Tape must be recording when stop_recording is entered.")
        _c.tape_set_recording(tape, False)
        self._recording = False
        try:
            yield
        finally:
            _c.tape_set_recording(tape, True)
            self._recording = True

    def reset(self):
        """Forgets everything recorded so far (the tape keeps recording)."""
        was = self._recording
        self._tape = None
        self._tape = _c.tape_new(self._persistent, self._watch_accessed)
        if not was:
            _c.tape_set_recording(self._tape, False)

    def watched_variables(self):
        """The trainable Variables this tape watched (explicitly or by reading them), in the order
        first watched."""
        if self._graph is not None:
            from tensorflux._src.variables import trainable_variables

            found = getattr(self._graph, "variables", None)
            return [v for v in found if v.trainable] if found is not None else trainable_variables(self._graph)
        out = []
        for i in _c.tape_watched_variable_ids(self._require()):
            v = _variables_by_handle_id.get(i)
            if v is not None and v.trainable and v not in out:
                out.append(v)
        return out

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """The gradients of ``target`` (a tensor or nested structure; gradients of several targets
        are summed) with respect to ``sources`` (tensors or Variables, nested), in the structure of
        ``sources``; None for a source the target does not depend on (or zeros with
        ``unconnected_gradients=tx.UnconnectedGradients.ZERO``)."""
        tape = self._require()
        if self._graph is not None:
            return self._symbolic_gradient(target, sources, output_gradients, unconnected_gradients)
        targets = flatten(target)
        for t in targets:
            if not isinstance(t, EagerTensor):
                raise TypeError("GradientTape.gradient: targets must be eager tensors, got %r" % (t,))
        flat_sources = flatten(sources)
        handles = [_handle_of(s, "A source") for s in flat_sources]
        og = None
        if output_gradients is not None:
            from tensorflux._src.constant_op import convert_to_tensor

            og = [None if g is None else convert_to_tensor(g) for g in flatten(output_gradients)]
        unconnected = UnconnectedGradients(unconnected_gradients)
        grads = _c.tape_gradient(tape, targets, handles, og, 1 if unconnected == UnconnectedGradients.ZERO else 0)
        return pack_sequence_as(sources, grads)

    def _symbolic_gradient(self, target, sources, output_gradients, unconnected_gradients):
        from tensorflux._src.gradients_impl import gradients

        g = self._graph

        def graph_tensor(x):
            if isinstance(x, Variable):
                return g._capture_eager(x.handle) if x._eager else x.handle
            if isinstance(x, EagerTensor):
                return g._capture_eager(x)
            return x

        srcs = [graph_tensor(s) for s in flatten(sources)]
        grad_ys = None if output_gradients is None else flatten(output_gradients)
        with g.as_default():
            grads = gradients(flatten(target), srcs, grad_ys=grad_ys, unconnected_gradients=unconnected_gradients)
        return pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE):
        """d target[i...] / d source[j...] for each source: shape target.shape + source.shape. One
        gradient per target element, so the tape must be persistent when target has more than one."""
        from tensorflux._src import array_ops
        from tensorflux._src.constant_op import constant

        if self._graph is not None:
            raise NotImplementedError("GradientTape.jacobian inside tx.function is not supported yet")
        n = target._num_elements
        if n > 1 and not self._persistent:
            raise RuntimeError("GradientTape.jacobian of a target with %d elements needs persistent=True" % n)
        flat_sources = flatten(sources)
        rows = [[] for _ in flat_sources]
        tshape = list(target._shape_tuple())
        for i in range(n):
            onehot = np.zeros(n, dtype=target.dtype.as_numpy_dtype)
            onehot[i] = 1
            grads = self.gradient(target, flat_sources, output_gradients=[constant(onehot.reshape(tshape))],
                                  unconnected_gradients=unconnected_gradients)
            for k, g in enumerate(grads):
                rows[k].append(g)
        out = []
        for s, gs in zip(flat_sources, rows):
            sshape = list(s.shape.as_list())
            if any(g is None for g in gs):
                out.append(None)
                continue
            out.append(array_ops.reshape(array_ops.stack(gs), tshape + sshape))
        return pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE):
        """d target[b, i...] / d source[b, j...] for rows b independent of each other: shape
        [B] + target.shape[1:] + source.shape[1:]."""
        from tensorflux._src import array_ops
        from tensorflux._src.constant_op import constant

        if self._graph is not None:
            raise NotImplementedError("GradientTape.batch_jacobian inside tx.function is not supported yet")
        tshape = list(target._shape_tuple())
        if not tshape:
            raise ValueError("batch_jacobian needs a target of rank >= 1")
        per_row = int(np.prod(tshape[1:], dtype=np.int64))
        if per_row > 1 and not self._persistent:
            raise RuntimeError("GradientTape.batch_jacobian with %d outputs per row needs persistent=True" % per_row)
        cols = []
        for j in range(per_row):
            onehot = np.zeros([tshape[0], per_row], dtype=target.dtype.as_numpy_dtype)
            onehot[:, j] = 1
            (g,) = self.gradient(target, [source], output_gradients=[constant(onehot.reshape(tshape))],
                                 unconnected_gradients=unconnected_gradients)
            if g is None:
                return None
            cols.append(g)
        sshape = list(source.shape.as_list())
        return array_ops.reshape(array_ops.stack(cols, axis=1), tshape + sshape[1:])


def custom_gradient(f):
    """Decorates ``f(*args) -> (outputs, grad_fn)`` so that gradients of the outputs are computed
    by ``grad_fn(*output_gradients)`` (returning one gradient per tensor argument) instead of by
    differentiating ``f``'s ops, as tf.custom_gradient. Works in eager mode (recorded on the
    active tapes). Variables used inside ``f`` are not supported yet (pass their values)."""

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if not _context.executing_eagerly():
            return _graph_custom_gradient(f, args, kwargs)
        from tensorflux._src.array_ops import identity
        from tensorflux._src.constant_op import convert_to_tensor

        tensors = [convert_to_tensor(a) if not isinstance(a, EagerTensor) else a for a in args]
        active = list(_tls.active)
        paused = [t for t in active if t._recording]
        for t in paused:
            _c.tape_set_recording(t._tape, False)
        try:
            outputs, grad_fn = f(*tensors, **kwargs)
        finally:
            for t in paused:
                _c.tape_set_recording(t._tape, True)
        flat = flatten(outputs)
        flat = [identity(o) if any(o is a for a in tensors) else o for o in flat]
        if paused:
            def backward(output_grads):
                grads = grad_fn(*output_grads)
                grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
                return [None if g is None else convert_to_tensor(g) for g in grads]

            _c.record_custom_gradient(tensors, flat, backward)
        return pack_sequence_as(outputs, flat)

    return decorated


_custom_ids = itertools.count(1)


def _graph_custom_gradient(f, args, kwargs):
    """custom_gradient while building a graph (tx.function): ``f``'s forward pass becomes an engine
    function F whose recorded gradient function G (TensorFlow's GradientDef) runs ``grad_fn``;
    the graph calls F, so every gradient of the call, symbolic or taped, goes through G
    (Note [Custom gradients in graphs])."""
    from tensorflux._src import functions
    from tensorflux._src.array_ops import identity, placeholder
    from tensorflux._src.constant_op import convert_to_tensor
    from tensorflux._src.function import FuncGraph
    from tensorflux._src.generated import gen_ops
    from tensorflux._src.shape_ops import zeros_like

    tensors = [convert_to_tensor(a) for a in args]
    n = next(_custom_ids)
    base = getattr(f, "__name__", "custom").replace("<", "").replace(">", "")

    def trace(name, with_grads):
        g = FuncGraph(name)
        with g.as_default():
            phs = [placeholder(t.dtype, t.shape, name="x%d" % i) for i, t in enumerate(tensors)]
            outputs, grad_fn = f(*phs, **kwargs)
            flat = [identity(o) for o in flatten(outputs)]
            ins, outs = list(phs), flat
            if with_grads:
                dys = [placeholder(o.dtype, o.shape, name="dy%d" % i) for i, o in enumerate(flat)]
                grads = grad_fn(*dys)
                grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
                if len(grads) != len(phs):
                    raise ValueError("custom gradient function of %s returned %d gradients for %d inputs"
                                     % (base, len(grads), len(phs)))
                ins = phs + dys
                outs = [identity(zeros_like(p) if d is None else convert_to_tensor(d, dtype=p.dtype))
                        for p, d in zip(phs, grads)]
        if g.captures or g.stateful_ops:
            raise NotImplementedError("tx.custom_gradient inside tx.function supports functions of their arguments "
                                      "only (%s uses other tensors, variables or stateful ops)" % base)
        return functions.graph_to_function(g, name, ins, outs), outputs, flat

    grad_func, _, _ = trace("__custom_grad_%s_%d" % (base, n), True)
    fwd, structure, flat = trace("__custom_fwd_%s_%d" % (base, n), False)
    fwd = functions.Function(fwd._h, grad=grad_func, deps=fwd._deps)
    results = gen_ops.partitioned_call(tensors, Tout=[t.dtype for t in flat], f=fwd)
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    return pack_sequence_as(structure, results)


# Note [Custom gradients in graphs]
# Graph gradients are built by the engine from the C++ gradient registry, so a Python gradient
# function cannot be called there. Instead the decorated function is traced twice into engine
# functions: F (the forward pass) and G (inputs: F's inputs and one gradient per output; outputs:
# grad_fn's results, zeros where it returns None), and G is recorded as F's gradient function
# (GradientDef, TX_GraphCopyFunction / TXE_ContextAddFunctionWithGradient). The graph calls F; the
# gradient of a call of a function with a GradientDef is a call of it (Note [Function gradients]).
# G recomputes the forward pass, as TensorFlow's graph-mode custom gradients do not.


# Note [Tapes in graphs]
# Entered while a graph is being built (a tx.function being traced, or a TF1-style graph), a
# GradientTape records nothing: gradient() adds the gradient ops with tx.gradients, differentiating
# the targets along every path to the sources (there is no eager execution to record). Variables
# created in eager mode are reached through their captured handles, so the gradient of a variable
# is the sum over its reads, as with an eager tape. watch() is not needed; stop_recording is not
# supported there (use tx.stop_gradient).
