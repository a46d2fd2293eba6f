"""`tx.Variable`: resource variables living in the session's resource manager (engine ops
VarHandleOp / ReadVariableOp / AssignVariableOp / ...), with TensorFlow's graph-mode API."""

import itertools
import weakref

from tensorflux._src import context as _context
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src import errors
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor, TensorLike, TensorRef, _elementwise_equality, _session_for
from tensorflux._src.tensor_shape import as_shape
from tensorflux._src.variable_slice import VariableSlice
from tensorflux._src.session import Session

_c = lib.c


def _collections(g):
    """The graph's variable lists: (all variables, trainable variables), created on first use."""
    cols = getattr(g, "_variable_collections", None)
    if cols is None:
        cols = g._variable_collections = ([], [])
    return cols


_eager_ids = itertools.count(1)
# Eager Variables by the identity of their handle: GradientTape.watched_variables() and tx.function
# captures find the Variable a watched or captured handle belongs to.
_by_handle_id = weakref.WeakValueDictionary()


def variable_by_handle_id(handle_id):
    """The live eager Variable whose handle has eager tensor id ``handle_id``, or None."""
    return _by_handle_id.get(handle_id)


def _lift_initial_value(t):
    """The value of graph tensor ``t`` (computed in a function being traced) for a variable created
    there: evaluated once when it depends on no function argument."""
    try:
        with _context.init_scope():
            return Session(graph=t.graph).run(t)
    except errors.InvalidArgumentError as e:
        raise ValueError("The initial value of a Variable created inside tx.function must not depend on the "
                         "function's arguments (%s); pass a value or a callable computed outside."
                         % e.message) from None


class Variable(TensorLike):
    """A mutable tensor that keeps its value across `Session.run` calls (graph mode) or for as long
    as the Python object lives (eager mode).

    ``Variable(initial_value, trainable=True, name=None, dtype=None, shape=None)``. In eager mode
    the variable is created and assigned at once in the eager context, and reads return values.
    In graph mode it adds a variable handle, an initializer (run it, or
    `tx.global_variables_initializer()`, before reading) and a read of the value to the default
    graph. The variable is used wherever a tensor is expected (its value is read when the consuming
    op runs); `assign`, `assign_add` and `assign_sub` update it. Reading an uninitialized variable
    fails with FailedPreconditionError naming it.

    >>> v = tx.Variable([1.0, 2.0])
    >>> v.assign_add([10.0, 10.0]).numpy()
    array([11., 12.], dtype=float32)
    >>> (v * 2.0).numpy()
    array([22., 24.], dtype=float32)
    """

    __array_priority__ = 100
    _eager = False
    _handle = None

    def __init__(self, initial_value=None, trainable=True, name=None, dtype=None, shape=None):
        if initial_value is None:
            raise ValueError("Variable: initial_value must be given")
        if _context.executing_eagerly():
            self._init_eager(initial_value, trainable, name, dtype, shape)
            return
        if _context.inside_function():
            # Variables outlive the function being traced: created eagerly (tf.function's lifting).
            if callable(initial_value):
                initial_value = initial_value()
            if isinstance(initial_value, Tensor):
                initial_value = _lift_initial_value(initial_value)
            with _context.init_scope():
                self._init_eager(initial_value, trainable, name, dtype, shape)
            return
        g = _graph.get_default_graph()
        with g.name_scope(name or "Variable") as scope:
            self._graph = g
            with g.name_scope("Initializer"):
                if callable(initial_value):
                    initial_value = initial_value()
                init = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            self._dtype = init.dtype
            self._shape = as_shape(shape) if shape is not None else init.shape
            if not self._shape.is_compatible_with(init.shape):
                raise ValueError("Variable %s: initial value of shape %s is incompatible with shape %s"
                                 % (scope[:-1], init.shape, self._shape))
            shared_name = scope[:-1]
            self._handle = gen_ops.var_handle_op(dtype=self._dtype, shape=self._shape, shared_name=shared_name,
                                                 debug_name=shared_name, name=scope)
            self._initial_value = init
            self._initializer = gen_ops.assign_variable_op(self._handle, init, validate_shape=shape is None,
                                                           name="Assign")
            with g.name_scope("Read"):
                self._value = gen_ops.read_variable_op(self._handle, dtype=self._dtype)
        self._trainable = bool(trainable)
        all_vars, trainable_vars = _collections(g)
        all_vars.append(self)
        if self._trainable:
            trainable_vars.append(self)

    def _init_eager(self, initial_value, trainable, name, dtype, shape):
        self._eager = True
        self._graph = None
        if callable(initial_value):
            initial_value = initial_value()
        init = convert_to_tensor(initial_value, dtype=dtype)
        self._dtype = init.dtype
        self._shape = as_shape(shape) if shape is not None else init.shape
        base = name or "Variable"
        if not self._shape.is_compatible_with(init.shape):
            raise ValueError("Variable %s: initial value of shape %s is incompatible with shape %s"
                             % (base, init.shape, self._shape))
        scope = _graph.get_default_graph().get_name_scope()
        if scope:
            base = scope + "/" + base  # names carry the enclosing name scope, as TensorFlow 2's
        self._name = base + ":0"
        # The eager context's variables are process-wide: the shared name must be unique.
        shared = "%s_%d" % (base, next(_eager_ids))
        self._handle = gen_ops.var_handle_op(dtype=self._dtype, shape=self._shape, shared_name=shared,
                                             debug_name=base)
        gen_ops.assign_variable_op(self._handle, init, validate_shape=shape is None)
        self._initial_value = init
        self._initializer = None
        self._trainable = bool(trainable)
        _by_handle_id[_c.eager_tensor_id(self._handle)] = self

    def __del__(self):
        if self._eager and self._handle is not None:
            try:
                # __del__ may run at any point (a gc pass while a tx.function is traced): destroy
                # eagerly, never inside whatever graph is the default one then.
                with _context.eager_scope():
                    gen_ops.destroy_resource_op(self._handle, ignore_lookup_error=True)
            except Exception:  # noqa: BLE001 - interpreter shutdown: the context may be gone
                pass

    # -- identity -------------------------------------------------------------------------------

    @property
    def name(self):
        """``"<scope>:0"``, the name of the handle tensor."""
        return self._name if self._eager else self._handle.name

    @property
    def handle(self):
        """The DT_RESOURCE tensor naming the variable; gradients with respect to it are the
        variable's gradients."""
        return self._handle

    @property
    def op(self):
        if self._eager:
            raise AttributeError("Variable.op is undefined when eager execution is enabled.")
        return self._handle.op

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def graph(self):
        return self._graph

    @property
    def trainable(self):
        return self._trainable

    @property
    def initializer(self):
        """The operation that assigns the initial value."""
        return self._initializer

    @property
    def initial_value(self):
        return self._initial_value

    def __repr__(self):
        if self._eager:
            return "<tx.Variable %r shape=%s dtype=%s, numpy=%r>" % (self.name, self._shape, self._dtype.name,
                                                                   self.numpy())
        return "<tx.Variable %r shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def numpy(self):
        """The current value as a NumPy array (eager mode)."""
        if not self._eager:
            raise NotImplementedError("numpy() is only available for variables created in eager mode")
        return self.read_value().numpy()

    def __array__(self, dtype=None, copy=None):
        if not self._eager:
            raise TypeError("Cannot convert graph variable %s to a NumPy array: run it in a Session." % self.name)
        return self.read_value().__array__(dtype, copy)

    # -- reading and writing --------------------------------------------------------------------

    def value(self):
        """The variable's value: in graph mode read once per run by the op this returns (shared by
        all uses); in eager mode the current value."""
        if self._eager:
            return gen_ops.read_variable_op(self._handle, dtype=self._dtype)
        return self._value

    def read_value(self):
        """A new read of the variable: ordered after the control dependencies in scope."""
        if self._eager:
            return gen_ops.read_variable_op(self._handle, dtype=self._dtype)
        with self._graph.name_scope("Read"):
            return gen_ops.read_variable_op(self._handle, dtype=self._dtype)

    def _as_graph_element(self):
        if self._eager:
            # In a function graph the read captures the handle; plain graphs refuse eager values.
            return gen_ops.read_variable_op(self._handle, dtype=self._dtype)
        if getattr(_graph.get_default_graph(), "_captures_outer", False):
            # In a tx.cond branch or tx.while_loop body: read there, so each run sees updates.
            return gen_ops.read_variable_op(self._handle, dtype=self._dtype)
        return self._value

    def _as_eager_tensor(self):
        if not self._eager:
            raise TypeError("Graph variable %s cannot be used in eager mode: run it in a Session." % self.name)
        return gen_ops.read_variable_op(self._handle, dtype=self._dtype)

    def _as_tensor(self):
        """The value to compute with: a read in eager mode, the shared read in graph mode."""
        if self._eager and _context.executing_eagerly():
            return gen_ops.read_variable_op(self._handle, dtype=self._dtype)
        return self._as_graph_element()

    def _check_value(self, value, what):
        value = convert_to_tensor(value, dtype=self._dtype)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError("Cannot %s a value of shape %s to variable %s of shape %s"
                             % (what, value.shape, self.name, self._shape))
        return value

    def _update(self, op_fn, value, what, read_value, name):
        value = self._check_value(value, what)
        op = op_fn(self._handle, value, name=name)
        if op is None:  # it ran at once (eager mode); inside a tx.function it is an op of the trace
            return self.read_value() if read_value else None
        if not read_value:
            return op
        with op.graph.control_dependencies([op]):  # op.graph: a control-flow body may hold the update
            return self.read_value()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Sets the variable to ``value``; returns the new value (or the op with read_value=False)."""
        return self._update(gen_ops.assign_variable_op, value, "assign", read_value, name)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta``; returns the new value (or the op with read_value=False)."""
        return self._update(gen_ops.assign_add_variable_op, delta, "assign_add", read_value, name)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta``; returns the new value (or the op with read_value=False)."""
        return self._update(gen_ops.assign_sub_variable_op, delta, "assign_sub", read_value, name)

    def _scatter_nd(self, op_fn, indices, updates, name):
        value = op_fn(self.read_value(), convert_to_tensor(indices), convert_to_tensor(updates, dtype=self.dtype))
        return self.assign(value, name=name)

    def scatter_nd_update(self, indices, updates, name=None):
        """Sets the elements or slices at ``indices`` (as tx.tensor_scatter_nd_update) to ``updates``;
        returns the new value."""
        return self._scatter_nd(gen_ops.tensor_scatter_update, indices, updates, name)

    def scatter_nd_add(self, indices, updates, name=None):
        """Adds ``updates`` at ``indices`` (repeated indices add up); returns the new value."""
        return self._scatter_nd(gen_ops.tensor_scatter_add, indices, updates, name)

    def scatter_nd_sub(self, indices, updates, name=None):
        """Subtracts ``updates`` at ``indices`` (repeated indices add up); returns the new value."""
        return self._scatter_nd(gen_ops.tensor_scatter_sub, indices, updates, name)

    def sparse_read(self, indices, name=None):
        """The rows of the value at ``indices`` (a gather along the first axis)."""
        return gen_ops.resource_gather(self._handle, convert_to_tensor(indices), dtype=self.dtype, name=name)

    def gather_nd(self, indices, name=None):
        """The elements or slices of the value at ``indices`` (as tx.gather_nd)."""
        return gen_ops.gather_nd(self.read_value(), convert_to_tensor(indices), name=name)

    def is_initialized(self, name=None):
        """A bool tensor: whether the variable holds a value."""
        return gen_ops.var_is_initialized_op(self._handle, name=name)

    def eval(self, session=None):
        if self._eager:
            return self.numpy()
        return _session_for(session, self._value).run(self._value)


def forward_operators(cls):
    """Arithmetic, comparisons and Python conversions on ``cls`` (a Variable or a slice of one)
    act on its value (``self._as_tensor()``)."""
    names = ["add", "sub", "mul", "truediv", "matmul", "floordiv", "mod", "pow", "and", "or", "xor"]
    for n in names:
        for dunder in ("__%s__" % n, "__r%s__" % n):  # looked up on the value at call time
            setattr(cls, dunder, (lambda d: lambda self, other: getattr(self._as_tensor(), d)(other))(dunder))
    for dunder in ("__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__abs__", "__invert__", "__bool__", "__int__",
                   "__float__", "__complex__", "__index__", "__iter__", "__getitem__", "__len__"):
        setattr(cls, dunder, (lambda d: lambda self, *a: getattr(self._as_tensor(), d)(*a))(dunder))


def _variable_getitem(self, spec):
    """``v[spec]``: the slice's value, which can also assign into the slice (``v[0].assign(x)``)."""
    return VariableSlice(self, spec, self._as_tensor()[spec])


def _equality():
    """== and != on a Variable follow Note [Tensor equality] (element-wise where code outside
    functions runs eagerly, then unhashable: use ref())."""

    def __eq__(self, other):
        if _context.executing_eagerly_outside_functions():
            return _elementwise_equality("equal", self._as_tensor(), other)
        return self is other

    def __ne__(self, other):
        if _context.executing_eagerly_outside_functions():
            return _elementwise_equality("not_equal", self._as_tensor(), other)
        return self is not other

    def __hash__(self):
        if _context.executing_eagerly_outside_functions():
            raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key.")
        return id(self)

    def ref(self):
        """A hashable reference to this variable (by identity); ``deref()`` gives it back."""
        return TensorRef(self)

    Variable.__eq__, Variable.__ne__, Variable.__hash__ = __eq__, __ne__, __hash__
    Variable.ref = Variable.experimental_ref = ref


forward_operators(Variable)
del Variable.__len__  # a Variable has no len(), as in TensorFlow
Variable.__getitem__ = _variable_getitem
_equality()
forward_operators(VariableSlice)


def global_variables(graph=None):
    """Every Variable created in ``graph`` (the default graph when None), in creation order."""
    return list(_collections(graph or _graph.get_default_graph())[0])


def trainable_variables(graph=None):
    """The trainable Variables of ``graph`` (the default graph when None), in creation order."""
    return list(_collections(graph or _graph.get_default_graph())[1])


def variables_initializer(var_list, name="init"):
    """An operation that runs the initializers of ``var_list``."""
    ops = [v.initializer for v in var_list]
    g = ops[0].graph if ops else _graph.get_default_graph()
    with g.as_default(), g.control_dependencies(ops):
        return gen_ops.no_op(name=name)


def global_variables_initializer():
    """An operation that initializes every variable of the default graph.

    >>> with tx.Graph().as_default():
    ...     v = tx.Variable([1.0, 2.0])
    ...     with tx.Session() as sess:
    ...         sess.run(tx.global_variables_initializer())
    ...         print(sess.run(v))
    ...
    [1. 2.]
    """
    return variables_initializer(global_variables(), name="init")

