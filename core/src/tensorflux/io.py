"""File and byte functions (``tx.io.*``, like ``tf.io``): files, base64, raw bytes and
tf.train.Example parsing (docs/parsing.md)."""

from tensorflux._src.io_ops import decode_base64, decode_raw, encode_base64, read_file, write_file
from tensorflux._src.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, parse_example,
                                        parse_single_example)

__all__ = ["decode_base64", "decode_raw", "encode_base64", "read_file", "write_file",
           "FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "parse_example", "parse_single_example"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
