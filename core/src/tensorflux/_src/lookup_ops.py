"""Lookup tables (``tx.lookup``, like ``tf.lookup``): StaticHashTable filled once by an
initializer, StaticVocabularyTable with hash buckets for out-of-vocabulary keys, and the
experimental MutableHashTable; docs/lookup.md.

A table lives in the engine (HashTableV2 / MutableHashTableV2, Note [Lookup tables] in
csrc/tensorflux/kernels/cpu/lookup_table.cc). In eager mode, and when a table is made while a
``tx.function`` is traced, it is created and filled at once, outside any graph (TensorFlow 2's
behaviour); the function captures its handle. In graph mode the table op and its initializer are
added to the default graph: run ``tx.compat.v1.tables_initializer()`` (or the initializer) in the
session before the first lookup, as in TensorFlow 1.
"""

import itertools

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import graph as _graph
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.sparse_tensor import SparseTensor

_anonymous = itertools.count()


def _table_initializers(g):
    """The initializer ops of the tables made in graph ``g``, in creation order."""
    ops = getattr(g, "_table_initializers", None)
    if ops is None:
        ops = g._table_initializers = []
    return ops


def tables_initializer(name="init_all_tables"):
    """An op that fills every table of the default graph (tf.compat.v1.tables_initializer).

    >>> with tx.Graph().as_default():
    ...     table = tx.lookup.StaticHashTable(
    ...         tx.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2], value_dtype=tx.int64), -1)
    ...     ids = table.lookup(tx.constant(["b", "z"]))
    ...     with tx.Session() as sess:
    ...         sess.run(tx.compat.v1.tables_initializer())
    ...         print(sess.run(ids))
    [ 2 -1]
    """
    g = _graph.get_default_graph()
    with g.control_dependencies(list(_table_initializers(g))):
        return gen_ops.no_op(name=name)


class KeyValueTensorInitializer:
    """Fills a table from a vector of keys and a vector of values of the same length
    (tf.lookup.KeyValueTensorInitializer)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._name = name or "key_value_init"
        if _context.inside_function() and not isinstance(keys, _TENSORS) and not isinstance(values, _TENSORS):
            # Python values made while a function is traced fill a table made outside it.
            with _context.init_scope():
                self._keys = convert_to_tensor(keys, dtype=key_dtype)
                self._values = convert_to_tensor(values, dtype=value_dtype)
        else:
            self._keys = convert_to_tensor(keys, dtype=key_dtype)
            self._values = convert_to_tensor(values, dtype=value_dtype)

    @property
    def key_dtype(self):
        return self._keys.dtype

    @property
    def value_dtype(self):
        return self._values.dtype

    def initialize(self, table):
        """The op (None in eager mode, where it runs at once) that fills ``table``."""
        return gen_ops.lookup_table_import_v2(table.resource_handle, self._keys, self._values, name=self._name)


def _keys_as(keys, dtype):
    """``keys`` as a tensor of ``dtype``: a tensor must have it already (as in TensorFlow); Python and
    NumPy values convert to it."""
    if isinstance(keys, _TENSORS) and keys.dtype != dtype:
        raise TypeError("Dtype of argument `keys` must be %s, received: %s" % (dtype.name, keys.dtype.name))
    return convert_to_tensor(keys, dtype=dtype)


def _in_table_scope(make):
    """Runs ``make()`` where tables are created: eagerly (outside any function being traced) in
    eager mode, else in the default graph. Returns (result, eager)."""
    if _context.executing_eagerly() or _context.inside_function():
        with _context.init_scope():
            return make(), True
    return make(), False


class _Table:
    """What every table has: its handle, dtypes, lookup, size and export."""

    def __init__(self, key_dtype, value_dtype, default_value, name, mutable):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        self._name = name
        op = gen_ops.mutable_hash_table_v2 if mutable else gen_ops.hash_table_v2

        def make():
            # Eager tables are anonymous (a fresh shared name each); graph tables are their node's.
            eager = _context.executing_eagerly()
            shared = "%s_%d" % (name, next(_anonymous)) if eager else ""
            handle = op(key_dtype=self._key_dtype, value_dtype=self._value_dtype, shared_name=shared, name=name)
            return handle, convert_to_tensor(default_value, dtype=self._value_dtype)

        (self._handle, self._default_value), self._eager = _in_table_scope(make)

    key_dtype = property(lambda self: self._key_dtype, doc="The dtype of the keys.")
    value_dtype = property(lambda self: self._value_dtype, doc="The dtype of the values.")
    default_value = property(lambda self: self._default_value, doc="The value of absent keys.")
    resource_handle = property(lambda self: self._handle, doc="The table's resource handle tensor.")
    name = property(lambda self: self._name, doc="The table's name.")

    def _keys(self, keys):
        return _keys_as(keys, self._key_dtype)

    def lookup(self, keys, name=None):
        """The value of each key (a tensor or SparseTensor of keys), the default where absent."""
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values, name), keys.dense_shape)
        return gen_ops.lookup_table_find_v2(self._handle, self._keys(keys), self._default_value, name=name)

    __getitem__ = lookup

    def size(self, name=None):
        """The number of entries (int64 scalar)."""
        return gen_ops.lookup_table_size_v2(self._handle, name=name)

    def export(self, name=None):
        """Every key and its value, as two vectors in an unspecified order."""
        return gen_ops.lookup_table_export_v2(self._handle, Tkeys=self._key_dtype, Tvalues=self._value_dtype,
                                              name=name)


class StaticHashTable(_Table):
    """A table filled once by ``initializer`` and read-only after (tf.lookup.StaticHashTable).

    >>> table = tx.lookup.StaticHashTable(
    ...     tx.lookup.KeyValueTensorInitializer(["cat", "dog"], [3, 7], value_dtype=tx.int64), default_value=-1)
    >>> table.lookup(tx.constant(["dog", "eel", "cat"])).numpy()
    array([ 7, -1,  3])
    >>> int(table.size())
    2
    """

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        super().__init__(initializer.key_dtype, initializer.value_dtype, default_value, name or "hash_table",
                         mutable=False)
        self._initializer = initializer
        if self._eager:
            with _context.init_scope():
                initializer.initialize(self)
            self._init_op = None
        else:
            self._init_op = initializer.initialize(self)
            _table_initializers(_graph.get_default_graph()).append(self._init_op)

    @property
    def initializer(self):
        """The op that fills the table in graph mode (None for an eager table, filled at creation)."""
        return self._init_op


class StaticVocabularyTable:
    """Maps each key of a vocabulary to its id, and every other key to one of ``num_oov_buckets``
    ids after the vocabulary's, by its FarmHash fingerprint (tf.lookup.StaticVocabularyTable).

    >>> table = tx.lookup.StaticVocabularyTable(
    ...     tx.lookup.KeyValueTensorInitializer(["a", "b"], [0, 1], value_dtype=tx.int64), num_oov_buckets=3)
    >>> table.lookup(tx.constant(["b", "a", "zebra"])).numpy()
    array([1, 0, 4])
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("StaticVocabularyTable: num_oov_buckets must be > 0, got %r" % (num_oov_buckets,))
        if initializer.value_dtype != _dtypes.int64:
            raise TypeError("StaticVocabularyTable: the initializer's values must be int64, got %s"
                            % initializer.value_dtype.name)
        if initializer.key_dtype not in (_dtypes.string, _dtypes.int64):
            raise TypeError("StaticVocabularyTable: keys must be string or int64, got %s" % initializer.key_dtype.name)
        self._num_oov_buckets = int(num_oov_buckets)
        self._table = StaticHashTable(initializer, -1, name=name or "hash_table")
        self._key_dtype = _dtypes.as_dtype(lookup_key_dtype or initializer.key_dtype)

    key_dtype = property(lambda self: self._key_dtype, doc="The dtype of the keys.")
    value_dtype = property(lambda self: _dtypes.int64, doc="int64: the ids.")
    resource_handle = property(lambda self: self._table.resource_handle, doc="The vocabulary table's handle.")
    initializer = property(lambda self: self._table.initializer, doc="The vocabulary table's initializer op.")

    def size(self, name=None):
        """The number of ids: the vocabulary's size plus num_oov_buckets."""
        return self._table.size(name) + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """The id of each key (a tensor or SparseTensor of keys)."""
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values, name), keys.dense_shape)
        keys = _keys_as(keys, self._key_dtype)
        ids = self._table.lookup(keys)
        text = keys if keys.dtype == _dtypes.string else gen_ops.as_string(keys)
        buckets = gen_ops.string_to_hash_bucket_fast(text, num_buckets=self._num_oov_buckets)
        buckets = buckets + self._table.size()
        return gen_ops.select_v2(gen_ops.not_equal(ids, self._table.default_value), ids, buckets, name=name)

    __getitem__ = lookup


class MutableHashTable(_Table):
    """A table whose entries change at any time: ``insert``, ``remove``, ``lookup``
    (tf.lookup.experimental.MutableHashTable). Not saved by tx.train.Checkpoint (export() and
    insert() carry its entries).

    >>> table = tx.lookup.experimental.MutableHashTable(tx.string, tx.float32, default_value=0.0)
    >>> table.insert(tx.constant(["x", "y"]), tx.constant([1.5, 2.5]))
    >>> table.remove(tx.constant(["x"]))
    >>> table.lookup(tx.constant(["x", "y"])).numpy()
    array([0. , 2.5], dtype=float32)
    """

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True):
        super().__init__(key_dtype, value_dtype, default_value, name, mutable=True)

    def insert(self, keys, values, name=None):
        """Sets the value of each key (values has the keys' shape); an op in graph mode."""
        values = convert_to_tensor(values, dtype=self._value_dtype)
        return gen_ops.lookup_table_insert_v2(self._handle, self._keys(keys), values, name=name)

    def remove(self, keys, name=None):
        """Removes the keys (absent ones are ignored); an op in graph mode."""
        return gen_ops.lookup_table_remove_v2(self._handle, self._keys(keys), name=name)
