"""``tx.random.stateless_categorical``: class samples determined by a seed alone, drawn by
inverse-CDF search over uniform doubles (Note [Stateless categorical])."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ext import searchsorted
from tensorflux._src.array_ops import reshape
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.random_ops import stateless_uniform

# Note [Stateless categorical]
# TensorFlow's StatelessMultinomial draws, for row b and sample j, the double u (from the same
# Philox stream and key/counter derivation as stateless_uniform's float64 values, two 32-bit words
# each), and returns the first class whose cumulative weight exp(logit - row max) (summed in double,
# non-finite logits weighing nothing) exceeds u * total. Rows take consecutive doubles of one
# stream when TensorFlow computes the batch in one shard, which it does unless the work
# (batch * 50 * (num_samples * log2(classes) + classes)) is large enough to split across threads;
# the values here are those of the one-shard computation, so they equal TensorFlow's for such
# inputs (and follow the same distribution always).


def stateless_categorical(logits, num_samples, seed, dtype=_dtypes.int64, name=None):
    """``num_samples`` class indices per row of ``logits`` [batch, classes], drawn with
    probabilities softmax(row) and determined by ``seed`` (shape [2]) alone; ``dtype`` int64 or
    int32.

    >>> tx.random.stateless_categorical(tx.math.log([[0.5, 0.5, 0.0]]), 5, seed=[1, 2]).numpy()
    array([[1, 1, 0, 1, 1]])
    """
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError("stateless_categorical: dtype must be int32 or int64, got %s" % dtype.name)
    with name_scope(name or "stateless_categorical"):
        logits = logits if isinstance(logits, _TENSORS) else convert_to_tensor(logits, name="logits")
        if not logits.dtype.is_floating:
            raise TypeError("stateless_categorical: logits must be floating point, got %s" % logits.dtype.name)
        if logits.shape.rank is not None and logits.shape.rank != 2:
            raise ValueError("stateless_categorical: logits must be 2-D [batch, classes], got shape %s"
                             % logits.shape)
        if isinstance(num_samples, int) and num_samples < 0:
            raise ValueError("stateless_categorical: num_samples must be >= 0, got %d" % num_samples)
        n = num_samples if isinstance(num_samples, _TENSORS) else convert_to_tensor(num_samples,
                                                                                    dtype=_dtypes.int32)
        x = gen_ops.cast(logits, DstT=_dtypes.float64)
        finite = gen_ops.is_finite(x)
        lowest = convert_to_tensor(-1.7976931348623157e308, dtype=_dtypes.float64)
        row_max = gen_ops.max(gen_ops.select_v2(finite, x, lowest), convert_to_tensor(1), keep_dims=True)
        weights = gen_ops.select_v2(finite, gen_ops.exp(gen_ops.sub(x, row_max)), gen_ops.zeros_like(x))
        cdf = gen_ops.cumsum(weights, convert_to_tensor(1))
        total = gen_ops.max(cdf, convert_to_tensor(1), keep_dims=True)  # the last entry: cdf never decreases
        batch = gen_ops.gather_v2(gen_ops.shape(cdf), 0, 0)
        u = stateless_uniform(gen_ops.expand_dims(gen_ops.mul(batch, n), 0), seed, dtype=_dtypes.float64)
        u = reshape(u, gen_ops.pack([batch, n]))
        return searchsorted(cdf, gen_ops.mul(u, total), side="right", out_type=dtype)
