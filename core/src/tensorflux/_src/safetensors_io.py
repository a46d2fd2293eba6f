"""Checkpoint files in the safetensors format (https://github.com/huggingface/safetensors).

The engine reads and writes the files (through the C API, so every front end shares one
implementation); this module converts between them and NumPy arrays. Files are interchangeable
with the ``safetensors`` package's. Supported dtypes: float64, float32, float16, bfloat16
(``ml_dtypes``), complex64, int64/32/16/8, uint64/32/16/8 and bool.
"""

import os

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import lib as _lib

__all__ = ["load_file", "load_metadata", "save_file"]


def _path_bytes(path):
    return os.fsencode(os.fspath(path))


def _as_savable(name, value):
    """(dtype enum, native-byte-order array) for one tensor; TypeError for unsupported dtypes."""
    array = np.asarray(value)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    try:
        dtype = _dtypes.as_dtype(array.dtype)
    except TypeError:
        dtype = None
    text = array.dtype.kind in "SU" or (array.dtype.kind == "O" and array.size > 0 and
                                        all(isinstance(x, (bytes, str)) for x in array.reshape(-1)))
    if text:  # a string tensor's value
        raise TypeError("tensor %r has type string, which the safetensors format cannot hold (it has no string "
                        "type)" % (name,))
    if dtype is None or dtype == _dtypes.string:
        raise TypeError("tensor %r: arrays of dtype %s cannot be saved in a safetensors file" % (name, array.dtype))
    return dtype.as_datatype_enum, array


def save_file(tensors, path, metadata=None):
    """Writes ``tensors`` (a mapping of non-empty ``str`` names to arrays) and optional
    ``metadata`` (``str`` to ``str``) to ``path`` atomically: the data goes to a temporary file
    that is fsynced and renamed over ``path``, so a failed save leaves any previous file intact.

    Raises TypeError for non-string names or metadata and unsupported dtypes, and
    ``tx.errors.InvalidArgumentError`` for names the format rejects (empty, ``"__metadata__"``).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.safetensors")
    >>> tx.train.save_safetensors({"a": np.arange(3, dtype=np.float32)}, path)
    >>> tx.train.load_safetensors(path)["a"]
    array([0., 1., 2.], dtype=float32)
    """
    if not hasattr(tensors, "items"):
        raise TypeError("tensors must be a mapping of names to arrays, not %s" % type(tensors).__name__)
    names, items = [], []
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError("tensor names must be str, not %s" % type(name).__name__)
        names.append(name)
        items.append(_as_savable(name, value))
    meta = []
    for key, value in (metadata or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("metadata keys and values must be str, got %r: %r" % (key, value))
        meta.append((key, value))
    _lib.c.save_safetensors(_path_bytes(path), names, items, meta)


def load_file(path):
    """Reads every tensor of the safetensors file at ``path`` into a dict of NumPy arrays, in the
    file's order (scalars come back as 0-d arrays). A corrupt file raises
    ``tx.errors.DataLossError`` naming the file and the problem; a missing one ``NotFoundError``."""
    tensors, _ = _lib.c.load_safetensors(_path_bytes(path))
    return {name: np.asarray(value) for name, value in tensors}


def load_metadata(path):
    """The ``__metadata__`` of the safetensors file at ``path`` as a dict (empty when it has none),
    reading only the header (which is checked in full, as by ``load_file``)."""
    return _lib.c.load_safetensors_metadata(_path_bytes(path))
