"""Conformance entries: array transforms (Transpose, ConcatV2, Split, SplitV, Slice,
StridedSlice, Pad, PadV2, MirrorPad, Tile, ExpandDims, Squeeze, Pack, Unpack, ReverseV2,
BroadcastTo). References are NumPy's own functions and indexing."""

import numpy as np

from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

_ALL = (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_)
# Element sizes 1, 2, 4, 8 beyond the common dtypes (the kernels are per element size).
_EXTRA = (np.float16, np.int8, np.int16, np.uint16, np.uint32, np.uint64, np.complex64, np.complex128)


def _i32(v):
    return np.array(v, np.int32)


def _x(shape, dt=np.float32, seed=0):
    x = rand(shape, dt, seed=seed)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rand(shape, np.float32, seed=seed + 1)
    return x.astype(dt)


# ----------------------------------------------------------------------------- Transpose

def _transpose_samples():
    out = []
    for dt in _ALL + _EXTRA:
        for perm in ([2, 1, 0], [0, 2, 1], [1, 0, 2], [1, 2, 0]):
            out.append(Sample({"x": _x((2, 3, 4), dt), "perm": _i32(perm)}, note=f"{np.dtype(dt).name} {perm}"))
    out += [
        Sample({"x": _x((2, 3, 4)), "perm": _i32([0, 1, 2])}, note="identity"),
        Sample({"x": _x((67, 45)), "perm": _i32([1, 0])}, note="2-D blocked"),
        Sample({"x": _x((3, 33, 70), np.float64), "perm": _i32([0, 2, 1])}, note="batched 2-D"),
        Sample({"x": _x((3, 1, 4)), "perm": np.array([2, 1, 0], np.int64)}, note="size-1 dim, int64 perm"),
        Sample({"x": _x((2, 1, 3, 1)), "perm": _i32([1, 0, 3, 2])}, note="only size-1 dims move"),
        Sample({"x": _x((2, 3, 4, 5)), "perm": _i32([3, 1, 2, 0])}, note="4-D gather"),
        Sample({"x": _x((2, 3, 4, 5)), "perm": _i32([1, 0, 2, 3])}, note="4-D runs"),
        Sample({"x": _x(()), "perm": _i32([])}, note="scalar"),
        Sample({"x": _x((0, 3)), "perm": _i32([1, 0])}, note="zero-size"),
    ]
    return out


# ----------------------------------------------------------------------------- Concat / Pack

def _concat_samples():
    out = []
    for dt in _ALL + (np.float16, np.int16, np.complex128):
        out.append(Sample({"values": [_x((2, 3), dt, 1), _x((2, 3), dt, 2)], "axis": np.int32(0)}, note=str(dt)))
        out.append(Sample({"values": [_x((2, 3), dt, 1), _x((2, 5), dt, 2)], "axis": np.int32(1)}, note=str(dt)))
    out += [
        Sample({"values": [_x((2, 3, 4)), _x((2, 1, 4)), _x((2, 2, 4))], "axis": np.int32(-2)}, note="3 inputs, -2"),
        Sample({"values": [_x((2, 3)), _x((2, 0))], "axis": np.int64(-1)}, note="zero-size input, int64 axis"),
        Sample({"values": [_x((0, 3)), _x((0, 3))], "axis": np.int32(0)}, note="all empty"),
        Sample({"values": [_x((5,), np.int64), _x((7,), np.int64)], "axis": np.int32(0)}, note="1-D"),
    ]
    return out


def _pack_samples():
    out = []
    for dt in _ALL + (np.float16, np.complex64):
        out.append(Sample({"values": [_x((2, 3), dt, 1), _x((2, 3), dt, 2)]}, {"axis": 0}, note=str(dt)))
    out += [
        Sample({"values": [_x((2, 3)), _x((2, 3)), _x((2, 3))]}, {"axis": 1}, note="axis 1"),
        Sample({"values": [_x((2, 3)), _x((2, 3))]}, {"axis": -1}, note="axis -1"),
        Sample({"values": [_x(()), _x(()), _x(())]}, note="scalars"),
        Sample({"values": [_x((0, 2))]}, {"axis": 1}, note="zero-size, N=1"),
    ]
    return out


def _unpack_samples():
    out = []
    for dt in _ALL + (np.float16,):
        out.append(Sample({"value": _x((3, 2), dt)}, {"num": 3}, note=str(dt)))
    out += [
        Sample({"value": _x((2, 4, 3))}, {"num": 4, "axis": 1}, note="axis 1"),
        Sample({"value": _x((2, 4, 3))}, {"num": 3, "axis": -1}, note="axis -1"),
        Sample({"value": _x((2, 0))}, {"num": 2}, note="zero-size"),
        Sample({"value": _x((1,))}, {"num": 1}, note="to scalar"),
    ]
    return out


def _unpack_ref(value, num, axis=0):
    return [np.take(value, i, axis=axis) for i in range(num)]


# ----------------------------------------------------------------------------- Split / SplitV

def _split_samples():
    out = []
    for dt in _ALL:
        out.append(Sample({"split_dim": np.int32(1), "value": _x((2, 6), dt)}, {"num_split": 3}, note=str(dt)))
    out += [
        Sample({"split_dim": np.int32(0), "value": _x((4, 3))}, {"num_split": 2}, note="axis 0"),
        Sample({"split_dim": np.int32(-1), "value": _x((2, 3, 4))}, {"num_split": 4}, note="axis -1"),
        Sample({"split_dim": np.int32(0), "value": _x((3, 2))}, {"num_split": 1}, note="one piece"),
        Sample({"split_dim": np.int32(1), "value": _x((0, 4))}, {"num_split": 2}, note="zero-size"),
    ]
    return out


def _split_ref(split_dim, value, num_split):
    return np.split(value, num_split, axis=int(split_dim))


def _splitv_samples():
    out = []
    for dt in _ALL:
        out.append(Sample({"value": _x((2, 6), dt), "size_splits": np.array([1, 3, 2], np.int64),
                           "split_dim": np.int32(1)}, {"num_split": 3}, note=str(dt)))
    out += [
        Sample({"value": _x((7, 2)), "size_splits": _i32([2, -1, 1]), "split_dim": np.int32(0)},
               {"num_split": 3}, note="-1 size"),
        Sample({"value": _x((2, 3, 5)), "size_splits": np.array([0, 5], np.int8), "split_dim": np.int32(-1)},
               {"num_split": 2}, note="empty piece, int8 sizes"),
        Sample({"value": _x((4,)), "size_splits": _i32([4]), "split_dim": np.int32(0)},
               {"num_split": 1}, note="one piece"),
    ]
    return out


def _splitv_ref(value, size_splits, split_dim, num_split):
    sizes = [int(s) for s in size_splits]
    axis = int(split_dim) % value.ndim
    if -1 in sizes:
        sizes[sizes.index(-1)] = value.shape[axis] - (sum(sizes) + 1)
    return np.split(value, np.cumsum(sizes)[:-1], axis=axis)


# ----------------------------------------------------------------------------- Slice / StridedSlice

def _slice_samples():
    out = []
    for dt in _ALL + (np.int8, np.complex64):
        out.append(Sample({"input": _x((3, 4, 5), dt), "begin": _i32([1, 0, 2]), "size": _i32([2, 4, 3])},
                          note=str(dt)))
    out += [
        Sample({"input": _x((3, 4)), "begin": np.array([1, 1], np.int64), "size": np.array([-1, 2], np.int64)},
               note="-1 size, int64"),
        Sample({"input": _x((3, 4)), "begin": _i32([0, 0]), "size": _i32([3, 4])}, note="whole"),
        Sample({"input": _x((3, 4)), "begin": _i32([3, 1]), "size": _i32([0, 2])}, note="empty at end"),
        Sample({"input": _x(()), "begin": _i32([]), "size": _i32([])}, note="scalar"),
        Sample({"input": _x((50, 40)), "begin": _i32([5, 0]), "size": _i32([40, 40])}, note="full rows"),
    ]
    return out


def _slice_ref(input, begin, size):
    idx = tuple(slice(int(b), None if int(s) == -1 else int(b) + int(s)) for b, s in zip(begin, size))
    return input[idx]


def _ss(x, b, e, s, **masks):
    return Sample({"input": x, "begin": _i32(b), "end": _i32(e), "strides": _i32(s)}, masks, note=str(masks))


def _strided_slice_samples():
    x = _x((4, 5, 6))
    out = []
    for dt in _ALL + (np.float16, np.int16, np.uint64):
        out.append(Sample({"input": _x((4, 5, 6), dt), "begin": _i32([1, 0, 5]), "end": _i32([4, 5, 0]),
                           "strides": _i32([2, 1, -2])}, note=str(dt)))
    out += [
        _ss(x, [0, 0, 0], [0, 0, 0], [1, 1, 1], begin_mask=7, end_mask=7),
        _ss(x, [-1, 1], [0, 4], [1, 1], shrink_axis_mask=1),
        _ss(x, [0, 3], [0, 4], [1, 1], shrink_axis_mask=2, begin_mask=1, end_mask=1),
        _ss(x, [0, 0], [0, 0], [-1, -1], begin_mask=3, end_mask=3),
        _ss(x, [10, -10], [-10, 10], [-1, 1]),
        _ss(x, [-2, 0, 1], [-100, 0, 100], [-3, 1, 4], end_mask=2),
        _ss(x, [0, 1], [0, 2], [1, 1], ellipsis_mask=1, shrink_axis_mask=2),
        _ss(x, [1, 0, 0], [2, 0, 0], [1, 1, 1], ellipsis_mask=2),
        _ss(x, [0, 0, 2], [0, 0, 3], [1, 1, 1], new_axis_mask=1, ellipsis_mask=2),
        _ss(x, [0, 1, 0, 0], [0, 3, 0, 0], [1, 1, 1, 1], new_axis_mask=9, begin_mask=0, end_mask=0),
        _ss(x, [2, 2], [1, 1], [1, 1]),
        _ss(x, [0], [0], [1], ellipsis_mask=1),
        _ss(x, [1, 2, 3], [2, 3, 4], [1, 1, 1], shrink_axis_mask=7),
        _ss(_x((3,)), [0, 0], [0, 0], [1, 1], new_axis_mask=3, ellipsis_mask=0),
        _ss(_x(()), [0], [0], [1], new_axis_mask=1),
        _ss(_x((0, 3)), [0, 1], [0, 3], [1, 1], begin_mask=1, end_mask=1),
        Sample({"input": x, "begin": np.array([1, -1], np.int64), "end": np.array([3, -5], np.int64),
                "strides": np.array([1, -2], np.int64)}, note="int64"),
        Sample({"input": x, "begin": np.array([1], np.int16), "end": np.array([3], np.int16),
                "strides": np.array([1], np.int16)}, note="int16"),
    ]
    return out


def _strided_slice_ref(input, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                       shrink_axis_mask=0):
    idx = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            idx.append(Ellipsis)
        elif new_axis_mask & bit:
            idx.append(None)
        elif shrink_axis_mask & bit:
            idx.append(int(b))
        else:
            idx.append(slice(None if begin_mask & bit else int(b), None if end_mask & bit else int(e), int(s)))
    return input[tuple(idx)]


# ----------------------------------------------------------------------------- Pad

def _pad_samples(v2=False, mirror=None):
    out = []
    dts = _ALL + ((np.float16, np.complex64) if not mirror else (np.int8,))
    for dt in dts:
        inputs = {"input": _x((3, 4), dt), "paddings": _i32([[1, 2], [0, 2]])}
        if v2:
            inputs["constant_values"] = _x((), dt, seed=9)
        out.append(Sample(inputs, {"mode": mirror} if mirror else {}, note=str(dt)))
    extra = [({"input": _x((2, 3, 4)), "paddings": np.array([[0, 1], [2, 1], [1, 0]], np.int64)}, "3-D int64"),
             ({"input": _x((2, 3)), "paddings": _i32([[0, 0], [0, 0]])}, "no padding"),
             ({"input": _x((5,)), "paddings": _i32([[1, 1]])}, "1-D")]
    if not mirror:
        extra += [({"input": _x(()), "paddings": np.zeros([0, 2], np.int32)}, "scalar"),
                  ({"input": _x((0, 2)), "paddings": _i32([[1, 1], [0, 1]])}, "zero-size input")]
    for inputs, note in extra:
        if v2:
            inputs["constant_values"] = np.float32(-7.5)
        for mode in ([mirror] if mirror else [None]):
            out.append(Sample(inputs, {"mode": mode} if mode else {}, note=note))
    if mirror:
        n = 3 if mirror == "REFLECT" else 4
        out.append(Sample({"input": _x((4, 4)), "paddings": _i32([[n, n], [0, n]])}, {"mode": mirror},
                          note="largest padding"))
    return out


def _pad_ref(input, paddings, constant_values=0, mode=None):
    p = np.asarray(paddings).reshape(-1, 2)
    if input.ndim == 0:
        return input
    if mode:
        return np.pad(input, p, mode=mode.lower())
    return np.pad(input, p, mode="constant", constant_values=constant_values)


# ----------------------------------------------------------------------------- Tile / BroadcastTo

def _tile_samples():
    out = []
    for dt in _ALL + (np.float16, np.complex128):
        out.append(Sample({"input": _x((2, 3), dt), "multiples": _i32([2, 3])}, note=str(dt)))
    out += [
        Sample({"input": _x((2, 1, 3)), "multiples": np.array([1, 4, 1], np.int64)}, note="int64"),
        Sample({"input": _x((2, 3)), "multiples": _i32([1, 1])}, note="identity"),
        Sample({"input": _x((2, 3)), "multiples": _i32([0, 2])}, note="zero multiple"),
        Sample({"input": _x((0, 3)), "multiples": _i32([2, 2])}, note="zero-size"),
        Sample({"input": _x(()), "multiples": _i32([])}, note="scalar"),
        Sample({"input": _x((3,)), "multiples": _i32([700])}, note="long"),
    ]
    return out


def _broadcast_samples():
    out = []
    for dt in _ALL + (np.float16, np.complex64):
        out.append(Sample({"input": _x((3, 1), dt), "shape": _i32([2, 3, 4])}, note=str(dt)))
    out += [
        Sample({"input": _x(()), "shape": _i32([2, 3])}, note="scalar"),
        Sample({"input": _x((2, 3)), "shape": np.array([2, 3], np.int64)}, note="same, int64"),
        Sample({"input": _x((1, 3)), "shape": _i32([0, 3])}, note="zero-size"),
        Sample({"input": _x((4,)), "shape": _i32([3, 2, 4])}, note="leading dims"),
    ]
    return out


# ----------------------------------------------------------------------------- Reverse / ExpandDims / Squeeze

def _reverse_samples():
    out = []
    for dt in _ALL + (np.float16, np.int8, np.complex128):
        out.append(Sample({"tensor": _x((2, 3, 4), dt), "axis": _i32([1])}, note=str(dt)))
    for axes in ([], [0], [-1], [0, 2], [0, 1, 2]):
        out.append(Sample({"tensor": _x((2, 3, 4)), "axis": np.array(axes, np.int64)}, note=str(axes)))
    out += [Sample({"tensor": _x((0, 3)), "axis": _i32([1])}, note="zero-size"),
            Sample({"tensor": _x((1, 5)), "axis": _i32([0])}, note="size-1 dim")]
    return out


def _expand_samples():
    out = [Sample({"input": _x((2, 3), dt), "dim": np.int32(1)}, note=str(dt)) for dt in _ALL]
    for d in (0, 2, -1, -3):
        out.append(Sample({"input": _x((2, 3)), "dim": np.int64(d)}, note=f"dim {d}"))
    out += [Sample({"input": _x(()), "dim": np.int32(0)}, note="scalar"),
            Sample({"input": _x((0, 2)), "dim": _i32([1])}, note="zero-size, 1-element dim")]
    return out


def _squeeze_samples():
    out = [Sample({"input": _x((1, 2, 1, 3), dt)}, note=str(dt)) for dt in _ALL]
    out += [
        Sample({"input": _x((1, 2, 1, 3))}, {"squeeze_dims": [2]}, note="one dim"),
        Sample({"input": _x((1, 2, 1, 3))}, {"squeeze_dims": [-4, -2]}, note="negative dims"),
        Sample({"input": _x((1, 1))}, note="to scalar"),
        Sample({"input": _x((0, 1))}, note="zero-size"),
        Sample({"input": _x((2, 3))}, note="nothing to squeeze"),
    ]
    return out


def _squeeze_ref(input, squeeze_dims=()):
    return np.squeeze(input, axis=tuple(squeeze_dims) if len(squeeze_dims) else None)


# ----------------------------------------------------------------------------- gradient samples

def _d(shape, seed=0):
    return _x(shape, np.float64, seed)


def _grad_samples():
    """float64 samples for the gradient checks (gradcheck.py: at most 4 per op are checked)."""
    pads = [({"input": _d((3, 4)), "paddings": _i32([[1, 2], [0, 2]])}, "2-D"),
            ({"input": _d((2, 3, 4)), "paddings": np.array([[0, 1], [2, 1], [1, 0]], np.int64)}, "3-D int64"),
            ({"input": _d(()), "paddings": np.zeros([0, 2], np.int32)}, "scalar"),
            ({"input": _d((0, 2)), "paddings": _i32([[1, 1], [0, 1]])}, "zero-size input")]
    mirror = [Sample({"input": _d((3, 4)), "paddings": _i32([[1, 2], [0, 2]])}, {"mode": "REFLECT"}, note="reflect"),
              Sample({"input": _d((2, 3, 4)), "paddings": _i32([[0, 1], [2, 1], [1, 0]])}, {"mode": "SYMMETRIC"},
                     note="symmetric 3-D"),
              Sample({"input": _d((4, 4)), "paddings": _i32([[3, 3], [0, 3]])}, {"mode": "REFLECT"},
                     note="largest reflect"),
              Sample({"input": _d((4, 4)), "paddings": np.array([[4, 4], [0, 4]], np.int64)}, {"mode": "SYMMETRIC"},
                     note="largest symmetric, int64")]
    return {
        "Transpose": [Sample({"x": _d((2, 3, 4)), "perm": _i32([1, 2, 0])}, note="rotate"),
                      Sample({"x": _d((3, 1, 4)), "perm": np.array([2, 1, 0], np.int64)}, note="int64 perm"),
                      Sample({"x": _d((2, 3, 4, 5)), "perm": _i32([3, 1, 2, 0])}, note="4-D"),
                      Sample({"x": _d((0, 3)), "perm": _i32([1, 0])}, note="zero-size")],
        "ConcatV2": [Sample({"values": [_d((2, 3), 1), _d((2, 5), 2)], "axis": np.int32(1)}, note="axis 1"),
                     Sample({"values": [_d((2, 3, 4)), _d((2, 1, 4), 1), _d((2, 2, 4), 2)], "axis": np.int32(-2)},
                            note="3 inputs, -2"),
                     Sample({"values": [_d((2, 3)), _d((2, 0))], "axis": np.int64(-1)}, note="zero-size input"),
                     Sample({"values": [_d((0, 3)), _d((0, 3))], "axis": np.int32(0)}, note="all empty")],
        "Split": [Sample({"split_dim": np.int32(-1), "value": _d((2, 3, 4))}, {"num_split": 4}, note="axis -1"),
                  Sample({"split_dim": np.int32(0), "value": _d((4, 3))}, {"num_split": 2}, note="axis 0"),
                  Sample({"split_dim": np.int32(0), "value": _d((3, 2))}, {"num_split": 1}, note="one piece"),
                  Sample({"split_dim": np.int32(1), "value": _d((0, 4))}, {"num_split": 2}, note="zero-size")],
        "SplitV": [Sample({"value": _d((2, 6)), "size_splits": np.array([1, 3, 2], np.int64),
                           "split_dim": np.int32(1)}, {"num_split": 3}, note="int64 sizes"),
                   Sample({"value": _d((7, 2)), "size_splits": _i32([2, -1, 1]), "split_dim": np.int32(0)},
                          {"num_split": 3}, note="-1 size"),
                   Sample({"value": _d((2, 3, 5)), "size_splits": _i32([0, 5]), "split_dim": np.int32(-1)},
                          {"num_split": 2}, note="empty piece, axis -1")],
        "Slice": [Sample({"input": _d((3, 4, 5)), "begin": _i32([1, 0, 2]), "size": _i32([2, 4, 3])}, note="3-D"),
                  Sample({"input": _d((3, 4)), "begin": np.array([1, 1], np.int64),
                          "size": np.array([-1, 2], np.int64)}, note="-1 size, int64"),
                  Sample({"input": _d((3, 4)), "begin": _i32([3, 1]), "size": _i32([0, 2])}, note="empty at end"),
                  Sample({"input": _d(()), "begin": _i32([]), "size": _i32([])}, note="scalar")],
        "StridedSlice": [_ss(_d((4, 5, 6)), [1, 0, 5], [4, 5, 0], [2, 1, -2]),
                         _ss(_d((4, 5, 6)), [0, 3], [0, 4], [1, 1], shrink_axis_mask=2, begin_mask=1, end_mask=1),
                         _ss(_d((4, 5, 6)), [0, 0, 2], [0, 0, 3], [1, 1, 1], new_axis_mask=1, ellipsis_mask=2),
                         _ss(_d((0, 3)), [0, 1], [0, 3], [1, 1], begin_mask=1, end_mask=1)],
        "Pad": [Sample(dict(i), note=n) for i, n in pads],
        "PadV2": [Sample(dict(i, constant_values=np.float64(-7.5)), note=n) for i, n in pads],
        "MirrorPad": mirror,
        "Tile": [Sample({"input": _d((2, 3)), "multiples": _i32([2, 3])}, note="2-D"),
                 Sample({"input": _d((2, 1, 3)), "multiples": np.array([1, 4, 1], np.int64)}, note="int64"),
                 Sample({"input": _d((2, 3)), "multiples": _i32([0, 2])}, note="zero multiple"),
                 Sample({"input": _d(()), "multiples": _i32([])}, note="scalar")],
        "BroadcastTo": [Sample({"input": _d((3, 1)), "shape": _i32([2, 3, 4])}, note="stretch and lead"),
                        Sample({"input": _d(()), "shape": _i32([2, 3])}, note="scalar"),
                        Sample({"input": _d((1, 3)), "shape": _i32([0, 3])}, note="zero-size"),
                        Sample({"input": _d((2, 3)), "shape": np.array([2, 3], np.int64)}, note="same, int64")],
        "ReverseV2": [Sample({"tensor": _d((2, 3, 4)), "axis": _i32([1])}, note="[1]"),
                      Sample({"tensor": _d((2, 3, 4)), "axis": np.array([0, -1], np.int64)}, note="[0, -1]"),
                      Sample({"tensor": _d((2, 3, 4)), "axis": _i32([])}, note="none"),
                      Sample({"tensor": _d((0, 3)), "axis": _i32([1])}, note="zero-size")],
        "ExpandDims": [Sample({"input": _d((2, 3)), "dim": np.int64(-1)}, note="dim -1"),
                       Sample({"input": _d((2, 3)), "dim": np.int32(0)}, note="dim 0"),
                       Sample({"input": _d(()), "dim": np.int32(0)}, note="scalar"),
                       Sample({"input": _d((0, 2)), "dim": _i32([1])}, note="zero-size")],
        "Squeeze": [Sample({"input": _d((1, 2, 1, 3))}, note="all"),
                    Sample({"input": _d((1, 2, 1, 3))}, {"squeeze_dims": [-4, -2]}, note="negative dims"),
                    Sample({"input": _d((1, 1))}, note="to scalar"),
                    Sample({"input": _d((0, 1))}, note="zero-size")],
        "Pack": [Sample({"values": [_d((2, 3)), _d((2, 3), 1), _d((2, 3), 2)]}, {"axis": 1}, note="axis 1"),
                 Sample({"values": [_d((2, 3)), _d((2, 3), 1)]}, {"axis": -1}, note="axis -1"),
                 Sample({"values": [_d(()), _d((), 1)]}, note="scalars"),
                 Sample({"values": [_d((0, 2))]}, {"axis": 1}, note="zero-size, N=1")],
        "Unpack": [Sample({"value": _d((2, 4, 3))}, {"num": 4, "axis": 1}, note="axis 1"),
                   Sample({"value": _d((2, 4, 3))}, {"num": 3, "axis": -1}, note="axis -1"),
                   Sample({"value": _d((2, 0))}, {"num": 2}, note="zero-size"),
                   Sample({"value": _d((1,))}, {"num": 1}, note="to scalar")],
    }


_F = _x((2, 3))

TRANSFORM_ENTRIES = [
    OpEntry("Transpose", _transpose_samples(), ref=lambda x, perm: np.transpose(x, [int(p) for p in perm]),
            errors=[ErrorSample({"x": _F, "perm": _i32([0, 0])}, match=r"permutation|twice"),
                    ErrorSample({"x": _F, "perm": _i32([0, 2])}, match=r"out of range"),
                    ErrorSample({"x": _F, "perm": _i32([1, 0, 2])}, match=r"size 2|vector of size")]),
    OpEntry("ConcatV2", _concat_samples(), ref=lambda values, axis: np.concatenate(values, axis=int(axis)),
            errors=[ErrorSample({"values": [_F, _x((3, 3))], "axis": np.int32(1)}, match=r"match in every dimension"),
                    ErrorSample({"values": [_F, _F], "axis": np.int32(2)}, match=r"out of range"),
                    ErrorSample({"values": [_F, _x((2, 3, 1))], "axis": np.int32(0)}, match=r"rank|match"),
                    ErrorSample({"values": [np.float32(1), np.float32(2)], "axis": np.int32(0)},
                                match=r"scalars")]),
    OpEntry("Split", _split_samples(), ref=_split_ref,
            errors=[ErrorSample({"split_dim": np.int32(1), "value": _F}, {"num_split": 2}, match=r"evenly divide"),
                    ErrorSample({"split_dim": np.int32(2), "value": _F}, {"num_split": 1}, match=r"out of range")]),
    OpEntry("SplitV", _splitv_samples(), ref=_splitv_ref,
            errors=[ErrorSample({"value": _F, "size_splits": _i32([1, 1]), "split_dim": np.int32(1)},
                                {"num_split": 2}, match=r"sum"),
                    ErrorSample({"value": _F, "size_splits": _i32([-1, -1]), "split_dim": np.int32(1)},
                                {"num_split": 2}, match=r"at most one -1"),
                    ErrorSample({"value": _F, "size_splits": _i32([1, 2]), "split_dim": np.int32(1)},
                                {"num_split": 3}, match=r"num_split")]),
    OpEntry("Slice", _slice_samples(), ref=_slice_ref,
            errors=[ErrorSample({"input": _F, "begin": _i32([3, 0]), "size": _i32([1, 1])}, match=r"begin\[0\]"),
                    ErrorSample({"input": _F, "begin": _i32([0, 1]), "size": _i32([1, 3])}, match=r"size\[1\]"),
                    ErrorSample({"input": _F, "begin": _i32([0]), "size": _i32([1])}, match=r"2 entries")]),
    OpEntry("StridedSlice", _strided_slice_samples(), ref=_strided_slice_ref,
            errors=[ErrorSample({"input": _F, "begin": _i32([0]), "end": _i32([1]), "strides": _i32([0])},
                                match=r"non-zero"),
                    ErrorSample({"input": _F, "begin": _i32([5]), "end": _i32([6]), "strides": _i32([1])},
                                {"shrink_axis_mask": 1}, match=r"out of bounds"),
                    ErrorSample({"input": _F, "begin": _i32([0, 0, 0]), "end": _i32([1, 1, 1]),
                                 "strides": _i32([1, 1, 1])}, match=r"rank 2"),
                    ErrorSample({"input": _F, "begin": _i32([0, 0]), "end": _i32([1]), "strides": _i32([1, 1])},
                                match=r"same length"),
                    ErrorSample({"input": _F, "begin": _i32([0, 0]), "end": _i32([0, 0]), "strides": _i32([1, 1])},
                                {"ellipsis_mask": 3}, match=r"ellips")]),
    OpEntry("Pad", _pad_samples(), ref=_pad_ref,
            errors=[ErrorSample({"input": _F, "paddings": _i32([[0, -1], [0, 0]])}, match=r"non-negative"),
                    ErrorSample({"input": _F, "paddings": _i32([[0, 1]])}, match=r"\[2, 2\]|2 rows")]),
    OpEntry("PadV2", _pad_samples(v2=True), ref=_pad_ref,
            errors=[ErrorSample({"input": _F, "paddings": _i32([[0, 1], [0, 0]]),
                                 "constant_values": np.zeros([2], np.float32)}, match=r"scalar")]),
    OpEntry("MirrorPad", _pad_samples(mirror="REFLECT") + _pad_samples(mirror="SYMMETRIC"), ref=_pad_ref,
            errors=[ErrorSample({"input": _F, "paddings": _i32([[2, 0], [0, 0]])}, {"mode": "REFLECT"},
                                match=r"less than"),
                    ErrorSample({"input": _F, "paddings": _i32([[0, 3], [0, 0]])}, {"mode": "SYMMETRIC"},
                                match=r"greater than")]),
    OpEntry("Tile", _tile_samples(), ref=lambda input, multiples: np.tile(input, [int(m) for m in multiples]),
            errors=[ErrorSample({"input": _F, "multiples": _i32([2])}, match=r"2 entries"),
                    ErrorSample({"input": _F, "multiples": _i32([1, -1])}, match=r"non-negative")]),
    OpEntry("BroadcastTo", _broadcast_samples(),
            ref=lambda input, shape: np.broadcast_to(input, [int(s) for s in shape]),
            errors=[ErrorSample({"input": _F, "shape": _i32([4, 3, 4])}, match=r"broadcast"),
                    ErrorSample({"input": _F, "shape": _i32([3])}, match=r"broadcast")]),
    OpEntry("ReverseV2", _reverse_samples(), ref=lambda tensor, axis: np.flip(tensor, [int(a) for a in axis]),
            errors=[ErrorSample({"tensor": _F, "axis": _i32([0, -2])}, match=r"more than once"),
                    ErrorSample({"tensor": _F, "axis": _i32([2])}, match=r"out of range")]),
    OpEntry("ExpandDims", _expand_samples(),
            ref=lambda input, dim: np.expand_dims(input, int(np.reshape(dim, -1)[0])),
            errors=[ErrorSample({"input": _F, "dim": np.int32(3)}, match=r"out of range"),
                    ErrorSample({"input": _F, "dim": _i32([0, 1])}, match=r"exactly one")]),
    OpEntry("Squeeze", _squeeze_samples(), ref=_squeeze_ref,
            errors=[ErrorSample({"input": _x((1, 2))}, {"squeeze_dims": [1]}, match=r"squeeze dim\[1\]"),
                    ErrorSample({"input": _x((1, 2))}, {"squeeze_dims": [2]}, match=r"out of range")]),
    OpEntry("Pack", _pack_samples(), ref=lambda values, axis=0: np.stack(values, axis=axis),
            errors=[ErrorSample({"values": [_F, _x((3, 2))]}, match=r"same shape"),
                    ErrorSample({"values": [_F, _F]}, {"axis": 3}, match=r"out of range")]),
    OpEntry("Unpack", _unpack_samples(), ref=_unpack_ref,
            errors=[ErrorSample({"value": _F}, {"num": 3}, match=r"num is 3"),
                    ErrorSample({"value": _F}, {"num": 2, "axis": 2}, match=r"out of range")]),
]

_GRAD_SAMPLES = _grad_samples()
for _entry in TRANSFORM_ENTRIES:
    _entry.grad_samples = _GRAD_SAMPLES.get(_entry.op, ())

ENTRIES = TRANSFORM_ENTRIES
