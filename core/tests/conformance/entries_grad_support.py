"""Conformance entries: ops that gradients are built from (BroadcastGradientArgs, InvertPermutation,
ConcatOffset, UnsortedSegmentSum, Cumprod). StridedSliceGrad, MirrorPadGrad and TensorScatterAdd
are in entries_grad_support_array.py."""

import numpy as np

from conformance.entries_reduce import _cumsum_samples
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _v(values, dtype=np.int32):
    return np.array(values, dtype)


# ---- BroadcastGradientArgs ----

_BCAST_PAIRS = [([2, 3], [2, 3]), ([2, 1], [2, 1]), ([1], [1, 1]), ([1, 3], [1, 1]), ([2, 3], [3]), ([], []),
                ([], [2, 1]), ([5, 1], [1, 6]), ([1, 1], [1, 1, 1]), ([0, 3], [1, 3]), ([0], [1]), ([1], []),
                ([1, 3], [3]), ([2, 1, 3], [1, 1, 3]), ([1, 2], [1, 2, 1]), ([4, 1, 1], [1, 1]),
                ([7, 1, 5, 1], [3, 1, 1]),
                ([-1, 3], [1, 3]), ([-1, 3], [-1, 3])]  # dims are compared as given, like TensorFlow


def _bcast_ref(s0, s1):
    s0, s1 = [int(d) for d in s0], [int(d) for d in s1]
    if s0 == s1:
        return np.array([], np.int64), np.array([], np.int64)
    rank = max(len(s0), len(s1))
    p0, p1 = [1] * (rank - len(s0)) + s0, [1] * (rank - len(s1)) + s1
    assert all(a == b or 1 in (a, b) for a, b in zip(p0, p1)), "incompatible shapes"
    return np.array([i for i in range(rank) if p0[i] == 1]), np.array([i for i in range(rank) if p1[i] == 1])


def _bcast_samples():
    out = []
    for dt in (np.int32, np.int64):
        for a, b in _BCAST_PAIRS:
            out.append(Sample({"s0": _v(a, dt), "s1": _v(b, dt)}, note=f"{a} vs {b} {np.dtype(dt).name}"))
    return out


# ---- InvertPermutation ----

def _invert_samples():
    rng = np.random.default_rng(3)
    out = []
    for dt in (np.int32, np.int64):
        out += [Sample({"x": _v([2, 0, 1], dt)}, note="small"),
                Sample({"x": _v([0, 1, 2, 3], dt)}, note="identity"),
                Sample({"x": rng.permutation(1000).astype(dt)}, note="random 1000"),
                Sample({"x": _v([], dt)}, note="empty")]
    return out


def _invert_ref(x):
    y = np.empty_like(x)
    y[x] = np.arange(x.size, dtype=x.dtype)
    return y


# ---- ConcatOffset ----

def _concat_offset_samples():
    out = []
    for dt in (np.int32, np.int64):
        out += [
            Sample({"concat_dim": np.int32(1), "shape": [_v([2, 3, 4], dt), _v([2, 5, 4], dt), _v([2, 1, 4], dt)]},
                   note="three inputs"),
            Sample({"concat_dim": np.int32(-2), "shape": [_v([2, 3, 4], dt), _v([2, 5, 4], dt)]}, note="negative dim"),
            Sample({"concat_dim": np.int32(0), "shape": [_v([3], dt), _v([0], dt), _v([4], dt)]}, note="rank 1, empty"),
            Sample({"concat_dim": np.int32(2), "shape": [_v([0, 2, 3], dt), _v([0, 2, 0], dt)]}, note="zero-size"),
        ]
    return out


def _concat_offset_ref(concat_dim, shape):
    rank = len(shape[0])
    axis = int(concat_dim) % rank
    out, offset = [], 0
    for s in shape:
        o = np.zeros(rank, s.dtype)
        o[axis] = offset
        offset += int(s[axis])
        out.append(o)
    return tuple(out)


# ---- UnsortedSegmentSum ----

def _segment_samples():
    out = []
    ids = _v([0, -1, 2, 0, 3, 3])
    for dt in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.complex64):
        out.append(Sample({"data": rand((6, 3), dt, 0 if dt == np.uint8 else -5, 5, seed=2), "segment_ids": ids,
                           "num_segments": np.int32(5)}, note=np.dtype(dt).name))
    rng = np.random.default_rng(11)
    out += [
        Sample({"data": rand((4, 3), np.float32), "segment_ids": _v([1, 1, 0, 1], np.int64),
                "num_segments": np.int64(2)}, note="int64 ids and num_segments"),
        Sample({"data": rand((4, 3), np.float64), "segment_ids": _v([2, 0, 2, 2], np.int16),
                "num_segments": np.int32(4)}, note="int16 ids, empty segments are zero"),
        Sample({"data": rand((3, 2, 4), np.float32), "segment_ids": _v([[0, 1], [1, -4], [2, 0]]),
                "num_segments": np.int32(3)}, note="2-D ids"),
        Sample({"data": rand((5,), np.int32), "segment_ids": _v([4, 4, 0, 1, 4]), "num_segments": np.int32(6)},
               note="scalar rows"),
        Sample({"data": rand((4, 3), np.float32), "segment_ids": np.int32(1), "num_segments": np.int32(3)},
               note="scalar id: the whole tensor is one row"),
        Sample({"data": rand((4, 3), np.float32), "segment_ids": _v([-1, -2, -1, -3]), "num_segments": np.int32(0)},
               note="no segments, every id dropped"),
        Sample({"data": rand((0, 3), np.float32), "segment_ids": _v([]), "num_segments": np.int32(2)},
               note="zero-size data"),
        Sample({"data": rand((4, 0), np.float32), "segment_ids": _v([0, 1, 0, 1]), "num_segments": np.int32(3)},
               note="zero-size rows"),
        Sample({"data": rand((3000, 64), np.float32, seed=4),
                "segment_ids": rng.integers(-3, 500, 3000).astype(np.int32),
                "num_segments": np.int32(500)}, rtol=1e-5, atol=1e-5, note="large: split by segment ranges"),
        Sample({"data": rand((2000, 300), np.float64, seed=5), "segment_ids": rng.integers(0, 3, 2000).astype(np.int64),
                "num_segments": np.int32(3)}, rtol=1e-9, atol=1e-9, note="large, few segments: split columns too"),
        Sample({"data": rand((60000,), np.int64, seed=6), "segment_ids": rng.integers(-1, 97, 60000).astype(np.int32),
                "num_segments": np.int64(100)}, note="large scalar rows"),
    ]
    return out


def _segment_ref(data, segment_ids, num_segments):
    ids = segment_ids.reshape(-1).astype(np.int64)
    rows = data.reshape((ids.size,) + data.shape[segment_ids.ndim:])
    out = np.zeros((int(num_segments),) + data.shape[segment_ids.ndim:], data.dtype)
    keep = ids >= 0
    np.add.at(out, ids[keep], rows[keep])
    return out


# ---- Cumprod ----

def _cumprod_samples():
    # Cumsum's samples (values in [-3, 3], so products stay exact) plus a parallel one.
    return _cumsum_samples() + [
        Sample({"x": rand((300, 200), np.float32, 0.99, 1.01, seed=3), "axis": np.array(0, np.int32)},
               {"exclusive": True}, rtol=1e-4, note="large, running rows (parallel)")]


def _cumprod_ref(x, axis, exclusive=False, reverse=False):
    a = int(axis) % x.ndim
    y = np.flip(x, a) if reverse else x
    p = np.cumprod(y, axis=a, dtype=x.dtype)
    if exclusive and x.shape[a]:
        head = np.ones_like(np.take(p, [0], axis=a))
        p = np.concatenate([head, np.take(p, np.arange(x.shape[a] - 1), axis=a)], axis=a)
    return np.flip(p, a) if reverse else p


ENTRIES = [
    OpEntry("BroadcastGradientArgs", _bcast_samples(), ref=_bcast_ref, errors=[
        ErrorSample({"s0": _v([2, 3]), "s1": _v([4])}, match=r"Incompatible shapes: \[2,3\] vs. \[4\]"),
        ErrorSample({"s0": _v([[1]]), "s1": _v([1])}, match=r"vector|rank 1"),
        ErrorSample({"s0": _v([-2, 3]), "s1": _v([2, 3])}, match=r"Incompatible shapes: \[-2,3\] vs. \[2,3\]"),
    ]),
    OpEntry("InvertPermutation", _invert_samples(), ref=_invert_ref, errors=[
        ErrorSample({"x": _v([0, 0, 1])}, match=r"0 is duplicated in the input"),
        ErrorSample({"x": _v([3, 0, 1], np.int64)}, match=r"3 is not between 0 and 3"),
        ErrorSample({"x": _v([-1, 0])}, match=r"-1 is not between 0 and 2"),
        ErrorSample({"x": _v([[0, 1]])}, match=r"1D|rank 1"),
    ]),
    OpEntry("ConcatOffset", _concat_offset_samples(), ref=_concat_offset_ref, errors=[
        ErrorSample({"concat_dim": np.int32(3), "shape": [_v([2, 3]), _v([2, 5])]},
                    match=r"Concat dim is out of range: 3 vs. 2"),
        ErrorSample({"concat_dim": np.int32(-3), "shape": [_v([2, 3]), _v([2, 5])]},
                    match=r"Concat dim is out of range: -3 vs. 2"),
        ErrorSample({"concat_dim": np.int32(0), "shape": [_v([2, 3]), _v([2, 5])]},
                    match=r"All dimensions except 0 must match. Input 1 has shape \[2 5\]"),
        ErrorSample({"concat_dim": np.int32(1), "shape": [_v([2, 3]), _v([2, 5, 1])]},
                    match=r"input 1 should contain 2 elements, but got 3"),
        ErrorSample({"concat_dim": np.int32(0), "shape": [_v([]), _v([])]},
                    match=r"Concat dim is out of range: 0 vs. 0"),
    ]),
    OpEntry("UnsortedSegmentSum", _segment_samples(), ref=_segment_ref, rtol=1e-6, atol=1e-6, errors=[
        ErrorSample({"data": rand((4, 3)), "segment_ids": _v([0, 5, 2, 0]), "num_segments": np.int32(3)},
                    match=r"segment_ids\[1\] = 5 is out of range \[0, 3\)"),
        ErrorSample({"data": rand((3, 2)), "segment_ids": _v([[0, 1], [1, 7], [0, 0]]), "num_segments": np.int32(3)},
                    match=r"segment_ids\[1,1\] = 7 is out of range \[0, 3\)"),
        ErrorSample({"data": rand((4, 3)), "segment_ids": _v([-1, 1, -2, 0]), "num_segments": np.int64(0)},
                    match=r"segment_ids\[1\] = 1 is out of range \[0, 0\)"),
        ErrorSample({"data": rand((4, 3)), "segment_ids": _v([0, 1, 2]), "num_segments": np.int32(3)},
                    match=r"data.shape = \[4,3\] does not start with segment_ids.shape = \[3\]"),
        ErrorSample({"data": rand((4, 3)), "segment_ids": _v([0, 1, 2, 0]), "num_segments": _v([3])},
                    match=r"num_segments should be a scalar, not shape \[1\]"),
        ErrorSample({"data": rand((4, 3)), "segment_ids": _v([0, 1, 2, 0]), "num_segments": np.int32(-1)},
                    match=r"num_segments == -1 must not be negative"),
    ]),
    OpEntry("Cumprod", _cumprod_samples(), ref=_cumprod_ref, rtol=1e-5, atol=1e-5, errors=[
        ErrorSample({"x": rand((2, 3)), "axis": np.array(-3, np.int32)},
                    match=r"Expected scan axis in the range \[-2, 2\)"),
        ErrorSample({"x": rand((2, 3)), "axis": np.array([0], np.int32)}, match=r"rank 0|scalar"),
    ]),
]
