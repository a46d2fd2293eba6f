"""Python callables as graph ops: ``tx.py_function`` (EagerPyFunc: the callable sees EagerTensors
and is differentiable) and ``tx.numpy_function`` (PyFunc / PyFuncStateless: it sees NumPy arrays).

The callable is registered with the engine as a host callback under a fresh token (Note [Host
callbacks] in the engine, Note [Python host callbacks] in the binding). Its lifetime: eagerly, the
op's execution; in a graph (a tx.function's included), the graph's. A Python exception inside it
fails the run with the exception's type, message and traceback (TensorFlow's codes:
ValueError/TypeError -> InvalidArgument, StopIteration/IndexError -> OutOfRange, MemoryError ->
ResourceExhausted, NotImplementedError -> Unimplemented, a tx.errors.OpError its own, others Unknown).

Gradients of py_function: the engine's EagerPyFunc gradient calls the callable registered under
"<token>_grad", which re-runs the function on the inputs under a GradientTape (TensorFlow caches
the forward tape instead; the function is called again here, so a stateful function should not be
differentiated). Eagerly the same recomputation is recorded as a custom gradient on the tape.
"""

import itertools
import threading
import traceback

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import errors as _errors
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src.generated import gen_ops
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.backprop import GradientTape, custom_gradient
from tensorflux._src.shape_ops import zeros_like

_c = lib.c
_ids = itertools.count()
_GRAD_SUFFIX = "_grad"  # the engine's EagerPyFunc gradient appends this to the token

_EXCEPTION_CODES = ((ValueError, _errors.INVALID_ARGUMENT), (TypeError, _errors.INVALID_ARGUMENT),
                    (StopIteration, _errors.OUT_OF_RANGE), (IndexError, _errors.OUT_OF_RANGE),
                    (MemoryError, _errors.RESOURCE_EXHAUSTED), (NotImplementedError, _errors.UNIMPLEMENTED))


def _error_of(exc):
    """(code, message) for the exception ``exc`` raised by a user function."""
    if isinstance(exc, _errors.OpError):
        code = exc.error_code
    else:
        code = next((c for t, c in _EXCEPTION_CODES if isinstance(exc, t)), _errors.UNKNOWN)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return code, "%s: %s\n%s" % (type(exc).__name__, exc, text)


def _wrap(func, convert_outputs):
    """The callable the binding registers: list of arrays -> (outputs, None) or (None, error)."""

    def host_callback(arrays):
        try:
            with _context.eager_scope():
                return convert_outputs(func(arrays)), None
        except BaseException as e:  # noqa: B902 - every failure becomes the run's error
            return None, _error_of(e)

    return host_callback


class _Registration:
    """Owns host callback tokens: unregisters them when it is released (with its graph)."""

    def __init__(self):
        self.tokens = []
        self._lock = threading.Lock()

    def add(self, token, callback):
        _c.register_host_callback(token, callback)
        with self._lock:
            self.tokens.append(token)

    def release(self):
        with self._lock:
            tokens, self.tokens = self.tokens, []
        for t in tokens:
            _c.unregister_host_callback(t)

    def __del__(self):
        try:
            self.release()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _graph_registration(graph):
    """The registration of ``graph``'s callbacks: the outermost graph's (control-flow bodies are
    traced into graphs that do not outlive their construction)."""
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    reg = getattr(graph, "_host_callbacks", None)
    if reg is None:
        reg = graph._host_callbacks = _Registration()
    return reg


def _normalize_tout(Tout):
    """(list of DTypes, whether a single value is returned, whether None is returned)."""
    if Tout is None:
        return [], False, True
    if isinstance(Tout, (list, tuple)):
        return [_dtypes.as_dtype(t) for t in Tout], False, False
    return [_dtypes.as_dtype(Tout)], True, False


def _as_list(result, n, what):
    if n == 0:
        return []
    if isinstance(result, (list, tuple)):
        values = list(result)
    else:
        values = [result]
    if len(values) != n:
        raise ValueError("%s returned %d values, but Tout has %d" % (what, len(values), n))
    return values


def _eager_outputs(tout, what):
    def convert(result):
        out = []
        for i, (v, dt) in enumerate(zip(_as_list(result, len(tout), what), tout)):
            if hasattr(v, "dtype") and _dtypes.as_dtype(v.dtype) != dt:
                raise ValueError("The %d-th value returned by %s has dtype %s, but Tout expects %s"
                                 % (i, what, _dtypes.as_dtype(v.dtype).name, dt.name))
            t = convert_to_tensor(v, dtype=dt)
            out.append((dt.as_datatype_enum, np.asarray(t.numpy(), order="C")))
        return out

    return convert


def _numpy_outputs(tout, what):
    def convert(result):
        return [(dt.as_datatype_enum, np.asarray(v, dtype=dt.as_numpy_dtype, order="C"))
                for v, dt in zip(_as_list(result, len(tout), what), tout)]

    return convert


def _eager_call(func):
    """func over EagerTensors, called with NumPy arrays."""
    def call(arrays):
        return func(*[constant(a) for a in arrays])

    return call


def _grad_callback(func, num_inputs):
    """The gradient of ``func``: (inputs..., output gradients...) -> one gradient per input."""
    def grad(arrays):
        with _context.eager_scope():
            xs = [constant(a) for a in arrays[:num_inputs]]
            dys = [constant(a) for a in arrays[num_inputs:]]
            with GradientTape() as tape:
                for x in xs:
                    if x.dtype.is_floating or x.dtype.is_complex:
                        tape.watch(x)
                ys = func(*xs)
            ys = [] if ys is None else list(ys) if isinstance(ys, (list, tuple)) else [ys]
            pairs = [(y, dy) for y, dy in zip(ys, dys) if hasattr(y, "dtype") and (y.dtype.is_floating or
                                                                                 y.dtype.is_complex)]
            grads = tape.gradient([p[0] for p in pairs], xs, output_gradients=[p[1] for p in pairs]) if pairs \
                else [None] * len(xs)
            out = []
            for x, g in zip(xs, grads):
                g = zeros_like(x) if g is None else g
                out.append((x.dtype.as_datatype_enum, np.asarray(g.numpy(), order="C")))
            return out, None

    def host_callback(arrays):
        try:
            return grad(arrays)
        except BaseException as e:  # noqa: B902
            return None, _error_of(e)

    return host_callback


def _new_token(prefix):
    return "%s_%d" % (prefix, next(_ids))


def py_function(func, inp, Tout, name=None):
    """Wraps ``func`` (EagerTensors in, EagerTensors or convertible values out) as an op; eagerly,
    in graphs and inside tx.function. ``Tout``: a dtype (one result), a list of dtypes (a list),
    or None / [] (no result). Differentiable with respect to floating inputs."""
    tout, single, returns_none = _normalize_tout(Tout)
    inp = list(inp) if isinstance(inp, (list, tuple)) else [inp]
    what = "py_function %r" % getattr(func, "__name__", func)
    forward = _wrap(_eager_call(func), _eager_outputs(tout, what))
    token = _new_token("pyfunc")
    if _context.executing_eagerly():
        outs = _eager_py_function(func, forward, token, inp, tout, name)
    else:
        reg = _graph_registration(_graph.get_default_graph())
        reg.add(token, forward)
        reg.add(token + _GRAD_SUFFIX, _grad_callback(func, len(inp)))
        outs = gen_ops.eager_py_func(inp, token=token, Tout=tout, name=name)
    if returns_none:
        return None
    return outs[0] if single else list(outs)


def _eager_py_function(func, forward, token, inp, tout, name):
    xs = [convert_to_tensor(x) for x in inp]

    def run(*args):
        _c.register_host_callback(token, forward)
        try:
            return list(gen_ops.eager_py_func(list(args), token=token, Tout=tout, name=name))
        finally:
            _c.unregister_host_callback(token)

    differentiable = [x for x in xs if x.dtype.is_floating or x.dtype.is_complex]
    if not differentiable or not tout:
        return run(*xs)

    @custom_gradient
    def with_grad(*args):
        outs = run(*args)

        def grad(*dys):
            dys = [zeros_like(o) if d is None else d for o, d in zip(outs, dys)]
            g_token = _new_token("pyfunc_grad")
            _c.register_host_callback(g_token, _grad_callback(func, len(args)))
            try:
                grads = gen_ops.eager_py_func(list(args) + dys, token=g_token, Tout=[a.dtype for a in args])
            finally:
                _c.unregister_host_callback(g_token)
            return [g if (a.dtype.is_floating or a.dtype.is_complex) else None for a, g in zip(args, grads)]

        return outs, grad

    return with_grad(*xs)


def numpy_function(func, inp, Tout, stateful=True, name=None):
    """Wraps ``func`` (NumPy arrays in, arrays or convertible values out) as a PyFunc op
    (PyFuncStateless when ``stateful`` is False); not differentiable."""
    tout, single, returns_none = _normalize_tout(Tout)
    outs, _ = numpy_function_op(func, inp, tout, stateful, name)
    if returns_none:
        return None
    return outs[0] if single else list(outs)


def numpy_function_op(func, inp, tout, stateful=True, name=None):
    """numpy_function's op: (its outputs, the Operation in graph mode or None eagerly)."""
    inp = list(inp) if isinstance(inp, (list, tuple)) else [inp]
    what = "numpy_function %r" % getattr(func, "__name__", func)

    def call(arrays):
        return func(*arrays)

    callback = _wrap(call, _numpy_outputs(tout, what))
    token = _new_token("pyfunc")
    op = gen_ops.py_func if stateful else gen_ops.py_func_stateless
    if _context.executing_eagerly():
        _c.register_host_callback(token, callback)
        try:
            return op(inp, token=token, Tout=tout, name=name), None
        finally:
            _c.unregister_host_callback(token)
    g = _graph.get_default_graph()
    _graph_registration(g).add(token, callback)
    op_name = g.unique_name(name or ("PyFunc" if stateful else "PyFuncStateless"))
    outs = op(inp, token=token, Tout=tout, name=op_name + "/")
    return outs, g.get_operation_by_name(op_name)
