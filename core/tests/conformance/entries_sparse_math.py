"""Conformance entries: sparse arithmetic (SparseTensorDenseMatMul, SparseAdd(+Grad),
SparseReduceSum/Max(+Sparse), SparseSoftmax, SparseDenseCwiseMul/Div/Add,
SparseSparseMaximum/Minimum)."""

import numpy as np

from conformance import sparse_refs as R
from conformance.entries_sparse import _BAD_BOUNDS, _BAD_ORDER, _OOB, _i, sp
from conformance.gen import positive, rand
from conformance.harness import ErrorSample, OpEntry, Sample

NUM = (np.float32, np.float64, np.int32, np.int64)


def _matmul_samples():
    out = []
    for dt in NUM:
        i, v, s = sp((4, 5), 8, dt, seed=30)
        out.append(Sample({"a_indices": i, "a_values": v, "a_shape": s, "b": rand((5, 3), dt, seed=31)},
                          note=np.dtype(dt).name + (" (TensorFlow has no int64 kernel)" if dt == np.int64 else ""),
                          cross_check=dt != np.int64))
    for adj_a in (False, True):
        for adj_b in (False, True):
            i, v, s = sp((6, 4), 9, np.float64, seed=32)
            b = rand((7, 6 if adj_a else 4) if adj_b else (6 if adj_a else 4, 7), np.float64, seed=33)
            out.append(Sample({"a_indices": i.astype(np.int32), "a_values": v, "a_shape": s, "b": b},
                              {"adjoint_a": adj_a, "adjoint_b": adj_b}, note=f"adjoints {adj_a} {adj_b}, int32"))
    i, v, s = sp((200, 150), 900, np.float32, seed=34)
    out.append(Sample({"a_indices": i, "a_values": v, "a_shape": s, "b": rand((150, 300), np.float32, seed=35)},
                      rtol=1e-5, atol=1e-4, note="large (threads split the columns)"))
    return out


def _add_samples():
    out = []
    for dt in NUM:
        a, b = sp((4, 5), 8, dt, seed=36), sp((4, 5), 9, dt, seed=37)
        out.append(Sample({"a_indices": a[0], "a_values": a[1], "a_shape": a[2], "b_indices": b[0],
                           "b_values": b[1], "b_shape": b[2], "thresh": dt(0)}, note=np.dtype(dt).name))
    a = (_i([[0, 0], [1, 2], [1, 3]]), np.array([1.0, 2.0, -3.0]), _i([3, 4]))
    b = (_i([[0, 0], [1, 2]]), np.array([-1.0, 0.5]), _i([3, 4]))
    out.append(Sample({"a_indices": a[0], "a_values": a[1], "a_shape": a[2], "b_indices": b[0], "b_values": b[1],
                       "b_shape": b[2], "thresh": np.float64(0.6)}, note="threshold drops small sums"))
    return out


def _add_grad_samples():
    a, b = sp((4, 5), 8, seed=38), sp((4, 5), 9, seed=39)
    s = R.sparse_add(a[0], a[1], a[2], b[0], b[1], b[2], 0.0)[0]
    return [Sample({"backprop_val_grad": rand((len(s),), dt, seed=40), "a_indices": a[0], "b_indices": b[0],
                    "sum_indices": s}, note=np.dtype(dt).name) for dt in NUM]


def _reduce_samples(dtypes, keep=(False, True)):
    out = []
    for dt in dtypes:
        i, v, s = sp((3, 4, 5), 20, dt, seed=41)
        for axes in ([1], [0, 2], [-1], [0, 1, 2], []):
            for k in keep:
                out.append(Sample({"input_indices": i, "input_values": v, "input_shape": s,
                                   "reduction_axes": np.array(axes, np.int32)}, {"keep_dims": k},
                                  note=f"{np.dtype(dt).name} axes {axes} keep_dims {k}"))
    i, v, s = sp((3, 4), 5, np.float32, seed=42, order=False)
    out.append(Sample({"input_indices": i, "input_values": v, "input_shape": s, "reduction_axes": np.int32(0)},
                      note="unordered entries, scalar axis"))
    return out


def _softmax_samples():
    out = []
    for dt in (np.float32, np.float64):
        i, v, s = sp((3, 5), 9, dt, seed=43)
        out.append(Sample({"sp_indices": i, "sp_values": v, "sp_shape": s}, note=np.dtype(dt).name))
    i, v, s = sp((2, 3, 4), 12, np.float64, seed=44)
    out.append(Sample({"sp_indices": i, "sp_values": v * 30, "sp_shape": s}, note="rank 3, large values"))
    return out


def _cwise_samples(positive_dense=False):
    out = []
    for dt in NUM:
        i, v, s = sp((3, 4), 6, dt, seed=45)
        for dshape in ((3, 4), (4,), (3, 1), ()):
            d = positive(dshape, dt, seed=46) if positive_dense else rand(dshape, dt, seed=46)
            out.append(Sample({"sp_indices": i, "sp_values": v, "sp_shape": s, "dense": d},
                              note=f"{np.dtype(dt).name} dense {dshape}"))
    return out


def _minmax_samples():
    out = []
    for dt in NUM:
        a, b = sp((4, 5), 8, dt, seed=47), sp((4, 5), 9, dt, seed=48)
        out.append(Sample({"a_indices": a[0], "a_values": a[1], "a_shape": a[2], "b_indices": b[0],
                           "b_values": b[1], "b_shape": b[2]}, note=np.dtype(dt).name))
    return out


def _pair(a, b, **extra):
    return {"a_indices": a[0], "a_values": a[1], "a_shape": a[2], "b_indices": b[0], "b_values": b[1],
            "b_shape": b[2], **extra}


_GOOD = (_i([[0, 0], [1, 2]]), np.array([1.0, 2.0], np.float32), _i([3, 4]))
_SHAPE_MISMATCH = (_i([[0, 0]]), np.array([1.0], np.float32), _i([3, 5]))


def _minmax_errors(**extra):
    return [ErrorSample(_pair(_BAD_ORDER, _GOOD, **extra), match=r"indices\[1\] = \[0,2\] is out of order",
                        when="runtime"),
            ErrorSample(_pair(_GOOD, _BAD_BOUNDS, **extra), match=_OOB, when="runtime"),
            ErrorSample(_pair(_GOOD, _SHAPE_MISMATCH, **extra),
                        match=r"Operands' shapes do not match: got 4 and 5 for dimension 1", when="runtime")]


def _reduce_errors():
    return [ErrorSample({"input_indices": _GOOD[0], "input_values": _GOOD[1], "input_shape": _GOOD[2],
                         "reduction_axes": np.array([2], np.int32)},
                        match=r"Invalid reduction dimension 2, for input with 2 dimensions"),
            ErrorSample({"input_indices": _BAD_BOUNDS[0], "input_values": _BAD_BOUNDS[1],
                         "input_shape": _BAD_BOUNDS[2], "reduction_axes": np.array([1], np.int32)}, match=_OOB,
                        when="runtime")]


def _cwise_errors(div=False):
    errs = [ErrorSample({"sp_indices": _GOOD[0], "sp_values": _GOOD[1], "sp_shape": _GOOD[2],
                         "dense": np.ones((2, 4), np.float32)},
                        match=r"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: "
                              r"\[3,4\] vs. \[2,4\]", when="runtime"),
            ErrorSample({"sp_indices": _BAD_BOUNDS[0], "sp_values": _BAD_BOUNDS[1], "sp_shape": _BAD_BOUNDS[2],
                         "dense": np.ones((3, 4), np.float32)},
                        match=r"Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape",
                        when="runtime")]
    if div:
        errs.append(ErrorSample({"sp_indices": _GOOD[0], "sp_values": _GOOD[1], "sp_shape": _GOOD[2],
                                 "dense": np.zeros((3, 4), np.float32)},
                                match=r"SparseDenseCwiseDiv cannot divide by zero", when="runtime"))
    return errs


def _grad_sp(shape, nnz, seed):
    return sp(shape, nnz, np.float64, seed=seed)


_MM = _grad_sp((4, 3), 6, 50)
_RS = _grad_sp((3, 4, 2), 9, 52)

ENTRIES = [
    OpEntry("SparseTensorDenseMatMul", _matmul_samples(), ref=R.sparse_tensor_dense_mat_mul, rtol=1e-5, atol=1e-5,
            errors=[
                ErrorSample({"a_indices": _BAD_BOUNDS[0], "a_values": _BAD_BOUNDS[1], "a_shape": _BAD_BOUNDS[2],
                             "b": np.ones((4, 2), np.float32)},
                            match=r"m \(5\) from index\[1,0\] out of bounds \(>=3\)", when="runtime"),
                ErrorSample({"a_indices": _GOOD[0], "a_values": _GOOD[1], "a_shape": _GOOD[2],
                             "b": np.ones((3, 2), np.float32)},
                            match=r"Cannot multiply A and B because inner dimension does not match: 4 vs. 3"),
                ErrorSample({"a_indices": _GOOD[0], "a_values": _GOOD[1], "a_shape": _i([3, 4, 1]),
                             "b": np.ones((4, 2), np.float32)}, match=r"a_shape|shape rank"),
            ],
            grad_samples=[Sample({"a_indices": _MM[0], "a_values": _MM[1], "a_shape": _MM[2],
                                  "b": rand((4, 2) if aa else (3, 2), np.float64, seed=51).T.copy() if ab else
                                  rand((4, 2) if aa else (3, 2), np.float64, seed=51)},
                                 {"adjoint_a": aa, "adjoint_b": ab}) for aa in (False, True) for ab in (False, True)]),
    OpEntry("SparseAdd", _add_samples(), ref=R.sparse_add, errors=_minmax_errors(thresh=np.float32(0)),
            grad_samples=[Sample(_pair(_grad_sp((3, 4), 5, 53), _grad_sp((3, 4), 6, 54), thresh=np.float64(0)))],
            grad_inputs=["a_values", "b_values"]),
    OpEntry("SparseAddGrad", _add_grad_samples(), ref=R.sparse_add_grad, errors=[
        ErrorSample({"backprop_val_grad": np.ones(2, np.float32), "a_indices": _i([[0, 0], [1, 2]]),
                     "b_indices": _i([[1, 2], [1, 3]]), "sum_indices": _i([[0, 0], [1, 2], [1, 3]])},
                    match=r"# elements of backprop_val_grad and # rows of sum_indices should match", when="runtime")]),
    OpEntry("SparseReduceSum", _reduce_samples(NUM), ref=R.sparse_reduce("sum", False), rtol=1e-5,
            errors=_reduce_errors(),
            grad_samples=[Sample({"input_indices": _RS[0], "input_values": _RS[1], "input_shape": _RS[2],
                                  "reduction_axes": np.array(a, np.int32)}, {"keep_dims": k})
                          for a, k in (([1], False), ([0, 2], True), ([], False), ([-1, 0], False))],
            grad_inputs=["input_values"]),
    OpEntry("SparseReduceSumSparse", _reduce_samples(NUM, (False, True)), ref=R.sparse_reduce("sum", True),
            rtol=1e-5, errors=_reduce_errors()),
    OpEntry("SparseReduceMax", _reduce_samples(NUM), ref=R.sparse_reduce("max", False), errors=_reduce_errors()),
    OpEntry("SparseReduceMaxSparse", _reduce_samples(NUM, (False, True)), ref=R.sparse_reduce("max", True),
            errors=_reduce_errors()),
    OpEntry("SparseSoftmax", _softmax_samples(), ref=R.sparse_softmax, rtol=1e-5, errors=[
        ErrorSample({"sp_indices": _i([[0], [2]]), "sp_values": _GOOD[1], "sp_shape": _i([4])},
                    match=r"Input should have rank >= 2"),
        ErrorSample({"sp_indices": _BAD_BOUNDS[0], "sp_values": _BAD_BOUNDS[1], "sp_shape": _BAD_BOUNDS[2]},
                    match=_OOB, when="runtime")],
            grad_samples=[Sample({"sp_indices": _RS[0], "sp_values": _RS[1], "sp_shape": _RS[2]})],
            grad_inputs=["sp_values"]),
    OpEntry("SparseDenseCwiseMul", _cwise_samples(), ref=R.sparse_dense_cwise(lambda a, b: a * b),
            errors=_cwise_errors(),
            grad_samples=[Sample({"sp_indices": _RS[0], "sp_values": _RS[1], "sp_shape": _RS[2],
                                  "dense": rand(d, np.float64, seed=55)}) for d in ((3, 4, 2), (4, 1), ())]),
    OpEntry("SparseDenseCwiseDiv", _cwise_samples(positive_dense=True), ref=R.sparse_dense_cwise(
        lambda a, b: np.trunc(a / b).astype(type(a)) if np.issubdtype(type(a), np.integer) else a / b),
            rtol=1e-6, errors=_cwise_errors(True),
            grad_samples=[Sample({"sp_indices": _RS[0], "sp_values": _RS[1], "sp_shape": _RS[2],
                                  "dense": positive(d, np.float64, seed=56)}) for d in ((3, 4, 2), (2,))]),
    OpEntry("SparseDenseCwiseAdd", _cwise_samples(), ref=R.sparse_dense_cwise(lambda a, b: a + b),
            errors=_cwise_errors(),
            grad_samples=[Sample({"sp_indices": _RS[0], "sp_values": _RS[1], "sp_shape": _RS[2],
                                  "dense": rand((4, 1), np.float64, seed=57)})]),
    OpEntry("SparseSparseMaximum", _minmax_samples(), ref=R.sparse_minmax(max), errors=_minmax_errors()),
    OpEntry("SparseSparseMinimum", _minmax_samples(), ref=R.sparse_minmax(min), errors=_minmax_errors()),
]
