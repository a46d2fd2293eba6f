"""``tx.SparseTensor`` and ``tx.SparseTensorSpec``: TensorFlow's sparse representation, three
tensors (Note [SparseTensor components] in csrc/tensorflux/ops/sparse_util.h) bundled in Python.

``indices`` is int64 ``[nnz, rank]``, ``values`` is ``[nnz]`` and ``dense_shape`` is int64
``[rank]``. Constructing one checks only the static shapes of the components, as TensorFlow does;
the ops that read the indices check their values (bounds, and order where an op needs it).
A SparseTensor is a composite (Note [Composite tensors]): a tx.function takes it as its three
component tensors and traces once per (values dtype, rank).
"""

import numpy as np

from tensorflux._src import composite as _composite
from tensorflux._src import dtypes as _dtypes
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.tensor_shape import TensorShape, as_shape
from tensorflux._src.graph import name_scope
from tensorflux._src.function import TensorSpec


def _static_vector(t):
    """The value of 1-D tensor ``t`` when it is known now (eager, or a Const op), else None."""
    if hasattr(t, "numpy"):
        return [int(v) for v in np.asarray(t.numpy())]
    op = getattr(t, "op", None)
    if op is not None and op.type == "Const":
        return [int(v) for v in np.asarray(op.get_attr("value")).reshape(-1)]
    return None


class SparseTensor(_composite.CompositeTensor):
    """A sparse tensor: ``values[i]`` sits at ``indices[i]`` of a tensor of shape ``dense_shape``;
    every other element is zero. The indices should be in row-major order (``tx.sparse.reorder``
    puts them there); ops that need it say so.

    >>> st = tx.SparseTensor(indices=[[0, 1], [2, 3]], values=[1.0, 2.0], dense_shape=[3, 4])
    >>> st.shape, st.dtype
    (TensorShape([3, 4]), tx.float32)
    >>> tx.sparse.to_dense(st).numpy()
    array([[0., 1., 0., 0.],
           [0., 0., 0., 0.],
           [0., 0., 0., 2.]], dtype=float32)
    """

    __slots__ = ("_indices", "_values", "_dense_shape", "_shape")

    def __init__(self, indices, values, dense_shape):
        with name_scope("SparseTensor"):
            self._indices = indices if _is_int64_tensor(indices) else convert_to_tensor(indices, dtype=_dtypes.int64)
            self._values = values if isinstance(values, _TENSORS) else convert_to_tensor(values)
            self._dense_shape = (dense_shape if _is_int64_tensor(dense_shape)
                                 else convert_to_tensor(dense_shape, dtype=_dtypes.int64))
        ind, val, shp = self._indices.shape, self._values.shape, self._dense_shape.shape
        if ind.rank is not None and ind.rank != 2:
            raise ValueError("Shape %s must have rank 2 (SparseTensor indices are [nnz, rank])" % ind)
        if val.rank is not None and val.rank != 1:
            raise ValueError("Shape %s must have rank 1 (SparseTensor values are [nnz])" % val)
        if shp.rank is not None and shp.rank != 1:
            raise ValueError("Shape %s must have rank 1 (a SparseTensor's dense_shape is [rank])" % shp)
        if ind.rank == 2 and val.rank == 1 and None not in (ind[0], val[0]) and ind[0] != val[0]:
            raise ValueError("Dimensions %d and %d are not compatible: indices has %d rows but values has %d "
                             "elements" % (ind[0], val[0], ind[0], val[0]))
        if ind.rank == 2 and shp.rank == 1 and None not in (ind[1], shp[0]) and ind[1] != shp[0]:
            raise ValueError("Dimensions %d and %d are not compatible: indices has %d columns but dense_shape has "
                             "%d elements" % (ind[1], shp[0], ind[1], shp[0]))
        known = _static_vector(self._dense_shape)
        if known is not None:
            self._shape = TensorShape([None if d < 0 else d for d in known])
        else:
            rank = shp[0] if shp.rank == 1 else (ind[1] if ind.rank == 2 else None)
            self._shape = TensorShape(None) if rank is None else TensorShape([None] * rank)

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor from one (or from anything with ``indices``, ``values``, ``dense_shape``)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values, sparse_tensor_value.dense_shape)

    @property
    def indices(self):
        """The int64 ``[nnz, rank]`` coordinates of the stored values."""
        return self._indices

    @property
    def values(self):
        """The ``[nnz]`` stored values."""
        return self._values

    @property
    def dense_shape(self):
        """The int64 ``[rank]`` shape of the dense tensor this represents."""
        return self._dense_shape

    @property
    def dtype(self):
        """The dtype of the values."""
        return self._values.dtype

    @property
    def shape(self):
        """The static dense shape (a TensorShape; unknown dims where dense_shape is not constant)."""
        return self._shape

    def get_shape(self):
        """The static dense shape (same as ``shape``)."""
        return self._shape

    def set_shape(self, shape):
        """Refines the static dense shape; ValueError when ``shape`` is incompatible."""
        self._shape = self._shape.merge_with(as_shape(shape))

    @property
    def graph(self):
        """The graph of the component tensors (None eagerly)."""
        return getattr(self._values, "graph", None)

    @property
    def op(self):
        """The operation that produced the values."""
        return getattr(self._values, "op", None)

    def with_values(self, new_values):
        """A SparseTensor with the same indices and dense_shape and ``new_values`` (any dtype).

        >>> st = tx.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
        >>> st.with_values(st.values * 10).values.numpy()
        array([10., 20.], dtype=float32)
        """
        new_values = new_values if isinstance(new_values, _TENSORS) else convert_to_tensor(new_values)
        out = SparseTensor(self._indices, new_values, self._dense_shape)
        out._shape = self._shape
        return out

    def consumers(self):
        """The operations that use any of the three component tensors (graph mode)."""
        ops = []
        for t in (self._indices, self._values, self._dense_shape):
            for op in getattr(t, "consumers", lambda: [])():
                if op not in ops:
                    ops.append(op)
        return ops

    def _to_components(self):
        return [self._indices, self._values, self._dense_shape]

    @property
    def _type_spec(self):
        return SparseTensorSpec(self._shape, self.dtype)

    # ``*`` and ``/`` with a dense tensor: sparse_ops installs __mul__ and __truediv__ (Note [Import
    # layering]).

    def __bool__(self):
        raise TypeError("Using a tx.SparseTensor as a Python bool is not allowed; convert it with "
                        "tx.sparse.to_dense first")

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (self._indices, self._values,
                                                                         self._dense_shape)


def _is_int64_tensor(x):
    return isinstance(x, _TENSORS) and x.dtype == _dtypes.int64


class SparseTensorSpec(_composite.TypeSpec):
    """The type of a SparseTensor: its dense shape (possibly partial) and dtype, for
    ``input_signature`` and ``get_concrete_function``.

    >>> tx.SparseTensorSpec([None, 3], tx.float32)
    SparseTensorSpec(TensorShape([None, 3]), tx.float32)
    """

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=_dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def value_type(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        """The spec of a SparseTensor."""
        return value._type_spec

    def is_compatible_with(self, other):
        """Whether a SparseTensor (or spec) has this spec's dtype and a compatible shape."""
        spec = other._type_spec if isinstance(other, SparseTensor) else other
        return (isinstance(spec, SparseTensorSpec) and spec.dtype == self._dtype
                and self._shape.is_compatible_with(spec.shape))

    def _component_specs(self):
        rank = self._shape.rank
        return [TensorSpec([None, rank], _dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], _dtypes.int64)]

    def _from_components(self, components):
        indices, values, dense_shape = components
        if isinstance(indices, _composite.TypeSpec):  # packing specs: rebuild the spec itself
            return self
        st = SparseTensor(indices, values, dense_shape)
        if self._shape.rank is not None and st.shape.rank is not None and self._shape.is_compatible_with(st.shape):
            st._shape = _merge(st.shape, self._shape)
        return st

    def _key(self):
        return ("SparseTensorSpec", self._dtype, self._shape.rank)

    def _trace_spec(self):
        # One trace per (dtype, rank): the dense shape is a runtime value (Note [Composite tensors]).
        rank = self._shape.rank
        return SparseTensorSpec(None if rank is None else [None] * rank, self._dtype)

    def __eq__(self, other):
        return (isinstance(other, SparseTensorSpec) and self._dtype == other._dtype
                and _dims(self._shape) == _dims(other._shape))

    def __hash__(self):
        return hash((self._dtype, _dims(self._shape)))

    def __repr__(self):
        return "SparseTensorSpec(%r, %r)" % (self._shape, self._dtype)


def _dims(shape):
    return None if shape.rank is None else tuple(shape.as_list())


def _merge(a, b):
    """The more specific of two compatible shapes of one rank, dimension by dimension."""
    return TensorShape([x if x is not None else y for x, y in zip(a.as_list(), b.as_list())])


def is_sparse(x):
    """Whether ``x`` is a tx.SparseTensor."""
    return isinstance(x, SparseTensor)
