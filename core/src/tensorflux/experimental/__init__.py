"""Experimental APIs (``tx.experimental``): DLPack interop, and tensors to and from the C API."""

from tensorflux.experimental import c_api, dlpack

__all__ = ["c_api", "dlpack"]
