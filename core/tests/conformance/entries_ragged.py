"""Conformance entry: RaggedTensorToTensor (the partition forms TensorFlow writes: ROW_SPLITS at
every ragged dimension, or FIRST_DIM_SIZE then VALUE_ROWIDS), against a NumPy reference that pads
row by row, and against tf.raw_ops."""

from __future__ import annotations

import numpy as np

from conformance.harness import ErrorSample, OpEntry, Sample

_I64 = np.int64


def _rows(values, partitions, types):
    """The ragged tensor as nested lists of rows of `values`."""
    if types[0] == "FIRST_DIM_SIZE":
        nrows = int(partitions[0])
        splits = []
        for rowids in partitions[1:]:
            rowids = np.asarray(rowids)
            splits.append(np.searchsorted(rowids, np.arange(nrows + 1), side="left"))
            nrows = len(rowids)
        partitions = splits
    items = list(values)
    for s in reversed(partitions):
        items = [items[s[i]:s[i + 1]] for i in range(len(s) - 1)]
    return items


def _ref(shape, values, default_value, row_partition_tensors, row_partition_types, **_):
    values = np.asarray(values)
    ragged_rank = len(row_partition_types) - (row_partition_types[0] == "FIRST_DIM_SIZE")
    rows = _rows(values, row_partition_tensors, row_partition_types)
    dims = [len(rows)]
    level = rows
    for _ in range(ragged_rank):
        dims.append(max((len(r) for r in level), default=0))
        level = [x for r in level for x in r]
    dims += list(values.shape[1:])
    shape = np.asarray(shape)
    if shape.ndim == 1:
        dims = [int(g) if g >= 0 else d for g, d in zip(shape, dims)]
    out = np.empty(dims, values.dtype)
    out[...] = np.broadcast_to(default_value, dims[ragged_rank + 1:])

    def place(items, index, depth):
        for i, item in enumerate(items):
            if i >= dims[depth]:
                break
            if depth == ragged_rank:
                out[tuple(index + [i])] = item
            else:
                place(item, index + [i], depth + 1)
    place(rows, [], 0)
    return out


_SPLITS = ["ROW_SPLITS"]
_V = np.arange(1, 6, dtype=np.int32)
_S = np.array([0, 2, 2, 5], _I64)
_F = np.arange(10, dtype=np.float64).reshape(5, 2)
_SAMPLES = [
    Sample({"shape": _I64(-1), "values": _V, "default_value": np.int32(0), "row_partition_tensors": [_S]},
           {"row_partition_types": _SPLITS}, note="padded to the longest row"),
    Sample({"shape": np.array([-1, 2], _I64), "values": _V, "default_value": np.int32(9),
            "row_partition_tensors": [_S]}, {"row_partition_types": _SPLITS}, note="rows cut"),
    Sample({"shape": np.array([5, 4], np.int32), "values": _V, "default_value": np.int32(9),
            "row_partition_tensors": [_S.astype(np.int32)]}, {"row_partition_types": _SPLITS},
           note="more rows and columns than the data; int32 indices"),
    Sample({"shape": np.array([2, 4], _I64), "values": _V, "default_value": np.int32(9),
            "row_partition_tensors": [_S]}, {"row_partition_types": _SPLITS}, note="fewer rows"),
    Sample({"shape": _I64(-1), "values": _F, "default_value": np.array([7.0, 8.0]), "row_partition_tensors": [_S]},
           {"row_partition_types": _SPLITS}, note="inner dimension, default per column"),
    Sample({"shape": _I64(-1), "values": _V, "default_value": np.int32(0),
            "row_partition_tensors": [np.array([0, 1, 3], _I64), _S]},
           {"row_partition_types": ["ROW_SPLITS", "ROW_SPLITS"]}, note="two ragged dimensions"),
    Sample({"shape": _I64(-1), "values": _V, "default_value": np.int32(0),
            "row_partition_tensors": [_I64(4), np.array([0, 0, 2, 2, 2], _I64)]},
           {"row_partition_types": ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]}, note="value row ids, empty last rows"),
    Sample({"shape": np.array([-1, 3], _I64), "values": np.array([b"a", b"b", b"c" * 30], dtype=object),
            "default_value": np.array(b"", dtype=object), "row_partition_tensors": [np.array([0, 1, 3], _I64)]},
           {"row_partition_types": _SPLITS}, note="strings"),
    Sample({"shape": _I64(-1), "values": np.array([], np.float32), "default_value": np.float32(0),
            "row_partition_tensors": [np.array([0, 0, 0], _I64)]}, {"row_partition_types": _SPLITS},
           note="empty rows"),
]
_GRAD = [
    Sample({"shape": np.array([-1, 2, -1], _I64), "values": _F, "default_value": np.array([7.0, 8.0]),
            "row_partition_tensors": [_S]}, {"row_partition_types": _SPLITS}, note="cut rows, per-column default"),
    Sample({"shape": _I64(-1), "values": np.arange(5.0), "default_value": np.float64(0.5),
            "row_partition_tensors": [_I64(4), np.array([0, 0, 2, 2, 2], _I64)]},
           {"row_partition_types": ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]}, note="value row ids"),
]
_BAD = {"shape": _I64(-1), "values": _V, "default_value": np.int32(0)}
_ERRORS = [
    ErrorSample({**_BAD, "row_partition_tensors": [np.array([0, 2, 1, 5], _I64)]}, {"row_partition_types": _SPLITS},
                match="row splits must not decrease", when="runtime"),
    ErrorSample({**_BAD, "row_partition_tensors": [np.array([1, 2, 5], _I64)]}, {"row_partition_types": _SPLITS},
                match="row splits must start at 0", when="runtime"),
    ErrorSample({**_BAD, "row_partition_tensors": [np.array([0, 2, 9], _I64)]}, {"row_partition_types": _SPLITS},
                match="row split 9 is past the 5 elements", when="runtime"),
    ErrorSample({**_BAD, "row_partition_tensors": [_S]}, {"row_partition_types": ["ROW_LENGTHS"]},
                match="row_partition_types must be ROW_SPLITS", when="runtime"),
    ErrorSample({**_BAD, "shape": np.array([2, 2, 2], _I64), "row_partition_tensors": [_S]},
                {"row_partition_types": _SPLITS}, match="rank", when="both"),
    ErrorSample({"shape": _I64(-1), "values": _F, "default_value": np.array([1.0, 2.0, 3.0]),
                 "row_partition_tensors": [_S]}, {"row_partition_types": _SPLITS},
                match="does not broadcast", when="runtime"),
]

ENTRIES = [OpEntry("RaggedTensorToTensor", _SAMPLES, ref=_ref, errors=_ERRORS, grad_samples=_GRAD,
                   grad_inputs=["values", "default_value"])]
