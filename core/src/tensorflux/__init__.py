"""Tensorflux: describe a dataflow graph in Python, run it in the C++ engine.

The public API is exactly the names listed in ``__all__`` (plus the ``errors`` and ``nn``
modules); everything under ``tensorflux._src`` is private.
"""

from tensorflux._src import lib as _lib
from tensorflux._src.array_ops import cast, identity, no_op, placeholder, reshape
from tensorflux._src.constant_op import constant, convert_to_tensor
from tensorflux._src.dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, float16, float32,
                                    float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from tensorflux._src.graph import (Graph, control_dependencies, device, get_default_graph, name_scope,
                                   reset_default_graph)
from tensorflux._src.importer import import_graph_def
from tensorflux._src.math_ops import add, divide, matmul, multiply, reduce_mean, reduce_sum, subtract
from tensorflux._src.operation import Operation, Tensor
from tensorflux._src.session import Session
from tensorflux._src.tensor_shape import TensorShape
from tensorflux import errors, nn

__version__ = _lib.c.version()

__all__ = [
    "DType", "Graph", "Operation", "Session", "Tensor", "TensorShape",
    "add", "as_dtype", "cast", "constant", "control_dependencies", "convert_to_tensor", "device", "divide",
    "get_default_graph", "identity", "import_graph_def", "matmul", "multiply", "name_scope", "no_op",
    "placeholder", "reduce_mean", "reduce_sum", "reset_default_graph", "reshape", "subtract",
    "bfloat16", "bool", "complex64", "complex128", "float16", "float32", "float64", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64",
    "errors", "nn",
    "GraphDef", "ConfigProto",
]

# Protobuf classes load on first use, keeping protobuf out of `import tensorflux`.
_LAZY_PROTOS = {"GraphDef": ("graph_pb2", "GraphDef"), "ConfigProto": ("config_pb2", "ConfigProto")}


def __getattr__(name):
    if name in _LAZY_PROTOS:
        import importlib

        module, attr = _LAZY_PROTOS[name]
        value = getattr(importlib.import_module("tensorflux.proto." + module), attr)
        globals()[name] = value
        return value
    raise AttributeError("module 'tensorflux' has no attribute %r" % name)


def __dir__():
    return sorted(__all__ + ["__version__"])
