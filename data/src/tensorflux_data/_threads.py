"""The add-on's worker threads: parallel map and parallel interleave run their functions here (a
traced function's body runs in the engine with the GIL released, so workers overlap)."""

import concurrent.futures
import threading

from tensorflux_data import _options

_lock = threading.Lock()
_pools = {}


def pool(size=0):
    """The shared executor with ``size`` workers (0: one per CPU), created on first use."""
    size = size or _options.default_parallelism()
    with _lock:
        p = _pools.get(size)
        if p is None:
            p = _pools[size] = concurrent.futures.ThreadPoolExecutor(size, thread_name_prefix="txd-worker")
        return p
