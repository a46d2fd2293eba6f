"""Lookup tables (``tx.lookup``, like ``tf.lookup``); docs/lookup.md."""

from types import SimpleNamespace as _Namespace

from tensorflux._src.lookup_ops import (KeyValueTensorInitializer, MutableHashTable, StaticHashTable,
                                        StaticVocabularyTable)

# tf.lookup.experimental.MutableHashTable's name.
experimental = _Namespace(MutableHashTable=MutableHashTable)

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "experimental"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)
