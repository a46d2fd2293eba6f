"""Process configuration (``tx.config``, TensorFlow 2's tf.config): devices, thread pools and
whether tx.functions run eagerly.

The engine here runs on the CPU (CUDA builds are optional and not enumerated yet), so the physical
devices are one ``CPU``; asking for another type gives an empty list, as TensorFlow does on a
machine without it. Device visibility and thread counts configure the eager context and must be
set before it starts (before the first eager op), else RuntimeError, as in TensorFlow.
"""

import collections

from tensorflux._src import context as _context
from tensorflux._src import function as _function

__all__ = ["LogicalDevice", "PhysicalDevice", "functions_run_eagerly", "get_inter_op_parallelism_threads",
           "get_intra_op_parallelism_threads", "get_visible_devices", "list_logical_devices",
           "get_soft_device_placement", "list_physical_devices", "run_functions_eagerly",
           "set_inter_op_parallelism_threads", "set_intra_op_parallelism_threads", "set_soft_device_placement",
           "set_visible_devices"]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
PhysicalDevice.__doc__ = "A device of the machine: ``name`` ('/physical_device:CPU:0') and ``device_type``."
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])
LogicalDevice.__doc__ = "A device ops can be placed on: ``name`` ('/device:CPU:0') and ``device_type``."

_PHYSICAL = (PhysicalDevice("/physical_device:CPU:0", "CPU"),)
_visible = list(_PHYSICAL)


def list_physical_devices(device_type=None):
    """The machine's devices of ``device_type`` ('CPU', 'GPU', ...; all when None)."""
    return [d for d in _PHYSICAL if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type=None):
    """The physical devices of ``device_type`` the eager context uses (all when None)."""
    return [d for d in _visible if device_type is None or d.device_type == device_type]


def set_visible_devices(devices, device_type=None):
    """Restricts the eager context to ``devices`` (a PhysicalDevice or a list) among those of
    ``device_type`` (all types when None). The CPU cannot be hidden; RuntimeError once the context
    has started and the set would change."""
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    for d in devices:
        if d not in _PHYSICAL:
            raise ValueError("Unrecognized device: %r" % (d,))
        if device_type is not None and d.device_type != device_type:
            raise ValueError("Device %r is not of type %s" % (d, device_type))
    new = [d for d in _PHYSICAL if d in devices or (device_type is not None and d.device_type != device_type)]
    if not any(d.device_type == "CPU" for d in new):
        raise ValueError("The CPU device cannot be made invisible (every program needs it).")
    if new == _visible:
        return
    if _context._c.eager_initialized():
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    _visible[:] = new


def list_logical_devices(device_type=None):
    """The eager context's devices of ``device_type`` (starts the context, as TensorFlow does)."""
    out = []
    for full in _context.list_devices():
        short = "/device:" + full.split("/device:", 1)[1] if "/device:" in full else full
        kind = short.split(":")[1] if short.count(":") >= 2 else "CPU"
        if device_type is None or kind == device_type:
            out.append(LogicalDevice(short, kind))
    return out


def _set_threads(option, what, n):
    n = int(n)
    if n < 0:
        raise ValueError("%s must be >= 0 (0: the engine picks), got %d" % (what, n))
    try:
        _context.configure(**{option: n})
    except RuntimeError:
        raise RuntimeError("%s cannot be modified after initialization." % what) from None


def get_intra_op_parallelism_threads():
    """Threads a single op may use (0: the engine picks, one per core)."""
    return _context._config["intra_op_threads"]


def set_intra_op_parallelism_threads(num_threads):
    """Sets the threads a single op may use (0: one per core); before the eager context starts."""
    _set_threads("intra_op_threads", "Intra op parallelism", num_threads)


def get_inter_op_parallelism_threads():
    """Threads running independent ops at once (0: the engine picks)."""
    return _context._config["inter_op_threads"]


def set_inter_op_parallelism_threads(num_threads):
    """Sets the threads running independent ops at once (0: one per core); before the context starts."""
    _set_threads("inter_op_threads", "Inter op parallelism", num_threads)


get_soft_device_placement = _context.get_soft_device_placement
set_soft_device_placement = _context.set_soft_device_placement
run_functions_eagerly = _function.run_functions_eagerly
functions_run_eagerly = _function.functions_run_eagerly
