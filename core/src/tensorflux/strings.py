"""String functions (``tx.strings.*``, like ``tf.strings``); docs/strings.md."""

from tensorflux._src.string_ops import (SparseStrings, as_string, bytes_split, format, join, length, lower,
                                       reduce_join, regex_full_match, regex_replace, split, strip, substr,
                                       to_hash_bucket, to_hash_bucket_fast, to_hash_bucket_strong, to_number, upper)

__all__ = ["SparseStrings", "as_string", "bytes_split", "format", "join", "length", "lower", "reduce_join",
           "regex_full_match", "regex_replace", "split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
           "to_hash_bucket_strong", "to_number", "upper"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
