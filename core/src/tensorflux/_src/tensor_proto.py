"""``tx.make_tensor_proto`` and ``tx.make_ndarray``: NumPy values to and from TensorProto, in
TensorFlow's wire layout (Note [TensorProto layout]), so protos round-trip with TensorFlow's."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.constant_op import to_numpy

# Note [TensorProto layout]
# TensorFlow writes a tensor of a fixed-width numeric dtype (not uint16) with more than one element, and as
# many values as its shape holds, as raw little-endian bytes in ``tensor_content``; everything else
# (one element, fewer values than the shape holds, bool, complex, string, uint16) goes into the
# typed repeated field below, and a reader repeats the last value to fill the shape (zeros when
# there is none). half-precision values are stored as their 16 bits in ``half_val``.
_CONTENT_DTYPES = frozenset(["bfloat16", "float16", "float32", "float64", "int32", "uint8", "int16", "int8", "int64",
                             "uint32", "uint64"])
_FIELD = {"float16": "half_val", "bfloat16": "half_val", "float32": "float_val", "float64": "double_val",
          "int32": "int_val", "int16": "int_val", "int8": "int_val", "uint8": "int_val", "uint16": "int_val",
          "int64": "int64_val", "uint32": "uint32_val", "uint64": "uint64_val", "complex64": "scomplex_val",
          "complex128": "dcomplex_val", "bool": "bool_val", "string": "string_val"}


def _tensor_pb2():
    from tensorflux.proto import tensor_pb2

    return tensor_pb2


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto holding ``values`` (a Python or NumPy value, or an eager tensor) as
    ``dtype`` (inferred as for tx.constant when None) and ``shape`` (the value's when None; a
    scalar or fewer values fill a larger shape by repeating the last one).

    >>> proto = tx.make_tensor_proto([[1.0, 2.0], [3.0, 4.0]])
    >>> [d.size for d in proto.tensor_shape.dim], len(proto.tensor_content)
    ([2, 2], 16)
    """
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if isinstance(values, EagerTensor):
        values = values.numpy()
    arr = to_numpy(values, dtype)
    if dtype is None:
        dtype = _dtypes.string if arr.dtype == object else _dtypes.as_dtype(arr.dtype)
    if dtype.name not in _FIELD:
        raise TypeError("make_tensor_proto: unsupported dtype %s" % dtype.name)
    if shape is None:
        shape, same_size = list(arr.shape), True
    else:
        shape = [int(d) for d in shape]
        total = int(np.prod(shape, dtype=np.int64))
        same_size = total == arr.size
        if allow_broadcast:
            if arr.shape not in ((1,), ()) and arr.size != total:
                raise TypeError("Expected Tensor's shape: %s, but got %s." % (tuple(shape), arr.shape))
        else:
            if verify_shape and arr.shape != tuple(shape):
                raise TypeError("Expected Tensor's shape: %s, but got %s." % (tuple(shape), arr.shape))
            if arr.size > total:
                raise ValueError("Too many elements provided. Takes at most %d, but got %d." % (total, arr.size))
    pb = _tensor_pb2()
    proto = pb.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()  # written even for a scalar, as TensorFlow does
    for d in shape:
        proto.tensor_shape.dim.add(size=d)
    if same_size and dtype.name in _CONTENT_DTYPES and arr.size > 1:
        proto.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        return proto
    flat = arr.reshape(-1)
    field = getattr(proto, _FIELD[dtype.name])
    if dtype.name in ("float16", "bfloat16"):
        field.extend(flat.view(np.uint16).astype(np.int64).tolist())
    elif dtype.is_complex:
        field.extend(np.stack([flat.real, flat.imag], axis=-1).reshape(-1).tolist())
    elif dtype == _dtypes.string:
        field.extend(v if isinstance(v, bytes) else str(v).encode("utf-8") for v in flat)
    else:
        field.extend(flat.tolist())
    return proto


def make_ndarray(tensor):
    """The NumPy array a TensorProto holds (its dtype and shape; TypeError for dtypes without a
    NumPy equivalent here).

    >>> tx.make_ndarray(tx.make_tensor_proto([1, 2, 3]))
    array([1, 2, 3], dtype=int32)
    """
    dtype = _dtypes.as_dtype(tensor.dtype)
    if dtype.name not in _FIELD:
        raise TypeError("make_ndarray: unsupported dtype %s" % dtype.name)
    shape = [d.size for d in tensor.tensor_shape.dim]
    total = int(np.prod(shape, dtype=np.int64))
    np_dtype = object if dtype == _dtypes.string else dtype.as_numpy_dtype
    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=np.dtype(np_dtype).newbyteorder("<")) \
            .astype(np_dtype).reshape(shape)
    field = list(getattr(tensor, _FIELD[dtype.name]))
    if dtype == _dtypes.string:
        if len(field) < total:
            field += [field[-1] if field else b""] * (total - len(field))
        out = np.empty(len(field), dtype=object)
        out[:] = field
        return out.reshape(shape)
    if dtype.name in ("float16", "bfloat16"):
        values = np.array(field, dtype=np.uint16).view(np_dtype)
    elif dtype.is_complex:
        pairs = np.array(field, dtype=np.float32 if dtype == _dtypes.complex64 else np.float64).reshape(-1, 2)
        values = (pairs[:, 0] + 1j * pairs[:, 1]).astype(np_dtype)
    else:
        values = np.array(field, dtype=np_dtype)
    if values.size == 0:
        return np.zeros(shape, dtype=np_dtype)
    if values.size != total:
        values = np.pad(values, (0, total - values.size), "edge")
    return values.reshape(shape)
