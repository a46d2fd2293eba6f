"""Eager tensors to and from the C API's ``TX_Tensor`` (``tx.experimental.c_api``), for native code
that runs beside Python through the public C API (loaded with ctypes or cffi): an add-on's engine
that makes tensors with ``TX_AllocateTensor`` hands them to Python without a copy, and Python hands
tensors to it the same way. Addresses are plain ints, as ctypes gives them.

>>> import ctypes, tensorflux as tx
>>> lib = ctypes.CDLL(tx.sysconfig.get_lib() + "/libtensorflux.so")
>>> lib.TX_DeleteTensor.argtypes = [ctypes.c_void_p]
>>> address = tx.experimental.c_api.to_c_tensor(tx.constant([1.0, 2.0]))
>>> tx.experimental.c_api.from_c_tensor(address).numpy()  # takes ownership: no TX_DeleteTensor
array([1., 2.], dtype=float32)
"""

from tensorflux._src import context as _context
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.lib import c as _c

__all__ = ["from_c_tensor", "to_c_tensor"]


def from_c_tensor(address):
    """An eager tensor sharing the value of the ``TX_Tensor*`` at ``address`` (an int), taking its
    ownership: the caller must not use or delete that TX_Tensor afterwards."""
    _context.ensure_initialized()
    return _c.eager_adopt_c_tensor(int(address))


def to_c_tensor(tensor):
    """The address (an int) of a new ``TX_Tensor*`` sharing eager ``tensor``'s value; the caller owns
    it and deletes it with ``TX_DeleteTensor`` (or passes it to ``from_c_tensor``)."""
    if not isinstance(tensor, EagerTensor):
        raise TypeError("to_c_tensor expects an eager tensor, got %r" % (tensor,))
    return _c.eager_to_c_tensor(tensor)
