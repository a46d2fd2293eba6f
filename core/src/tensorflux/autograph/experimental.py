"""Experimental AutoGraph controls (``tx.autograph.experimental.*``, like
``tf.autograph.experimental``)."""

from tensorflux._src.autograph.conversion import do_not_convert
from tensorflux._src.autograph.loops import set_loop_options

__all__ = ["do_not_convert", "set_loop_options"]
