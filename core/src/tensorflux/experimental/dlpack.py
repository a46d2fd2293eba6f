"""DLPack interop (``tx.experimental.dlpack``), as tf.experimental.dlpack: exchange tensors with
NumPy, PyTorch, JAX and other DLPack libraries.

``to_dlpack(t)`` gives a DLPack capsule of an eager tensor's value; ``from_dlpack(obj)`` takes any
object with ``__dlpack__`` (or a capsule) and returns an eager tensor. Eager tensors also implement
``__dlpack__`` themselves, so ``torch.from_dlpack(t)`` and ``np.from_dlpack(t)`` work directly.
Values are copied at the boundary: eager values are immutable, and a foreign buffer could be
written by its owner after the exchange.
"""

import numpy as np

from tensorflux._src.dtypes import as_dtype
from tensorflux._src.eager_tensor import EagerTensor, from_numpy

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule holding (a copy of) eager ``tensor``'s value.

    >>> capsule = tx.experimental.dlpack.to_dlpack(tx.constant([1.0, 2.0]))
    >>> tx.experimental.dlpack.from_dlpack(capsule).numpy()
    array([1., 2.], dtype=float32)
    """
    if not isinstance(tensor, EagerTensor):
        raise TypeError("to_dlpack expects an eager tensor, got %r" % (tensor,))
    return tensor.__dlpack__()


class _Capsule:
    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU: capsules from to_dlpack are host memory


def from_dlpack(obj):
    """An eager tensor with the value of ``obj``: an object implementing ``__dlpack__`` (a PyTorch
    or JAX array, a NumPy array, an eager tensor) or a DLPack capsule of host memory.

    >>> tx.experimental.dlpack.from_dlpack(np.arange(3, dtype=np.float32)).numpy()
    array([0., 1., 2.], dtype=float32)
    """
    source = obj if hasattr(obj, "__dlpack__") else _Capsule(obj)
    arr = np.from_dlpack(source)
    return from_numpy(np.ascontiguousarray(arr), as_dtype(arr.dtype))
