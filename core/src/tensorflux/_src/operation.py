"""`Operation` and symbolic `Tensor`: Python views of nodes and outputs of a graph in the engine."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import lib
from tensorflux._src import errors
from tensorflux._src.tensor_shape import TensorShape, as_shape, engine_dims

_c = lib.c

# Attr kind codes returned by the binding's op_get_attr (src/pywrap/attr_kinds.h).
_ATTR_TYPE, _ATTR_SHAPE, _ATTR_LIST, _ATTR_PROTO = (_c.ATTR_KINDS[k] for k in ("type", "shape", "list", "proto"))

# Used as an index, inserts a dimension of size 1 (``x[:, newaxis]``), like ``numpy.newaxis``.
newaxis = None


def _no_default_session():
    return None


# What Tensor.eval and Operation.run use without session=: session.py installs its
# get_default_session here when imported (Note [Import layering]: tensors do not import sessions).
_default_session = _no_default_session


def install_default_session(getter):
    """Makes ``getter`` (no arguments -> the default Session or None) what Tensor.eval and
    Operation.run use when no session is given; session.py calls it when imported."""
    global _default_session
    _default_session = getter


def _session_for(session, element):
    if session is None:
        session = _default_session()
        if session is None:
            raise ValueError("Cannot evaluate %s: no session was given and no default session is registered (use "
                             "`with tx.Session():` or pass session=)." % element.name)
    if session.graph is not element.graph:
        raise ValueError("Cannot evaluate %s: its graph is not the session's graph." % element.name)
    return session


class Operation:
    """A node of a `Graph`: an op type, inputs, attrs and outputs."""

    __slots__ = ("_graph", "_h", "_name", "_type", "_device", "_outputs", "__weakref__")

    def __init__(self, graph, handle, name, op_type, device, output_types):
        self._graph = graph
        self._h = handle
        self._name = name
        self._type = op_type
        self._device = device
        self._outputs = [Tensor(self, i, _dtypes._BY_ENUM[t]) for i, t in enumerate(output_types)]

    @property
    def name(self):
        """The unique name of the operation in its graph."""
        return self._name

    @property
    def type(self):
        """The op type, e.g. ``"MatMul"``."""
        return self._type

    @property
    def device(self):
        """The requested device (canonical form), or ``""``."""
        return self._device

    @property
    def graph(self):
        return self._graph

    @property
    def outputs(self):
        """The output Tensors, in order."""
        return list(self._outputs)

    def values(self):
        """The output Tensors as a tuple."""
        return tuple(self._outputs)

    @property
    def inputs(self):
        """The input Tensors, in order."""
        g = self._graph
        return tuple(g._tensor_from_pair(p) for p in _c.op_inputs(self._h))

    @property
    def control_inputs(self):
        """Operations that must run before this one."""
        g = self._graph
        return [g._op_from_handle(h) for h in _c.op_control_inputs(self._h)]

    @property
    def _control_outputs(self):
        g = self._graph
        return [g._op_from_handle(h) for h in _c.op_control_outputs(self._h)]

    @property
    def node_def(self):
        """The operation as a ``tensorflux.proto.node_def_pb2.NodeDef``."""
        from tensorflux.proto import node_def_pb2

        return node_def_pb2.NodeDef.FromString(_c.op_node_def(self._h))

    @property
    def op_def(self):
        """The OpDef of the operation's type as a ``tensorflux.proto.op_def_pb2.OpDef``."""
        from tensorflux.proto import op_def_pb2

        return op_def_pb2.OpDef.FromString(_c.graph_get_op_def(self._graph._h, self._type))

    def get_attr(self, name):
        """The value of attr ``name``: bytes, int, float, bool, `DType`, `TensorShape`, a NumPy
        array for tensors, lists of those, or the AttrValue field (protobuf) for other kinds.
        Raises ValueError when there is no such attr."""
        try:
            kind, value = _c.op_get_attr(self._h, name)
        except errors.OpError as e:
            raise ValueError("Operation %r has no attr named %r. (%s)" % (self._name, name, e.message)) from None
        if kind == _ATTR_TYPE:
            return _dtypes._BY_ENUM[value]
        if kind == _ATTR_SHAPE:
            return TensorShape(value)
        if kind == _ATTR_TYPE | _ATTR_LIST:
            return [_dtypes._BY_ENUM[v] for v in value]
        if kind == _ATTR_PROTO:
            from tensorflux.proto import attr_value_pb2

            attr = attr_value_pb2.AttrValue.FromString(value)
            field = attr.WhichOneof("value")
            return getattr(attr, field) if field else None
        return value

    def run(self, feed_dict=None, session=None):
        """Runs this operation in ``session`` (default: the session of the enclosing ``with``)."""
        _session_for(session, self).run(self, feed_dict)

    def __repr__(self):
        return "<tx.Operation %r type=%s>" % (self._name, self._type)


class TensorLike:
    """Base of objects that stand for a tensor wherever one is expected (``tx.Variable``):
    ``_as_graph_element()`` returns that tensor."""

    __slots__ = ()

    def _as_graph_element(self):
        raise NotImplementedError


class Tensor:
    """A symbolic output of an `Operation`; its value exists only when a `Session` runs it."""

    __slots__ = ("_op", "_index", "_dtype", "_pair", "__weakref__")

    # NumPy must defer to our operators (x_np + tensor -> Tensor.__radd__).
    __array_priority__ = 100

    def __init__(self, op, index, dtype):
        self._op = op
        self._index = index
        self._dtype = dtype
        self._pair = (op._h, index)

    @property
    def op(self):
        """The operation that produces this tensor."""
        return self._op

    @property
    def dtype(self):
        """The element `DType`."""
        return self._dtype

    @property
    def graph(self):
        return self._op._graph

    @property
    def value_index(self):
        """The index of this tensor among its operation's outputs."""
        return self._index

    @property
    def name(self):
        """``"<op name>:<index>"``."""
        return "%s:%d" % (self._op._name, self._index)

    @property
    def device(self):
        return self._op._device

    @property
    def shape(self):
        """The static `TensorShape` the engine inferred (possibly partial)."""
        return TensorShape._from_engine(_c.graph_get_shape(self._op._graph._h, self._op._h, self._index))

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        """Refines the static shape; ValueError when ``shape`` is incompatible with it."""
        shape = as_shape(shape)
        try:
            _c.graph_set_shape(self._op._graph._h, self._op._h, self._index, engine_dims(shape))
        except errors.InvalidArgumentError as e:
            raise ValueError("Tensor %s has shape %s, which is not compatible with %s: %s"
                             % (self.name, self.shape, shape, e.message)) from None

    def consumers(self):
        """Operations that take this tensor as an input."""
        g = self._op._graph
        seen = []
        for h, _ in _c.output_consumers(self._op._h, self._index):
            op = g._op_from_handle(h)
            if op not in seen:
                seen.append(op)
        return seen

    def eval(self, feed_dict=None, session=None):
        """The value of this tensor computed in ``session`` (default: the session of the enclosing
        ``with``)."""
        return _session_for(session, self).run(self, feed_dict)

    def __repr__(self):
        return "<tx.Tensor %r shape=%s dtype=%s>" % (self.name, self.shape, self._dtype.name)

    def __bool__(self):
        raise TypeError("Using a symbolic tx.Tensor (%s) as a Python bool is not allowed: its value is only "
                        "known when the graph runs. Inside tx.function, AutoGraph converts Python `if`/`while` on "
                        "a tensor written directly in the function; elsewhere (or with autograph=False) use "
                        "tx.cond / tx.while_loop." % self.name)

    def __iter__(self):
        raise TypeError("Iterating over a symbolic tx.Tensor (%s) is not allowed: its value is only known when "
                        "the graph runs. Inside tx.function, loop over a tensor with tx.while_loop, or over a "
                        "Python range." % self.name)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Cannot convert a symbolic tx.Tensor (%s) to a NumPy array: run it in a Session to "
                        "get its value. (The value of a feed cannot be a tx.Tensor either.)" % self.name)

    # Indexing (``t[...]``): array_ops installs __getitem__ (Note [Import layering]).

    # Note [Tensor equality]: TensorFlow 2's rule. Where code runs eagerly outside functions (the
    # default), == and != on a tensor of a function graph are element-wise ops and the tensor is
    # unhashable (use ref()); in TensorFlow 1 style graphs (a tx.Graph made the default, or eager
    # execution disabled) they compare identity and tensors hash by identity.
    def __eq__(self, other):
        if _uses_equality(self):
            return _elementwise_equality("equal", self, other)
        return self is other

    def __ne__(self, other):
        if _uses_equality(self):
            return _elementwise_equality("not_equal", self, other)
        return self is not other

    def __hash__(self):
        if _uses_equality(self):
            raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")
        return id(self)

    def ref(self):
        """A hashable reference to this tensor (by identity), for dict keys and sets; ``deref()``
        gives the tensor back."""
        return TensorRef(self)

    experimental_ref = ref


class TensorRef:
    """What `Tensor.ref()` returns: hashes and compares by the identity of the tensor it wraps."""

    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def deref(self):
        """The tensor this reference wraps."""
        return self._t

    def __hash__(self):
        return id(self._t)

    def __eq__(self, other):
        return isinstance(other, TensorRef) and other._t is self._t

    def __repr__(self):
        return "<Reference wrapping %r>" % (self._t,)


def _uses_equality(t):
    """Note [Tensor equality]: True where == on ``t`` is element-wise (``t`` is eager, or belongs
    to a function graph while code outside functions runs eagerly)."""
    # Imported here: context imports this module (through graph).
    from tensorflux._src import context

    if not context.executing_eagerly_outside_functions():
        return False
    g = getattr(t, "graph", None) if isinstance(t, Tensor) else None
    return g is None or getattr(g, "_is_function_graph", False)


def _elementwise_equality(op_name, x, y):
    """``x == y`` / ``x != y`` as TensorFlow's operators compute them: None compares unequal;
    shapes that do not broadcast give a False (True for !=) scalar instead of an error."""
    if y is None:
        return op_name == "not_equal"
    # Imported here: constant_op imports this module, and gen_ops (through op_def_library).
    from tensorflux._src.constant_op import convert_to_tensor
    from tensorflux._src.generated import gen_ops

    try:
        if not isinstance(y, (Tensor, TensorLike)) and not _is_eager(y):
            y = convert_to_tensor(y, dtype=x.dtype)
    except (TypeError, ValueError):
        return NotImplemented
    return getattr(gen_ops, op_name)(x, y, incompatible_shape_error=False)


def _is_eager(x):
    # EagerTensor's engine base class: eager_tensor.py imports this module (Note [Import layering]).
    return isinstance(x, _c.EagerTensorBase)
