"""Conformance entry: ParseExampleV2 against a reference that decodes the Examples with the
protobuf runtime (tx.train.Example) and lays the features out as TensorFlow does, and against
tf.raw_ops.ParseExampleV2."""

from __future__ import annotations

import numpy as np

import tensorflux as tx

from conformance.harness import ErrorSample, OpEntry, Sample


def _example(**features):
    f = {}
    for key, values in features.items():
        values = list(values)
        if values and isinstance(values[0], bytes):
            f[key] = tx.train.Feature(bytes_list=tx.train.BytesList(value=values))
        elif values and isinstance(values[0], float):
            f[key] = tx.train.Feature(float_list=tx.train.FloatList(value=values))
        else:
            f[key] = tx.train.Feature(int64_list=tx.train.Int64List(value=values))
    return tx.train.Example(features=tx.train.Features(feature=f)).SerializeToString()


def _values(example, key, dtype):
    feature = example.features.feature.get(key)
    if feature is None:
        return None
    kind = feature.WhichOneof("kind")
    return np.array([] if kind is None else list(getattr(feature, kind).value), dtype=dtype)


def np_type(t):
    return object if t == tx.string else tx.as_dtype(t).as_numpy_dtype


def _ref(serialized, names, sparse_keys, dense_keys, ragged_keys, dense_defaults, num_sparse, sparse_types,
         dense_shapes, **_):
    batched = np.ndim(serialized) == 1
    examples = [tx.train.Example.FromString(s) for s in np.reshape(serialized, -1)]
    out_indices, out_values, out_shapes, out_dense = [], [], [], []
    for key, t in zip(sparse_keys, sparse_types):
        rows = [_values(e, key.decode(), np_type(t)) for e in examples]
        rows = [r if r is not None else np.array([], np_type(t)) for r in rows]
        idx = [([b, k] if batched else [k]) for b, r in enumerate(rows) for k in range(len(r))]
        out_indices.append(np.array(idx, np.int64).reshape(-1, 2 if batched else 1))
        out_values.append(np.concatenate([np.array([], np_type(t))] + rows).astype(np_type(t)))
        longest = max((len(r) for r in rows), default=0)
        out_shapes.append(np.array([len(rows), longest] if batched else [longest], np.int64))
    for key, default, shape in zip(dense_keys, dense_defaults, dense_shapes):
        default = np.asarray(default)
        rows = [_values(e, key.decode(), default.dtype) for e in examples]
        if shape and shape[0] == -1:
            inner = list(shape[1:])
            stride = int(np.prod(inner)) if inner else 1
            longest = max((len(r) // stride for r in rows if r is not None), default=0)
            pad = default.reshape(-1)[0] if default.size else default.dtype.type()
            dense = np.full([len(rows), longest] + inner, pad, dtype=default.dtype)
            for b, r in enumerate(rows):
                if r is not None:
                    dense[b].reshape(-1)[:len(r)] = r
        else:
            dense = np.array([(r if r is not None else default).reshape(shape) for r in rows],
                             dtype=default.dtype).reshape([len(rows)] + list(shape))
        out_dense.append(dense if batched else dense[0])
    return tuple(out_indices + out_values + out_shapes + out_dense)


def _sample(serialized, sparse, dense, note, batched=True):
    """sparse: [(key, np type)]; dense: [(key, default array, shape)]."""
    return Sample({"serialized": np.array(serialized, dtype=object) if batched else np.array(serialized[0], object),
                   "names": np.array([], dtype=object),
                   "sparse_keys": np.array([k.encode() for k, _ in sparse], dtype=object),
                   "dense_keys": np.array([k.encode() for k, _, _ in dense], dtype=object),
                   "ragged_keys": np.array([], dtype=object),
                   "dense_defaults": [d for _, d, _ in dense]},
                  {"num_sparse": len(sparse), "sparse_types": [tx.as_dtype(t) for _, t in sparse],
                   "ragged_value_types": [], "ragged_split_types": [], "dense_shapes": [s for _, _, s in dense]},
                  note=note)


_EX = [_example(x=[1.5, 2.0], tag=[b"cat"], n=[3], seq=[1.0, 2.0, 3.0, 4.0]),
       _example(x=[0.5, -1.0], n=[4, 5], seq=[9.0, 8.0]),
       _example(x=[7.0, 8.0], tag=[b"a", b"b" * 40])]
_NONE_F = np.array([], np.float32)
_SAMPLES = [
    _sample(_EX, [("n", np.int64), ("tag", object)], [("x", _NONE_F, [2])], "sparse and a required dense"),
    _sample(_EX, [], [("missing", np.array(-1, np.int64), []), ("x", _NONE_F, [1, 2])],
            "a default; a [1, 2] shape"),
    _sample(_EX, [], [("seq", np.array([0.5], np.float32), [-1, 2])], "variable rows, padded"),
    _sample(_EX, [], [("tag", np.array([b""], dtype=object), [-1])], "variable-length strings"),
    _sample(_EX[:1], [("tag", object)], [("x", _NONE_F, [2])], "one scalar Example", batched=False),
    _sample([], [("n", np.int64)], [("x", np.zeros(2, np.float32), [2])], "no Examples"),
]
def _error(serialized, dense, match):
    sample = _sample(serialized, [], dense, "")
    return ErrorSample(sample.inputs, sample.attrs, match=match, when="runtime")


_ERRORS = [
    _error(_EX, [("x", _NONE_F, [3])],
           r"Key: x, Index: 0.  Number of float values != expected.  Values size: 2 but output shape: \[3\]"),
    _error(_EX, [("x", np.array([], np.int64), [2])],
           "Data types don't match. Data type: float but expected type: int64"),
    _error(_EX, [("zz", _NONE_F, [1])], r"Feature: zz \(data type: float\) is required but could not be found"),
    _error([b"\x0a\xff\xff"], [("x", _NONE_F, [2])], "Could not parse example input"),
]

ENTRIES = [OpEntry("ParseExampleV2", _SAMPLES, ref=_ref, errors=_ERRORS)]
