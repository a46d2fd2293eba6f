"""Experimental APIs (``tx.experimental``): DLPack interop."""

from tensorflux.experimental import dlpack

__all__ = ["dlpack"]
