"""File and byte functions (``tx.io.*``, like ``tf.io``): files, base64 and raw bytes."""

from tensorflux._src.io_ops import decode_base64, decode_raw, encode_base64, read_file, write_file

__all__ = ["decode_base64", "decode_raw", "encode_base64", "read_file", "write_file"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
