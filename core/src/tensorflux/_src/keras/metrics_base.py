"""`Metric` (state in non-trainable Variables: ``update_state``, ``result``, ``reset_state``) and
the reducing metrics Mean, Sum and MeanMetricWrapper, as in Keras 3."""

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import math_ops
from tensorflux._src import context as _context
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.loss_classes import match_ranks
from tensorflux._src.keras import initializers, masking, naming, serialization
from tensorflux._src.keras.layer import _weight_scope
from tensorflux._src.variables import Variable


class Metric:
    """Base class of metrics: ``update_state(...)`` accumulates into the metric's variables,
    ``result()`` reads the value, ``reset_state()`` zeroes the state; calling the metric updates
    it and returns the result."""

    def __init__(self, name=None, dtype=None):
        self.name = name or naming.to_snake_case(type(self).__name__)
        self._dtype = _dtypes.as_dtype(dtype or "float32")
        self._variables = []
        self._initial_values = []

    @property
    def dtype(self):
        return self._dtype.name

    @property
    def variables(self):
        return list(self._variables)

    def add_variable(self, shape=(), initializer="zeros", dtype=None, aggregation="sum", name=None):
        """A non-trainable state Variable of the metric (reset to its initial value by
        ``reset_state``)."""
        dtype = _dtypes.as_dtype(dtype or self._dtype)
        init = initializers.get(initializer)
        with _weight_scope():
            value = init(tuple(shape), dtype=dtype)
            var = Variable(value, trainable=False, name="%s/%s" % (self.name, name or "variable"), dtype=dtype)
            self._initial_values.append(np.array(value.numpy()) if hasattr(value, "numpy") else None)
        self._variables.append(var)
        return var

    def add_weight(self, name=None, shape=(), initializer="zeros", dtype=None, aggregation="sum"):
        """Keras 2's spelling of `add_variable`."""
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, aggregation=aggregation,
                                 name=name)

    def reset_state(self):
        """Sets every state variable back to its initial value (eagerly)."""
        with _context.init_scope():
            for v, init in zip(self._variables, self._initial_values):
                value = init if init is not None else np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype)
                v.assign(value, read_value=False)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return "<%s name=%s>" % (type(self).__name__, self.name)


def _to_rank(w, rank):
    r = w.shape.rank
    while r is not None and r > rank and r > 0:
        w = gen_ops.squeeze(w, [-1])
        r -= 1
    while r is not None and r < rank:
        w = gen_ops.expand_dims(w, -1)
        r += 1
    return w


class Reduce(Metric):
    """Accumulates the sum of values (``Sum``) or their weighted mean (``Mean``)."""

    def __init__(self, reduction, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_variable(name="total")
        if reduction == "mean":
            self.count = self.add_variable(name="count")

    def update_state(self, values, sample_weight=None):
        """Adds ``values`` (per-sample values are averaged over their non-batch axes), weighted by
        ``sample_weight`` (broadcast to them)."""
        values = math_ops.cast(convert_to_tensor(values), self._dtype)
        rank = values.shape.rank
        if sample_weight is not None:
            sw = math_ops.cast(convert_to_tensor(sample_weight), self._dtype)
            if rank is not None:
                sw = _to_rank(sw, rank)
            sw = gen_ops.broadcast_to(sw, gen_ops.shape(values))
            values = values * sw
            if rank is not None and rank > 1:
                axes = list(range(1, rank))
                values = math_ops.reduce_mean(values, axis=axes)
                sw = math_ops.reduce_mean(sw, axis=axes)
            num = math_ops.reduce_sum(sw)
        else:
            if rank is not None and rank > 1:
                values = math_ops.reduce_mean(values, axis=list(range(1, rank)))
            num = math_ops.cast(gen_ops.shape(values)[0] if rank else 1, self._dtype)
        self.total.assign_add(math_ops.reduce_sum(values), read_value=False)
        if self.reduction == "mean":
            self.count.assign_add(num, read_value=False)

    def result(self):
        if self.reduction == "sum":
            return self.total.value()
        return gen_ops.div_no_nan(self.total.value(), self.count.value())


@serialization.register("metrics")
class Mean(Reduce):
    """The (weighted) mean of the values given.

    >>> m = tx.keras.metrics.Mean()
    >>> m.update_state([1.0, 3.0])
    >>> float(m.result())
    2.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__("mean", name=name, dtype=dtype)


@serialization.register("metrics")
class Sum(Reduce):
    """The (weighted) sum of the values given."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over every example seen (weighted by
    ``sample_weight``; a Keras mask on ``y_pred`` joins the weights)."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = masking.get_mask(y_pred)
        y_true, y_pred = match_ranks(convert_to_tensor(y_true), convert_to_tensor(y_pred))
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if mask is not None:
            mask = math_ops.cast(mask, self._dtype)
            sample_weight = mask if sample_weight is None else mask * math_ops.cast(
                _to_rank(convert_to_tensor(sample_weight), mask.shape.rank or 1), self._dtype)
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        return dict(super().get_config(), **self._fn_kwargs)
