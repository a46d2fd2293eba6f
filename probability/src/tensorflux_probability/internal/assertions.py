"""Argument checks for ``validate_args=True``: eagerly they raise at once; in a graph they become
Assert ops that the checked tensor depends on (TFP's behaviour)."""

import numpy as np

import tensorflux as tx

from tensorflux_probability.internal.tensors import static_value


def _fail(message):
    raise tx.errors.InvalidArgumentError(None, None, message)


def check(condition, message, guarded):
    """``guarded`` (a tensor), made to depend on ``condition`` (a bool tensor, all true) holding;
    InvalidArgumentError with ``message`` when it does not (eagerly at once, in a graph when run)."""
    known = static_value(condition)
    if known is not None:
        if not np.all(known):
            _fail(message)
        return guarded
    if tx.executing_eagerly():  # a Variable-backed value: read and check now
        if not np.all(tx.convert_to_tensor(condition).numpy()):
            _fail(message)
        return guarded
    op = tx.debugging.Assert(tx.reduce_all(condition), [message])
    with tx.control_dependencies([op]):
        return tx.identity(guarded)


def positive(x, name):
    return check(x > 0, "%s must be positive" % name, x)


def non_negative(x, name):
    return check(x >= 0, "%s must be non-negative" % name, x)


def in_unit_interval(x, name):
    return check(tx.logical_and(x >= 0, x <= 1), "%s must be in [0, 1]" % name, x)


def less(a, b, message):
    return check(a < b, message, a)


def integer_valued(x, name):
    return check(tx.equal(x, tx.round(x)), "%s must be integer-valued" % name, x)


def sums_to_one(p, name, axis=-1):
    """``p`` (probabilities along ``axis``) checked to sum to one within a few ulps of its dtype."""
    tol = 10 * np.finfo(p.dtype.as_numpy_dtype).eps * max(1, (p.shape.as_list() or [1])[axis] or 1)
    total = tx.reduce_sum(p, axis=axis)
    return check(tx.abs(total - 1) <= tol, "%s must sum to one along its last axis" % name, p)


def positive_definite_tril(scale_tril, name):
    """A lower-triangular scale checked to have a positive diagonal (so scale @ scale^T is
    positive definite)."""
    d = tx.linalg.diag_part(scale_tril)
    return check(d > 0, "%s must be lower triangular with a positive diagonal" % name, scale_tril)
