"""Sparse segment reductions (``tx.sparse.segment_*``, like ``tf.sparse``): reductions of
data[indices] over sorted segment ids. Tensorflux has no SparseTensor type yet."""

from tensorflux._src.segment_ops import sparse_segment_mean as segment_mean
from tensorflux._src.segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from tensorflux._src.segment_ops import sparse_segment_sum as segment_sum

__all__ = ["segment_mean", "segment_sqrt_n", "segment_sum"]
