"""Plan rewrite options (``tx.config.optimizer``, like ``tf.config.optimizer``)."""

from tensorflux._src.optimizer_options import get_experimental_options, set_experimental_options

__all__ = ["get_experimental_options", "set_experimental_options"]
