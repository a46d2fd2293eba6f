"""Conformance entries: the sparse data-movement ops (SparseToDense, SparseReorder, SparseReshape,
SparseSlice(+Grad), SparseConcat, SparseSplit, SparseFillEmptyRows(+Grad), SparseTensorDenseAdd).
Samples use canonical (row-major) indices, which TensorFlow's kernels assume; the error samples
include out-of-order and out-of-range indices, which Tensorflux always rejects."""

import numpy as np

import tensorflux as tx
from conformance import sparse_refs as R
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

# The data-movement kernels take every stored dtype.
MOVE = (np.float32, np.float64, np.int32, np.int64, np.uint8, np.int16, np.bool_, np.complex64, np.float16)


def sp(shape, nnz, dt=np.float32, seed=0, order=True):
    """A SparseTensor's (indices, values, dense_shape) with `nnz` distinct random indices."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    flat = rng.choice(size, size=min(nnz, size), replace=False) if size else np.zeros(0, np.int64)
    if order:
        flat = np.sort(flat)
    idx = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64) if len(shape) else np.zeros((0, 0), np.int64)
    idx = idx.reshape(len(flat), len(shape))
    vals = rand((len(flat),), dt, seed=seed) if np.dtype(dt).kind != "c" else \
        (rand((len(flat),), np.float32, seed=seed) + 1j).astype(dt)
    if np.dtype(dt).kind in "iu" or dt == np.bool_:
        vals = rand((len(flat),), np.int64, 1, 9, seed=seed).astype(dt)
    return idx, vals, np.array(shape, np.int64)


def _i(x):
    return np.array(x, np.int64)


_BAD_ORDER = (_i([[1, 0], [0, 2]]), np.array([1.0, 2.0], np.float32), _i([3, 4]))
_BAD_BOUNDS = (_i([[0, 0], [5, 2]]), np.array([1.0, 2.0], np.float32), _i([3, 4]))
_OOB = r"indices\[1\] = \[5,2\] is out of bounds: need 0 <= index < \[3,4\]"


def _to_dense_samples():
    out = []
    for dt in MOVE:
        i, v, s = sp((3, 4), 5, dt, seed=1)
        out.append(Sample({"sparse_indices": i, "output_shape": s, "sparse_values": v,
                           "default_value": np.zeros((), dt)}, note=np.dtype(dt).name))
    i, v, s = sp((4, 3, 2), 7, np.float64, seed=2)
    out.append(Sample({"sparse_indices": i.astype(np.int32), "output_shape": s.astype(np.int32), "sparse_values": v,
                       "default_value": np.float64(-1.5)}, note="int32 indices, rank 3"))
    out.append(Sample({"sparse_indices": _i([1, 3]), "output_shape": _i([5]), "sparse_values": np.float32(7),
                       "default_value": np.float32(1)}, note="vector indices, scalar value"))
    out.append(Sample({"sparse_indices": _i(2), "output_shape": _i([4]), "sparse_values": np.float32(3),
                       "default_value": np.float32(0)}, note="scalar index"))
    out.append(Sample({"sparse_indices": np.zeros((0, 2), np.int64), "output_shape": _i([2, 0]),
                       "sparse_values": np.zeros(0, np.float32), "default_value": np.float32(0)}, note="empty"))
    out.append(Sample({"sparse_indices": _i([[0, 0], [0, 0]]), "output_shape": _i([2, 2]),
                       "sparse_values": np.array([1.0, 2.0], np.float32), "default_value": np.float32(0)},
                      {"validate_indices": False}, note="repeated index, unvalidated: the last wins"))
    return out


def _reorder_samples():
    out = []
    for dt in MOVE:
        i, v, s = sp((4, 5), 8, dt, seed=3, order=False)
        out.append(Sample({"input_indices": i, "input_values": v, "input_shape": s}, note=np.dtype(dt).name))
    i, v, s = sp((3, 2, 4), 9, np.float64, seed=4, order=False)
    out.append(Sample({"input_indices": i, "input_values": v, "input_shape": s}, note="rank 3"))
    out.append(Sample({"input_indices": np.zeros((0, 2), np.int64), "input_values": np.zeros(0, np.float32),
                       "input_shape": _i([3, 3])}, note="empty"))
    return out


def _reshape_samples():
    i, _, s = sp((4, 6), 9, seed=5)
    return [Sample({"input_indices": i, "input_shape": s, "new_shape": _i(n)}, note=str(n))
            for n in ([24], [2, -1, 3], [6, 4], [-1, 2, 2, 3])] + [
        Sample({"input_indices": np.zeros((0, 2), np.int64), "input_shape": _i([0, 4]), "new_shape": _i([-1, 2])},
               note="empty")]


def _slice_samples():
    out = []
    for dt in MOVE:
        i, v, s = sp((5, 6), 12, dt, seed=6)
        out.append(Sample({"indices": i, "values": v, "shape": s, "start": _i([1, 2]), "size": _i([3, 10])},
                          note=np.dtype(dt).name))
    i, v, s = sp((4, 4), 6, np.float64, seed=7)
    out.append(Sample({"indices": i, "values": v, "shape": s, "start": _i([5, 0]), "size": _i([2, 2])},
                      note="start past the end"))
    return out


def _slice_grad_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.int64):
        i, v, s = sp((5, 6), 12, dt, seed=8)
        start = _i([1, 1])
        out_i, _, _ = R.sparse_slice(i, v, s, start, _i([3, 4]))
        out.append(Sample({"backprop_val_grad": rand((len(out_i),), dt, seed=9), "input_indices": i,
                           "input_start": start, "output_indices": out_i}, note=np.dtype(dt).name))
    return out


def _concat_samples():
    out = []
    for dt in MOVE:
        a, b = sp((3, 4), 5, dt, seed=10), sp((3, 2), 3, dt, seed=11)
        out.append(Sample({"indices": [a[0], b[0]], "values": [a[1], b[1]], "shapes": [a[2], b[2]]},
                          {"concat_dim": 1}, note=np.dtype(dt).name))
    a, b, c = sp((2, 3), 3, np.float64, seed=12), sp((1, 3), 2, np.float64, seed=13), sp((4, 3), 5, np.float64, 14)
    out.append(Sample({"indices": [a[0], b[0], c[0]], "values": [a[1], b[1], c[1]], "shapes": [a[2], b[2], c[2]]},
                      {"concat_dim": -2}, note="three inputs, axis -2"))
    return out


def _split_samples():
    out = []
    for dt in MOVE:
        i, v, s = sp((4, 7), 10, dt, seed=15)
        out.append(Sample({"split_dim": np.int64(1), "indices": i, "values": v, "shape": s}, {"num_split": 3},
                          note=np.dtype(dt).name))
    i, v, s = sp((5, 2), 6, np.float64, seed=16)
    out.append(Sample({"split_dim": np.int64(-2), "indices": i, "values": v, "shape": s}, {"num_split": 5},
                      note="axis -2, one row each"))
    return out


def _fill_samples():
    out = []
    for dt in MOVE:
        i = _i([[1, 0], [1, 2], [3, 1]])
        v = sp((5, 3), 3, dt, seed=17)[1]
        out.append(Sample({"indices": i, "values": v, "dense_shape": _i([5, 3]), "default_value": v[0]},
                          note=np.dtype(dt).name))
    out.append(Sample({"indices": _i([[2, 0], [0, 1]]), "values": np.array([1.0, 2.0]), "dense_shape": _i([3, 2]),
                       "default_value": np.float64(-1)}, note="rows out of order"))
    out.append(Sample({"indices": np.zeros((0, 2), np.int64), "values": np.zeros(0, np.float32),
                       "dense_shape": _i([0, 3]), "default_value": np.float32(1)}, note="no rows"))
    return out


def _fill_grad_samples():
    return [Sample({"reverse_index_map": _i([1, 2, 4]), "grad_values": rand((6,), dt, seed=18)},
                   note=np.dtype(dt).name) for dt in (np.float32, np.float64, np.int32, np.int64)]


def _dense_add_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.int64):
        for it in (np.int32, np.int64):
            i, v, s = sp((3, 4), 5, dt, seed=19)
            out.append(Sample({"a_indices": i.astype(it), "a_values": v, "a_shape": s.astype(it),
                               "b": rand((3, 4), dt, seed=20)}, note=f"{np.dtype(dt).name}, {np.dtype(it).name}"))
    i, v, s = sp((2, 3, 2), 4, np.float64, seed=21)
    out.append(Sample({"a_indices": i, "a_values": v, "a_shape": s, "b": rand((2, 3, 2), np.float64, seed=22)},
                      note="rank 3"))
    return out


ENTRIES = [
    OpEntry("SparseToDense", _to_dense_samples(), ref=R.sparse_to_dense, errors=[
        ErrorSample({"sparse_indices": _BAD_ORDER[0], "output_shape": _i([3, 4]), "sparse_values": _BAD_ORDER[1],
                     "default_value": np.float32(0)}, match=r"indices\[1\] = \[0,2\] is out of order. Many sparse ops "
                                                             r"require sorted indices", when="runtime"),
        ErrorSample({"sparse_indices": _BAD_BOUNDS[0], "output_shape": _i([3, 4]), "sparse_values": _BAD_BOUNDS[1],
                     "default_value": np.float32(0)}, match=_OOB, when="runtime"),
        ErrorSample({"sparse_indices": _i([[0, 0], [0, 0]]), "output_shape": _i([3, 4]),
                     "sparse_values": _BAD_BOUNDS[1], "default_value": np.float32(0)},
                    match=r"indices\[1\] = \[0,0\] is repeated", when="runtime"),
        ErrorSample({"sparse_indices": _BAD_BOUNDS[0], "output_shape": _i([3, 4]),
                     "sparse_values": np.ones(3, np.float32), "default_value": np.float32(0)},
                    match=r"sparse_values has incorrect shape \[3\], should be \[\] or \[2\]", when="runtime"),
        ErrorSample({"sparse_indices": _BAD_BOUNDS[0], "output_shape": _i([3, 4, 5]), "sparse_values": _BAD_BOUNDS[1],
                     "default_value": np.float32(0)},
                    match=r"output_shape has incorrect number of elements: 3 should be: 2", when="runtime"),
        ErrorSample({"sparse_indices": _BAD_BOUNDS[0], "output_shape": _i([3, 4]), "sparse_values": _BAD_BOUNDS[1],
                     "default_value": np.zeros(1, np.float32)}, match=r"default_value"),
    ], grad_samples=[Sample({"sparse_indices": sp((3, 4), 5, seed=23)[0], "output_shape": _i([3, 4]),
                             "sparse_values": rand((5,), np.float64, seed=24), "default_value": np.float64(0.5)}),
                     Sample({"sparse_indices": _i([0, 2]), "output_shape": _i([4]), "sparse_values": np.float64(2),
                             "default_value": np.float64(-1)}, note="vector indices, scalar value")],
        grad_inputs=["sparse_values", "default_value"]),
    OpEntry("SparseReorder", _reorder_samples(), ref=R.sparse_reorder, errors=[
        ErrorSample({"input_indices": _BAD_BOUNDS[0], "input_values": _BAD_BOUNDS[1], "input_shape": _BAD_BOUNDS[2]},
                    match=_OOB, when="runtime"),
        ErrorSample({"input_indices": _i([0, 1]), "input_values": _BAD_BOUNDS[1], "input_shape": _BAD_BOUNDS[2]},
                    match=r"indices"),
        ErrorSample({"input_indices": _BAD_BOUNDS[0], "input_values": np.ones(3, np.float32),
                     "input_shape": _BAD_BOUNDS[2]}, match=r"do not match"),
    ]),
    OpEntry("SparseReshape", _reshape_samples(), ref=R.sparse_reshape, errors=[
        ErrorSample({"input_indices": _i([[0, 1]]), "input_shape": _i([3, 4]), "new_shape": _i([5, -1])},
                    match=r"requires a multiple of 5", when="runtime"),
        ErrorSample({"input_indices": _i([[0, 1]]), "input_shape": _i([3, 4]), "new_shape": _i([5, 3])},
                    match=r"12 dense values, but the requested shape has 15", when="runtime"),
        ErrorSample({"input_indices": _i([[0, 1]]), "input_shape": _i([3, 4]), "new_shape": _i([-1, -1])},
                    match=r"only one output dimension may be -1", when="runtime"),
        ErrorSample({"input_indices": _BAD_BOUNDS[0], "input_shape": _i([3, 4]), "new_shape": _i([12])},
                    match=_OOB, when="runtime"),
    ]),
    OpEntry("SparseSlice", _slice_samples(), ref=R.sparse_slice, errors=[
        ErrorSample({"indices": _BAD_BOUNDS[0], "values": _BAD_BOUNDS[1], "shape": _BAD_BOUNDS[2],
                     "start": _i([0, 0]), "size": _i([2, 2])}, match=_OOB, when="runtime"),
        ErrorSample({"indices": _BAD_ORDER[0], "values": _BAD_ORDER[1], "shape": _BAD_ORDER[2],
                     "start": _i([0]), "size": _i([2, 2])}, match=r"Expected start to be a vector of length 2"),
        ErrorSample({"indices": _BAD_ORDER[0], "values": _BAD_ORDER[1], "shape": _BAD_ORDER[2],
                     "start": _i([-1, 0]), "size": _i([2, 2])}, match=r"start\[0\] = -1 must be non-negative",
                    when="runtime"),
    ], grad_samples=[Sample({"indices": sp((4, 5), 9, seed=25)[0], "values": rand((9,), np.float64, seed=26),
                             "shape": _i([4, 5]), "start": _i([1, 1]), "size": _i([2, 3])})],
        grad_inputs=["values"]),
    OpEntry("SparseSliceGrad", _slice_grad_samples(), ref=R.sparse_slice_grad, errors=[
        ErrorSample({"backprop_val_grad": np.ones(2, np.float32), "input_indices": _i([[0, 0], [1, 2], [1, 3]]),
                     "input_start": _i([1, 1]), "output_indices": _i([[0, 1], [2, 2]])},
                    error=tx.errors.InternalError, match=r"Elements of backprop_val_grad aren't all propagated. "
                                                         r"Num elements:2, used: 1", when="runtime"),
    ]),
    OpEntry("SparseConcat", _concat_samples(), ref=R.sparse_concat, errors=[
        ErrorSample({"indices": [_BAD_ORDER[0]] * 2, "values": [_BAD_ORDER[1]] * 2,
                     "shapes": [_i([3, 4]), _i([4, 4])]}, {"concat_dim": 1},
                    match=r"Input shapes must match: expected 3 for dimension 0 but got 4 at position 1",
                    when="runtime"),
        ErrorSample({"indices": [_BAD_ORDER[0]] * 2, "values": [_BAD_ORDER[1]] * 2, "shapes": [_i([3, 4])] * 2},
                    {"concat_dim": 2}, match=r"Concat dimension must be in range \[-2, 2\), got 2"),
        ErrorSample({"indices": [_BAD_BOUNDS[0]] * 2, "values": [_BAD_BOUNDS[1]] * 2, "shapes": [_i([3, 4])] * 2},
                    {"concat_dim": 0}, match=_OOB, when="runtime"),
    ]),
    OpEntry("SparseSplit", _split_samples(), ref=R.sparse_split, errors=[
        ErrorSample({"split_dim": np.int64(1), "indices": _BAD_ORDER[0], "values": _BAD_ORDER[1],
                     "shape": _BAD_ORDER[2]}, {"num_split": 5},
                    match=r"Input num_split should be between 1 and the splitting dimension size \(4\), got 5",
                    when="runtime"),
        ErrorSample({"split_dim": np.int64(2), "indices": _BAD_ORDER[0], "values": _BAD_ORDER[1],
                     "shape": _BAD_ORDER[2]}, {"num_split": 2}, match=r"Input axis should be in range \[-2, 2\), got 2",
                    when="runtime"),
        ErrorSample({"split_dim": np.int64(1), "indices": _BAD_BOUNDS[0], "values": _BAD_BOUNDS[1],
                     "shape": _BAD_BOUNDS[2]}, {"num_split": 2}, match=_OOB, when="runtime"),
    ]),
    OpEntry("SparseFillEmptyRows", _fill_samples(), ref=R.sparse_fill_empty_rows, errors=[
        ErrorSample({"indices": _BAD_BOUNDS[0], "values": _BAD_BOUNDS[1], "dense_shape": _BAD_BOUNDS[2],
                     "default_value": np.float32(0)}, match=r"indices\(1, 0\) is invalid: 5 >= 3", when="runtime"),
        ErrorSample({"indices": np.zeros((0, 0), np.int64), "values": np.zeros(0, np.float32),
                     "dense_shape": np.zeros(0, np.int64), "default_value": np.float32(0)},
                    match=r"Dense shape cannot be empty", when="runtime"),
        ErrorSample({"indices": _BAD_ORDER[0], "values": _BAD_ORDER[1], "dense_shape": _BAD_ORDER[2],
                     "default_value": np.zeros(1, np.float32)}, match=r"default_value"),
    ], grad_samples=[Sample({"indices": _i([[1, 0], [1, 2], [3, 1]]), "values": rand((3,), np.float64, seed=27),
                             "dense_shape": _i([5, 3]), "default_value": np.float64(0.25)})],
        grad_inputs=["values", "default_value"], grad_outputs=[1]),
    OpEntry("SparseFillEmptyRowsGrad", _fill_grad_samples(), ref=R.sparse_fill_empty_rows_grad, errors=[
        ErrorSample({"reverse_index_map": _i([0, 5]), "grad_values": np.ones(4, np.float32)},
                    match=r"Elements in reverse index must be in \[0, 4\) but got 5", when="runtime"),
    ]),
    OpEntry("SparseTensorDenseAdd", _dense_add_samples(), ref=R.sparse_tensor_dense_add, errors=[
        ErrorSample({"a_indices": _BAD_BOUNDS[0], "a_values": _BAD_BOUNDS[1], "a_shape": _BAD_BOUNDS[2],
                     "b": np.zeros((3, 4), np.float32)},
                    match=r"Sparse tensor has an invalid index on dimension 0: a_indices\(1,0\) = 5, dense tensor "
                          r"shape: 3 4", when="runtime"),
        ErrorSample({"a_indices": _BAD_ORDER[0], "a_values": _BAD_ORDER[1], "a_shape": _BAD_ORDER[2],
                     "b": np.zeros((3, 5), np.float32)},
                    match=r"Dimension 1 does not equal \(no broadcasting is supported\): sparse side 4 vs dense side 5",
                    when="runtime"),
    ]),
]
