"""Static and dynamic shape arithmetic: broadcasting batch shapes, sample shapes, and shapes that
are Python lists while they are known and tensors once they are not."""

import numpy as np

import tensorflux as tx


def as_shape_list(shape):
    """A shape given as an int, a list/tuple, a TensorShape or a NumPy array, as a list of ints
    (None for unknown dimensions); None when the rank itself is unknown."""
    if isinstance(shape, tx.TensorShape):
        return None if shape.rank is None else shape.as_list()
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    if isinstance(shape, (list, tuple, np.ndarray)):
        return [None if d is None else int(d) for d in np.asarray(shape, dtype=object).reshape(-1)]
    raise TypeError("not a shape: %r" % (shape,))


def static_shape(t):
    """``t``'s static shape as a list (None entries unknown), or None when its rank is unknown."""
    return as_shape_list(t.shape)


def broadcast_static(*shapes):
    """The NumPy broadcast of shapes given as lists (None: unknown dimension; a None shape:
    unknown rank, which makes the result None); ValueError naming the shapes when they cannot
    broadcast."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError("shapes %s do not broadcast" % ", ".join(str(list(s)) for s in shapes))
        if known:
            out.append(known.pop())
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return out


def is_fully_defined(shape):
    return shape is not None and all(d is not None for d in shape)


def shape_tensor(t):
    """``t``'s shape: a Python list when static, else an int32 tensor."""
    s = static_shape(t)
    if is_fully_defined(s):
        return s
    return tx.shape(t)


def concat(*parts):
    """Shapes joined: a Python list when every part is a known list, else an int32 tensor."""
    if all(isinstance(p, (list, tuple)) and is_fully_defined(list(p)) for p in parts):
        out = []
        for p in parts:
            out.extend(int(d) for d in p)
        return out
    return tx.concat([tx.cast(tx.convert_to_tensor(p if not isinstance(p, (list, tuple)) or len(p) else
                                                   np.zeros([0], np.int32)), tx.int32) for p in parts], axis=0)


def num_elements(shape):
    """The product of a shape's dimensions: an int when static, else a scalar int32 tensor."""
    if isinstance(shape, (list, tuple)):
        return int(np.prod([int(d) for d in shape], dtype=np.int64))
    return tx.reduce_prod(shape)


def sample_shape_list(sample_shape):
    """The ``sample_shape`` argument of ``sample`` (an int, a list, a tuple or a tensor) as a list
    of ints, or an int32 tensor when it is only known at run time."""
    if isinstance(sample_shape, (int, np.integer)):
        return [int(sample_shape)]
    if isinstance(sample_shape, (list, tuple, np.ndarray, tx.TensorShape)):
        return as_shape_list(sample_shape)
    from tensorflux_probability.internal.tensors import static_value
    v = static_value(sample_shape)
    if v is not None:
        return [int(d) for d in np.asarray(v).reshape(-1)]
    return tx.reshape(tx.cast(sample_shape, tx.int32), [-1])


def broadcast_to_shape(t, shape):
    """``t`` broadcast to ``shape`` (a list or a tensor); no op when its static shape already is."""
    if isinstance(shape, (list, tuple)) and static_shape(t) == list(shape):
        return t
    return tx.broadcast_to(t, shape)


def rank_from_shape(shape):
    if isinstance(shape, (list, tuple)):
        return len(shape)
    return tx.size(shape)


def pad_shape_left(shape, rank):
    """A list shape padded with leading ones to ``rank`` dimensions."""
    return [1] * (rank - len(shape)) + list(shape)
