"""Data types: `DType` singletons numbered as TensorFlow's DataType enum."""

import numpy as np


class DType:
    """The element type of a tensor (``tx.float32``, ``tx.int32``, ...); compares equal to its
    name, its NumPy type and its enum value's DType."""

    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum, name, np_type):
        self._enum = enum
        self._name = name
        self._np = np_type

    @property
    def name(self):
        """The canonical name, e.g. ``"float32"``."""
        return self._name

    @property
    def as_datatype_enum(self):
        """The DataType enum value (``TX_FLOAT`` is 1)."""
        return self._enum

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (``np.float32``; ``np.object_`` for string, whose elements are
        bytes); bfloat16 needs the ``ml_dtypes`` package."""
        if self._np is None:
            self._np = _lazy_numpy_type(self._enum)
        return self._np

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        """float32 for complex64, float64 for complex128, else itself."""
        return {8: float32, 18: float64}.get(self._enum, self)

    @property
    def size(self):
        """Bytes per element (0 for variable-size types)."""
        return _SIZES.get(self._enum, 0)

    @property
    def is_floating(self):
        return self._enum in (1, 2, 14, 19)

    @property
    def is_complex(self):
        return self._enum in (8, 18)

    @property
    def is_integer(self):
        return self._enum in (3, 4, 5, 6, 9, 17, 22, 23)

    @property
    def is_unsigned(self):
        return self._enum in (4, 17, 22, 23)

    @property
    def is_bool(self):
        return self._enum == 10

    @property
    def is_quantized(self):
        return self._enum in (11, 12, 13, 15, 16)

    @property
    def is_numpy_compatible(self):
        """True when NumPy can hold the values (strings as object arrays of bytes)."""
        return self._enum not in (20, 21) and not self.is_quantized

    @property
    def min(self):
        """The smallest representable value."""
        return self._limits()[0]

    @property
    def max(self):
        """The largest representable value."""
        return self._limits()[1]

    def _limits(self):
        if self.is_bool:
            return False, True
        t = self.as_numpy_dtype
        info = np.iinfo(t) if self.is_integer else np.finfo(t)
        return info.min, info.max

    def is_compatible_with(self, other):
        """True when ``other`` names the same type."""
        return self == other

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._enum == other._enum
        try:
            return as_dtype(other)._enum == self._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return "tx." + self._name

    def __str__(self):
        return "<dtype: %r>" % self._name

    def __reduce__(self):
        return as_dtype, (self._enum,)


def _lazy_numpy_type(enum):
    if enum == 14:
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("bfloat16 needs the ml_dtypes package (pip install ml_dtypes)") from None
        return ml_dtypes.bfloat16
    raise TypeError("%s has no NumPy equivalent" % _BY_ENUM[enum].name)


float32 = DType(1, "float32", np.float32)
float64 = DType(2, "float64", np.float64)
int32 = DType(3, "int32", np.int32)
uint8 = DType(4, "uint8", np.uint8)
int16 = DType(5, "int16", np.int16)
int8 = DType(6, "int8", np.int8)
string = DType(7, "string", np.object_)  # values are bytes objects, as in TensorFlow
complex64 = DType(8, "complex64", np.complex64)
int64 = DType(9, "int64", np.int64)
bool = DType(10, "bool", np.bool_)  # noqa: A001 (TensorFlow's name)
qint8 = DType(11, "qint8", None)
quint8 = DType(12, "quint8", None)
qint32 = DType(13, "qint32", None)
bfloat16 = DType(14, "bfloat16", None)
qint16 = DType(15, "qint16", None)
quint16 = DType(16, "quint16", None)
uint16 = DType(17, "uint16", np.uint16)
complex128 = DType(18, "complex128", np.complex128)
float16 = DType(19, "float16", np.float16)
resource = DType(20, "resource", None)
variant = DType(21, "variant", None)
uint32 = DType(22, "uint32", np.uint32)
uint64 = DType(23, "uint64", np.uint64)

_ALL = (float32, float64, int32, uint8, int16, int8, string, complex64, int64, bool, qint8, quint8, qint32,
        bfloat16, qint16, quint16, uint16, complex128, float16, resource, variant, uint32, uint64)
_BY_ENUM = {d._enum: d for d in _ALL}
_BY_NAME = {d._name: d for d in _ALL}
_BY_NAME.update(half=float16, float=float32, double=float64)
_SIZES = {1: 4, 2: 8, 3: 4, 4: 1, 5: 2, 6: 1, 8: 8, 9: 8, 10: 1, 11: 1, 12: 1, 13: 4, 14: 2, 15: 2, 16: 2,
          17: 2, 18: 16, 19: 2, 22: 4, 23: 8}
# NumPy dtype -> DType, for the types NumPy has natively.
_BY_NUMPY = {np.dtype(d._np): d for d in _ALL if d._np is not None}


def as_dtype(type_value):
    """Converts a DType, enum value, name (``"float32"``), NumPy dtype or type, or Python type
    (float -> float32, int -> int64, bool -> bool) into a DType; raises TypeError otherwise.

    >>> tx.as_dtype("float32")
    tx.float32
    >>> tx.as_dtype(np.int64)
    tx.int64
    >>> tx.as_dtype(tx.float16).size
    2
    """
    if isinstance(type_value, DType):
        return type_value
    if type_value is None:  # np.dtype(None) would mean float64
        raise TypeError("Cannot convert None to a tx.DType")
    if isinstance(type_value, int) and not isinstance(type_value, type(True)):
        d = _BY_ENUM.get(type_value)
        if d is not None:
            return d
    elif isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
    elif type_value is float:
        return float32
    elif type_value is type(True):
        return bool
    else:
        try:
            npdt = np.dtype(type_value)
        except (TypeError, ValueError):
            npdt = None
        if npdt is not None:
            d = _BY_NUMPY.get(npdt)
            if d is not None:
                return d
            if npdt.name == "bfloat16":
                return bfloat16
            if npdt.kind in "SUO":
                return string
    raise TypeError("Cannot convert %r to a tx.DType" % (type_value,))


def numpy_dtypes():
    """{enum: numpy dtype} of the types NumPy has natively (registered into the binding)."""
    return {d._enum: np.dtype(d._np) for d in _ALL if d._np is not None}


def resolve_numpy_dtype(enum):
    """The NumPy dtype for ``enum``, loading optional packages (ml_dtypes); the binding's
    fallback for types missing from ``numpy_dtypes()``."""
    d = _BY_ENUM.get(enum)
    if d is None:
        return None
    return np.dtype(d.as_numpy_dtype)
