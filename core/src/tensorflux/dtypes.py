"""Data types (``tx.dtypes.*``, like ``tf.dtypes``): the ``DType`` objects, ``as_dtype``, and casts.

``tx.dtypes.complex`` (building complex tensors) is not here; the string, variant and quantized
types exist as ``DType`` objects, but the engine stores no tensors of them.
"""

from tensorflux._src.array_ops import cast
from tensorflux._src.dtype_ops import saturate_cast
from tensorflux._src.dtypes import (QUANTIZED_DTYPES, DType, as_dtype, bfloat16, bool, complex64, complex128, double,
                                    float16, float32, float64, half, int8, int16, int32, int64, qint8, qint16, qint32,
                                    quint8, quint16, resource, string, uint8, uint16, uint32, uint64, variant)

__all__ = [
    "DType", "QUANTIZED_DTYPES", "as_dtype", "cast", "saturate_cast",
    "bfloat16", "bool", "complex64", "complex128", "double", "float16", "float32", "float64", "half", "int8",
    "int16", "int32", "int64", "qint8", "qint16", "qint32", "quint8", "quint16", "resource", "string", "uint8",
    "uint16", "uint32", "uint64", "variant",
]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
