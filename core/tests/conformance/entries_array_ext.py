"""Conformance entries: Roll, LinSpace, LowerBound, UpperBound and the sparse segment reductions
(SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN) and the unsorted ones beyond sum
(UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd)."""

import numpy as np

import tensorflux as tx
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _roll_samples():
    out = []
    cases = [((5,), 2, 0), ((3, 4), [1, -1], [0, 1]), ((3, 4), [7], [-1]), ((2, 3, 4), [1, 2, 3], [0, 1, 1]),
             ((0, 3), 1, 0)]
    for dt in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        for k, (shape, shift, axis) in enumerate(cases):
            it = np.int64 if k % 2 else np.int32
            out.append(Sample({"input": rand(shape, dt, seed=k), "shift": np.array(shift, it),
                               "axis": np.array(axis, np.int32 if k % 3 else np.int64)},
                              note=f"{shape} {shift}@{axis} {np.dtype(dt).name}"))
    return out


def _roll_ref(input, shift, axis):
    return np.roll(input, shift.tolist(), axis.tolist()) if np.size(axis) else input


def _linspace_samples():
    out = []
    for dt in (np.float32, np.float64):
        for start, stop, num in ((0.0, 1.0, 5), (2.0, -3.0, 7), (1.5, 1.5, 3), (0.1, 0.7, 1), (-1e3, 1e3, 101)):
            out.append(Sample({"start": np.array(start, dt), "stop": np.array(stop, dt),
                               "num": np.array(num, np.int32 if num % 2 else np.int64)}, note=f"{start}..{stop}/{num}"))
    return out


def _bound_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.int64):
        seq = np.sort(rand((3, 8), dt, -4, 4, seed=1), axis=1)
        vals = rand((3, 5), dt, -5, 5, seed=2)
        for ot in (np.int32, np.int64):
            out.append(Sample({"sorted_inputs": seq, "values": vals}, {"out_type": tx.as_dtype(ot)},
                              note=f"{np.dtype(dt).name} -> {np.dtype(ot).name}"))
    out.append(Sample({"sorted_inputs": np.zeros((2, 0), np.float32), "values": rand((2, 3))}, note="empty rows"))
    return out


def _bound_ref(side):
    def ref(sorted_inputs, values, out_type=None):
        o = np.int32 if out_type is None else out_type.as_numpy_dtype
        return np.stack([np.searchsorted(s, v, side=side) for s, v in zip(sorted_inputs, values)]).astype(o) \
            if len(values) else np.zeros(values.shape, o)
    return ref


def _sparse_segment_ref(kind):
    def ref(data, indices, segment_ids, sparse_gradient=False):
        n = int(segment_ids[-1]) + 1 if segment_ids.size else 0
        out = np.zeros((n,) + data.shape[1:], data.dtype)
        for s in range(n):
            rows = data[indices[segment_ids == s]]
            if len(rows):
                total = rows.sum(axis=0)
                out[s] = total if kind == "sum" else total / (len(rows) if kind == "mean" else np.sqrt(len(rows)))
        return out
    return ref


def _sparse_segment_samples(dtypes):
    out = []
    for dt in dtypes:
        data = rand((5, 3), dt, -3, 3, seed=1)
        for k, (idx, ids) in enumerate((([0, 2, 2, 4], [0, 0, 1, 3]), ([4, 3, 1], [1, 1, 1]), ([], []))):
            it, st = (np.int32, np.int64) if k % 2 else (np.int64, np.int32)
            out.append(Sample({"data": data, "indices": np.array(idx, it), "segment_ids": np.array(ids, st)},
                              note=f"case {k} {np.dtype(dt).name}"))
    return out


def _sparse_segment_grad_samples():
    data = rand((5, 2), np.float64, seed=5)
    return [Sample({"data": data, "indices": np.array([0, 2, 2, 4], np.int32),
                    "segment_ids": np.array([0, 0, 1, 3], np.int32)}, note="grad, repeated index")]


_SPARSE_ERRORS = [
    ErrorSample({"data": rand((3, 2)), "indices": np.array([0, 5], np.int32),
                 "segment_ids": np.array([0, 1], np.int32)}, match="out of range"),
    ErrorSample({"data": rand((3, 2)), "indices": np.array([0, 1], np.int32),
                 "segment_ids": np.array([1, 0], np.int32)}, match="not increasing"),
    ErrorSample({"data": rand((3, 2)), "indices": np.array([0, 1], np.int32),
                 "segment_ids": np.array([0], np.int32)}, match="same size"),
]

ENTRIES = [
    OpEntry("Roll", _roll_samples(), ref=_roll_ref,
            errors=[ErrorSample({"input": rand((3,)), "shift": np.array([1], np.int32),
                                 "axis": np.array([1], np.int32)}, match="out of range"),
                    ErrorSample({"input": rand((3,)), "shift": np.array([1, 2], np.int32),
                                 "axis": np.array([0], np.int32)}, match="same size"),
                    ErrorSample({"input": rand(()), "shift": np.array([], np.int32), "axis": np.array([], np.int32)},
                                match="1-D or higher")],
            grad_samples=[Sample({"input": rand((3, 4), np.float64, seed=9), "shift": np.array([1, -2], np.int32),
                                  "axis": np.array([0, 1], np.int32)}, note="grad")], grad_inputs=["input"]),
    OpEntry("LinSpace", _linspace_samples(), ref=lambda start, stop, num: np.linspace(start, stop, int(num))
            .astype(start.dtype), rtol=1e-6, atol=1e-5,
            errors=[ErrorSample({"start": np.array(0.0, np.float32), "stop": np.array(1.0, np.float32),
                                 "num": np.array(0, np.int32)}, match="num > 0"),
                    ErrorSample({"start": np.zeros((2,), np.float32), "stop": np.array(1.0, np.float32),
                                 "num": np.array(3, np.int32)}, match="scalar|rank 0")]),
    OpEntry("LowerBound", _bound_samples(), ref=_bound_ref("left"),
            errors=[ErrorSample({"sorted_inputs": rand((2, 3)), "values": rand((3, 1))}, match="Leading dim_size")]),
    OpEntry("UpperBound", _bound_samples(), ref=_bound_ref("right"),
            errors=[ErrorSample({"sorted_inputs": rand((2, 3)), "values": rand((3, 1))}, match="Leading dim_size")]),
    OpEntry("SparseSegmentSum", _sparse_segment_samples((np.float32, np.float64, np.int32, np.int64)),
            ref=_sparse_segment_ref("sum"), errors=_SPARSE_ERRORS, rtol=1e-5, atol=1e-6,
            grad_samples=_sparse_segment_grad_samples(), grad_inputs=["data"]),
    OpEntry("SparseSegmentMean", _sparse_segment_samples((np.float32, np.float64)), ref=_sparse_segment_ref("mean"),
            errors=_SPARSE_ERRORS, rtol=1e-5, atol=1e-6, grad_samples=_sparse_segment_grad_samples(),
            grad_inputs=["data"]),
    OpEntry("SparseSegmentSqrtN", _sparse_segment_samples((np.float32, np.float64)),
            ref=_sparse_segment_ref("sqrt_n"), errors=_SPARSE_ERRORS, rtol=1e-5, atol=1e-6,
            grad_samples=_sparse_segment_grad_samples(), grad_inputs=["data"]),
]


def _unsorted_ref(kind):
    def ref(data, segment_ids, num_segments):
        n = int(num_segments)
        k = segment_ids.ndim
        flat = data.reshape((-1,) + data.shape[k:])
        ids = segment_ids.reshape(-1)
        if kind == "prod":
            empty = 1
        else:
            info = np.finfo(data.dtype) if data.dtype.kind == "f" else np.iinfo(data.dtype)
            empty = info.min if kind == "max" else info.max
        out = np.full((n,) + data.shape[k:], empty, data.dtype)
        for s in range(n):
            rows = flat[ids == s]
            if len(rows):
                out[s] = {"max": np.max, "min": np.min, "prod": np.prod}[kind](rows, axis=0)
        return out
    return ref


def _unsorted_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.int64):
        for it in (np.int32, np.int64):
            ids = np.array([0, 2, 0, -1, 2, 1], it)
            out.append(Sample({"data": rand((6, 2), dt, -4, 4, seed=1), "segment_ids": ids,
                               "num_segments": np.array(4, np.int32)}, note=f"rows, a dropped id {np.dtype(dt).name}"))
            ids = np.array([[1, 0, 1], [2, 2, 0]], it)
            out.append(Sample({"data": rand((2, 3), dt, -4, 4, seed=2), "segment_ids": ids,
                               "num_segments": np.array(3, np.int64)}, note=f"2-D ids {np.dtype(dt).name}"))
    out.append(Sample({"data": np.zeros((0, 2), np.float32), "segment_ids": np.zeros((0,), np.int32),
                       "num_segments": np.array(2, np.int32)}, note="no rows"))
    return out


def _unsorted_grad_samples():
    data = np.array([[0.3, -1.1], [1.4, 0.6], [-2.5, 1.9], [0.8, -0.7], [1.2, 2.2]])
    zeros = np.array([[0.0, -1.1], [1.4, 0.0], [-2.5, 1.9], [0.0, -0.7], [1.2, 2.2]])
    ids = np.array([1, 0, 1, -1, 1], np.int32)
    return [Sample({"data": data, "segment_ids": ids, "num_segments": np.array(3, np.int32)}, note="grad"),
            Sample({"data": zeros, "segment_ids": ids, "num_segments": np.array(3, np.int32)}, note="grad zeros")]


_UNSORTED_ERRORS = [ErrorSample({"data": rand((3,)), "segment_ids": np.array([0, 3, 1], np.int32),
                                 "num_segments": np.array(2, np.int32)}, match="out of range")]
ENTRIES += [OpEntry(op, _unsorted_samples(), ref=_unsorted_ref(kind), errors=_UNSORTED_ERRORS,
                    grad_samples=_unsorted_grad_samples(), grad_inputs=["data"], rtol=1e-5, atol=1e-5)
            for op, kind in (("UnsortedSegmentMax", "max"), ("UnsortedSegmentMin", "min"),
                             ("UnsortedSegmentProd", "prod"))]
