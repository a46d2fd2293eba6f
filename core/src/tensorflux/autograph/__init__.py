"""AutoGraph (``tx.autograph.*``, like ``tf.autograph``): how tx.function turns Python control
flow on tensors into graph control flow (docs/autograph.md)."""

from tensorflux._src.autograph.conversion import (ConversionError, do_not_convert, get_verbosity, set_verbosity,
                                                   to_code, to_graph, trace)
from tensorflux.autograph import experimental

__all__ = ["ConversionError", "do_not_convert", "experimental", "get_verbosity", "set_verbosity", "to_code",
           "to_graph", "trace"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
