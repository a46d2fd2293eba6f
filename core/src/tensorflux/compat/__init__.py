"""Compatibility namespaces (``tx.compat.v1``), as in TensorFlow."""

from tensorflux.compat import v1

__all__ = ["v1"]
