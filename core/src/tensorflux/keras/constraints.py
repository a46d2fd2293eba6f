"""``tx.keras.constraints``: projections applied to weights after each optimizer step."""

from tensorflux._src.keras.constraints import (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm, deserialize, get,
                                               max_norm, min_max_norm, non_neg, serialize, unit_norm)

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get", "max_norm",
           "min_max_norm", "non_neg", "serialize", "unit_norm"]

from tensorflux._src.module_getattr import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)
