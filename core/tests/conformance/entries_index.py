"""Conformance entries: gather/scatter and index ops (Gather, GatherV2, GatherNd, ScatterNd,
OneHot, Where, TopKV2)."""

import builtins

import numpy as np

import tensorflux as tx
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

# Every dtype the data-movement kernels serve (and TensorFlow's CPU kernels too).
_MOVE = (np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.uint16, np.uint32,
         np.uint64, np.bool_, np.float16, np.complex64)
_TOPK = (np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.uint16, np.uint32, np.uint64)


def _val(shape, dt, seed=0):
    dt = np.dtype(dt)
    if dt.kind == "c":
        return (rand(shape, np.float32, seed=seed) + 1j * rand(shape, np.float32, seed=seed + 1)).astype(dt)
    if dt.kind == "u":
        return rand(shape, np.int64, 0, 9, seed=seed).astype(dt)
    return rand(shape, dt, seed=seed)


def _i(values, dt=np.int32):
    return np.array(values, dt)


# ---- Gather / GatherV2 ----

def _gather_ref(params, indices, axis=0, batch_dims=0, validate_indices=None):
    axis = int(axis)
    if axis < 0:
        axis += params.ndim
    bd = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    if bd == 0:
        return np.take(params, indices.astype(np.int64), axis=axis)
    return np.stack([_gather_ref(params[b], indices[b], axis - 1, bd - 1) for b in range(params.shape[0])])


def _gather_v2_samples():
    out = []
    for dt in _MOVE:
        p = _val((5, 3, 4), dt, seed=1)
        out.append(Sample({"params": p, "indices": _i([4, 0, 0, 2]), "axis": np.int32(0)}, note=np.dtype(dt).name))
    p = rand((5, 3, 4), np.float32, seed=2)
    for idx_dt in (np.int16, np.int32, np.int64):
        out.append(Sample({"params": p, "indices": _i([[2, 1], [0, 2]], idx_dt), "axis": np.int64(1)},
                          note="axis 1, indices " + np.dtype(idx_dt).name))
    out += [
        Sample({"params": p, "indices": _i([3, 3, 0]), "axis": np.int32(-1)}, note="negative axis"),
        Sample({"params": p, "indices": np.int32(2), "axis": np.int32(0)}, note="scalar index"),
        Sample({"params": p, "indices": _i([], np.int32), "axis": np.int32(2)}, note="empty indices"),
        Sample({"params": np.zeros((0, 3), np.float32), "indices": _i([], np.int64), "axis": np.int32(0)},
               note="empty params"),
        Sample({"params": rand((3, 2, 4), np.float64, seed=3), "indices": _i([[1, 0, 1], [0, 0, 1], [1, 1, 1]]),
                "axis": np.int32(1)}, {"batch_dims": 1}, note="batch_dims 1"),
        Sample({"params": rand((3, 2, 4), np.float64, seed=3), "indices": _i([[3, 0], [1, 1], [2, 0]]),
                "axis": np.int32(-1)}, {"batch_dims": -1}, note="batch_dims -1"),
        Sample({"params": rand((64, 200), np.float32, seed=4), "indices": rand((300,), np.int32, 0, 63, seed=5),
                "axis": np.int32(0)}, note="embedding rows"),
    ]
    return out


def _gather_samples():
    out = [Sample({"params": _val((4, 3), dt, seed=6), "indices": _i([[3, 1], [0, 0]], idx)},
                  {"validate_indices": v}, note=np.dtype(dt).name)
           for dt in (np.float32, np.float64, np.int32, np.int64, np.bool_) for idx in (np.int32, np.int64)
           for v in (True,)]
    out.append(Sample({"params": rand((4,), np.float32), "indices": np.int64(3)}, {"validate_indices": False},
                      note="scalar index"))
    out.append(Sample({"params": rand((4, 2), np.float32), "indices": _i([], np.int32)}, note="empty indices"))
    return out


# ---- GatherNd / ScatterNd ----

def _tuples(indices):
    idx = np.asarray(indices).astype(np.int64)
    n = idx.shape[-1]
    return idx.reshape(int(np.prod(idx.shape[:-1])), n), idx.shape[:-1], n


def _gather_nd_ref(params, indices, bad_indices_policy=""):
    flat, outer, n = _tuples(indices)
    slice_shape = params.shape[n:]
    rows = []
    for t in flat:
        if all(0 <= t[j] < params.shape[j] for j in range(n)):
            rows.append(params[tuple(t)])
        else:
            rows.append(np.zeros(slice_shape, params.dtype))
    return np.array(rows, params.dtype).reshape(tuple(outer) + slice_shape)


def _gather_nd_samples():
    out = []
    for dt in _MOVE:
        out.append(Sample({"params": _val((3, 4, 2), dt, seed=7), "indices": _i([[2, 1], [0, 3], [2, 1]])},
                          note=np.dtype(dt).name))
    p = rand((3, 4, 2), np.float32, seed=8)
    out += [
        Sample({"params": p, "indices": _i([[[1]], [[2]]], np.int64)}, note="slices"),
        Sample({"params": p, "indices": _i([[2, 3, 1], [0, 0, 0]], np.int16)}, note="full tuples, int16"),
        Sample({"params": p, "indices": np.zeros((2, 0), np.int32)}, note="empty tuples take all"),
        Sample({"params": p, "indices": np.zeros((0, 2), np.int32)}, note="no tuples"),
        Sample({"params": np.zeros((0, 3), np.float32), "indices": np.zeros((0, 1), np.int32)}, note="empty params"),
        Sample({"params": p, "indices": _i([[5, 0], [1, 1]])}, {"bad_indices_policy": "IGNORE"}, note="ignore"),
    ]
    return out


def _scatter_nd_ref(indices, updates, shape, bad_indices_policy=""):
    out = np.zeros([int(s) for s in shape], updates.dtype)
    flat, _, n = _tuples(indices)
    upd = updates.reshape((flat.shape[0],) + out.shape[n:])
    for t, u in zip(flat, upd):
        if all(0 <= t[j] < out.shape[j] for j in range(n)):
            if out.dtype == np.bool_:
                out[tuple(t)] |= u
            else:
                out[tuple(t)] += u
    return out


def _scatter_nd_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.uint16, np.uint32,
               np.uint64, np.bool_, np.complex64):
        out.append(Sample({"indices": _i([[2], [0], [2]]), "updates": _val((3, 4), dt, seed=9),
                           "shape": _i([4, 4])}, note=np.dtype(dt).name + " duplicates add"))
    out += [
        Sample({"indices": _i([[1, 2], [0, 0], [1, 2]], np.int64), "updates": rand((3,), np.float32, seed=10),
                "shape": _i([2, 3], np.int64)}, note="elements"),
        Sample({"indices": np.zeros((0, 1), np.int32), "updates": np.zeros((0, 3), np.float32),
                "shape": _i([2, 3])}, note="no updates"),
        Sample({"indices": _i([[1], [7]]), "updates": rand((2, 2), np.float64, seed=11), "shape": _i([3, 2])},
               {"bad_indices_policy": "IGNORE"}, note="ignore"),
        Sample({"indices": rand((500, 1), np.int32, 0, 9, seed=12), "updates": rand((500, 300), np.float64, seed=13),
                "shape": _i([10, 300])}, rtol=1e-10, note="large"),
    ]
    return out


# ---- OneHot ----

def _one_hot_ref(indices, depth, on_value, off_value, axis=-1):
    idx = np.asarray(indices).astype(np.int64)
    d = int(depth)
    hot = idx[..., None] == np.arange(d)
    out = np.where(hot, on_value, off_value).astype(np.asarray(on_value).dtype)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return out


def _one_hot_samples():
    out = []
    idx = _i([[0, 3, -1], [2, 5, 1]])
    for dt in _MOVE:
        on, off = _val((), dt, seed=14), _val((), dt, seed=15)
        out.append(Sample({"indices": idx, "depth": np.int32(4), "on_value": on, "off_value": off},
                          note=np.dtype(dt).name))
    for ti in (np.uint8, np.int8, np.int64):
        out.append(Sample({"indices": _i([1, 0, 3], ti), "depth": np.int32(3), "on_value": np.float32(1),
                           "off_value": np.float32(0)}, note="indices " + np.dtype(ti).name))
    for axis in (0, 1, 2):
        out.append(Sample({"indices": idx, "depth": np.int32(3), "on_value": np.float64(2.5),
                           "off_value": np.float64(-1)}, {"axis": axis}, note="axis %d" % axis))
    out += [
        Sample({"indices": np.int32(2), "depth": np.int32(3), "on_value": np.int32(1), "off_value": np.int32(0)},
               note="scalar index"),
        Sample({"indices": _i([1, 2]), "depth": np.int32(0), "on_value": np.float32(1), "off_value": np.float32(0)},
               note="depth 0"),
        Sample({"indices": np.zeros((0, 2), np.int32), "depth": np.int32(3), "on_value": np.float32(1),
                "off_value": np.float32(0)}, {"axis": 1}, note="empty indices"),
    ]
    return out


# ---- Where ----

def _where_samples():
    out = []
    for dt in _MOVE:
        x = _val((3, 4), dt, seed=16)
        if np.dtype(dt).kind != "b":
            x = np.where(rand((3, 4), np.bool_, seed=17), x, np.zeros((), dt)).astype(dt)
        # TensorFlow has no CPU Where kernel for 16-bit floats.
        tf_has_kernel = np.dtype(dt).itemsize != 2 or np.dtype(dt).kind in "iu"
        out.append(Sample({"input": x}, note=np.dtype(dt).name, cross_check=tf_has_kernel))
    out += [
        Sample({"input": np.array([0.0, -0.0, np.nan, 1.5], np.float32)}, note="signed zero and NaN"),
        # TensorFlow's CPU kernel rejects rank-0 input ("Unhandled input dimensions: 0"); like
        # np.argwhere we return a [num_true, 0] result.
        Sample({"input": np.array(True)}, note="scalar true", cross_check=False),
        Sample({"input": np.array(0, np.int32)}, note="scalar zero", cross_check=False),
        Sample({"input": np.zeros((2, 0, 3), np.bool_)}, note="empty"),
        Sample({"input": np.zeros((4, 5), np.bool_)}, note="none true"),
        Sample({"input": rand((2, 3, 2, 5), np.bool_, seed=18)}, note="rank 4"),
        Sample({"input": rand((300, 400), np.bool_, seed=19)}, note="large"),
    ]
    return out


def _where_ref(input):  # noqa: A002 (the OpDef's argument name)
    return np.argwhere(np.asarray(input)).astype(np.int64)


# ---- TopKV2 ----

def _topk_ref(input, k, sorted=True, index_type=None):  # noqa: A002
    x = np.asarray(input)
    k = int(k)
    flat = x.reshape(-1, x.shape[-1]) if x.size else np.zeros((int(np.prod(x.shape[:-1])), x.shape[-1]), x.dtype)
    vals, idxs = [], []
    for row in flat:
        order = builtins.sorted(range(len(row)), key=lambda j: (-float(row[j]), j))
        vals.append(row[order[:k]])
        idxs.append(order[:k])
    shape = x.shape[:-1] + (k,)
    it = np.dtype(index_type.as_numpy_dtype) if index_type is not None else np.int32
    return np.array(vals, x.dtype).reshape(shape), np.array(idxs, np.int64).reshape(shape).astype(it)


def _topk_samples():
    out = []
    for dt in _TOPK:
        x = rand((3, 6), np.int64, 0, 4, seed=20).astype(dt)  # many ties
        out.append(Sample({"input": x, "k": np.int32(3)}, note=np.dtype(dt).name))
    x = rand((4, 50), np.float32, seed=21)
    out += [
        Sample({"input": x, "k": np.int16(1)}, note="k 1, Tk int16"),
        Sample({"input": x, "k": np.int64(7)}, {"index_type": tx.int64}, note="heap path, int64 indices"),
        Sample({"input": x, "k": np.int32(30)}, {"index_type": tx.int16}, note="sort path, int16 indices"),
        Sample({"input": x, "k": np.int32(50)}, {"sorted": False}, note="k = n unsorted"),
        Sample({"input": x, "k": np.int32(0)}, note="k 0"),
        Sample({"input": rand((7,), np.float64, seed=22), "k": np.int32(7)}, note="vector"),
        Sample({"input": np.zeros((0, 5), np.float32), "k": np.int32(2)}, note="no rows"),
        Sample({"input": rand((2, 3, 5), np.int32, -2, 2, seed=23), "k": np.int32(4)}, note="rank 3"),
        Sample({"input": np.array([[1.0, -0.0, 0.0, 3.0, 3.0]], np.float32), "k": np.int32(4)}, note="zeros, ties"),
    ]
    return out


def _grad_samples():
    """float64 samples for the gradient checks (distinct TopKV2 values: ties have no derivative)."""
    p = rand((5, 3, 4), np.float64, seed=2)
    return {
        "GatherV2": [
            Sample({"params": p, "indices": _i([[4, 0], [0, 2]]), "axis": np.int32(0)}, note="axis 0, duplicates"),
            Sample({"params": p, "indices": _i([[2, 1], [0, 2]], np.int64), "axis": np.int64(-2)},
                   note="axis -2 (outer dims), int64 indices"),
            Sample({"params": rand((3, 2, 4), np.float64, seed=3), "indices": _i([[3, 0, 3], [1, 1, 2], [2, 0, 0]]),
                    "axis": np.int32(2)}, {"batch_dims": 1}, note="batch_dims 1 with outer dims"),
            Sample({"params": rand((3, 2, 4), np.float64, seed=3), "indices": _i([[3, 0], [1, 1], [2, 0]]),
                    "axis": np.int32(-1)}, {"batch_dims": -1}, note="batch_dims -1")],
        "Gather": [
            Sample({"params": rand((4, 3), np.float64, seed=6), "indices": _i([[3, 1], [0, 0]])}, note="duplicates"),
            Sample({"params": rand((4,), np.float64), "indices": np.int64(3)}, note="scalar index"),
            Sample({"params": rand((4, 2), np.float64), "indices": _i([], np.int32)}, note="empty indices")],
        "GatherNd": [
            Sample({"params": rand((3, 4, 2), np.float64, seed=7), "indices": _i([[2, 1], [0, 3], [2, 1]])},
                   note="duplicate tuples"),
            Sample({"params": rand((3, 4, 2), np.float64, seed=8), "indices": _i([[[1]], [[2]]], np.int64)},
                   note="slices"),
            Sample({"params": rand((3, 4, 2), np.float64, seed=8), "indices": np.zeros((0, 2), np.int32)},
                   note="no tuples"),
            Sample({"params": rand((3, 4, 2), np.float64, seed=8), "indices": _i([[5, 0], [1, 1]])},
                   {"bad_indices_policy": "IGNORE"}, note="ignore")],
        "ScatterNd": [
            Sample({"indices": _i([[2], [0], [2]]), "updates": rand((3, 4), np.float64, seed=9), "shape": _i([4, 4])},
                   note="duplicates"),
            Sample({"indices": _i([[1, 2], [0, 0]], np.int64), "updates": rand((2,), np.float64, seed=10),
                    "shape": _i([2, 3], np.int64)}, note="elements"),
            Sample({"indices": _i([[1], [7]]), "updates": rand((2, 2), np.float64, seed=11), "shape": _i([3, 2])},
                   {"bad_indices_policy": "IGNORE"}, note="ignore"),
            Sample({"indices": np.zeros((0, 1), np.int32), "updates": np.zeros((0, 3), np.float64),
                    "shape": _i([2, 3])}, note="no updates")],
        "TopKV2": [
            Sample({"input": rand((3, 6), np.float64, seed=24), "k": np.int32(3)}, note="rows"),
            Sample({"input": rand((2, 3, 5), np.float64, seed=25), "k": np.int64(4)}, {"index_type": tx.int64},
                   note="rank 3, int64 indices"),
            Sample({"input": rand((4, 5), np.float64, seed=26), "k": np.int32(0)}, note="k 0"),
            Sample({"input": np.zeros((0, 5), np.float64), "k": np.int32(2)}, note="no rows")],
    }


ENTRIES = [
    OpEntry("GatherV2", _gather_v2_samples(), ref=_gather_ref, errors=[
        ErrorSample({"params": rand((5, 2)), "indices": _i([0, 1, 2, 7]), "axis": np.int32(0)},
                    match=r"indices\[3\] = 7 is not in \[0, 5\)"),
        ErrorSample({"params": rand((5, 2)), "indices": _i([[0, 1], [-1, 2]]), "axis": np.int32(0)},
                    match=r"indices\[1,0\] = -1 is not in \[0, 5\)"),
        ErrorSample({"params": rand((5, 2)), "indices": _i([0]), "axis": np.int32(2)},
                    match=r"Expected axis in the range \[-2, 2\), but got 2"),
        ErrorSample({"params": rand((5, 2)), "indices": _i([[0], [1]]), "axis": np.int32(0)}, {"batch_dims": 1},
                    match=r"batch_dims \(1\) must be less than or equal to axis \(0\)"),
        ErrorSample({"params": rand((0, 2)), "indices": _i([0]), "axis": np.int32(0)},
                    match=r"indices\[0\] = 0 is not in \[0, 0\)"),
    ]),
    OpEntry("Gather", _gather_samples(), ref=_gather_ref, errors=[
        ErrorSample({"params": rand((4, 2)), "indices": _i([4])}, match=r"indices\[0\] = 4 is not in \[0, 4\)"),
        ErrorSample({"params": rand(()), "indices": _i([0])}, match=r"at least 1 dimensional"),
    ]),
    OpEntry("GatherNd", _gather_nd_samples(), ref=_gather_nd_ref, errors=[
        ErrorSample({"params": rand((3, 2)), "indices": _i([[0, 1], [3, 0]])},
                    match=r"indices\[1\] = \[3, 0\] does not index into param shape \[3,2\]"),
        ErrorSample({"params": rand((3, 2)), "indices": _i([[0, 1, 0]])},
                    match=r"innermost dimension length must be <= params rank; saw: 3 vs. 2"),
        ErrorSample({"params": rand((3, 2)), "indices": _i([[0]])}, {"bad_indices_policy": "SOMETIMES"},
                    match=r"bad_indices_policy"),
    ]),
    # TensorFlow's CPU ScatterNd has no int16-index kernel, so samples use int32/int64 indices.
    OpEntry("ScatterNd", _scatter_nd_samples(), ref=_scatter_nd_ref, errors=[
        ErrorSample({"indices": _i([[0], [3]]), "updates": rand((2, 2)), "shape": _i([3, 2])},
                    match=r"indices\[1\] = \[3\] does not index into shape \[3,2\]"),
        ErrorSample({"indices": _i([[0], [1]]), "updates": rand((3, 2)), "shape": _i([3, 2])},
                    match=r"updates must have shape"),
        ErrorSample({"indices": _i([[0, 0, 0]]), "updates": rand((1,)), "shape": _i([3, 2])},
                    match=r"innermost dimension length must be <= rank"),
        ErrorSample({"indices": _i([[0]]), "updates": rand((1,)), "shape": _i([-3])}, match=r"-3"),
        ErrorSample({"indices": _i([[0]]), "updates": np.zeros((1, 0), np.float32), "shape": _i([2, 0])},
                    match=r"Indices and updates specified for empty output shape"),
    ]),
    OpEntry("OneHot", _one_hot_samples(), ref=_one_hot_ref, errors=[
        ErrorSample({"indices": _i([0]), "depth": np.int32(-1), "on_value": np.float32(1),
                     "off_value": np.float32(0)}, match=r"depth must be non-negative, got: -1"),
        ErrorSample({"indices": _i([0]), "depth": np.int32(2), "on_value": np.float32(1),
                     "off_value": np.float32(0)}, {"axis": 2}, match=r"Expected axis to be -1 or between \[0, 1\]"),
        ErrorSample({"indices": _i([0]), "depth": np.int32(2), "on_value": np.ones(2, np.float32),
                     "off_value": np.float32(0)}, match=r"on_value.*scalar"),
    ]),
    OpEntry("Where", _where_samples(), ref=_where_ref),
    OpEntry("TopKV2", _topk_samples(), ref=_topk_ref, errors=[
        ErrorSample({"input": rand((2, 3)), "k": np.int32(4)},
                    match=r"input must have at least k columns. Had 3, needed 4"),
        ErrorSample({"input": rand((2, 3)), "k": np.int32(-1)}, match=r"Need k >= 0, got -1"),
        ErrorSample({"input": rand(()), "k": np.int32(1)}, match=r"at least 1 dimensional"),
    ]),
]

_GRAD_SAMPLES = _grad_samples()
for _entry in ENTRIES:
    _entry.grad_samples = _GRAD_SAMPLES.get(_entry.op, ())
