"""``tx.keras.constraints``: projections applied to a weight after each optimizer step."""

from tensorflux._src import math_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization

_EPSILON = 1e-7


class Constraint:
    """Base class: ``__call__(weight) -> projected weight`` (same shape)."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _norms(w, axis):
    return gen_ops.sqrt(math_ops.reduce_sum(gen_ops.square(w), axis=axis, keepdims=True))


@serialization.register("constraints")
class MaxNorm(Constraint):
    """Rescales each slice along ``axis`` whose L2 norm exceeds ``max_value`` to that norm.

    >>> tx.keras.constraints.MaxNorm(1.0, axis=0)(tx.constant([[3.0], [4.0]])).numpy().round(3)
    array([[0.6],
           [0.8]], dtype=float32)
    """

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = math_ops.clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (norms + _EPSILON))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


@serialization.register("constraints")
class NonNeg(Constraint):
    """Negative entries become 0."""

    def __call__(self, w):
        return w * math_ops.cast(gen_ops.greater_equal(w, math_ops.cast(0.0, w.dtype)), w.dtype)


@serialization.register("constraints")
class UnitNorm(Constraint):
    """Each slice along ``axis`` gets L2 norm 1."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (_EPSILON + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


@serialization.register("constraints")
class MinMaxNorm(Constraint):
    """Slice norms moved ``rate`` of the way into [min_value, max_value]."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = self.rate * math_ops.clip_by_value(norms, float(self.min_value), float(self.max_value)) + (
            1.0 - self.rate) * norms
        return w * (desired / (_EPSILON + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_NAMES = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm,
          "MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm}


def get(identifier):
    """A constraint from a name ("non_neg"), a config dict, or a callable; None stays None."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, dict):
        return serialization.deserialize(identifier, "constraints")
    if isinstance(identifier, str) and identifier in _NAMES:
        return _NAMES[identifier]()
    raise ValueError("Unknown constraint %r; tx.keras has: %s" % (identifier, ", ".join(sorted(_NAMES))))


def serialize(constraint):
    return serialization.serialize(constraint, "constraints")


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        return get(config)
    return serialization.deserialize(config, "constraints", custom_objects)
