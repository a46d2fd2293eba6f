"""The add-on's plugin (the fused kernels built from csrc/), loaded on first use."""

import functools
import os

import tensorflux as tx

LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_tensorflux_addons_ops.so")


@functools.lru_cache(maxsize=None)
def ops():
    """The module of wrappers of the plugin's ops (tx.load_op_library: loaded once per process)."""
    if not os.path.exists(LIBRARY):
        raise ImportError("the tensorflux-addons plugin %s is missing: reinstall tensorflux-addons" % LIBRARY)
    return tx.load_op_library(LIBRARY)
