"""Constants: Python and NumPy values made into Const operations, with TensorFlow's dtype rules
(Python float -> float32, int -> int32 when it fits, NumPy arrays keep their dtype)."""

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import eager_tensor as _eager_tensor
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src import op_def_library
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor, TensorLike
from tensorflux._src.tensor_shape import as_shape

_INT32 = np.iinfo(np.int32)


def _describe(value):
    return "%r of type %r" % (value, type(value).__name__)


def _is_text(value):
    """True when ``value`` is str/bytes, a NumPy string or object array, or a (nested) list whose
    first element is one."""
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, (str, bytes)):
        return True
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "SUO"


def _to_bytes(x, where):
    if isinstance(x, bytes):
        return bytes(x)
    if isinstance(x, str):
        return x.encode("utf-8")
    raise TypeError("Expected string%s, but got %r of type %r." % (where, x, type(x).__name__))


def _string_array(value, where):
    """``value`` (text, nested lists of it, NumPy S/U/object arrays) as an object array of bytes,
    str encoded as UTF-8 (Note [String tensors in Python] in the binding)."""
    arr = np.asarray(value, dtype=object)
    out = np.empty(arr.size, dtype=object)
    out[:] = [x if type(x) is bytes else _to_bytes(x, where) for x in arr.reshape(-1).tolist()]
    return out.reshape(arr.shape)


def _overflows(arr, dtype):
    """True when integer array ``arr`` holds a value outside integer dtype ``dtype``'s range."""
    if not dtype.is_integer or arr.dtype.kind not in "iu" or arr.size == 0:
        return False
    info = np.iinfo(dtype.as_numpy_dtype)
    return int(arr.min()) < info.min or int(arr.max()) > info.max


def to_numpy(value, dtype=None, for_input=None, preferred=False):
    """``value`` as a NumPy array of ``dtype`` (or of the inferred dtype).

    Python values must be compatible with ``dtype`` (no float into an int dtype: TypeError);
    NumPy values are cast to it, like TensorFlow's make_tensor_proto. Text (str, bytes, NumPy
    string arrays) becomes a string tensor's object array of bytes. A ``preferred`` dtype (an op's
    default for a type attr, TensorFlow's preferred_dtype) is used only where the integers fit
    it: ``tx.tile(x, [2**32])`` takes int64 multiples, where casting to int32 would wrap to 0."""
    where = " for input %s" % for_input if for_input else ""
    if isinstance(value, Tensor):
        raise TypeError("Expected a Python or NumPy value%s, not the Tensor %s." % (where, value.name))
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    if dtype == _dtypes.string or (dtype is None and _is_text(value)):
        return _string_array(value, where)
    if _is_text(value):
        raise TypeError("Expected %s%s, got %s instead." % (dtype.name, where, _describe(value)))
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "USOV" and value.dtype.name != "bfloat16":  # ml_dtypes' bfloat16 is kind V
            raise TypeError("Tensors of NumPy dtype %s are not supported%s." % (value.dtype, where))
        arr = np.asarray(value)
        if dtype is not None and arr.dtype != dtype.as_numpy_dtype:
            if preferred and _overflows(arr, dtype):
                return arr.astype(np.int64) if arr.dtype.kind == "i" else arr
            arr = arr.astype(dtype.as_numpy_dtype)
        else:
            _dtypes.as_dtype(arr.dtype)  # TypeError for dtypes without an equivalent
        return arr
    try:
        arr = np.array(value)
    except ValueError as e:
        raise ValueError("Cannot convert %s to a tensor%s: %s" % (_describe(value), where, e)) from None
    if arr.dtype.kind not in "biufc":
        raise TypeError("Cannot convert %s to a tensor%s: only numbers and booleans are supported."
                        % (_describe(value), where))
    if dtype is None:
        if arr.dtype == np.float64:
            return arr.astype(np.float32)
        if arr.dtype == np.int64 and (arr.size == 0 or (arr.min() >= _INT32.min and arr.max() <= _INT32.max)):
            return arr.astype(np.int32)
        return arr
    kind = arr.dtype.kind
    if arr.size == 0 and kind == "f" and _dtypes.has_numpy_type(dtype):
        return np.zeros(arr.shape, dtype.as_numpy_dtype)  # [] (NumPy says float64) fits any dtype
    if ((dtype.is_integer and kind in "fc") or (dtype.is_bool and kind != "b")
            or (dtype.is_floating and kind == "c") or not _dtypes.has_numpy_type(dtype)):
        raise TypeError("Expected %s%s, got %s instead." % (dtype.name, where, _describe(value)))
    if preferred and kind in "iu" and _overflows(arr, dtype):
        return arr
    try:
        return np.array(value, dtype=dtype.as_numpy_dtype)
    except OverflowError as e:
        raise TypeError("Expected %s%s, got %s instead: %s" % (dtype.name, where, _describe(value), e)) from None


def _dtype_of(arr, dtype, preferred):
    """The dtype of the tensor holding to_numpy's ``arr``: ``dtype``, unless none was given or a
    preferred one did not hold the values."""
    if dtype is None or (preferred and arr.dtype.kind in "iu" and arr.dtype != dtype.as_numpy_dtype):
        return _dtypes.as_dtype(arr.dtype)
    return dtype


def constant_in_graph(graph, value, dtype, name, for_input=None, preferred=False):
    """A Const in ``graph`` holding ``value`` (see `to_numpy`)."""
    arr = to_numpy(value, dtype, for_input, preferred)
    dt = _dtype_of(arr, None if dtype is None else _dtypes.as_dtype(dtype), preferred)
    if graph is _graph.get_default_graph():
        return gen_ops.const(value=arr, dtype=dt, name=name)
    with graph.as_default():
        return gen_ops.const(value=arr, dtype=dt, name=name)


def constant(value, dtype=None, shape=None, name="Const"):
    """A constant tensor from a Python scalar, nested list or NumPy array.

    Python floats become float32 and ints int32 (int64 when too large), like TensorFlow; with
    ``dtype`` the value is converted to it. With ``shape`` a scalar is broadcast to that shape,
    and a value with that many elements is reshaped to it.

    >>> tx.constant([1.0, 2.0])
    <tx.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
    >>> tx.constant(7, shape=[2, 2]).numpy()
    array([[7, 7],
           [7, 7]], dtype=int32)
    >>> tx.constant([1, 2], dtype=tx.int64).dtype
    tx.int64
    """
    arr = to_numpy(value, dtype)
    if shape is not None:
        dims = as_shape(shape).as_list()
        if None in dims:
            raise ValueError("constant needs a fully defined shape, not %s" % (dims,))
        size = int(np.prod(dims, dtype=np.int64))
        if arr.size == 1:
            arr = np.full(dims, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == size:
            arr = arr.reshape(dims)
        else:
            raise TypeError("Expected Tensor's shape: %s, but got %s." % (tuple(dims), arr.shape))
    if _context.executing_eagerly():
        t = _eager_tensor.from_numpy(arr, _dtypes.as_dtype(arr.dtype))
        device = _context.current_device()
        return t if device is None else _eager_tensor.copy_to_device(t, device)
    return gen_ops.const(value=arr, dtype=_dtypes.as_dtype(arr.dtype), name=name)


def convert_to_tensor(value, dtype=None, name=None):
    """``value`` if it is a Tensor (of ``dtype``, when given), else a constant holding it.

    >>> tx.convert_to_tensor(np.array([1, 2], np.int64)).dtype
    tx.int64
    >>> tx.convert_to_tensor(2.5)
    <tx.Tensor: shape=(), dtype=float32, numpy=array(2.5, dtype=float32)>
    """
    if isinstance(value, TensorLike):
        value = value._as_eager_tensor() if _context.executing_eagerly() else value._as_graph_element()
    if isinstance(value, (Tensor, _eager_tensor.EagerTensor)):
        if dtype is not None and value.dtype != _dtypes.as_dtype(dtype):
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %s"
                             % (_dtypes.as_dtype(dtype).name, value.dtype.name,
                                getattr(value, "_op", None) and value.name))
        return value
    if _conversions and isinstance(value, _registered_types):
        return _convert_registered(value, dtype, name)
    if isinstance(value, (list, tuple)) and holds_tensor(value):
        return _autopack(value, dtype if dtype is not None else _first_tensor_dtype(value), name)
    return constant(value, dtype=dtype, name=name or "Const")


# register_tensor_conversion_function's entries as (priority, order, base_type, fn), sorted, and
# the union of their base types (so values of other types skip the registry in one check).
_conversions = []
_registered_types = ()
_UNREGISTRABLE = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Teaches ``convert_to_tensor`` (and so every op) to accept instances of ``base_type``:
    ``conversion_func(value, dtype=None, name=None, as_ref=False)`` returns a tensor, or
    NotImplemented to let the next function (lower ``priority`` numbers first) try.

    >>> class Meters:
    ...     def __init__(self, v): self.v = v
    >>> tx.register_tensor_conversion_function(Meters, lambda m, dtype=None, name=None, as_ref=False:
    ...                                        tx.constant(m.v, dtype=dtype))
    >>> float(tx.constant(1.0) + Meters(2.0))
    3.0
    """
    global _registered_types
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not all(isinstance(t, type) for t in types):
        raise TypeError("Argument `base_type` must be a type or a tuple of types. Obtained: %s" % (base_type,))
    if any(issubclass(t, _UNREGISTRABLE) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError("Argument `conversion_func` must be callable. Received %r." % (conversion_func,))
    _conversions.append((priority, len(_conversions), types, conversion_func))
    _conversions.sort(key=lambda e: e[:2])
    _registered_types = tuple({t for e in _conversions for t in e[2]})


def needs_conversion_op(value) -> bool:
    """True when converting ``value`` (not itself a tensor) takes ops rather than a constant: a
    list holding tensors (stacked with Pack) or a value of a registered type."""
    return (isinstance(value, (list, tuple)) and holds_tensor(value)) or has_registered_conversion(value)


def has_registered_conversion(value) -> bool:
    """True when a register_tensor_conversion_function entry covers ``value``'s type."""
    return bool(_conversions) and isinstance(value, _registered_types)


def _convert_registered(value, dtype, name):
    """``value`` converted by the first registered function (by priority) that accepts it."""
    want = _dtypes.as_dtype(dtype) if dtype is not None else None
    for _, _, types, fn in _conversions:
        if not isinstance(value, types):
            continue
        out = fn(value, dtype=want, name=name, as_ref=False)
        if out is NotImplemented:
            continue
        if not isinstance(out, (Tensor, _eager_tensor.EagerTensor, TensorLike)):
            raise RuntimeError("Conversion function %r for type %s returned non-Tensor: %r" % (fn, type(value), out))
        out = convert_to_tensor(out)
        if want is not None and out.dtype != want:
            raise RuntimeError("Conversion function %r for type %s returned incompatible dtype: requested = %s, "
                               "actual = %s" % (fn, type(value), want.name, out.dtype.name))
        return out
    raise ValueError("Attempt to convert a value (%r) with an unsupported type (%s) to a Tensor."
                     % (value, type(value)))


def holds_tensor(value) -> bool:
    """True when the (nested) list ``value`` holds a tensor or variable, which convert_to_tensor
    then stacks with Pack (so graphs can hold it and gradients reach it) instead of reading."""
    if isinstance(value, (list, tuple)):
        if _plain_types(set(map(type, value))):  # one pass in C: a million numbers cost ~20 ms, not 200
            return False
        return any(holds_tensor(v) for v in value)
    return isinstance(value, (Tensor, _eager_tensor.EagerTensor, TensorLike))


_PLAIN = (int, float, complex, str, bytes, np.generic, np.ndarray, type(None))


def _plain_types(types):
    """Whether values of ``types`` (a set of classes) are Python or NumPy scalars and arrays alone,
    which hold no tensor."""
    return all(issubclass(t, _PLAIN) for t in types)


def _first_tensor_dtype(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
        elif holds_tensor(v):
            return convert_to_tensor(v).dtype
    return None


def _autopack(value, dtype, name):
    """A list mixing tensors and numbers stacked into one tensor of ``dtype`` with Pack, as
    TensorFlow's convert_to_tensor does (``tf.fill([n, 2], 0.0)`` with a tensor ``n``)."""
    parts = [_autopack(v, dtype, None) if isinstance(v, (list, tuple)) and holds_tensor(v)
             else convert_to_tensor(v, dtype=dtype) for v in value]
    return gen_ops.pack(parts, axis=0, name=name or "packed")


def _convert(value, dtype_enum, arg_name, op_type, preferred=False):
    """What eager_execute calls for an input that is not an EagerTensor: ``value`` as an
    EagerTensor of dtype ``dtype_enum`` (0: inferred, TensorFlow's rules; only preferred, see
    `to_numpy`, when it is the op's default)."""
    if isinstance(value, TensorLike):
        value = value._as_eager_tensor()
        if isinstance(value, _eager_tensor.EagerTensor):
            return value
    dtype = _dtypes._BY_ENUM[dtype_enum] if dtype_enum else None
    if needs_conversion_op(value):  # Pack, or a registered conversion
        return convert_to_tensor(value, dtype=dtype)
    if isinstance(value, Tensor):
        raise TypeError("An op outside of the graph building code is being passed a graph tensor (%s) as input "
                        "'%s' of %s; graph tensors cannot be used in eager mode (build the op inside `with "
                        "graph.as_default():`, or use tx.function)." % (value.name, arg_name, op_type))
    arr = to_numpy(value, dtype, "%s of %s" % (arg_name, op_type), preferred)
    return _eager_tensor.from_numpy(arr, _dtype_of(arr, dtype, preferred))


# eager_execute converts an input that is not an EagerTensor with _convert, and attr values with
# op_def_library.convert_attr; both are registered from here, above eager_tensor and op_def_library
# (Note [Import layering]).
lib.c.eager_register_converters(_convert, op_def_library.convert_attr, _dtypes.DType)
