"""Dtype policies (``tx.keras.mixed_precision``): a layer's variable dtype and compute dtype.

"mixed_float16" and "mixed_bfloat16" keep float32 variables and compute in the half type, as
Keras; they need half-precision kernels for every op a model uses (not all are there yet:
docs/keras.md). "float32" and "float64" are the tested policies.
"""

import threading

from tensorflux._src import dtypes as _dtypes

_state = threading.local()


class DTypePolicy:
    """A named dtype policy: ``"float32"``, ``"float64"``, ``"mixed_float16"``, ``"mixed_bfloat16"``
    (or any float dtype name).

    >>> p = tx.keras.mixed_precision.Policy("mixed_float16")
    >>> p.compute_dtype, p.variable_dtype
    ('float16', 'float32')
    """

    def __init__(self, name="float32"):
        if isinstance(name, DTypePolicy):
            name = name.name
        if not isinstance(name, str):
            name = _dtypes.as_dtype(name).name
        if name.startswith("mixed_"):
            compute = name[len("mixed_"):]
            if compute not in ("float16", "bfloat16"):
                raise ValueError("Unknown mixed precision policy %r: use mixed_float16 or mixed_bfloat16" % name)
            variable = "float32"
        else:
            try:
                dt = _dtypes.as_dtype(name)
            except (TypeError, ValueError):
                raise ValueError("Cannot convert %r to a dtype policy: use a floating dtype name or mixed_float16 / "
                                 "mixed_bfloat16" % (name,)) from None
            compute = variable = dt.name
        self._name, self._compute, self._variable = name, compute, variable

    @property
    def name(self):
        return self._name

    @property
    def compute_dtype(self):
        """The dtype layers compute in (their inputs are cast to it)."""
        return self._compute

    @property
    def variable_dtype(self):
        """The dtype of the layers' weights."""
        return self._variable

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return '<DTypePolicy "%s">' % self._name


Policy = DTypePolicy


def set_global_policy(policy):
    """Sets the policy of layers created without ``dtype=`` (None: back to "float32")."""
    _state.policy = None if policy is None else DTypePolicy(policy)


def global_policy():
    """The policy new layers get by default (``"float32"`` unless set)."""
    return getattr(_state, "policy", None) or DTypePolicy("float32")


def get(dtype):
    """A policy from None (the global one), a name, a dtype, a config dict or a policy."""
    if dtype is None:
        return global_policy()
    if isinstance(dtype, dict):
        return DTypePolicy(**dtype.get("config", {"name": "float32"}))
    return DTypePolicy(dtype)
