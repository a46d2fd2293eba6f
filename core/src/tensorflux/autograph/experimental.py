"""Experimental AutoGraph controls (``tx.autograph.experimental.*``, like
``tf.autograph.experimental``)."""

from tensorflux._src.autograph.conversion import do_not_convert
from tensorflux._src.autograph.loops import set_loop_options

__all__ = ["do_not_convert", "set_loop_options"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
