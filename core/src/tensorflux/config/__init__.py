"""Process configuration (``tx.config``, like ``tf.config``): devices, threads, eager functions."""

from tensorflux._src.config import (LogicalDevice, PhysicalDevice, functions_run_eagerly, get_soft_device_placement,
                                    get_visible_devices, list_logical_devices, list_physical_devices,
                                    run_functions_eagerly, set_soft_device_placement, set_visible_devices)
from tensorflux.config import optimizer, threading

__all__ = ["LogicalDevice", "PhysicalDevice", "functions_run_eagerly", "get_soft_device_placement",
           "get_visible_devices", "list_logical_devices", "list_physical_devices", "optimizer",
           "run_functions_eagerly", "set_soft_device_placement", "set_visible_devices", "threading"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
