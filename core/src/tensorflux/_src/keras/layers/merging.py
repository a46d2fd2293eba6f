"""Merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot."""

import functools

from tensorflux._src import array_ops, nn_ext_ops, reduce_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.einsum_ops import einsum


class _Merge(Layer):
    """Combines a list of tensors of the same shape elementwise; their masks are and-ed."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError("A merge layer (%s) should be called on a list of at least 2 inputs. Received: %r"
                             % (self.name, inputs))

    def build(self, input_shape):
        shapes = [tuple(s) for s in input_shape]
        ranks = {len(s) for s in shapes}
        if len(ranks) == 1:
            for dims in zip(*shapes):
                known = {d for d in dims if d is not None and d != 1}
                if len(known) > 1:
                    raise ValueError("Layer %s: inputs with incompatible shapes %s" % (self.name, shapes))
        self.built = True

    def call(self, inputs):
        self._check(inputs)
        return self._merge(list(inputs))

    def compute_mask(self, inputs, previous_mask=None):
        if previous_mask is None or not isinstance(previous_mask, (list, tuple)):
            return None
        masks = [m for m in previous_mask if m is not None]
        if not masks:
            return None
        return functools.reduce(gen_ops.logical_and, masks)


def _merge_class(name, fn, doc):
    cls = type(name, (_Merge,), {"_merge": lambda self, xs: fn(xs), "__doc__": doc, "__module__": __name__})
    return serialization.register("layers")(cls)


Add = _merge_class("Add", lambda xs: gen_ops.add_n(xs) if len({str(x.shape) for x in xs}) == 1 else
                   functools.reduce(lambda a, b: a + b, xs), """The elementwise sum of its inputs.

    >>> tx.keras.layers.Add()([tx.ones([1, 2]), tx.ones([1, 2])]).numpy()
    array([[2., 2.]], dtype=float32)
    """)
Multiply = _merge_class("Multiply", lambda xs: functools.reduce(lambda a, b: a * b, xs),
                        "The elementwise product of its inputs.")
Average = _merge_class("Average", lambda xs: functools.reduce(lambda a, b: a + b, xs) / float(len(xs)),
                       "The elementwise mean of its inputs.")
Maximum = _merge_class("Maximum", lambda xs: functools.reduce(gen_ops.maximum, xs),
                       "The elementwise maximum of its inputs.")
Minimum = _merge_class("Minimum", lambda xs: functools.reduce(gen_ops.minimum, xs),
                       "The elementwise minimum of its inputs.")


@serialization.register("layers")
class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs)."""

    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs. Received: %d inputs" % len(xs))
        return xs[0] - xs[1]


@serialization.register("layers")
class Concatenate(Layer):
    """Concatenates its inputs along ``axis``.

    >>> tx.keras.layers.Concatenate()([tx.ones([2, 3]), tx.zeros([2, 1])]).shape
    TensorShape([2, 4])
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 1 or \
                not isinstance(input_shape[0], (list, tuple)):
            raise ValueError("A `Concatenate` layer should be called on a list of inputs. Received: input_shape=%s"
                             % (input_shape,))
        shapes = [tuple(s) for s in input_shape]
        rank = len(shapes[0])
        axis = self.axis % rank
        for s in shapes:
            if len(s) != rank or any(a is not None and b is not None and a != b
                                     for i, (a, b) in enumerate(zip(s, shapes[0])) if i != axis):
                raise ValueError("A `Concatenate` layer requires inputs with matching shapes except for the concat "
                                 "axis. Received: input_shape=%s" % (shapes,))
        self.built = True

    def call(self, inputs):
        return array_ops.concat(list(inputs), axis=self.axis)

    def compute_mask(self, inputs, previous_mask=None):
        if previous_mask is None or all(m is None for m in previous_mask):
            return None
        masks = []
        for x, m in zip(inputs, previous_mask):
            if m is None:
                m = gen_ops.fill(gen_ops.shape(x), True)
            elif m.shape.rank is not None and m.shape.rank < x.shape.rank:
                m = gen_ops.broadcast_to(gen_ops.expand_dims(m, -1), gen_ops.shape(x))
            masks.append(m)
        return reduce_ops.reduce_any(array_ops.concat(masks, axis=self.axis), axis=-1)

    def get_config(self):
        return base_config(self, {"axis": self.axis})


@serialization.register("layers")
class Dot(Layer):
    """The dot product of two tensors along ``axes`` (per example), optionally of their
    L2-normalized forms (cosine proximity)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes = axes
        self.normalize = normalize

    def call(self, inputs):
        if len(inputs) != 2:
            raise ValueError("A `Dot` layer should be called on exactly 2 inputs. Received: %d" % len(inputs))
        a, b = inputs
        ra, rb = a.shape.rank, b.shape.rank
        axes = self.axes if isinstance(self.axes, (list, tuple)) else [self.axes, self.axes]
        axes = [axes[0] % ra, axes[1] % rb]
        if self.normalize:
            a = nn_ext_ops.l2_normalize(a, axis=axes[0])
            b = nn_ext_ops.l2_normalize(b, axis=axes[1])
        return _batch_dot(a, b, axes)

    def get_config(self):
        return base_config(self, {"axes": self.axes, "normalize": self.normalize})


def _batch_dot(a, b, axes):
    """Keras's batch_dot: contracts a's axis axes[0] with b's axes[1], per batch element."""
    letters = "bcdefghijklmnopqrstuvwxyz"
    ra, rb = a.shape.rank, b.shape.rank
    sa = ["a"] + [letters[i] for i in range(ra - 1)]
    sb = ["a"] + [letters[ra - 1 + i] for i in range(rb - 1)]
    sb[axes[1]] = sa[axes[0]]
    out = [c for i, c in enumerate(sa) if i != axes[0]] + [c for i, c in enumerate(sb) if i != axes[1] and i != 0]
    y = einsum("%s,%s->%s" % ("".join(sa), "".join(sb), "".join(out)), a, b)
    if len(out) == 1:
        y = gen_ops.expand_dims(y, -1)
    return y


def _functional(cls, doc):
    def fn(inputs, **kwargs):
        return cls(**kwargs)(inputs)
    fn.__doc__ = doc
    return fn


add = _functional(Add, "``Add()(inputs)``.")
subtract = _functional(Subtract, "``Subtract()(inputs)``.")
multiply = _functional(Multiply, "``Multiply()(inputs)``.")
average = _functional(Average, "``Average()(inputs)``.")
maximum = _functional(Maximum, "``Maximum()(inputs)``.")
minimum = _functional(Minimum, "``Minimum()(inputs)``.")


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """``Dot(axes, normalize)(inputs)``."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
