"""Elements and their specs. Inside a pipeline an element is a flat tuple of NumPy arrays (strings as
object arrays of bytes); the user sees it packed into the dataset's structure of tensors. As in
tf.data, tuples, namedtuples and dicts are structure while a Python list is one tensor."""

import numpy as np

import tensorflux as tx


def as_array(value):
    """``value`` (tensor, array, Python scalar or list) as a NumPy array of tf.data's dtype."""
    if isinstance(value, np.ndarray):
        return value.astype(object) if value.dtype.kind in "SU" else value
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    with tx.init_scope():  # a Python value given while a tx.function is traced: converted eagerly
        if isinstance(value, (str, bytes)) or (isinstance(value, (list, tuple)) and _has_string(value)):
            return np.asarray(tx.convert_to_tensor(value, dtype=tx.string).numpy())
        return np.asarray(tx.convert_to_tensor(value).numpy())


def _has_string(seq):
    """Whether the nested list ``seq`` holds a str or bytes (its element types are found in one pass
    in C: a million numbers cost ~20 ms, not 160)."""
    types = set(map(type, seq))
    if any(issubclass(t, (str, bytes)) for t in types):
        return True
    if not any(issubclass(t, (list, tuple)) for t in types):
        return False
    return any(isinstance(v, (list, tuple)) and _has_string(v) for v in seq)


def canonical(value):
    """``value`` with every leaf an array: lists become arrays, tuples/namedtuples/dicts stay."""
    if isinstance(value, dict):
        return type(value)((k, canonical(v)) for k, v in value.items())
    if isinstance(value, tuple):
        items = [canonical(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return as_array(value)


class _Leaf:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _wrap_leaves(value):
    if isinstance(value, dict):
        return type(value)((k, _wrap_leaves(v)) for k, v in value.items())
    if isinstance(value, tuple):
        items = [_wrap_leaves(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return _Leaf(value)


def leaves_like(element_spec, value):
    """The leaves of ``value`` (lists are leaves) in ``element_spec``'s order; ValueError when the
    structures differ."""
    wrapped = _wrap_leaves(value)
    tx.nest.assert_same_structure(element_spec, wrapped)
    return [leaf.value for leaf in tx.nest.flatten(wrapped)]


def dtype_of(array):
    """The tx dtype of a NumPy array (object arrays hold strings)."""
    return tx.string if array.dtype == object else tx.as_dtype(array.dtype)


def spec_of(array):
    return tx.TensorSpec(array.shape, dtype_of(array))


def split(value):
    """(structure of TensorSpecs, flat tuple of arrays) of a user value."""
    value = canonical(value)
    flat = tuple(tx.nest.flatten(value))
    return tx.nest.pack_sequence_as(value, [spec_of(a) for a in flat]), flat


def flat_specs(element_spec):
    return tx.nest.flatten(element_spec)


# Note [Held tensors]: inside a pipeline a component is a NumPy array (strings: an object array of
# bytes), and making a tensor of one costs a copy and a call, and for strings a conversion of each
# element in Python, which costs more than reading the records. Where the equal eager tensor
# already exists (a batch of TFRecords cut out of the read buffer by one tx.strings.substr call, a
# pipeline function's output of rank >= 1, whose array is a read-only view of the tensor's buffer)
# the component is a WithTensor array holding it, and as_tensor hands that tensor on (to the next
# function, or to the user) instead of converting again. An array derived from one (a slice, a view,
# a result) holds no tensor; the elements and their values are the same either way. Scalars are not
# held: they are cheap to convert, and elements kept in buffers (a shuffle's) are mostly scalars,
# whose strings would then be held twice.


TENSOR_STRINGS = 16  # strings from which a batch's string tensor is cut out of one buffer (Note [Held tensors])


class WithTensor(np.ndarray):
    """An array that also holds ``tensor``, an eager tensor of the same values (Note [Held tensors])."""

    def __array_finalize__(self, obj):
        self.tensor = None


def with_tensor(t):
    """Eager tensor ``t``'s values as an array: of rank >= 1, a WithTensor holding ``t`` (Note [Held
    tensors])."""
    a = np.asarray(t.numpy())
    if a.ndim == 0:
        return a
    a = a.view(WithTensor)
    a.tensor = t
    return a


def as_tensor(a):
    """Array ``a`` as an eager tensor: the one it holds (WithTensor), else a new constant."""
    t = getattr(a, "tensor", None)
    return t if t is not None else tx.constant(a)


def to_tensors(element_spec, flat):
    """The user's view of an element: its structure of eager tensors."""
    return tx.nest.pack_sequence_as(element_spec, [as_tensor(a) if isinstance(s, tx.TensorSpec) else s.value(a)
                                                   for s, a in zip(flat_specs(element_spec), flat)])


def packer(element_spec):
    """A function packing a flat sequence of leaves into ``element_spec``'s structure, equal to
    ``tx.nest.pack_sequence_as(element_spec, flat)`` but built once: packing an element then walks no
    structure (plain dicts and tuples are rebuilt directly; other structures use tx.nest)."""
    index = tx.nest.pack_sequence_as(element_spec, list(range(len(tx.nest.flatten(element_spec)))))
    build = _builder(index)
    if build is None:
        return lambda flat: tx.nest.pack_sequence_as(element_spec, list(flat))
    return build


def _builder(node):
    """The packing function of an index structure (leaves are flat positions), or None when it
    holds a structure other than a plain dict or tuple."""
    if type(node) is int:
        return lambda flat: flat[node]
    if type(node) is dict:
        items = [(key, _builder(value)) for key, value in node.items()]
        if any(b is None for _, b in items):
            return None
        return lambda flat: {key: b(flat) for key, b in items}
    if type(node) is tuple:
        parts = [_builder(value) for value in node]
        if any(b is None for b in parts):
            return None
        return lambda flat: tuple([b(flat) for b in parts])
    return None


def spec_with_shape(spec, shape):
    return tx.TensorSpec(shape, spec.dtype)


def shape_list(spec):
    """A spec's shape as a list (None for unknown dims), or None for unknown rank."""
    try:
        return list(spec.shape.as_list())
    except ValueError:
        return None


def relax(a, b):
    """The most specific spec both ``a`` and ``b`` satisfy (same dtype required)."""
    sa, sb = shape_list(a), shape_list(b)
    if sa is None or sb is None or len(sa) != len(sb):
        return tx.TensorSpec(None, a.dtype)
    return tx.TensorSpec([x if x == y else None for x, y in zip(sa, sb)], a.dtype)


def same_structure(a, b):
    try:
        tx.nest.assert_same_structure(a, b)
        return True
    except (TypeError, ValueError):
        return False


def check_element(element_spec, flat, what):
    """Raises InvalidArgumentError when arrays ``flat`` do not fit ``element_spec`` (dtype or shape)."""
    specs = flat_specs(element_spec)
    if len(flat) != len(specs):
        raise tx.errors.InvalidArgumentError(None, None, "%s: expected an element of %d components, got %d"
                                             % (what, len(specs), len(flat)))
    for i, (spec, a) in enumerate(zip(specs, flat)):
        if dtype_of(a) != spec.dtype or not spec.shape.is_compatible_with(a.shape):
            raise tx.errors.InvalidArgumentError(
                None, None, "%s: component %d should be %s of shape %s, got %s of shape %s"
                % (what, i, spec.dtype.name, spec.shape, dtype_of(a).name, list(a.shape)))


def describe(element_spec):
    """A stable text of a structure of specs (a pipeline's fingerprint uses it)."""
    return repr(tx.nest.map_structure(lambda s: (s.dtype.name, str(s.shape)) if isinstance(s, tx.TensorSpec)
                                      else repr(s), element_spec))
