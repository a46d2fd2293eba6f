"""Nested structures (``tx.nest``, like ``tf.nest``): flatten, pack and map lists, tuples,
namedtuples and dicts (dicts in sorted key order)."""

from tensorflux._src.nest import (assert_same_structure, flatten, flatten_with_joined_string_paths,
                                  flatten_with_paths, is_nested, map_structure, pack_sequence_as)

__all__ = ["assert_same_structure", "flatten", "flatten_with_joined_string_paths", "flatten_with_paths",
           "is_nested", "map_structure", "pack_sequence_as"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
