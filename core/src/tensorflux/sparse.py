"""Sparse tensors (``tx.sparse.*``, like ``tf.sparse``): ``SparseTensor`` and the functions over
it, plus the sparse segment reductions of ``data[indices]``. A SparseTensor is three tensors
(indices, values, dense_shape); the C API and Go see exactly those (docs/sparse.md)."""

from tensorflux._src.segment_ops import sparse_segment_mean as segment_mean
from tensorflux._src.segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from tensorflux._src.segment_ops import sparse_segment_sum as segment_sum
from tensorflux._src.sparse_array_ops import bincount
from tensorflux._src.sparse_array_ops import concat_sparse as concat
from tensorflux._src.sparse_array_ops import (expand_dims, eye, fill_empty_rows, map_values, reset_shape, retain,
                                              sampled_addmm, to_indicator, transpose)
from tensorflux._src.sparse_array_ops import reshape_sparse as reshape
from tensorflux._src.sparse_array_ops import slice_sparse as slice  # noqa: A004 (TensorFlow's name)
from tensorflux._src.sparse_array_ops import split_sparse as split
from tensorflux._src.sparse_ops import (add, from_dense, maximum, minimum, reduce_max, reduce_sum, reorder, softmax,
                                        sparse_dense_matmul, to_dense)
from tensorflux._src.sparse_tensor import SparseTensor

__all__ = ["SparseTensor", "add", "bincount", "concat", "expand_dims", "eye", "fill_empty_rows", "from_dense",
           "map_values", "maximum", "minimum", "reduce_max", "reduce_sum", "reorder", "reset_shape", "reshape",
           "retain", "sampled_addmm", "segment_mean", "segment_sqrt_n", "segment_sum", "slice", "softmax",
           "sparse_dense_matmul", "split", "to_dense", "to_indicator", "transpose"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
