"""The logits-or-probs parameterisation Bernoulli-like distributions share."""

import tensorflux as tx

from tensorflux_probability.internal import assertions
from tensorflux_probability.internal import tensors as _tensors


def init_logits_probs(dist, logits, probs, extra=(), dtype_hint=tx.float32, **others):
    """Stores exactly one of ``logits`` / ``probs`` (ValueError otherwise) plus ``others`` on
    ``dist`` in their common float dtype, which it returns."""
    if (logits is None) == (probs is None):
        raise ValueError("%s: pass exactly one of logits and probs" % type(dist).__name__)
    dtype = _tensors.common_dtype([logits, probs, *others.values(), *extra], dtype_hint)
    dist._init_params(dtype, logits=logits, probs=probs, **others)
    return dtype


def logits_of(dist, binary=True):
    """The logits of ``dist`` (computed from probs when it was given probs)."""
    if dist._logits is not None:
        return dist._p("logits")
    p = dist._p("probs")
    if binary:
        return tx.math.log(p) - tx.math.log1p(-p)
    return tx.math.log(p)


def probs_of(dist, binary=True):
    """The probabilities of ``dist`` (sigmoid or softmax of its logits when it was given logits)."""
    if dist._probs is not None:
        return dist._p("probs")
    logits = dist._p("logits")
    return tx.sigmoid(logits) if binary else tx.nn.softmax(logits)


def log_probs_pair(dist):
    """(log p, log(1 - p)) of a binary distribution, each accurate in its own tail."""
    if dist._logits is not None:
        logits = dist._p("logits")
        return -tx.math.softplus(-logits), -tx.math.softplus(logits)
    p = dist._p("probs")
    return tx.math.log(p), tx.math.log1p(-p)


VALIDATORS_BINARY = {"probs": assertions.in_unit_interval}
VALIDATORS_SIMPLEX = {"probs": lambda p, name: assertions.sums_to_one(assertions.non_negative(p, name), name)}
