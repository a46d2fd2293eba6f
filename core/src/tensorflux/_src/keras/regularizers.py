"""``tx.keras.regularizers``: penalties on weights, added to the model's loss (``layer.losses``)."""

from tensorflux._src import math_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.nn_ext_ops import l2_normalize


class Regularizer:
    """Base class: ``__call__(weight) -> scalar penalty tensor``."""

    def __call__(self, x):
        return math_ops.cast(0.0, x.dtype)

    def get_config(self):
        raise NotImplementedError("%s must implement get_config to be saved" % type(self).__name__)

    @classmethod
    def from_config(cls, config):
        return cls(**config)


@serialization.register("regularizers", "L1L2")
class L1L2(Regularizer):
    """l1 * sum(|w|) + l2 * sum(w^2).

    >>> float(tx.keras.regularizers.L1L2(l1=0.5, l2=1.0)(tx.constant([1.0, -2.0])))
    6.5
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        total = math_ops.cast(0.0, x.dtype)
        if self.l1:
            total = total + math_ops.cast(self.l1, x.dtype) * math_ops.reduce_sum(gen_ops.abs(x))
        if self.l2:
            total = total + math_ops.cast(self.l2, x.dtype) * math_ops.reduce_sum(gen_ops.square(x))
        return total

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


@serialization.register("regularizers")
class L1(L1L2):
    """l1 * sum(|w|)."""

    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


@serialization.register("regularizers")
class L2(L1L2):
    """l2 * sum(w^2).

    >>> float(tx.keras.regularizers.L2(0.1)(tx.constant([3.0])))
    0.9000000357627869
    """

    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


@serialization.register("regularizers")
class OrthogonalRegularizer(Regularizer):
    """factor * mean of the squared off-diagonal entries of the rows' (or columns') cosine
    similarities (Keras's definition)."""

    def __init__(self, factor=0.01, mode="rows"):
        if mode not in ("rows", "columns"):
            raise ValueError("OrthogonalRegularizer mode must be 'rows' or 'columns', got %r" % (mode,))
        self.factor, self.mode = factor, mode

    def __call__(self, x):
        if self.mode == "columns":
            x = gen_ops.transpose(x, [1, 0])
        x = l2_normalize(x, axis=-1)
        prod = math_ops.matmul(x, x, transpose_b=True)
        n = math_ops.cast(gen_ops.shape(x)[0], x.dtype)
        off = prod - gen_ops.matrix_diag_v3(gen_ops.matrix_diag_part_v3(prod, 0, 0), 0, -1, -1, 0)
        return math_ops.cast(self.factor, x.dtype) * math_ops.reduce_sum(gen_ops.square(off)) / (n * (n - 1.0))

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


l1, l2, l1_l2 = L1, L2, L1L2
_NAMES = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2,
          "orthogonal_regularizer": OrthogonalRegularizer}


def get(identifier):
    """A regularizer from a name ("l2"), a config dict, or a callable; None stays None."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, dict):
        return serialization.deserialize(identifier, "regularizers")
    if isinstance(identifier, str) and identifier in _NAMES:
        return _NAMES[identifier]()
    raise ValueError("Unknown regularizer %r; tx.keras has: %s" % (identifier, ", ".join(sorted(_NAMES))))


def serialize(regularizer):
    return serialization.serialize(regularizer, "regularizers")


def deserialize(config, custom_objects=None):
    if isinstance(config, str):
        return get(config)
    return serialization.deserialize(config, "regularizers", custom_objects)
