"""The Keras mask carried by a tensor (Keras's ``_keras_mask``): tensors here take no attributes,
so the mask lives in a table keyed by the tensor object and dropped with it."""

import weakref

_masks = {}  # id(tensor) -> (weakref to the tensor, mask)


def get_mask(x):
    """The mask attached to ``x`` (None when it has none)."""
    hit = _masks.get(id(x))
    if hit is None or hit[0]() is not x:
        return None
    return hit[1]


def set_mask(x, mask):
    """Attaches ``mask`` to ``x`` (None removes it)."""
    key = id(x)
    if mask is None:
        _masks.pop(key, None)
        return
    try:
        ref = weakref.ref(x, lambda _, key=key: _masks.pop(key, None))
    except TypeError:
        return  # not weak-referenceable (a Python number): no mask
    _masks[key] = (ref, mask)
