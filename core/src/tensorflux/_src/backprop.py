"""`GradientTape` and `custom_gradient`: eager automatic differentiation, recorded in the engine
(TXE_ tape C API) and differentiated with the same C++ gradient functions as graph mode."""

import contextlib
import functools
import itertools
import threading

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import lib
from tensorflux._src import functions
from tensorflux._src.generated import gen_ops
from tensorflux._src.nest import flatten, pack_sequence_as
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.func_graph import FuncGraph
from tensorflux._src.gradients_impl import UnconnectedGradients, gradients
from tensorflux._src.variables import Variable, trainable_variables, variable_by_handle_id
from tensorflux._src.graph import get_default_graph
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.shape_ops import zeros, zeros_like
from tensorflux._src.array_ops import identity, placeholder, reshape, stack

_c = lib.c

class _TapeThreadState(threading.local):
    def __init__(self):
        self.active = []  # the GradientTapes recording on this thread, innermost last


_tls = _TapeThreadState()


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
    outer tape records the gradient computation of an inner one, which gives higher derivatives.

    >>> x = tx.constant(3.0)
    >>> with tx.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    ...
    >>> float(tape.gradient(y, x))
    6.0
    """

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
            self._graph = get_default_graph()
            self._tape = "symbolic"
            return self
        self._graph = None
        if self._tape is None:
            _context.ensure_initialized()
            # Note [Tape persistence]: the engine's tape is always persistent, so that jacobian can
            # take one gradient per target element from a non-persistent tape (TensorFlow does it
            # in one vectorized pass); the one-gradient rule of non-persistent tapes is kept here.
            self._tape = _c.tape_new(True, self._watch_accessed)
        else:
            _c.tape_set_recording(self._tape, True)
        self._recording = True
        _tls.active.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._graph is not None:
            return False
        if self._recording and self._tape is not None:
            _c.tape_set_recording(self._tape, False)
            self._recording = False
        if self in _tls.active:
            _tls.active.remove(self)
        return False

    _used = False

    def _require(self):
        if self._used:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or "
                               "jacobians)")
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
        self._used = False
        self._tape = _c.tape_new(True, self._watch_accessed)
        if not was:
            _c.tape_set_recording(self._tape, False)

    def watched_variables(self):
        """The trainable Variables this tape watched (explicitly or by reading them), in the order
        first watched."""
        if self._graph is not None:
            found = getattr(self._graph, "variables", None)
            return [v for v in found if v.trainable] if found is not None else trainable_variables(self._graph)
        if self._used:
            return list(self._watched_after_use)
        out = []
        for i in _c.tape_watched_variable_ids(self._require()):
            v = variable_by_handle_id(i)
            if v is not None and v.trainable and not any(w is v for w in out):
                out.append(v)
        return out

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """The gradients of ``target`` (a tensor or nested structure; gradients of several targets
        are summed) with respect to ``sources`` (tensors or Variables, nested), in the structure of
        ``sources``; None for a source the target does not depend on (or zeros with
        ``unconnected_gradients=tx.UnconnectedGradients.ZERO``)."""
        self._require()
        if self._graph is not None:
            return self._symbolic_gradient(target, sources, output_gradients, unconnected_gradients)
        with self._one_use():
            return self._eager_gradient(target, sources, output_gradients, unconnected_gradients)

    @contextlib.contextmanager
    def _one_use(self):
        """Around a gradient or jacobian: a non-persistent tape stops recording, and is used up
        (its records freed) afterwards (Note [Tape persistence])."""
        if self._persistent:
            yield
            return
        if self._recording:
            _c.tape_set_recording(self._tape, False)
            self._recording = False
        try:
            yield
        finally:
            self._watched_after_use = self.watched_variables()
            self._used = True
            self._tape = None
            if self in _tls.active:
                _tls.active.remove(self)

    def _eager_gradient(self, target, sources, output_gradients, unconnected_gradients):
        tape = self._tape
        targets = flatten(target)
        for t in targets:
            if not isinstance(t, EagerTensor):
                raise TypeError("GradientTape.gradient: targets must be eager tensors, got %r" % (t,))
        flat_sources = flatten(sources)
        handles = [_handle_of(s, "A source") for s in flat_sources]
        og = None
        if output_gradients is not None:
            og = [None if g is None else convert_to_tensor(g) for g in flatten(output_gradients)]
            if len(og) != len(targets):
                raise ValueError("GradientTape.gradient: got %d output_gradients for %d targets"
                                 % (len(og), len(targets)))
        unconnected = UnconnectedGradients(unconnected_gradients)
        grads = _c.tape_gradient(tape, targets, handles, og, 1 if unconnected == UnconnectedGradients.ZERO else 0)
        return pack_sequence_as(sources, grads)

    def _symbolic_gradient(self, target, sources, output_gradients, unconnected_gradients):
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

    def _cotangent_gradients(self, target, sources, cotangents, unconnected_gradients):
        """For each NumPy cotangent (shaped like ``target``), the gradients of sum(target *
        cotangent) with respect to each of ``sources`` (a list): eagerly from the tape, or in the
        graph being traced (one gradient subgraph each). A non-persistent tape is used up after."""
        self._require()
        out = []
        if self._graph is not None:
            for c in cotangents:
                out.append(self._symbolic_gradient(target, sources, [constant(c)], unconnected_gradients))
            return out
        with self._one_use():
            for c in cotangents:
                out.append(self._eager_gradient(target, sources, [constant(c)], unconnected_gradients))
        return out

    @staticmethod
    def _static_shape(target, what):
        shape = target.shape
        if not shape.is_fully_defined():
            raise ValueError("GradientTape.%s inside tx.function needs a target of static shape, got %s (%s)"
                             % (what, shape, getattr(target, "name", "target")))
        return shape.as_list()

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...] for each of ``sources`` (nested): shape target.shape +
        source.shape, None where the target does not depend on a source. One gradient per target
        element (inside tx.function, one gradient subgraph each: keep targets small there)."""
        tshape = self._static_shape(target, "jacobian")
        n = int(np.prod(tshape, dtype=np.int64))
        flat_sources = flatten(sources)
        eye = np.eye(n, dtype=target.dtype.as_numpy_dtype)
        rows = self._cotangent_gradients(target, flat_sources, [eye[i].reshape(tshape) for i in range(n)],
                                         unconnected_gradients)
        out = []
        for k, s in enumerate(flat_sources):
            gs = [r[k] for r in rows]
            if n == 0:
                out.append(zeros(tshape + s.shape.as_list(), dtype=target.dtype))
                continue
            if any(g is None for g in gs):
                out.append(None)
                continue
            out.append(reshape(stack(gs), tshape + s.shape.as_list()))
        return pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """d target[b, i...] / d source[b, j...] for rows b independent of each other: shape
        [B] + target.shape[1:] + source.shape[1:]."""
        tshape = self._static_shape(target, "batch_jacobian")
        if not tshape:
            raise ValueError("batch_jacobian needs a target of rank >= 1")
        per_row = int(np.prod(tshape[1:], dtype=np.int64))
        cotangents = []
        for j in range(per_row):
            onehot = np.zeros([tshape[0], per_row], dtype=target.dtype.as_numpy_dtype)
            onehot[:, j] = 1
            cotangents.append(onehot.reshape(tshape))
        cols = [g[0] for g in self._cotangent_gradients(target, [source], cotangents, unconnected_gradients)]
        if not cols or any(g is None for g in cols):
            return None
        sshape = list(source.shape.as_list())
        return reshape(stack(cols, axis=1), tshape + sshape[1:])


def custom_gradient(f):
    """Decorates ``f(*args) -> (outputs, grad_fn)`` so that gradients of the outputs are computed
    by ``grad_fn(*output_gradients)`` (returning one gradient per tensor argument) instead of by
    differentiating ``f``'s ops, as tf.custom_gradient. Works in eager mode (recorded on the
    active tapes). Variables used inside ``f`` are not supported yet (pass their values).

    >>> @tx.custom_gradient
    ... def clip_gradient(x):
    ...     def grad(dy):
    ...         return tx.clip_by_value(dy, -1.0, 1.0)
    ...     return tx.identity(x), grad
    >>> x = tx.constant(2.0)
    >>> with tx.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = clip_gradient(x * 10.0)
    ...
    >>> float(tape.gradient(y, x))
    10.0
    """

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if not _context.executing_eagerly():
            return _graph_custom_gradient(f, args, kwargs)

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
