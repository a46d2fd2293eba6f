"""Nested structures of values (lists, tuples, namedtuples, dicts) flattened and rebuilt, as
tx.function and GradientTape need them (TensorFlow's tf.nest, for those kinds only)."""


def flatten(structure):
    """The leaves of ``structure`` in order (dicts by sorted key)."""
    if isinstance(structure, dict):
        return [v for k in sorted(structure) for v in flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [v for s in structure for v in flatten(s)]
    return [structure]


def pack_sequence_as(structure, flat):
    """``structure`` rebuilt with its leaves replaced, in order, by the items of ``flat``."""
    it = iter(flat)

    def pack(s):
        if isinstance(s, dict):
            return {k: pack(s[k]) for k in sorted(s)}
        if isinstance(s, (list, tuple)):
            items = [pack(x) for x in s]
            return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
        return next(it)

    return pack(structure)
