"""Checks and conversions of optimizer hyper-parameters shared by the add-on's optimizers."""

import numbers

import numpy as np

import tensorflux as tx


def check_scalar(name, value):
    """Raises ValueError unless ``value`` is a real number, a scalar tensor or array, or a callable
    (a schedule ``step -> value``, checked when called); returns ``value``."""
    if callable(value):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return value
    shape = getattr(value, "shape", None)
    if shape is not None:
        rank = len(shape) if isinstance(shape, tuple) else shape.rank
        if rank == 0 or rank is None:  # None: a graph tensor of unknown rank, checked by the kernel
            return value
        raise ValueError("%s must be a scalar, got a value of shape %s" % (name, list(shape)))
    raise TypeError("%s must be a number, a scalar tensor or a schedule, got %r" % (name, value))


def resolve(name, value, step, dtype):
    """``value`` (or ``value(step)`` for a schedule) as a scalar tensor of ``dtype``."""
    if callable(value):
        value = check_scalar(name + " (the schedule's value)", value(step))
    if isinstance(value, np.ndarray):
        value = value.item()
    return tx.cast(value, dtype)
