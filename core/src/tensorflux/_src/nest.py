"""Nested structures of values: lists, tuples, namedtuples and mappings (dicts, OrderedDicts, any
``collections.abc.Mapping``), flattened and rebuilt with TensorFlow's ``tf.nest`` rules.

Mappings flatten in sorted key order (their insertion order is ignored) and are rebuilt with their
own type and original key order; namedtuples are rebuilt with their class; everything else
(tensors, arrays, strings, None, sets) is a leaf. ``attrs`` classes are not expanded; composite
tensors (``tx.SparseTensor``) and their specs are leaves unless ``expand_composites=True``, which
flattens them into their component tensors (Note [Composite tensors]).
"""

import collections.abc as _abc

from tensorflux._src import composite as _composite

__all__ = ["assert_same_structure", "flatten", "flatten_with_joined_string_paths", "flatten_with_paths",
           "is_nested", "map_structure", "pack_sequence_as"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_mapping(x):
    return isinstance(x, _abc.Mapping)


def is_nested(seq):
    """True when ``seq`` is a list, tuple, namedtuple or mapping (even an empty one)."""
    return isinstance(seq, (list, tuple, dict)) or _is_mapping(seq)


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _children(s):
    """The immediate children of nested ``s`` in flattening order."""
    if _is_mapping(s):
        return [s[k] for k in _sorted_keys(s)]
    return list(s)


def _child_keys(s):
    """The path elements of ``s``'s children, in flattening order."""
    if _is_mapping(s):
        return _sorted_keys(s)
    if _is_namedtuple(s):
        return list(type(s)._fields)
    return list(range(len(s)))


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in order (mappings by sorted key); ``[structure]`` for a leaf.
    With ``expand_composites``, a SparseTensor (or SparseTensorSpec) contributes its components.

    >>> tx.nest.flatten({"b": 2, "a": (1, [3])})
    [1, 3, 2]
    """
    out = []
    _flatten_into(structure, out, expand_composites)
    return out


def _flatten_into(s, out, expand=False):
    t = type(s)
    if t is list or t is tuple:
        for x in s:
            _flatten_into(x, out, expand)
    elif t is dict or isinstance(s, (list, tuple)) or _is_mapping(s):
        for x in _children(s):
            _flatten_into(x, out, expand)
    elif expand and _composite.is_composite(s):
        out.extend(_composite.components(s))
    else:
        out.append(s)


def _sequence_like(instance, args):
    """A structure of ``instance``'s type whose children (in flattening order) are ``args``."""
    if _is_mapping(instance):
        result = dict(zip(_sorted_keys(instance), args))
        if isinstance(instance, _abc.MutableMapping) and type(instance).__name__ == "defaultdict":
            d = type(instance)(instance.default_factory)
            for k in instance:
                d[k] = result[k]
            return d
        try:
            return type(instance)((k, result[k]) for k in instance)
        except TypeError:
            return {k: result[k] for k in instance}
    if _is_namedtuple(instance):
        return type(instance)(*args)
    if isinstance(instance, tuple):
        return tuple(args) if type(instance) is tuple else type(instance)(args)
    return list(args) if type(instance) is list else type(instance)(args)


def _packed_nest_with_indices(structure, flat, index, expand=False):
    packed = []
    for s in _children(structure):
        if is_nested(s):
            index, child = _packed_nest_with_indices(s, flat, index, expand)
            packed.append(_sequence_like(s, child))
        elif expand and _composite.is_composite(s):
            n = len(_composite.components(s))
            packed.append(_composite.spec_of(s)._from_components(flat[index:index + n]))
            index += n
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` rebuilt with its leaves replaced, in order, by the items of ``flat_sequence``
    (with ``expand_composites``, composites in ``structure`` are rebuilt from their components)."""
    if expand_composites and not is_nested(structure) and _composite.is_composite(structure):
        structure = [structure]
        return pack_sequence_as(structure, flat_sequence, True)[0]
    if not is_nested(flat_sequence) and not hasattr(flat_sequence, "__len__"):
        raise TypeError("Attempted to pack value:\n  {}\ninto a structure, but found incompatible type `{}` "
                        "instead.".format(flat_sequence, type(flat_sequence)))
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError("The target structure is of type `{}`\n  {}\nHowever the input is a sequence ({}) of "
                             "length {}.\n  {}\nnest cannot guarantee that it is safe to map one to the other."
                             .format(type(structure), structure, type(flat_sequence), len(flat), flat_sequence))
        return flat[0]
    expected = len(flatten(structure, expand_composites))
    if expected != len(flat):
        raise ValueError("Could not pack sequence. Structure had {} atoms, but flat_sequence had {} items.  "
                         "Structure: {}, flat_sequence: {}.".format(expected, len(flat), structure, flat_sequence))
    _, packed = _packed_nest_with_indices(structure, flat, 0, expand_composites)
    return _sequence_like(structure, packed)


def _same_type(a, b):
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and type(a)._fields == type(b)._fields
    if _is_mapping(a) and _is_mapping(b):
        return True  # TensorFlow treats any two mappings alike
    return type(a) is type(b)


def _assert_same(a, b, check_types, path):
    a_nested, b_nested = is_nested(a), is_nested(b)
    if a_nested != b_nested:
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: {}\n\n"
                         "Second structure: {}\n\nMore specifically: Substructure \"{}\" is a sequence, while "
                         "substructure \"{}\" is not".format(a, b, a if a_nested else b, b if a_nested else a))
    if not a_nested:
        return
    if len(a) != len(b):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: {}\n\n"
                         "Second structure: {}\n\nMore specifically: the two sequences at path {} have "
                         "lengths {} and {}".format(a, b, list(path), len(a), len(b)))
    if check_types and not _same_type(a, b):
        raise TypeError("The two structures don't have the same sequence type. Input structure has type {}, "
                        "while shallow structure has type {}.".format(type(a), type(b)))
    if _is_mapping(a) and _is_mapping(b) and set(a) != set(b):
        raise ValueError("The two dictionaries don't have the same set of keys. First structure has keys {}, "
                         "while second structure has keys {}.".format(list(a), list(b)))
    for k, x, y in zip(_child_keys(a), _children(a), _children(b)):
        _assert_same(x, y, check_types, path + (k,))


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError when the two structures nest differently (TypeError when ``check_types``
    and the sequence types differ); namedtuples of the same name and fields count as one type."""
    del expand_composites
    _assert_same(nest1, nest2, check_types, ())


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the corresponding leaves of the structures (which must agree), packed
    as the first structure. Keyword arguments: ``check_types`` (default True), ``expand_composites``."""
    if not callable(func):
        raise TypeError("func must be callable, got: %s" % func)
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and `expand_composites`, not: `%s`"
                         % "`, `".join(kwargs))
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flat = [flatten(s, expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*x) for x in zip(*flat)], expand)


def _paths(s, prefix, out):
    if is_nested(s):
        for k, child in zip(_child_keys(s), _children(s)):
            _paths(child, prefix + (k,), out)
    else:
        out.append((prefix, s))


def flatten_with_paths(structure, expand_composites=False):
    """``(path, leaf)`` pairs in flattening order; a path is the tuple of keys, namedtuple field
    names and indices leading to the leaf."""
    del expand_composites
    out = []
    _paths(structure, (), out)
    return out


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False):
    """``(path, leaf)`` pairs with each path joined into a string by ``separator``."""
    del expand_composites
    return [(separator.join(str(k) for k in path), v) for path, v in flatten_with_paths(structure)]
