"""tf.data.experimental's names that tensorflux-data has: the cardinality constants, AUTOTUNE,
and `enable_debug_mode`.

>>> import tensorflux_data as txd
>>> txd.experimental.INFINITE_CARDINALITY, txd.experimental.UNKNOWN_CARDINALITY
(-1, -2)
"""

from tensorflux_data._options import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, debug_mode


def enable_debug_mode():
    """Debug mode from now on in this thread (tf.data.experimental.enable_debug_mode's name)."""
    debug_mode(True)


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "enable_debug_mode"]
