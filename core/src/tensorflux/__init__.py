"""Tensorflux: describe a dataflow graph in Python, run it in the C++ engine.

The public API is exactly the names listed in ``__all__`` (plus the ``autograph``, ``bitwise``, ``debugging``,
``dtypes``, ``errors``, ``image``, ``linalg``, ``math``, ``nn`` and ``random`` modules); everything under
``tensorflux._src`` is private.
"""

from tensorflux._src import lib as _lib
from tensorflux._src.module_getattr import missing_attribute_error as _missing_attribute_error
from tensorflux._src.array_ops import (bitcast, broadcast_to, cast, concat, expand_dims, identity, newaxis, no_op, pad,
                                       placeholder, reshape, reverse, slice, split, squeeze, stack, strided_slice,
                                       tile, transpose, unstack)
from tensorflux._src.backprop import GradientTape, custom_gradient
from tensorflux._src.boolean_mask import boolean_mask
from tensorflux._src.cond import case, cond, switch_case
from tensorflux._src.constant_op import constant, convert_to_tensor, register_tensor_conversion_function
from tensorflux._src.context import executing_eagerly
from tensorflux._src.einsum_ops import einsum, tensordot
from tensorflux._src.function import TensorSpec, function
from tensorflux._src.dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double, float16, float32,
                                    float64, half, int8, int16, int32, int64, resource, string, uint8, uint16, uint32,
                                    uint64, variant)
from tensorflux._src.graph import (Graph, control_dependencies, device, get_default_graph, name_scope,
                                   reset_default_graph)
from tensorflux._src.gather_ops import gather, gather_nd, one_hot, scatter_nd, where
from tensorflux._src.gradients_impl import UnconnectedGradients, gradients
from tensorflux._src.importer import import_graph_def
from tensorflux._src.linalg_norm import norm
from tensorflux._src.load_library import load_op_library
from tensorflux._src.linalg_ops import eye
from tensorflux._src.math_ops import (abs, add, add_n, clip_by_value, cos, divide, equal, exp, floor, greater,
                                      greater_equal, less, less_equal, logical_and, logical_not, logical_or, matmul,
                                      maximum, minimum, multiply, negative, not_equal, pow, reduce_mean, reduce_sum,
                                      round, sigmoid, sign, sin, sqrt, square, subtract, tan, tanh, truediv)
from tensorflux._src.operation import Operation, Tensor
from tensorflux._src.reduce_ops import argmax, argmin, reduce_all, reduce_any, reduce_max, reduce_min, reduce_prod
from tensorflux._src.session import Session
from tensorflux._src.shape_ops import (fill, identity_n, ones, ones_like, range, rank, shape, size, stop_gradient,
                                       zeros, zeros_like)
from tensorflux._src.tensor_array import TensorArray
from tensorflux._src.tensor_shape import TensorShape
from tensorflux._src.while_loop import while_loop
from tensorflux._src.check_ops import Assert, assert_equal, assert_greater, assert_less, assert_rank
from tensorflux._src.logging_ops import print_v2 as print  # noqa: A001 (TensorFlow's name)
from tensorflux._src.module import Module
from tensorflux._src.script_ops import numpy_function, py_function
from tensorflux._src.variables import (Variable, global_variables, global_variables_initializer, trainable_variables,
                                       variables_initializer)
# Math, array and higher-order functions beyond the core set (see tx.math for the rest).
from tensorflux._src.array_ext import (linspace, meshgrid, repeat, roll, searchsorted, sequence_mask,
                                       tensor_scatter_nd_add, tensor_scatter_nd_max, tensor_scatter_nd_min,
                                       tensor_scatter_nd_sub, tensor_scatter_nd_update, unique, unique_with_counts)
from tensorflux._src.functional_ops import foldl, foldr, map_fn, scan, vectorized_map
from tensorflux._src.index_ext import (dynamic_partition, dynamic_stitch, histogram_fixed_width,
                                       histogram_fixed_width_bins, realdiv, reverse_sequence, truncatediv,
                                       truncatemod, unravel_index)
from tensorflux._src.sort_ops import argsort, sort
from tensorflux._src.special_math import acos, acosh, asin, asinh, atan, atan2, atanh, cosh, scalar_mul, sinh
from tensorflux._src.stat_ops import clip_by_global_norm, clip_by_norm, reduce_logsumexp
from tensorflux._src.reduce_ops import cumsum
from tensorflux._src.string_ops import as_string
from tensorflux import sparse
from tensorflux._src.composite import TypeSpec
from tensorflux._src.sparse_tensor import SparseTensor, SparseTensorSpec
# Complex numbers and the FFTs TensorFlow also exports at the top level (the rest is in tx.math and
# tx.signal).
from tensorflux._src.complex_ops import complex  # noqa: A004 (TensorFlow's name)
from tensorflux._src.fft_ops import fftnd, ifftnd, irfftnd, rfftnd
from tensorflux import (autograph, bitwise, compat, config, debugging, dtypes, errors, experimental, image,
                        initializers, io, linalg, lookup, losses, math, nest, nn, optimizers, profiler, random,
                        raw_ops, signal, strings, train)
from tensorflux import keras
# Tensor utilities, space/batch reshuffles and the initializer names TensorFlow also exports at
# the top level.
from tensorflux._src.tensor_utils import (broadcast_static_shape, get_static_value, is_tensor, saturate_cast,
                                          shape_n)
from tensorflux._src.nn_conv_ops import batch_to_space, space_to_batch, space_to_batch_nd
from tensorflux._src.initializers import Constant as constant_initializer
from tensorflux._src.initializers import Ones as ones_initializer
from tensorflux._src.initializers import RandomNormal as random_normal_initializer
from tensorflux._src.initializers import RandomUniform as random_uniform_initializer
from tensorflux._src.initializers import Zeros as zeros_initializer
from tensorflux._src.context import init_scope, inside_function
from tensorflux._src.tensor_utils import is_symbolic_tensor
# Smaller top-level names over existing ops: grouping, shape checks, protos, devices, gradients.
from tensorflux._src.device_spec import DeviceSpec
from tensorflux._src.gradient_utils import AggregationMethod, grad_pass_through, hessians, recompute_grad
from tensorflux._src.misc_api import (VariableAggregation, VariableSynchronization, broadcast_dynamic_shape,
                                      ensure_shape, get_current_name_scope, get_logger, group, guarantee_const,
                                      parallel_stack, required_space_to_batch_paddings, timestamp,
                                      type_spec_from_value)
from tensorflux._src.misc_api import tuple  # noqa: A004 (TensorFlow's name)
from tensorflux._src.tensor_proto import make_ndarray, make_tensor_proto

__version__ = _lib.c.version()

__all__ = [
    "DType", "Graph", "Operation", "Session", "Tensor", "TensorShape", "Variable",
    "global_variables", "global_variables_initializer", "trainable_variables", "variables_initializer",
    "executing_eagerly", "autograph", "compat", "experimental", "GradientTape", "custom_gradient", "function",
    "TensorSpec",
    # Control flow.
    "case", "cond", "switch_case", "while_loop", "TensorArray",
    "register_tensor_conversion_function",
    "add", "as_dtype", "bitcast", "cast", "constant", "control_dependencies", "convert_to_tensor", "device", "divide",
    "is_tensor",
    "UnconnectedGradients", "get_default_graph", "gradients", "identity", "import_graph_def", "matmul", "multiply",
    "name_scope", "no_op",
    "placeholder", "reduce_mean", "reduce_sum", "reset_default_graph", "reshape", "subtract",
    # Element-wise math that TensorFlow also exports at the top level (all of it is in tx.math).
    "abs", "add_n", "clip_by_value", "cos", "equal", "exp", "floor", "greater", "greater_equal", "less",
    "less_equal", "logical_and", "logical_not", "logical_or", "maximum", "minimum", "negative", "not_equal", "pow",
    "round", "sigmoid", "sign", "sin", "sqrt", "square", "tan", "tanh", "truediv",
    "bfloat16", "bool", "complex64", "complex128", "double", "float16", "float32", "float64", "half", "int8",
    "int16", "int32", "int64", "resource", "string", "uint8", "uint16", "uint32", "uint64", "variant", "bitwise",
    "dtypes",
    # Array, index, reduction and shape functions.
    "argmax", "argmin", "broadcast_to", "concat", "expand_dims", "fill", "gather", "gather_nd", "identity_n",
    "newaxis", "one_hot", "ones", "ones_like", "pad", "range", "rank", "reduce_all", "reduce_any", "reduce_max",
    "reduce_min", "reduce_prod", "reverse", "scatter_nd", "shape", "size", "slice", "split", "squeeze", "stack",
    "stop_gradient", "strided_slice", "tile", "transpose", "unstack", "where", "zeros", "zeros_like",
    "boolean_mask",
    # Linear algebra that TensorFlow also exports at the top level (all of it is in tx.linalg).
    "einsum", "eye", "norm", "tensordot",
    "debugging", "errors", "image", "initializers", "keras", "linalg", "losses", "math", "nn", "optimizers", "profiler",
    "random", "train",
    "GraphDef", "ConfigProto", "RunOptions", "RunMetadata",
    # Modules, host callbacks, printing and assertions (TensorFlow 2's top-level names).
    "Module", "config", "nest", "raw_ops", "py_function", "numpy_function", "print",
    "Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank",
    # Plugins: ops, kernels and gradients from shared libraries (docs/plugins.md).
    "load_op_library", "sysconfig",
]

__all__ += [
    "acos", "acosh", "argsort", "asin", "asinh", "atan", "atan2", "atanh", "clip_by_global_norm", "clip_by_norm",
    "cosh", "cumsum", "foldl", "foldr", "linspace", "map_fn", "meshgrid", "reduce_logsumexp", "repeat",
    "roll", "scalar_mul", "scan", "searchsorted", "sequence_mask", "sinh", "sort", "tensor_scatter_nd_add",
    "tensor_scatter_nd_max", "tensor_scatter_nd_min", "tensor_scatter_nd_sub", "tensor_scatter_nd_update",
    "unique", "unique_with_counts", "vectorized_map", "sparse",
    "dynamic_partition", "dynamic_stitch", "histogram_fixed_width", "histogram_fixed_width_bins",
    "realdiv", "reverse_sequence", "truncatediv", "truncatemod", "unravel_index",
    # Strings and files (tx.strings, tx.io; docs/strings.md).
    "as_string", "io", "strings",
    # Lookup tables (tx.lookup; docs/lookup.md).
    "lookup",
]
__all__ += ["SparseTensor", "SparseTensorSpec", "TypeSpec"]

__all__ += ["batch_to_space", "broadcast_static_shape", "constant_initializer", "get_static_value",
            "ones_initializer", "random_normal_initializer", "random_uniform_initializer", "saturate_cast", "shape_n",
            "space_to_batch", "space_to_batch_nd", "zeros_initializer", "init_scope", "inside_function",
            "is_symbolic_tensor"]

__all__ += ["complex", "fftnd", "ifftnd", "irfftnd", "rfftnd", "signal"]

__all__ += ["AggregationMethod", "DeviceSpec", "VariableAggregation", "VariableSynchronization",
            "broadcast_dynamic_shape", "ensure_shape", "get_current_name_scope", "get_logger", "grad_pass_through",
            "group", "guarantee_const", "hessians", "make_ndarray", "make_tensor_proto", "parallel_stack",
            "recompute_grad", "required_space_to_batch_paddings", "timestamp", "tuple", "type_spec_from_value"]

# Note [tx.data]: input pipelines are the separately released add-on tensorflux-data (DESIGN.md §8);
# `tx.data` resolves to it on first use when it is installed (as `tf.keras` resolves to Keras), so
# tf.data code ports by renaming, and is an ImportError naming the package otherwise. The core does
# not depend on it and never imports it unasked.

# Protobuf classes load on first use, keeping protobuf out of `import tensorflux`.
_LAZY_PROTOS = {"GraphDef": ("graph_pb2", "GraphDef"), "ConfigProto": ("config_pb2", "ConfigProto"),
               "RunOptions": ("config_pb2", "RunOptions"), "RunMetadata": ("config_pb2", "RunMetadata")}


def __getattr__(name):
    if name in _LAZY_PROTOS:
        import importlib

        module, attr = _LAZY_PROTOS[name]
        value = getattr(importlib.import_module("tensorflux.proto." + module), attr)
        globals()[name] = value
        return value
    if name == "data":  # Note [tx.data]
        import importlib

        try:
            return importlib.import_module("tensorflux_data")
        except ModuleNotFoundError as e:
            if e.name != "tensorflux_data":
                raise
            raise ImportError("tx.data is provided by the tensorflux-data package, which is not installed: "
                              "pip install tensorflux-data (from a source tree: pip install ./data)") from None
    if name == "sysconfig":  # loaded on first use: `python -m tensorflux.sysconfig` then runs it fresh
        import importlib

        return importlib.import_module("tensorflux.sysconfig")
    raise _missing_attribute_error(__name__, name)


def __dir__():
    return sorted(__all__ + ["__version__"])
