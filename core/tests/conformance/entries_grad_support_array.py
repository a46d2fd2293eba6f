"""Conformance entries: gradient ops of array ops (StridedSliceGrad, MirrorPadGrad, TensorScatterAdd)."""

import numpy as np

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample


def _v(values, dtype=np.int32):
    return np.array(values, dtype)


def _val(shape, dt, seed=0):
    if np.dtype(dt) == np.bool_:
        return rand(shape, dt, seed=seed)
    if np.dtype(dt).kind == "c":
        return (rand(shape, np.float32, seed=seed) + 1j * rand(shape, np.float32, seed=seed + 1)).astype(dt)
    return rand(shape, dt, 0 if np.dtype(dt).kind == "u" else -5, 5, seed=seed)


# ---- StridedSliceGrad ----

def _bit(mask, i):
    return (int(mask) >> i) & 1


def _slice_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask):
    """The NumPy index a StridedSlice spec stands for."""
    index = []
    for i in range(len(begin)):
        if _bit(ellipsis_mask, i):
            index.append(Ellipsis)
        elif _bit(new_axis_mask, i):
            index.append(np.newaxis)
        elif _bit(shrink_axis_mask, i):
            index.append(int(begin[i]))
        else:
            index.append(slice(None if _bit(begin_mask, i) else int(begin[i]),
                               None if _bit(end_mask, i) else int(end[i]), int(strides[i])))
    return tuple(index)


def _ssg_ref(shape, begin, end, strides, dy, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
             shrink_axis_mask=0):
    out = np.zeros([int(d) for d in shape], dy.dtype)
    out[_slice_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)] = dy
    return out


# (shape, begin, end, strides, attrs, note)
_SSG_SPECS = [
    ([4, 3], [1, 0], [4, 3], [2, 1], {}, "strided rows"),
    ([5, 6], [4, 5], [0, 0], [-1, -2], {}, "negative strides"),
    ([4, 3], [1], [2], [1], {"shrink_axis_mask": 1}, "index (shrink)"),
    ([4, 3], [-1, 0], [0, 2], [1, 1], {"shrink_axis_mask": 1}, "negative index"),
    ([2, 3, 4], [0, 1], [0, 3], [1, 2], {"ellipsis_mask": 1}, "ellipsis"),
    ([2, 3], [0, 0, 0], [0, 2, 0], [1, 1, 1], {"new_axis_mask": 1, "end_mask": 4}, "new axis"),
    ([6, 4], [2, 1], [5, 3], [1, 1], {"begin_mask": 1, "end_mask": 2}, "masks"),
    ([7], [-100], [100], [3], {}, "clamped bounds"),
    ([3, 4], [0, 0], [3, 4], [1, 1], {}, "whole tensor (identity)"),
    ([3, 0], [0, 0], [3, 0], [1, 1], {}, "zero-size"),
    ([5, 4], [2, 0], [2, 4], [1, 1], {}, "empty slice"),
    ([], [], [], [], {}, "scalar"),
    ([64, 600], [1, 3], [64, 590], [2, 3], {}, "large"),
]


def _ssg_samples():
    out = []
    for k, (shape, b, e, s, attrs, note) in enumerate(_SSG_SPECS):
        idx = _slice_index(b, e, s, *(attrs.get(m, 0) for m in ("begin_mask", "end_mask", "ellipsis_mask",
                                                                "new_axis_mask", "shrink_axis_mask")))
        dy_shape = np.zeros(shape, np.int8)[idx].shape
        dt = (np.float32, np.float64, np.int32, np.int64)[k % 4]
        index_dt = np.int64 if k % 3 == 0 else np.int32
        out.append(Sample({"shape": _v(shape, index_dt), "begin": _v(b, index_dt), "end": _v(e, index_dt),
                           "strides": _v(s, index_dt), "dy": _val(dy_shape, dt, seed=k)}, attrs,
                          note=f"{note} {np.dtype(dt).name}"))
    for dt in (np.bool_, np.uint8, np.int16, np.complex64, np.complex128, np.float16):
        out.append(Sample({"shape": _v([4, 3]), "begin": _v([1, 0]), "end": _v([4, 3]), "strides": _v([2, 2]),
                           "dy": _val((2, 2), dt, seed=3)}, note=np.dtype(dt).name))
    return out


def _ssg_error(dy, match, shape=(4, 3), begin=(1, 0), end=(4, 3), strides=(2, 1), attrs=None, when="both"):
    return ErrorSample({"shape": _v(shape), "begin": _v(begin), "end": _v(end), "strides": _v(strides), "dy": dy},
                       attrs or {}, match=match, when=when)


# ---- MirrorPadGrad ----

def _mpg_ref(input, paddings, mode):
    pads = [(int(lo), int(hi)) for lo, hi in np.asarray(paddings)]
    out_shape = [n - lo - hi for n, (lo, hi) in zip(input.shape, pads)]
    maps = [np.pad(np.arange(n), p, mode=mode.lower()) for n, p in zip(out_shape, pads)]
    out = np.zeros(out_shape, input.dtype)
    np.add.at(out, np.ix_(*maps), input)
    return out


def _mpg_samples():
    out = []
    for mode in ("REFLECT", "SYMMETRIC"):
        for k, dt in enumerate((np.float32, np.float64, np.int32, np.int64, np.complex64, np.int8)):
            out.append(Sample({"input": _val((7, 6), dt, seed=k), "paddings": _v([[2, 1], [0, 2]])}, {"mode": mode},
                              note=f"{mode} {np.dtype(dt).name}"))
        out += [
            Sample({"input": rand((7,), np.float32), "paddings": _v([[2, 2]], np.int64)}, {"mode": mode}, note="1-D"),
            Sample({"input": rand((5, 7, 4), np.float64, seed=2), "paddings": _v([[1, 1], [0, 0], [1, 0]])},
                   {"mode": mode}, note="3-D"),
            Sample({"input": rand((3, 4), np.float32), "paddings": _v([[0, 0], [0, 0]])}, {"mode": mode},
                   note="no padding"),
            Sample({"input": rand((), np.float32), "paddings": np.zeros((0, 2), np.int32)}, {"mode": mode},
                   note="scalar"),
            Sample({"input": rand((40, 300, 70), np.float32, seed=4), "paddings": _v([[3, 2], [5, 7], [1, 2]])},
                   {"mode": mode}, rtol=1e-5, atol=1e-5, note="large"),
            Sample({"input": rand((2, 3000), np.float32, seed=5), "paddings": _v([[0, 0], [9, 4]])},
                   {"mode": mode}, rtol=1e-5, atol=1e-5, note="few long rows (column split)"),
        ]
    out.append(Sample({"input": rand((6, 3), np.float32), "paddings": _v([[2, 2], [1, 1]])}, {"mode": "SYMMETRIC"},
                      note="SYMMETRIC padding equal to the output size"))
    return out


# ---- TensorScatterAdd ----

def _tsa_ref(tensor, indices, updates, bad_indices_policy=""):
    out = tensor.copy()
    idx = np.asarray(indices).astype(np.int64)
    n = idx.shape[-1]
    flat = idx.reshape(-1, n)
    upd = updates.reshape((flat.shape[0],) + out.shape[n:])
    for t, u in zip(flat, upd):
        if all(0 <= t[j] < out.shape[j] for j in range(n)):
            out[tuple(t)] += u
    return out


def _tsa_samples():
    out = []
    for k, dt in enumerate((np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.uint16,
                            np.uint32, np.uint64, np.complex64, np.complex128)):
        out.append(Sample({"tensor": _val((4, 3), dt, seed=k), "indices": _v([[2], [0], [2]]),
                           "updates": _val((3, 3), dt, seed=k + 20)}, note=f"{np.dtype(dt).name} duplicates add"))
    rng = np.random.default_rng(5)
    out += [
        Sample({"tensor": rand((2, 3), np.float32), "indices": _v([[1, 2], [0, 0], [1, 2]], np.int64),
                "updates": rand((3,), np.float32, seed=1)}, note="elements"),
        Sample({"tensor": rand((2, 3, 4), np.float64), "indices": _v([[[1, 2]], [[0, 1]]]),
                "updates": rand((2, 1, 4), np.float64, seed=2)}, note="2-D tuples grid"),
        Sample({"tensor": rand((4, 2), np.float32), "indices": np.zeros((0, 1), np.int32),
                "updates": np.zeros((0, 2), np.float32)}, note="no updates"),
        Sample({"tensor": rand((0, 2), np.float32), "indices": np.zeros((0, 1), np.int32),
                "updates": np.zeros((0, 2), np.float32)}, note="zero-size tensor"),
        Sample({"tensor": rand((4, 2), np.float32), "indices": _v([[1], [5], [-1], [3]]),
                "updates": rand((4, 2), np.float32, seed=3)}, {"bad_indices_policy": "IGNORE"},
               note="IGNORE skips bad tuples"),
        Sample({"tensor": rand((500, 256), np.float32, seed=6), "indices": rng.integers(0, 500, (2000, 1)),
                "updates": rand((2000, 256), np.float32, seed=7)}, rtol=1e-5, atol=1e-5, note="large"),
    ]
    return out


def _tsa_error(tensor, indices, updates, match, attrs=None, when="both"):
    return ErrorSample({"tensor": tensor, "indices": indices, "updates": updates}, attrs or {}, match=match, when=when)


ENTRIES = [
    OpEntry("StridedSliceGrad", _ssg_samples(), ref=_ssg_ref, errors=[
        _ssg_error(np.ones((3, 3), np.float32), r"shape of dy was \[3,3\] instead of \[2,3\]"),
        _ssg_error(np.ones((3,), np.float32), r"out of bounds", begin=(5,), end=(6,), strides=(1,),
                   attrs={"shrink_axis_mask": 1}),
        _ssg_error(np.ones((3,), np.float32), r"strides\[0\] must be non-zero", begin=(0,), end=(6,), strides=(0,)),
        _ssg_error(np.ones((3,), np.float32), r"shape must be 1-D", shape=[[4, 3]], begin=(0,), end=(3,),
                   strides=(1,)),
        _ssg_error(np.ones((3,), np.float32), r"Dimension -3 must be >= 0", shape=(4, -3), begin=(0,), end=(3,),
                   strides=(1,)),
    ]),
    OpEntry("MirrorPadGrad", _mpg_samples(), ref=_mpg_ref, rtol=1e-6, atol=1e-6, errors=[
        ErrorSample({"input": rand((7,)), "paddings": _v([[3, 3]])}, {"mode": "REFLECT"},
                    match=r"paddings must be less than the output dimension size: 3, 3 not less than 1"),
        ErrorSample({"input": rand((7,)), "paddings": _v([[3, 3]])}, {"mode": "SYMMETRIC"},
                    match=r"paddings must be no greater than the output dimension size: 3, 3 greater than 1"),
        ErrorSample({"input": rand((7,)), "paddings": _v([[4, 3]])}, {"mode": "SYMMETRIC"},
                    match=r"Total paddings must be less than the input dimension size"),
        ErrorSample({"input": rand((7,)), "paddings": _v([[-1, 3]])}, {"mode": "SYMMETRIC"},
                    match=r"Paddings must be non-negative: -1, 3"),
        ErrorSample({"input": rand((7,)), "paddings": _v([[1, 3], [0, 0]])}, {"mode": "SYMMETRIC"},
                    match=r"paddings|rank"),
        ErrorSample({"input": rand((4, 0)), "paddings": _v([[1, 1], [0, 0]])}, {"mode": "SYMMETRIC"},
                    match=r"Total paddings must be less than the input dimension size: 0 \+ 0 was not less than 0"),
    ]),
    OpEntry("TensorScatterAdd", _tsa_samples(), ref=_tsa_ref, errors=[
        _tsa_error(np.zeros((4, 2), np.float32), _v([[1], [5], [3]]), np.ones((3, 2), np.float32),
                   r"indices\[1\] = \[5\] does not index into shape \[4,2\]"),
        _tsa_error(np.zeros((4, 2), np.float32), _v([[1], [-1], [3]], np.int64), np.ones((3, 2), np.float32),
                   r"indices\[1\] = \[-1\] does not index into shape \[4,2\]"),
        _tsa_error(np.zeros((4, 2), np.float32), _v([[1], [1], [3]]), np.ones((2, 2), np.float32),
                   r"updates must have shape indices.shape\[:-1\] \+ tensor.shape\[1:\] = \[3,2\], got \[2,2\]"),
        _tsa_error(np.zeros((4, 2), np.float32), _v(1), np.ones((2,), np.float32), r"Indices shape must have rank"),
        _tsa_error(np.zeros((4,), np.float32), _v([1]), np.float32(1), r"Updates shape must have rank"),
        _tsa_error(np.zeros((4, 2), np.float32), _v([[1, 1, 1]]), np.ones((1,), np.float32),
                   r"innermost dimension length must be <= rank of tensor"),
        _tsa_error(np.zeros((0, 2), np.float32), _v([[0]]), np.ones((1, 2), np.float32),
                   r"Indices and updates specified for empty output shape"),
        _tsa_error(np.zeros((4, 2), np.float32), _v([[0]]), np.ones((1, 2), np.float32), r"bad_indices_policy",
                   attrs={"bad_indices_policy": "SOMETIMES"}),
    ]),
]
