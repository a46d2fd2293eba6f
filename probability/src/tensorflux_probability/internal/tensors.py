"""Parameter conversion: a common floating dtype for a distribution's parameters, tensors made
from Python and NumPy values, and Variables kept as Variables so gradients reach them."""

import numbers

import numpy as np

import tensorflux as tx

_FLOAT_KINDS = "f"


def dtype_of(value):
    """The tx dtype ``value`` carries (a tensor's, a Variable's, a NumPy array's), or None for a
    Python number or list, whose dtype follows the other parameters."""
    if isinstance(value, np.generic):  # NumPy scalars carry their dtype, as in TensorFlow
        return tx.as_dtype(value.dtype)
    if value is None or isinstance(value, (numbers.Number, list, tuple)):
        return None
    dt = getattr(value, "dtype", None)
    if dt is None:
        return None
    return tx.as_dtype(dt)


def common_dtype(values, dtype_hint=tx.float32):
    """The one dtype of the typed values among ``values`` (``dtype_hint`` when none is typed);
    TypeError naming both when two typed values disagree (dtypes are never promoted)."""
    found = None
    for v in values:
        dt = dtype_of(v)
        if dt is None:
            continue
        if found is None:
            found = dt
        elif dt != found:
            raise TypeError("parameters must share one dtype; got %s and %s" % (found.name, dt.name))
    return found or tx.as_dtype(dtype_hint)


def is_variable_like(value):
    """True for a Variable or a DeferredTensor: a parameter read anew (and differentiated) each use."""
    return isinstance(value, tx.Variable) or hasattr(value, "_txp_deferred")


def as_param(value, dtype, name):
    """``value`` as a parameter of ``dtype``: Variables and DeferredTensors kept (read at each use),
    anything else converted to a tensor; TypeError when a typed value has another dtype."""
    if value is None:
        return None
    if is_variable_like(value):
        if tx.as_dtype(value.dtype) != dtype:
            raise TypeError("%s has dtype %s, expected %s" % (name, tx.as_dtype(value.dtype).name, dtype.name))
        return value
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and dtype.is_floating:
        value = value.astype(dtype.as_numpy_dtype)
    return tx.convert_to_tensor(value, dtype=dtype, name=name)


def value(param):
    """The tensor a parameter stands for now (a Variable or DeferredTensor read; None stays None)."""
    if param is None:
        return None
    if hasattr(param, "_txp_deferred"):
        return param._value()
    if is_variable_like(param):
        return tx.convert_to_tensor(param)
    return param


def static_value(t):
    """The NumPy value of ``t`` when it is known without running a graph (eager tensors,
    constants, NumPy and Python values), else None."""
    if t is None:
        return None
    if isinstance(t, (numbers.Number, np.ndarray, list, tuple)):
        return np.asarray(t)
    if is_variable_like(t):
        return None
    numpy = getattr(t, "numpy", None)
    if numpy is not None:
        try:
            return numpy()
        except Exception:  # noqa: BLE001 (a symbolic tensor: no value)
            return None
    op = getattr(t, "op", None)
    if op is not None and op.type == "Const":
        return np.asarray(op.get_attr("value"))
    return None


def constant_like(x, value):
    """A scalar tensor of ``value`` in ``x``'s dtype."""
    return tx.constant(value, dtype=x.dtype)


def numpy_dtype(dtype):
    return tx.as_dtype(dtype).as_numpy_dtype


def finfo(dtype):
    """np.finfo of a floating tx dtype."""
    return np.finfo(numpy_dtype(dtype))
