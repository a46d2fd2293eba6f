"""The eager context: whether ops run at once, the eager device scope, and the engine's eager
context (devices, thread pools, variables, kernel cache) created on first use.

Eager execution is the default: ops run immediately unless a graph is the default one of this
thread (``with tx.Graph().as_default():``, a ``tx.function`` being traced) or eager execution was
disabled for the process (``tx.compat.v1.disable_eager_execution()``).
"""

import contextlib
import os
import threading

from tensorflux._src import device as _device
from tensorflux._src import graph as _graph
from tensorflux._src import lib

_c = lib.c

# Device placement policies (TensorFlow's values): EXPLICIT raises when an op's inputs are on
# another device, SILENT copies them.
DEVICE_PLACEMENT_EXPLICIT, DEVICE_PLACEMENT_WARN, DEVICE_PLACEMENT_SILENT = 0, 1, 2

_config = {"intra_op_threads": 0, "inter_op_threads": 0, "num_cpu_devices": 1,
           "placement_policy": DEVICE_PLACEMENT_SILENT}
_eager_disabled = False
_stack = _graph._default_graph_stack


class _EagerThreadState(threading.local):
    def __init__(self):
        self.device = None  # canonical device request of the enclosing tx.device blocks, or None


_tls = _EagerThreadState()


def executing_eagerly():
    """True when ops run at once (no default graph on this thread and eager execution enabled).

    >>> tx.executing_eagerly()
    True
    >>> with tx.Graph().as_default():
    ...     print(tx.executing_eagerly())
    ...
    False
    """
    return not _stack.stack and not _eager_disabled


def ensure_initialized():
    """Creates the engine's eager context with the current configuration (once)."""
    if not _c.eager_initialized():
        env = os.environ.get("TX_NUM_THREADS")
        threads = int(env) if env else 0
        _c.eager_init(_config["intra_op_threads"] or threads, _config["inter_op_threads"] or threads,
                      _config["num_cpu_devices"], _config["placement_policy"])


def configure(**options):
    """Sets eager context options (intra_op_threads, inter_op_threads, num_cpu_devices,
    placement_policy); RuntimeError once the context exists (as TensorFlow's tf.config)."""
    for k in options:
        if k not in _config:
            raise ValueError("unknown eager context option %r" % k)
    if _c.eager_initialized():
        changed = {k: v for k, v in options.items() if _config[k] != v}
        if changed:
            raise RuntimeError("The eager context is already initialized; options %s must be set before the first "
                               "eager operation runs." % sorted(changed))
        return
    _config.update(options)


def disable_eager_execution():
    """Makes the process build graphs by default, as TensorFlow 1 did."""
    global _eager_disabled
    _eager_disabled = True


def enable_eager_execution():
    global _eager_disabled
    _eager_disabled = False


def current_device():
    """The canonical device request of the enclosing eager ``tx.device`` blocks, or None."""
    return _tls.device


@contextlib.contextmanager
def eager_device(device_name):
    """The eager ``tx.device`` scope: ops inside run on ``device_name`` (None: placed by inputs)."""
    old = _tls.device
    if device_name is None:
        _tls.device = None
    else:
        if hasattr(device_name, "to_string"):
            device_name = device_name.to_string()
        if not isinstance(device_name, str):
            raise TypeError("device expects a device string or None, not %r" % (device_name,))
        _tls.device = _device.merge(old or "", device_name) or None
    try:
        yield
    finally:
        _tls.device = old


@contextlib.contextmanager
def init_scope():
    """Leaves every graph of this thread for the duration (eager mode again, unless disabled): where
    tx.function lifts the creation of variables and optimizer state out of the function being
    traced, as TensorFlow's init_scope."""
    saved = _stack.stack
    _stack.stack = []
    try:
        yield
    finally:
        _stack.stack = saved


def executing_eagerly_outside_functions():
    """True when code outside any tx.function being traced runs eagerly: eager execution is
    enabled and every default graph of this thread is a function graph (TensorFlow 2's rule for
    == on tensors, Note [Tensor equality])."""
    if _eager_disabled:
        return False
    stack = _stack.stack
    return not stack or getattr(stack[0], "_is_function_graph", False)


def inside_function():
    """True while a tx.function is being traced on this thread (its graph is the default one)."""
    return bool(_stack.stack) and getattr(_stack.stack[-1], "_is_function_graph", False)


def clear_kernel_cache():
    """Drops the eager context's cached kernels (and so the state of stateful random kernels)."""
    if _c.eager_initialized():
        _c.eager_clear_caches()


def set_soft_device_placement(enabled):
    """Turns soft device placement on (the default) or off: with it, an op requesting a device
    there is none of (``tx.device("/GPU:0")`` on a CPU-only machine) runs on the CPU."""
    ensure_initialized()
    _c.eager_set_soft_placement(bool(enabled))


def get_soft_device_placement():
    """Whether soft device placement is on (see `set_soft_device_placement`)."""
    ensure_initialized()
    return _c.eager_soft_placement()


def list_devices():
    """Full names of the eager context's devices."""
    ensure_initialized()
    return list(_c.eager_device_names())
