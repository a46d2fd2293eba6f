"""File and byte functions (``tx.io.*``, like ``tf.io``): reading and writing files, base64 and
reinterpreting bytes as numbers."""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops

__all__ = ["read_file", "write_file", "decode_raw", "encode_base64", "decode_base64"]


def _strings(x, name):
    return convert_to_tensor(x, dtype=_dtypes.string, name=name)


def read_file(filename, name=None):
    """The bytes of file ``filename`` as a scalar string tensor; a missing file is a NotFoundError.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "greeting.txt")
    >>> tx.io.write_file(path, "hello")
    >>> tx.io.read_file(path).numpy()
    b'hello'
    """
    return gen_ops.read_file(_strings(filename, "filename"), name=name)


def write_file(filename, contents, name=None):
    """Writes the scalar string ``contents`` to ``filename`` (creating missing directories); eagerly
    returns None, in a graph the op to run.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out", "note.txt")
    >>> tx.io.write_file(path, b"\\x00\\x01")
    >>> len(tx.io.read_file(path).numpy())
    2
    """
    return gen_ops.write_file(_strings(filename, "filename"), _strings(contents, "contents"), name=name)


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """The bytes of each string (all of one length) reinterpreted as a vector of ``out_type``,
    appended as a new last dimension. ``fixed_length`` (TensorFlow's DecodePaddedRaw) is not
    implemented.

    >>> tx.io.decode_raw([b"\\x01\\x00\\x02\\x00"], tx.int16).numpy()
    array([[1, 2]], dtype=int16)
    """
    if fixed_length is not None:
        raise NotImplementedError("tx.io.decode_raw(fixed_length=...) (TensorFlow's DecodePaddedRaw op) is not "
                                  "implemented in Tensorflux")
    return gen_ops.decode_raw(_strings(input_bytes, "input_bytes"), out_type=out_type, little_endian=little_endian,
                              name=name)


def encode_base64(input, pad=False, name=None):  # noqa: A002 (TensorFlow's name)
    """Each string in web-safe base64 ('-' and '_' for '+' and '/'), '='-padded when ``pad``.

    >>> tx.io.encode_base64("hello?>").numpy()
    b'aGVsbG8_Pg'
    """
    return gen_ops.encode_base64(_strings(input, "input"), pad=pad, name=name)


def decode_base64(input, name=None):  # noqa: A002
    """Each web-safe base64 string decoded ('=' padding optional); other characters are an
    InvalidArgumentError.

    >>> tx.io.decode_base64("aGVsbG8_Pg").numpy()
    b'hello?>'
    """
    return gen_ops.decode_base64(_strings(input, "input"), name=name)
