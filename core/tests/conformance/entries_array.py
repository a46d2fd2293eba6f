"""Conformance entries: array and structural ops (the array transforms are in
entries_array_transforms.py)."""

import ml_dtypes
import numpy as np

import tensorflux as tx
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

_ALL = (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_)


def _build_placeholder(sample):
    x = tx.placeholder(tx.as_dtype(sample.inputs["value"].dtype), shape=sample.attrs.get("shape"))
    return [x], {x: sample.inputs["value"]}


def _reshape_samples():
    out = []
    for dt in _ALL:
        x = rand((2, 3, 4), dt, seed=4)
        for shape in ([24], [4, -1], [-1, 2, 3], [2, 3, 4, 1], [6, 4]):
            out.append(Sample({"tensor": x, "shape": np.array(shape, np.int32)}, note=str(shape)))
    out.append(Sample({"tensor": rand((), np.float32), "shape": np.array([1, 1], np.int64)}, note="scalar"))
    out.append(Sample({"tensor": rand((0, 3), np.float32), "shape": np.array([3, 0], np.int32)}, note="zero-size"))
    out.append(Sample({"tensor": rand((0, 3), np.float32), "shape": np.array([-1, 3], np.int32)}, note="zero-size -1"))
    return out


def _reshape_ref(tensor, shape):
    return tensor.reshape([int(d) for d in shape])


BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def _bitcast_ref(input, type):  # noqa: A002 (TensorFlow's argument names)
    a = np.array(input, order="C")  # (ascontiguousarray would make a scalar 1-D)
    to = np.dtype(type.as_numpy_dtype)
    if a.itemsize > to.itemsize:  # a last dimension of itemsize ratio added
        return a.reshape(a.shape + (1,)).view(to).reshape(a.shape + (a.itemsize // to.itemsize,))
    if a.itemsize < to.itemsize:  # the last dimension consumed
        return a.view(to).reshape(a.shape[:-1])
    return a.reshape(a.shape + (1,)).view(to).reshape(a.shape)


def _bitcast_samples():
    out = []
    # (input shape, input dtype, output dtype); integers kept small, so that no bit pattern is a NaN
    for shape, src, dst in [((2, 3), np.float32, tx.int32), ((3,), np.float32, tx.uint8), ((), np.float32, tx.uint16),
                            ((2, 4), np.uint8, tx.float32), ((2,), np.float64, tx.complex64),
                            ((2,), np.int64, tx.int16), ((3, 4), np.int16, tx.int64), ((0,), np.float32, tx.uint8),
                            ((2,), np.complex128, tx.float64), ((5, 2), np.uint16, tx.bfloat16),
                            ((3, 2), np.float16, tx.int32), ((4,), BFLOAT16, tx.uint16), ((2, 4), np.int8, tx.float32),
                            ((3,), np.int32, tx.float32), ((3,), np.uint32, tx.int8), ((2,), np.uint64, tx.float64),
                            ((2,), np.complex64, tx.int32)]:
        x = rand(shape, src, 0, 100, seed=12)
        out.append(Sample({"input": x}, {"type": dst}, note=f"{np.dtype(src).name}->{dst.name}"))
    return out


ENTRIES = [
    OpEntry("Const", [Sample({}, {"value": rand((2, 3), dt, seed=5), "dtype": tx.as_dtype(dt)}, note=np.dtype(dt).name)
                      for dt in _ALL], ref=lambda value, dtype: value, cross_check=False),
    OpEntry("Placeholder", [Sample({"value": rand((2, 3), dt, seed=6)}, {"shape": [None, 3]}) for dt in _ALL],
            ref=lambda value, shape=None: value, build=_build_placeholder, cross_check=False),
    OpEntry("Identity", [Sample({"input": rand(s, dt, seed=7)}) for dt in _ALL for s in ((), (3,), (0, 2))],
            ref=lambda input: input),
    OpEntry("Bitcast", _bitcast_samples(), ref=_bitcast_ref,
            errors=[ErrorSample({"input": rand((3,))}, {"type": tx.complex128}, match="must end in a dimension of 4"),
                    ErrorSample({"input": rand((), np.uint8)}, {"type": tx.float32},
                                match="must end in a dimension of 4")]),
    OpEntry("Reshape", _reshape_samples(), ref=_reshape_ref,
            errors=[ErrorSample({"tensor": rand((2, 3)), "shape": np.array([4, 2], np.int32)},
                                match=r"6.*8|8.*6|element"),
                    ErrorSample({"tensor": rand((2, 3)), "shape": np.array([-1, -1], np.int32)},
                                match=r"-1|one")],
            grad_samples=[Sample({"tensor": rand((2, 3, 4), np.float64, seed=4), "shape": np.array([4, -1], np.int32)},
                                 note="-1"),
                          Sample({"tensor": rand((), np.float64), "shape": np.array([1, 1], np.int64)}, note="scalar"),
                          Sample({"tensor": rand((0, 3), np.float64), "shape": np.array([3, 0], np.int32)},
                                 note="zero-size")]),
]
