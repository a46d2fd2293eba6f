"""tf.train.Example parsing (``tx.io.parse_example``, ``tx.io.parse_single_example``) and the
feature descriptions ``FixedLenFeature``, ``FixedLenSequenceFeature`` and ``VarLenFeature``, like
tf.io's. The ParseExampleV2 kernel does the work (Note [Parsing Examples] in
csrc/tensorflux/kernels/cpu/parse_example.cc); docs/parsing.md."""

import collections

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.sparse_tensor import SparseTensor
from tensorflux._src.tensor_shape import as_shape

_TYPES = (_dtypes.float32, _dtypes.int64, _dtypes.string)


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with exactly ``prod(shape)`` values per Example, parsed into a dense tensor;
    ``default_value`` (of ``shape``) stands in where an Example lacks it, else the feature is required."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature with any number of rows of ``shape`` per Example, parsed into a dense tensor of
    shape ``[batch, rows, *shape]`` padded with ``default_value`` (a scalar; zero when None)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values per Example, parsed into a SparseTensor."""


def _check_dtype(key, dtype):
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _TYPES:
        raise ValueError("Feature %r: dtype %s is not supported: a tf.train.Example holds float32, int64 or string"
                         % (key, dtype.name))
    return dtype


def _np_dtype(dtype):
    """The NumPy dtype of values of ``dtype`` (object for strings)."""
    return object if dtype == _dtypes.string else dtype.as_numpy_dtype


def _raw_params(features):
    """(sparse keys, sparse types, dense keys, dense types, dense shapes, dense defaults) in key order."""
    if not features:
        raise ValueError("parse_example: `features` must hold at least one feature")
    sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults = [], [], [], [], [], []
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, VarLenFeature):
            sparse_keys.append(key)
            sparse_types.append(_check_dtype(key, feature.dtype))
        elif isinstance(feature, FixedLenFeature):
            dtype = _check_dtype(key, feature.dtype)
            shape = as_shape(feature.shape)
            if not shape.is_fully_defined():
                raise ValueError("FixedLenFeature %r: shape %s must be fully defined (FixedLenSequenceFeature "
                                 "takes a variable number of rows)" % (key, shape))
            if feature.default_value is None:
                default = convert_to_tensor(np.zeros([0], _np_dtype(dtype)), dtype=dtype)
            else:
                value = np.asarray(feature.default_value, dtype=_np_dtype(dtype))
                if value.size != shape.num_elements():
                    raise ValueError("FixedLenFeature %r: default_value has %d values; shape %s needs %d"
                                     % (key, value.size, shape, shape.num_elements()))
                default = convert_to_tensor(value.reshape(shape.as_list()), dtype=dtype)
            dense_keys.append(key)
            dense_types.append(dtype)
            dense_shapes.append(shape)
            dense_defaults.append(default)
        elif isinstance(feature, FixedLenSequenceFeature):
            dtype = _check_dtype(key, feature.dtype)
            if not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature %r requires allow_missing to be True." % key)
            shape = as_shape(feature.shape)
            if not shape.is_fully_defined():
                raise ValueError("FixedLenSequenceFeature %r: shape %s must be fully defined" % (key, shape))
            if feature.default_value is not None and np.size(feature.default_value) != 1:
                raise ValueError("FixedLenSequenceFeature %r: default_value must be a scalar" % key)
            # The padding value, or none (the kernel pads with zeros / empty strings).
            value = [] if feature.default_value is None else [feature.default_value]
            dense_keys.append(key)
            dense_types.append(dtype)
            dense_shapes.append(as_shape([None] + shape.as_list()))
            dense_defaults.append(convert_to_tensor(np.asarray(value, dtype=_np_dtype(dtype)), dtype=dtype))
        else:
            raise ValueError("Feature %r: %r is not a FixedLenFeature, FixedLenSequenceFeature or VarLenFeature "
                             "(RaggedFeature and SparseFeature are not supported yet)" % (key, feature))
    return sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults


def _strings(values):
    """A string vector of ``values`` (possibly empty)."""
    return convert_to_tensor(np.asarray(values, dtype=object).reshape(-1), dtype=_dtypes.string)


def parse_example(serialized, features, example_names=None, name=None):
    """Parses a vector of serialized tf.train.Example protos: a dict from each key of ``features``
    to a dense tensor of shape ``[batch, *shape]`` (FixedLenFeature), ``[batch, rows, *shape]``
    (FixedLenSequenceFeature) or a SparseTensor of dense shape ``[batch, longest]`` (VarLenFeature).

    >>> record = tx.train.Example(features=tx.train.Features(feature={
    ...     "x": tx.train.Feature(float_list=tx.train.FloatList(value=[1.5, 2.0])),
    ...     "tag": tx.train.Feature(bytes_list=tx.train.BytesList(value=[b"cat"]))})).SerializeToString()
    >>> parsed = tx.io.parse_example([record, record], {"x": tx.io.FixedLenFeature([2], tx.float32),
    ...                                                 "tag": tx.io.VarLenFeature(tx.string)})
    >>> parsed["x"].numpy()
    array([[1.5, 2. ],
           [1.5, 2. ]], dtype=float32)
    >>> parsed["tag"].values.numpy()
    array([b'cat', b'cat'], dtype=object)
    """
    sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults = _raw_params(features)
    serialized = convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
    names = convert_to_tensor([] if example_names is None else example_names, dtype=_dtypes.string)
    out = gen_ops.parse_example_v2(serialized, names, _strings(sparse_keys), _strings(dense_keys), _strings([]),
                                   dense_defaults, num_sparse=len(sparse_keys), sparse_types=sparse_types,
                                   ragged_value_types=[], ragged_split_types=[], dense_shapes=dense_shapes,
                                   name=name)
    indices, values, shapes, dense = out[0], out[1], out[2], out[3]
    parsed = {key: SparseTensor(i, v, s) for key, i, v, s in zip(sparse_keys, indices, values, shapes)}
    parsed.update(zip(dense_keys, dense))
    return parsed


def parse_single_example(serialized, features, example_names=None, name=None):
    """Parses one serialized tf.train.Example (a scalar): like ``parse_example`` without the batch
    dimension (a VarLenFeature's SparseTensor has dense shape ``[count]``).

    >>> record = tx.train.Example(features=tx.train.Features(feature={
    ...     "id": tx.train.Feature(int64_list=tx.train.Int64List(value=[7]))})).SerializeToString()
    >>> int(tx.io.parse_single_example(record, {"id": tx.io.FixedLenFeature([], tx.int64)})["id"])
    7
    """
    serialized = convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
    if serialized.shape.rank not in (None, 0):
        raise ValueError("parse_single_example: serialized must be a scalar, got shape %s" % serialized.shape)
    names = None if example_names is None else np.asarray(example_names, dtype=object).reshape(-1)
    return parse_example(serialized, features, names, name)
