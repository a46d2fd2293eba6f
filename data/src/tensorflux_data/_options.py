"""Pipeline options (tf.data.Options' names where they exist) and the process-wide debug mode."""

import contextlib
import os
import threading

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class ThreadingOptions:
    """Threads a pipeline's parallel transformations use: ``private_threadpool_size`` workers (0:
    the process's shared pool, one worker per CPU)."""

    def __init__(self):
        self.private_threadpool_size = 0


class OptimizationOptions:
    """Static rewrites of a pipeline: ``map_and_batch_fusion`` (default True) runs an elementwise
    map function once per batch (Note [Elementwise functions] in _fusion.py); ``native_engine``
    (default True) runs the chains of nodes the native engine supports on its threads (Note [Native
    segments] in _native.py; False: every node in Python, with the same elements)."""

    def __init__(self):
        self.map_and_batch_fusion = None
        self.native_engine = None


class Options:
    """What a pipeline may do, set with `Dataset.with_options`: ``deterministic`` (default True:
    output order and values do not depend on threads or timing), ``threading``, ``debug_mode``
    (run every function eagerly and sequentially in Python), ``seed`` (of the random ops inside
    pipeline functions, Note [Element seeds] in _seeds.py; None: 0), ``experimental_optimization``.

    >>> import tensorflux_data as txd
    >>> o = txd.Options(); o.deterministic = False
    >>> txd.Dataset.range(3).with_options(o).options().deterministic
    False
    """

    def __init__(self):
        self.deterministic = None
        self.debug_mode = None
        self.seed = None
        self.threading = ThreadingOptions()
        self.experimental_optimization = OptimizationOptions()

    def merge(self, other):
        """These options with ``other``'s explicitly set values taking precedence."""
        out = Options()
        for name in ("deterministic", "debug_mode", "seed"):
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(out, name, theirs if theirs is not None else mine)
        out.threading.private_threadpool_size = (other.threading.private_threadpool_size
                                                 or self.threading.private_threadpool_size)
        for name in ("map_and_batch_fusion", "native_engine"):
            mine, theirs = (getattr(o.experimental_optimization, name) for o in (self, other))
            setattr(out.experimental_optimization, name, theirs if theirs is not None else mine)
        return out

    def __eq__(self, other):
        return isinstance(other, Options) and self._key() == other._key()

    def _key(self):
        return (self.deterministic, self.debug_mode, self.seed, self.threading.private_threadpool_size,
                self.experimental_optimization.map_and_batch_fusion, self.experimental_optimization.native_engine)

    __hash__ = None


_debug = threading.local()


def debug_enabled():
    return getattr(_debug, "on", False)


@contextlib.contextmanager
def _restoring(previous):
    try:
        yield
    finally:
        _debug.on = previous


def debug_mode(enabled=True):
    """Switches debug mode on for iterators created from now on in this thread (every map, filter and
    other function then runs eagerly and sequentially in Python, with the fast path's elements);
    usable as a context manager that restores the previous mode on exit.

    >>> import tensorflux_data as txd
    >>> with txd.debug_mode():
    ...     [int(x) for x in txd.Dataset.range(3).map(lambda x: x * 2)]
    [0, 2, 4]
    """
    previous = debug_enabled()
    _debug.on = bool(enabled)
    return _restoring(previous)


def default_parallelism():
    return max(1, os.cpu_count() or 1)
