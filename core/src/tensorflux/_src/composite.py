"""Composite tensors: Python values made of several tensors (``tx.SparseTensor``), and the type
specs that describe them (``tx.TypeSpec``, as TensorFlow's).

Note [Composite tensors]: a composite has ``_to_components()`` (its tensors, in a fixed order) and
a ``_type_spec``; the spec has ``_component_specs()`` (one TensorSpec per component),
``_from_components(tensors)`` and ``_key()`` (hashable; equal keys trace to one concrete
function). ``tx.nest`` with ``expand_composites=True`` flattens composites (and their specs) into
their components and packs them back, and ``tx.function`` passes a composite argument as its
component tensors, so the engine, the C API and Go only ever see plain tensors.
"""


class TypeSpec:
    """The type of a value a tx.function accepts or returns: a TensorSpec for a tensor, a
    SparseTensorSpec for a SparseTensor.

    >>> isinstance(tx.TensorSpec([2], tx.float32), tx.TypeSpec)
    True
    """

    __slots__ = ()

    def _component_specs(self):
        """One TensorSpec per component tensor (composite specs only)."""
        raise NotImplementedError

    def _from_components(self, components):
        """The value with these component tensors (composite specs only)."""
        raise NotImplementedError

    def _key(self):
        """A hashable key: values of specs with equal keys share one traced function."""
        raise NotImplementedError

    def _trace_spec(self):
        """The spec a tx.function traces a value of this spec with (as general as ``_key``)."""
        return self

    @property
    def value_type(self):
        """The Python type of the values this spec describes."""
        raise NotImplementedError


class CompositeTensor:
    """Base class of values made of several tensors (Note [Composite tensors])."""

    __slots__ = ()

    def _to_components(self):
        raise NotImplementedError

    @property
    def _type_spec(self):
        raise NotImplementedError


def is_composite(x):
    """Whether ``x`` is a composite tensor or the spec of one (expanded by expand_composites)."""
    return isinstance(x, CompositeTensor) or (isinstance(x, TypeSpec) and type(x)._component_specs
                                              is not TypeSpec._component_specs)


def components(x):
    """The component tensors of a composite, or the component specs of a composite spec."""
    return x._to_components() if isinstance(x, CompositeTensor) else x._component_specs()


def spec_of(x):
    """The TypeSpec of a composite (itself for a spec)."""
    return x._type_spec if isinstance(x, CompositeTensor) else x
