"""`tx.function`: traces a Python function into a function of the engine's library (a FunctionDef)
run by the engine as one call op (StatefulPartitionedCall), as TensorFlow's tf.function.

Tracing runs the Python function once per input signature (dtypes and shapes of the tensor
arguments, values of the other arguments) in a `FuncGraph`; eager tensors and variables the
function uses are captured by handle and passed as extra arguments. Stateful ops run in program
order (each op touching a resource depends on the previous op touching it) and are control outputs
of the function, so updates happen even when no output depends on them (Note [Function state] in
func_graph.py).
"""

import collections
import copy
import itertools
import logging
import operator
import threading
import weakref

import numpy as np

from tensorflux._src import composite as _composite
from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import backprop
from tensorflux._src import functions
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src import op_def_library as _op_def_library
from tensorflux._src.generated import gen_ops
from tensorflux._src.autograph import conversion
from tensorflux._src.autograph import errors as _ag_errors
from tensorflux._src.nest import flatten, is_nested, pack_sequence_as
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.func_graph import FuncGraph
from tensorflux._src.operation import Tensor, TensorLike
from tensorflux._src.tensor_shape import as_shape
from tensorflux._src.variables import Variable
from tensorflux._src.array_ops import identity, placeholder
from tensorflux._src.constant_op import convert_to_tensor, has_registered_conversion

_ids = itertools.count(1)
_eager_execute = lib.c.eager_execute
_CALL_SIG = gen_ops._STATEFUL_PARTITIONED_CALL
# tx.config.run_functions_eagerly: when set, calling a tx.function eagerly calls its Python function.
_state_run_eagerly = [False]


def run_functions_eagerly(run_eagerly):
    """Makes every tx.function called eagerly run its Python function directly (for debugging),
    or, with False, trace and run as a graph again (TensorFlow's tf.config.run_functions_eagerly)."""
    _state_run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly():
    """Whether tx.functions called eagerly run their Python function directly."""
    return _state_run_eagerly[0]
_logger = logging.getLogger("tensorflux")

# Note [Retracing]
# A Function keeps at most _MAX_TRACES concrete functions; tracing one more drops the least recently
# called one (its engine function and plans are freed once nothing else references it). Like
# TensorFlow, frequent retracing of one Python function is reported: when _RETRACE_THRESHOLD of the
# last _RETRACE_HISTORY calls traced, a warning is logged, at most _RETRACE_MAX_WARNINGS times per
# Python function (counted across the tx.function objects made from it, so re-creating a tx.function
# in a loop is caught too).
_MAX_TRACES = 64
_RETRACE_HISTORY = 10
_RETRACE_THRESHOLD = 5
_RETRACE_MAX_WARNINGS = 2


class _RetraceMonitor:
    """Counts recent calls and how many of them traced, for one Python function."""

    __slots__ = ("calls", "warnings", "__weakref__")

    def __init__(self):
        self.calls = collections.deque(maxlen=_RETRACE_HISTORY)  # True for a call that traced
        self.warnings = 0

    def record(self, traced, name):
        self.calls.append(traced)
        if not traced or self.warnings >= _RETRACE_MAX_WARNINGS:
            return
        n = sum(self.calls)
        if n >= _RETRACE_THRESHOLD:
            self.warnings += 1
            _logger.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is expensive and the "
                "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, "
                "(2) passing tensors with different shapes, (3) passing Python objects instead of tensors. For "
                "(1), please define your @tf.function outside of the loop. For (2), @tf.function has "
                "reduce_retracing=True option that can avoid unnecessary retracing. For (3), please refer to "
                "https://www.tensorflow.org/guide/function#controlling_retracing and "
                "https://www.tensorflow.org/api_docs/python/tf/function for more details.", n, len(self.calls), name)


_monitors = weakref.WeakKeyDictionary()  # Python function -> _RetraceMonitor
_monitors_lock = threading.Lock()


def _monitor_for(python_function):
    key = getattr(python_function, "__func__", python_function)
    with _monitors_lock:
        try:
            m = _monitors.get(key)
            if m is None:
                m = _monitors[key] = _RetraceMonitor()
        except TypeError:  # not weak-referenceable: no monitoring
            m = _RetraceMonitor()
    return m


class TensorSpec(_composite.TypeSpec):
    """The dtype and (possibly partial) shape a tensor argument must have (``input_signature``).

    >>> spec = tx.TensorSpec([None, 3], tx.float32, name="x")
    >>> spec.shape, spec.dtype
    (TensorShape([None, 3]), tx.float32)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self.shape = as_shape(shape)
        self.dtype = _dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, t, name=None):
        return cls(t.shape, t.dtype, name)

    def is_compatible_with(self, t):
        return t.dtype == self.dtype and self.shape.is_compatible_with(t.shape)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.dtype, self.shape.as_list() if self.shape.rank is not None
                                                  else None) == (other.dtype, other.shape.as_list()
                                                                 if other.shape.rank is not None else None)

    def __hash__(self):
        return hash((self.dtype, None if self.shape.rank is None else tuple(self.shape.as_list())))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%s, name=%r)" % (self.shape, self.dtype.name, self.name)


def _is_tensor_arg(v):
    return isinstance(v, (EagerTensor, Tensor, np.ndarray))


def _traced_leaf(a, placeholders, spec_args):
    """What the traced function gets for argument leaf ``a``: the next placeholder for a tensor
    (or TensorSpec), a composite rebuilt from as many placeholders as it has components."""
    if isinstance(a, _composite.CompositeTensor) or (spec_args and _composite.is_composite(a)):
        spec = _composite.spec_of(a)
        spec = spec._trace_spec() if isinstance(a, _composite.CompositeTensor) else spec
        return spec._from_components([next(placeholders) for _ in spec._component_specs()])
    if isinstance(a, TensorSpec) if spec_args else _is_tensor_arg(a):
        return next(placeholders)
    return a


# Note [Lean calls]
# Called eagerly, a ConcreteFunction runs its StatefulPartitionedCall through eager_execute with attrs
# built once at trace time (Tout as a tuple of DTypes and `f` as the function's name, which the
# binding sets without the Python attr converter; config, config_proto and
# executor_type left unset, so the engine gives them their OpDef default '', the value the generated
# wrapper passes), instead of through the generated wrapper, whose `f` and string attrs each go
# through the Python attr converter on every call. The function is added to the context's library
# first, as that converter does. Outputs are rebuilt by a plan made once from the structured outputs
# (_output_rebuild): the value itself for a single output, tuple()/list() for a flat tuple or list,
# the keys in their insertion order for a flat dict (nest flattens a dict by sorted key and rebuilds
# it in insertion order), nest.pack_sequence_as for anything else. Graph-mode calls (inside another
# function or a tx.Graph) take the generated wrapper, which adds the call op and the definitions.


def _is_leaf(x):
    return not is_nested(x) and not _composite.is_composite(x)


def _output_rebuild(structure):
    """A function of the flat outputs that returns them packed as ``structure`` (Note [Lean calls]),
    or None when nest.pack_sequence_as must do it."""
    if _is_leaf(structure):
        return _first
    if type(structure) in (tuple, list) and all(_is_leaf(x) for x in structure):
        return type(structure)
    if type(structure) is dict and all(_is_leaf(x) for x in structure.values()):
        try:
            position = {k: i for i, k in enumerate(sorted(structure))}  # nest's flattening order
        except TypeError:
            return None
        keys = tuple(structure)
        index = tuple(position[k] for k in keys)
        return lambda flat: dict(zip(keys, map(flat.__getitem__, index)))
    return None


_first = operator.itemgetter(0)  # C, so a single output costs no Python frame (Note [Lean calls])


class ConcreteFunction:
    """One traced signature of a tx.function: its graph, its FunctionDef in the engine, the
    eager values it captured, and how to call it."""

    def __init__(self, graph, func, inputs, flat_outputs, structured_outputs):
        self.graph = graph
        self._func = func  # functions.Function: carries the functions the body calls
        self.name = func.name
        self.inputs = inputs                  # placeholders of the tensor arguments
        self.outputs = flat_outputs           # output tensors of the graph (None for None outputs)
        self.structured_outputs = structured_outputs
        self.captured_inputs = [v for v, _ in graph.captures.values()]
        self._out_dtypes = [t.dtype for t in flat_outputs if t is not None]
        # Note [Lean calls]: the eager call's attrs and the output rebuild, made once.
        self._call_attrs = (tuple(self._out_dtypes), self.name, None, None, None)
        self._has_none_outputs = any(t is None for t in flat_outputs)
        self._rebuild = _output_rebuild(structured_outputs)
        # (dtype enum, dims with None for unknown, or None for unknown rank) per placeholder.
        self._input_types = [(p.dtype.as_datatype_enum, None if p.shape.rank is None else tuple(p.shape.as_list()))
                             for p in inputs]

    def with_captured_inputs(self, values):
        """A copy of this function that passes ``values`` (one per entry of ``captured_inputs``,
        converted to its dtype) where it passed its captured values: the same trace run on other
        values of what it captured, e.g. of the tensors of an enclosing function it was traced in
        (Note [Nested captures]), once that function's values exist."""
        values = list(values)
        if len(values) != len(self.captured_inputs):
            raise ValueError("%s captured %d values, got %d in their place"
                             % (self.name, len(self.captured_inputs), len(values)))
        out = copy.copy(self)
        out.captured_inputs = [convert_to_tensor(v, dtype=c.dtype) for v, c in zip(values, self.captured_inputs)]
        return out

    @property
    def function_def(self):
        """The ``tensorflux.proto.function_pb2.FunctionDef`` (TensorFlow's wire format)."""
        from tensorflux.proto import function_pb2

        return function_pb2.FunctionDef.FromString(self._func.to_function_def_bytes())

    @property
    def variables(self):
        return list(self.graph.variables)

    def _record_on_tapes(self):
        """Lets the recording tapes of this thread differentiate an eager call of this function."""
        for tape in backprop._tls.active:
            if not tape._recording:
                continue
            # The tape's gradient() needs the function in the context's library.
            tape._functions.append(self._func)
            # Reads inside the call are not executed eagerly: watch the captured variables on the
            # recording tapes, as their reads would have.
            if tape._watch_accessed and self.graph.variables:
                tape.watch([v for v in self.graph.variables if v.trainable])

    def _call_flat(self, flat_args):
        """The structured outputs of calling the function on ``flat_args`` (a list of tensors, one
        per placeholder of ``self.inputs``): eagerly, or as a call op in the default graph."""
        if _context.executing_eagerly():
            return self._call_eager(flat_args)
        args = flat_args + self.captured_inputs if self.captured_inputs else flat_args
        outs = gen_ops.stateful_partitioned_call(args, Tout=self._out_dtypes, f=self._func)
        if not self._out_dtypes:
            outs = []
        return self._structured(outs)

    def _call_eager(self, flat_args):
        """_call_flat when executing eagerly (the caller has checked)."""
        args = flat_args + self.captured_inputs if self.captured_inputs else flat_args
        if backprop._tls.active:
            self._record_on_tapes()
        if not self._func._in_context:
            self._func.add_to_context()
        outs = _eager_execute(_CALL_SIG._spec or _op_def_library.eager_spec(_CALL_SIG), (args,), self._call_attrs,
                              _context._tls.device)  # Note [Lean calls]
        if self._rebuild is not None and not self._has_none_outputs:  # _structured's common case, inline
            return self._rebuild(outs)
        return self._structured(outs)

    def _structured(self, outs):
        """The structured outputs from the call op's flat outputs."""
        if self._has_none_outputs:
            it = iter(outs)
            outs = [None if t is None else next(it) for t in self.outputs]
        if self._rebuild is not None:
            return self._rebuild(outs)
        return pack_sequence_as(self.structured_outputs, outs, expand_composites=True)

    def _takes_as_is(self, args):
        """Whether ``args`` are EagerTensors of the traced dtypes and shapes, one per placeholder
        (what the general argument check of __call__ would pass through unchanged)."""
        if len(args) != len(self._input_types):
            return False
        for a, (dtype, dims) in zip(args, self._input_types):
            if type(a) is not EagerTensor or a._dtype_enum != dtype:
                return False
            shape = a._shape_tuple()
            if shape != dims and dims is not None and (
                    len(shape) != len(dims) or any(d is not None and d != n for n, d in zip(shape, dims))):
                return False
        return True

    def __call__(self, *args):
        if self._takes_as_is(args):
            return self._call_flat(list(args))
        flat = [a for a in flatten(list(args), expand_composites=True) if _is_tensor_arg(a)]
        if len(flat) != len(self.inputs):
            raise TypeError("%s takes %d tensor arguments, got %d" % (self.name, len(self.inputs), len(flat)))

        conv = []
        for a, ph in zip(flat, self.inputs):
            a = convert_to_tensor(a, dtype=ph.dtype)
            if not ph.shape.is_compatible_with(a.shape):
                raise ValueError("%s: argument of shape %s is incompatible with the traced shape %s"
                                 % (self.name, a.shape, ph.shape))
            conv.append(a)
        return self._call_flat(conv)

    def __repr__(self):
        return "<ConcreteFunction %s(%s)>" % (self.name, ", ".join(str(TensorSpec.from_tensor(p)) for p in self.inputs))


# Note [Call fast path]
# Building the general cache key (_specs: nest.flatten, a TensorSpec per tensor, a repr of the
# structure) costs more than running a small function, so a call whose arguments are EagerTensors,
# Variables, Python scalars (int, float, bool, str, None) and plain tuples, lists and str-keyed
# dicts of them, positional or keyword, first looks in a second dict keyed on a cheap tuple
# (_fast_key): (dtype enum, shape tuple) per tensor, (type, value) per scalar, (Variable, id) per
# variable, (container type, items...) per tuple or list, (dict, name, item, ...) per dict in its
# insertion order, and the keyword arguments as such a dict after a marker. The general key's
# structure (a repr) also keeps insertion order, while the tensors are passed in nest's order
# (sorted names), as _fast_item collects them. Equal tuples give equal general keys (the tuple holds
# everything _specs reads, and a scalar's type rather than only its name), so an entry, made from
# the result of a general lookup of the same arguments, stays exact while the general key of those
# arguments and its entry in _concrete do not change. Only two events change them: a trace evicting
# a signature (Note [Retracing]) and reduce_retracing relaxing a structure's specs. Both drop every
# entry and bump _fast_generation under _lock, and an entry is added, also under _lock, only when
# the generation is the one read before its general lookup began. A hit moves its signature to the
# end of the LRU order, as a general hit does. Other arguments (NumPy arrays, composites, graph
# tensors, namedtuples and other containers) take the general path. The dict is cleared when it
# reaches _MAX_FAST_KEYS (an input_signature with unknown dims admits any number of shapes).
_MAX_FAST_KEYS = 256
_FAST_SCALARS = frozenset((int, float, bool, str, type(None)))
_KWARGS = object()  # separates positional from keyword arguments in a fast key


def _fast_item(a, tensors):
    """The fast key item of argument ``a``, its tensors appended to ``tensors`` in nest's order;
    None when ``a`` takes the general path (Note [Call fast path])."""
    t = type(a)
    if t is EagerTensor:
        tensors.append(a)
        return (a._dtype_enum, a._shape_tuple())
    if t in _FAST_SCALARS:
        return (t, a)
    if t is Variable:
        return (t, id(a))
    if t is tuple or t is list:
        item = [t]
        for x in a:
            x_item = _fast_item(x, tensors)
            if x_item is None:
                return None
            item.append(x_item)
        return tuple(item)
    if t is dict:
        item = [t]
        by_name = {}  # name -> the tensors of its value
        for name, value in a.items():  # insertion order, as the general key's structure
            if type(name) is not str:
                return None
            value_item = _fast_item(value, by_name.setdefault(name, []))
            if value_item is None:
                return None
            item += (name, value_item)
        for name in sorted(by_name):
            tensors += by_name[name]
        return tuple(item)
    return None


def _fast_key(args, kwargs):
    """(fast key, tensor arguments in nest order) of a call, or (None, None) when an argument takes
    the general path (Note [Call fast path])."""
    key = []
    tensors = []
    for a in args:
        if type(a) is EagerTensor:  # _fast_item's first case, inline: most arguments are tensors
            key.append((a._dtype_enum, a._shape_tuple()))
            tensors.append(a)
            continue
        item = _fast_item(a, tensors)
        if item is None:
            return None, None
        key.append(item)
    if kwargs:
        item = _fast_item(kwargs, tensors)
        if item is None:
            return None, None
        key += (_KWARGS, item)
    return tuple(key), tensors


class Function:
    """A Python function compiled into engine functions, one per input signature."""

    def __init__(self, python_function, input_signature=None, reduce_retracing=False, name=None, autograph=True):
        self._fn = python_function
        self._autograph = bool(autograph)
        self._converted = None  # the AutoGraph form of python_function (False: not convertible)
        self._name = name or getattr(python_function, "__name__", "function")
        self._input_signature = None if input_signature is None else list(input_signature)
        self._signature = None if input_signature is None else [
            s if isinstance(s, TensorSpec) else TensorSpec(*s)
            for s in flatten(list(input_signature), expand_composites=True)]
        self._reduce_retracing = bool(reduce_retracing)
        self._concrete = collections.OrderedDict()  # signature key -> ConcreteFunction, least recent first
        self._relaxed = {}    # (structure key) -> relaxed specs (reduce_retracing)
        self._fast = {}       # fast key -> (ConcreteFunction, signature key) (Note [Call fast path])
        self._fast_generation = 0
        self._lock = threading.RLock()  # held while tracing and caching a signature, not while running
        self._monitor = _monitor_for(python_function)
        self._traces = 0
        self.__doc__ = getattr(python_function, "__doc__", None)
        self.__name__ = self._name
        self.__wrapped__ = python_function

    def __get__(self, instance, owner):
        if instance is None:
            return self
        cache = instance.__dict__.setdefault("_tx_function_cache", {})
        bound = cache.get(id(self))
        if bound is None:
            bound = Function(self._fn.__get__(instance, owner), self._input_signature, self._reduce_retracing,
                             self._name, self._autograph)
            bound = cache.setdefault(id(self), bound)
        return bound

    def _specs(self, args, kwargs):
        """(key, specs of the tensor leaves, converted tensor leaves)."""
        leaves = flatten([list(args), kwargs])
        tensors = [convert_to_tensor(a) if isinstance(a, np.ndarray) else a
                   for a in flatten(leaves, expand_composites=True) if _is_tensor_arg(a)]
        if self._signature is not None:
            if len(tensors) != len(self._signature) or len(tensors) != len(flatten(leaves, expand_composites=True)):
                raise TypeError("%s was called with %d arguments (%d tensors) but its input_signature has %d "
                                "TensorSpecs" % (self._name, len(leaves), len(tensors), len(self._signature)))
            for i, (t, spec) in enumerate(zip(tensors, self._signature)):
                if not spec.is_compatible_with(t):
                    raise ValueError("%s: argument %d (%s %s) does not match its input_signature %s"
                                     % (self._name, i, t.dtype.name, t.shape, spec))
            return ("sig",), list(self._signature), tensors
        specs = []
        others = []
        for a in leaves:
            if isinstance(a, _composite.CompositeTensor):  # Note [Composite tensors]: traced per spec key
                spec = a._type_spec._trace_spec()
                specs.extend(spec._component_specs())
                others.append(("C", spec._key()))
            elif _is_tensor_arg(a):
                specs.append(TensorSpec.from_tensor(convert_to_tensor(a) if isinstance(a, np.ndarray) else a))
                others.append("T")
            elif isinstance(a, Variable):
                others.append(("V", id(a)))
            else:
                try:
                    hash(a)
                except TypeError:
                    raise TypeError("%s: argument %r is neither a tensor nor hashable; tx.function arguments must "
                                    "be tensors, Variables or hashable Python values" % (self._name, a)) from None
                others.append(("P", type(a).__name__, a))
        structure = (repr(pack_sequence_as([list(args), kwargs], ["*"] * len(leaves))), tuple(others))
        if self._reduce_retracing:
            relaxed = self._relaxed.get(structure)
            if relaxed is not None and len(relaxed) == len(specs):
                specs = [r if r.is_compatible_with(t) else self._relax(r, t) for r, t in zip(relaxed, tensors)]
            if specs != relaxed:
                with self._lock:
                    self._relaxed[structure] = specs
                    self._drop_fast_keys()  # Note [Call fast path]
        return (structure, tuple(specs)), specs, tensors

    @staticmethod
    def _relax(spec, t):
        if spec.dtype != t.dtype or spec.shape.rank != t.shape.rank or spec.shape.rank is None:
            return TensorSpec(t.shape, t.dtype)
        dims = [a if a == b else None for a, b in zip(spec.shape.as_list(), t.shape.as_list())]
        return TensorSpec(dims, t.dtype)

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (TensorSpecs allowed), traced if needed."""
        if not args and not kwargs and self._signature is not None:
            args = tuple(self._input_signature)
        if any(isinstance(a, _composite.TypeSpec) for a in flatten([list(args), kwargs])):
            specs = [a for a in flatten([list(args), kwargs], expand_composites=True) if isinstance(a, TensorSpec)]
            key = ("specs", tuple(specs),
                   repr(pack_sequence_as([list(args), kwargs], ["*"] * len(flatten([list(args), kwargs])))))
            return self._lookup(key, args, kwargs, specs, spec_args=True)[0]
        key, specs, _ = self._specs(args, kwargs)
        return self._lookup(key, args, kwargs, specs)[0]

    def __call__(self, *args, **kwargs):
        if _state_run_eagerly[0] and _context.executing_eagerly():
            return self._fn(*args, **kwargs)  # tx.config.run_functions_eagerly(True)
        fast_key, tensors = _fast_key(args, kwargs)
        if fast_key is not None:
            hit = self._fast.get(fast_key)
            if hit is not None:  # Note [Call fast path]
                cf, key = hit
                if len(self._concrete) > 1:
                    try:
                        self._concrete.move_to_end(key)
                    except KeyError:  # evicted by another thread meanwhile
                        pass
                if _context.executing_eagerly():
                    self._monitor.calls.append(False)  # what record(False, ...) does, without its frame
                    return cf._call_eager(tensors)
                return cf._call_flat(tensors)
        generation = self._fast_generation
        key, specs, tensors = self._specs(args, kwargs)
        cf, traced = self._lookup(key, args, kwargs, specs)
        if fast_key is not None:
            self._add_fast_key(fast_key, generation, cf, key)
        if _context.executing_eagerly():
            self._monitor.record(traced, self._fn)
        return cf._call_flat(tensors)

    def _add_fast_key(self, fast_key, generation, cf, key):
        """Maps ``fast_key`` to the result of a general lookup begun at ``generation``, unless the
        fast keys were dropped since (Note [Call fast path])."""
        with self._lock:
            if generation != self._fast_generation or self._concrete.get(key) is not cf:
                return
            if len(self._fast) >= _MAX_FAST_KEYS:
                self._fast.clear()
            self._fast[fast_key] = (cf, key)

    def _drop_fast_keys(self):
        """Forgets every fast key; called under _lock when a signature key or its entry changes."""
        self._fast.clear()
        self._fast_generation += 1

    @property
    def python_function(self):
        """The Python function this tx.function traces (unconverted)."""
        return self._fn

    def _traced_function(self):
        """What tracing calls: the AutoGraph conversion of the Python function (Python control flow
        on tensors becomes graph control flow, docs/autograph.md), or the function itself."""
        if not self._autograph:
            return self._fn
        if self._converted is None:
            self._converted = conversion.convert(self._fn) or False
        return self._converted or self._fn
    def _lookup(self, key, args, kwargs, specs, spec_args=False):
        """(the ConcreteFunction for `key`, whether this call traced it). Concurrent first calls of
        one signature trace once: the lock covers tracing and caching, not running."""
        cf = self._concrete.get(key)
        if cf is not None:
            if len(self._concrete) > 1:
                try:
                    self._concrete.move_to_end(key)
                except KeyError:  # evicted by another thread meanwhile
                    pass
            return cf, False
        with self._lock:
            cf = self._concrete.get(key)
            if cf is not None:
                return cf, False
            cf = self._trace(args, kwargs, specs, spec_args=spec_args)
            self._traces += 1
            self._concrete[key] = cf
            while len(self._concrete) > _MAX_TRACES:  # Note [Retracing]
                self._concrete.popitem(last=False)
                self._drop_fast_keys()  # Note [Call fast path]
        return cf, True

    def experimental_get_tracing_count(self):
        """How many times this function was traced (TensorFlow's count, evicted traces included)."""
        return self._traces

    def _trace(self, args, kwargs, specs, spec_args=False):
        name = "__inference_%s_%d" % (self._name, next(_ids))
        g = FuncGraph(name, None if _context.executing_eagerly() else _graph.get_default_graph())
        leaves = flatten([list(args), kwargs])
        with g.as_default():
            inputs = [placeholder(s.dtype, shape=s.shape, name="args_%d" % i) for i, s in enumerate(specs)]
            it = iter(inputs)
            traced = [_traced_leaf(a, it, spec_args) for a in leaves]
            call_args, call_kwargs = pack_sequence_as([list(args), kwargs], traced)
            fn = self._traced_function()
            try:
                result = fn(*call_args, **call_kwargs)
            except Exception as e:
                if fn is not self._fn:
                    _ag_errors.annotate(e)
                raise
            flat_out = []
            for o in flatten(result, expand_composites=True):
                if o is None:
                    flat_out.append(None)
                    continue
                if isinstance(o, Variable):
                    o = o.read_value()
                elif isinstance(o, TensorLike):
                    o = o._as_graph_element()
                if isinstance(o, EagerTensor):  # a captured value returned as is (TensorFlow allows it)
                    o = g._capture_eager(o)
                elif isinstance(o, (np.ndarray, float, int, bool, np.generic)) or has_registered_conversion(o):
                    o = convert_to_tensor(o)
                if not isinstance(o, Tensor):
                    raise TypeError("%s returned %r; a tx.function returns tensors, Variables, None, numbers and "
                                    "lists/tuples/dicts/namedtuples of them" % (self._name, o))
                flat_out.append(identity(o))

        ins = list(inputs) + [ph for _, ph in g.captures.values()]
        controls = list(g.stateful_ops)
        func = functions.graph_to_function(g, name, ins, [t for t in flat_out if t is not None],
                                           control_outputs=controls,
                                           control_output_names=["control_%d" % i for i in range(len(controls))],
                                           description="tx.function %s" % self._name)
        return ConcreteFunction(g, func, inputs, flat_out, result)

    def __repr__(self):
        return "<tx.function %s>" % self._name


conversion.register_function_type(Function)


def function(func=None, input_signature=None, reduce_retracing=False, jit_compile=None, autograph=True,
             experimental_relax_shapes=None, name=None):
    """Compiles ``func`` into engine functions: called with tensors, it runs as one call op (traced
    once per input signature). Usable as ``@tx.function`` or ``@tx.function(input_signature=...)``.
    With ``autograph=True`` (the default) Python ``if``/``while``/``for`` on tensors inside become
    tx.cond / tx.while_loop (docs/autograph.md); with ``autograph=False`` the function is traced as
    written, and Python control flow on a symbolic tensor raises an error.

    >>> @tx.function
    ... def f(x):
    ...     return tx.reduce_sum(x * x)
    ...
    >>> float(f(tx.constant([1.0, 2.0, 3.0])))
    14.0
    """
    if experimental_relax_shapes is not None:
        reduce_retracing = experimental_relax_shapes
    if func is None:
        return lambda f: Function(f, input_signature, reduce_retracing, name, autograph)
    return Function(func, input_signature, reduce_retracing, name, autograph)
