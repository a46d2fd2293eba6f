"""``tx.sparse``: conversions, arithmetic and reductions of SparseTensors, thin over the sparse
ops (SparseToDense, SparseAdd, SparseTensorDenseMatMul, SparseReduceSum, ...) with TensorFlow's
public signatures. Reshaping, slicing and the other structural functions are in
sparse_array_ops.py."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.array_ops import cast
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.gather_ops import gather_nd, where
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.shape_ops import range as _range
from tensorflux._src.shape_ops import shape as _shape
from tensorflux._src.shape_ops import size as _size
from tensorflux._src.sparse_tensor import SparseTensor


def as_sparse(x, what="sp_input"):
    """``x`` as a SparseTensor (anything with indices, values and dense_shape); TypeError otherwise."""
    if isinstance(x, SparseTensor):
        return x
    if all(hasattr(x, a) for a in ("indices", "values", "dense_shape")):
        return SparseTensor.from_value(x)
    raise TypeError("%s must be a SparseTensor, got %s" % (what, type(x).__name__))


def _tensor(x, dtype=None):
    return x if isinstance(x, _TENSORS) and (dtype is None or x.dtype == dtype) else convert_to_tensor(x, dtype=dtype)


def from_dense(tensor, name=None):
    """The SparseTensor of the non-zero elements of a dense tensor, in row-major order.

    >>> st = tx.sparse.from_dense([[0, 5], [7, 0]])
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
    ([[0, 1], [1, 0]], [5, 7])
    """
    with name_scope(name or "dense_to_sparse"):
        tensor = _tensor(tensor)
        indices = where(gen_ops.not_equal(tensor, gen_ops.zeros_like(tensor)))
        return SparseTensor(indices, gather_nd(tensor, indices), _shape(tensor, out_type=_dtypes.int64))


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of a SparseTensor: its values at its indices, ``default_value`` (0)
    elsewhere. With ``validate_indices`` the indices must be in row-major order without repeats.

    >>> st = tx.SparseTensor([[0, 0], [1, 2]], [1, 2], [2, 3])
    >>> tx.sparse.to_dense(st, default_value=-1).numpy().tolist()
    [[1, -1, -1], [-1, -1, 2]]
    """
    sp = as_sparse(sp_input)
    default = convert_to_tensor(0 if default_value is None else default_value, dtype=sp.dtype)
    return gen_ops.sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default,
                                   validate_indices=validate_indices, name=name or "SparseToDense")


def add(a, b, threshold=0, name=None):
    """a + b. Two SparseTensors give a SparseTensor (entries present in both are summed and
    dropped when the sum's magnitude is below ``threshold``); a SparseTensor and a dense tensor
    give a dense tensor. SparseTensor operands must be in row-major order.

    >>> a = tx.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
    >>> b = tx.SparseTensor([[0, 0], [0, 1]], [3.0, 4.0], [2, 2])
    >>> tx.sparse.to_dense(tx.sparse.add(a, b)).numpy().tolist()
    [[4.0, 4.0], [0.0, 2.0]]
    """
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not a_sparse and not b_sparse:
        raise TypeError("tx.sparse.add needs at least one SparseTensor operand")
    if a_sparse and b_sparse:
        thresh = convert_to_tensor(threshold, dtype=a.dtype)
        out = gen_ops.sparse_add(a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, thresh,
                                 name=name or "SparseAdd")
        return SparseTensor(out.sum_indices, out.sum_values, out.sum_shape)
    sp, dense = (a, b) if a_sparse else (b, a)
    return gen_ops.sparse_tensor_dense_add(sp.indices, sp.values, sp.dense_shape, _tensor(dense, sp.dtype),
                                           name=name or "SparseTensorDenseAdd")


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """op(sp_a) @ op(b) as a dense matrix, where one operand is a 2-D SparseTensor and op applies
    the adjoint when asked (TensorFlow's tf.sparse.sparse_dense_matmul).

    >>> a = tx.SparseTensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    >>> tx.sparse.sparse_dense_matmul(a, tx.constant([[1.0, 0.0], [0.0, 1.0]])).numpy().tolist()
    [[0.0, 2.0], [3.0, 0.0]]
    """
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        # a @ B = (B^T @ a^T)^T, with the adjoints folded in.
        dense = _tensor(sp_a, b.dtype)
        out = gen_ops.sparse_tensor_dense_mat_mul(b.indices, b.values, b.dense_shape, dense,
                                                  adjoint_a=not adjoint_b, adjoint_b=not adjoint_a,
                                                  name=name or "SparseTensorDenseMatMul")
        return gen_ops.transpose(out, convert_to_tensor([1, 0]))
    sp = as_sparse(sp_a, "sp_a")
    return gen_ops.sparse_tensor_dense_mat_mul(sp.indices, sp.values, sp.dense_shape, _tensor(b, sp.dtype),
                                               adjoint_a=adjoint_a, adjoint_b=adjoint_b,
                                               name=name or "SparseTensorDenseMatMul")


def _axes(sp, axis):
    if axis is None:
        return cast(_range(0, _size(sp.dense_shape)), _dtypes.int32)
    return convert_to_tensor(axis, dtype=_dtypes.int32)


def _reduce(op, sparse_op, sp_input, axis, keepdims, output_is_sparse, name):
    sp = as_sparse(sp_input)
    axes = _axes(sp, axis)
    if output_is_sparse:
        out = sparse_op(sp.indices, sp.values, sp.dense_shape, axes, keep_dims=bool(keepdims), name=name)
        return SparseTensor(out.output_indices, out.output_values, out.output_shape)
    return op(sp.indices, sp.values, sp.dense_shape, axes, keep_dims=bool(keepdims), name=name)


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum of a SparseTensor's values over ``axis`` (all axes when None), as a dense tensor or,
    with ``output_is_sparse``, a SparseTensor.

    >>> st = tx.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, 2.0, 3.0], [2, 3])
    >>> tx.sparse.reduce_sum(st, axis=1).numpy().tolist()
    [3.0, 3.0]
    """
    return _reduce(gen_ops.sparse_reduce_sum, gen_ops.sparse_reduce_sum_sparse, sp_input, axis, keepdims,
                   output_is_sparse, name or ("SparseReduceSumSparse" if output_is_sparse else "SparseReduceSum"))


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The max of a SparseTensor's stored values over ``axis`` (implicit zeros do not count; an
    empty group gives 0 in the dense result), dense or, with ``output_is_sparse``, sparse.

    >>> st = tx.SparseTensor([[0, 0], [0, 2], [1, 1]], [-1.0, -2.0, 3.0], [2, 3])
    >>> tx.sparse.reduce_max(st, axis=1).numpy().tolist()
    [-1.0, 3.0]
    """
    return _reduce(gen_ops.sparse_reduce_max, gen_ops.sparse_reduce_max_sparse, sp_input, axis, keepdims,
                   output_is_sparse, name or ("SparseReduceMaxSparse" if output_is_sparse else "SparseReduceMax"))


def reorder(sp_input, name=None):
    """The same SparseTensor with its entries in row-major order.

    >>> st = tx.sparse.reorder(tx.SparseTensor([[1, 0], [0, 1]], [1, 2], [2, 2]))
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
    ([[0, 1], [1, 0]], [2, 1])
    """
    sp = as_sparse(sp_input)
    out = gen_ops.sparse_reorder(sp.indices, sp.values, sp.dense_shape, name=name or "SparseReorder")
    result = SparseTensor(out.output_indices, out.output_values, sp.dense_shape)
    result._shape = sp.shape
    return result


def softmax(sp_input, name=None):
    """Softmax over the stored values of each innermost row (missing entries are excluded, not
    zeros); the result has the input's indices.

    >>> st = tx.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, 1.0, 5.0], [2, 3])
    >>> tx.sparse.softmax(st).values.numpy().tolist()
    [0.5, 0.5, 1.0]
    """
    sp = as_sparse(sp_input)
    return sp.with_values(gen_ops.sparse_softmax(sp.indices, sp.values, sp.dense_shape, name=name or "SparseSoftmax"))


def _minmax(op, sp_a, sp_b, name):
    a, b = as_sparse(sp_a, "sp_a"), as_sparse(sp_b, "sp_b")
    out = op(a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, name=name)
    return SparseTensor(out.output_indices, out.output_values, a.dense_shape)


def maximum(sp_a, sp_b, name=None):
    """The element-wise max of two SparseTensors of one shape (a missing entry counts as 0).

    >>> a = tx.SparseTensor([[0, 0], [0, 1]], [1.0, -2.0], [1, 3])
    >>> b = tx.SparseTensor([[0, 1], [0, 2]], [-3.0, 4.0], [1, 3])
    >>> tx.sparse.maximum(a, b).values.numpy().tolist()
    [1.0, -2.0, 4.0]
    """
    return _minmax(gen_ops.sparse_sparse_maximum, sp_a, sp_b, name or "SparseSparseMaximum")


def minimum(sp_a, sp_b, name=None):
    """The element-wise min of two SparseTensors of one shape (a missing entry counts as 0).

    >>> a = tx.SparseTensor([[0, 0], [0, 1]], [1.0, -2.0], [1, 3])
    >>> b = tx.SparseTensor([[0, 1], [0, 2]], [-3.0, 4.0], [1, 3])
    >>> tx.sparse.minimum(a, b).values.numpy().tolist()
    [0.0, -3.0, 0.0]
    """
    return _minmax(gen_ops.sparse_sparse_minimum, sp_a, sp_b, name or "SparseSparseMinimum")


def dense_cwise(sp, dense, kind):
    """sp * dense or sp / dense at sp's entries (dense broadcasts to sp's shape): SparseTensor's
    ``*`` and ``/`` operators."""
    if isinstance(dense, SparseTensor):
        raise TypeError("SparseTensor %s SparseTensor is not supported; use tx.sparse.add, maximum or minimum, or "
                        "convert one operand with tx.sparse.to_dense" % ("*" if kind == "mul" else "/"))
    op = gen_ops.sparse_dense_cwise_mul if kind == "mul" else gen_ops.sparse_dense_cwise_div
    return sp.with_values(op(sp.indices, sp.values, sp.dense_shape, _tensor(dense, sp.dtype)))


def _sparse_mul(self, other):
    return dense_cwise(self, other, "mul")


def _sparse_truediv(self, other):
    return dense_cwise(self, other, "div")


_sparse_mul.__name__, _sparse_truediv.__name__ = "__mul__", "__truediv__"
# SparseTensor's operators are installed from here: sparse_tensor.py sits below the sparse ops
# (Note [Import layering]).
SparseTensor.__mul__ = _sparse_mul
SparseTensor.__truediv__ = SparseTensor.__div__ = _sparse_truediv

__all__ = ["add", "from_dense", "maximum", "minimum", "reduce_max", "reduce_sum", "reorder", "softmax",
           "sparse_dense_matmul", "to_dense"]
