"""Random-access sources over arrays on disk, memory-mapped: NumPy .npy files and safetensors files.
Their iterator state is an index; nothing is read before it is needed."""

import json
import os
import struct

import numpy as np

import tensorflux as tx

from tensorflux_data._base import invalid
from tensorflux_data._sources import TensorSlicesDataset

_SAFETENSORS_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
                       "I8": "i1", "U8": "u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "?"}


def _missing(path):
    return tx.errors.NotFoundError(None, None, "%s: No such file or directory" % path)


def _npy(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise _missing(path)
    try:
        return np.asarray(np.load(path, mmap_mode="r", allow_pickle=False))
    except ValueError as e:
        raise invalid("%s: not a .npy file of numbers (%s)" % (path, e)) from None


def from_npy(paths):
    """One element per row of NumPy ``.npy`` files, memory-mapped: ``paths`` is a path or a tuple/dict
    of paths (the elements then have that structure); all files need the same number of rows.

    >>> import os, tempfile, numpy as np, tensorflux_data as txd
    >>> path = os.path.join(tempfile.mkdtemp(), "x.npy"); np.save(path, np.arange(6).reshape(3, 2))
    >>> [r.numpy().tolist() for r in txd.experimental.from_npy(path)]
    [[0, 1], [2, 3], [4, 5]]
    """
    if isinstance(paths, dict):
        return TensorSlicesDataset({k: _npy(p) for k, p in paths.items()})
    if isinstance(paths, tuple):
        return TensorSlicesDataset(tuple(_npy(p) for p in paths))
    return TensorSlicesDataset(_npy(paths))


def _safetensors(path):
    """{name: memory-mapped array} of a safetensors file; InvalidArgumentError naming the file when
    its header is malformed."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise _missing(path)
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        n = struct.unpack("<Q", head)[0] if len(head) == 8 else -1
        if not 0 < n <= size - 8:
            raise invalid("%s: not a safetensors file (header length %d of a %d-byte file)" % (path, n, size))
        try:
            header = json.loads(f.read(n))
        except ValueError as e:
            raise invalid("%s: the safetensors header is not JSON (%s)" % (path, e)) from None
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_SAFETENSORS_DTYPES[info["dtype"]])
            begin, end = (int(v) for v in info["data_offsets"])
            shape = [int(d) for d in info["shape"]]
        except (KeyError, TypeError, ValueError):
            raise invalid("%s: tensor %r has an unsupported or malformed entry %r" % (path, name, info)) from None
        count = int(np.prod(shape)) if shape else 1
        if end - begin != count * dtype.itemsize or 8 + n + end > size or begin < 0:
            raise invalid("%s: tensor %r's data offsets %s do not fit its shape %s and dtype %s"
                          % (path, name, [begin, end], shape, info["dtype"]))
        out[name] = np.asarray(np.memmap(path, dtype=dtype, mode="r", offset=8 + n + begin, shape=tuple(shape)))
    return out


def from_safetensors(path, keys=None):
    """One element per row of the tensors of a safetensors file, memory-mapped: a dict of the tensors
    named by ``keys`` (default: all), which need the same number of rows.

    >>> import os, tempfile, numpy as np, tensorflux_data as txd
    >>> from safetensors.numpy import save_file
    >>> path = os.path.join(tempfile.mkdtemp(), "d.safetensors")
    >>> save_file({"x": np.ones((2, 3), np.float32), "y": np.array([4, 5])}, path)
    >>> [int(e["y"]) for e in txd.experimental.from_safetensors(path)]
    [4, 5]
    """
    tensors = _safetensors(path)
    if keys is not None:
        unknown = sorted(set(keys) - set(tensors))
        if unknown:
            raise invalid("%s has no tensors %s (it has %s)" % (path, unknown, sorted(tensors)))
        tensors = {k: tensors[k] for k in keys}
    return TensorSlicesDataset(tensors)
