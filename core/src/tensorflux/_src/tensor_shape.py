"""Static shapes: `TensorShape`, possibly of unknown rank or with unknown dimensions."""

import operator


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # TensorFlow Dimension-like
        d = d.value
        if d is None:
            return None
    try:
        d = operator.index(d)
    except TypeError:
        raise TypeError("Dimension value must be an integer or None, got %r" % (d,)) from None
    if d < 0:
        if d == -1:
            return None
        raise ValueError("Dimension %d must be >= 0" % d)
    return d


class TensorShape:
    """A static shape: ``dims`` is None (unknown rank) or a tuple of ints and None (unknown).

    >>> s = tx.TensorShape([None, 3])
    >>> s.rank, s.as_list()
    (2, [None, 3])
    >>> s.is_compatible_with([5, 3])
    True
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        elif isinstance(dims, (list, tuple)):
            self._dims = tuple(_dim(d) for d in dims)
        else:
            try:
                self._dims = (_dim(dims),)  # a scalar means a vector of that length, like TF
            except TypeError:
                self._dims = tuple(_dim(d) for d in dims)

    @classmethod
    def _from_engine(cls, dims):
        s = cls.__new__(cls)
        s._dims = dims
        return s

    @property
    def rank(self):
        """Number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        """A list of ints and None, or None when the rank is unknown."""
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        """The dims as a list; raises ValueError when the rank is unknown."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        """The element count, or None when not fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other):
        """True when some shape could match both."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other):
        """The most specific shape compatible with both; ValueError when incompatible."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % (list(self._dims),)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("None" if d is None else str(d) for d in self._dims)
        return "(%s,)" % inner if len(self._dims) == 1 else "(%s)" % inner

    def __reduce__(self):
        return TensorShape, (self.dims,)


def as_shape(shape):
    """Converts a TensorShape, list/tuple of dims, or None (unknown rank) into a TensorShape."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank=None):
    """A shape of unknown rank, or of ``rank`` unknown dims."""
    return TensorShape(None if rank is None else [None] * rank)


def engine_dims(shape):
    """``shape`` as the binding passes it: None (unknown rank) or a list with -1 for unknown dims."""
    dims = as_shape(shape)._dims
    return None if dims is None else [-1 if d is None else d for d in dims]
