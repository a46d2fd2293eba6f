"""``txp.util``: parameters that are functions of Variables (TFP's ``tfp.util`` names).

Note [Deferred parameters]: a distribution keeps a ``DeferredTensor`` parameter as is and
evaluates ``transform_fn(pretransformed_input)`` at each use, so a trainable, unconstrained
Variable can stand for a constrained parameter (a positive scale as softplus of a Variable) and
gradients of a log density reach the Variable.
"""

import tensorflux as tx


class DeferredTensor(tx.Module):
    """``transform_fn(pretransformed_input)``, recomputed at each use (Note [Deferred parameters]).

    >>> v = tx.Variable(0.0)
    >>> scale = txp.util.DeferredTensor(v, tx.math.softplus)
    >>> round(float(txp.distributions.Normal(0.0, scale).stddev()), 5)
    0.69315
    """

    _txp_deferred = True

    def __init__(self, pretransformed_input, transform_fn, dtype=None, shape=None, name=None):
        super().__init__(name=name or "deferred_tensor")
        self._pretransformed_input = pretransformed_input
        self._transform_fn = transform_fn
        probe = self._value() if dtype is None or shape is None else None
        self._dtype = tx.as_dtype(dtype) if dtype is not None else probe.dtype
        self._shape = tx.TensorShape(shape) if shape is not None else probe.shape

    pretransformed_input = property(lambda self: self._pretransformed_input)
    transform_fn = property(lambda self: self._transform_fn)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)

    def _value(self):
        return tx.convert_to_tensor(self._transform_fn(self._pretransformed_input))

    def numpy(self):
        return self._value().numpy()

    def __repr__(self):
        return "<txp.util.DeferredTensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)


def _convert_deferred(value, dtype=None, name=None, as_ref=False):
    """tx.convert_to_tensor of a DeferredTensor: its current value (the transform applied now)."""
    return tx.convert_to_tensor(value._value(), dtype=dtype, name=name)


# Ops and tx.convert_to_tensor take DeferredTensors (and TransformedVariables) as TFP's do.
tx.register_tensor_conversion_function(DeferredTensor, _convert_deferred)


class TransformedVariable(DeferredTensor):
    """A Variable holding ``bijector.inverse(initial_value)``, read as ``bijector.forward`` of it:
    a trainable parameter constrained to the bijector's range.

    >>> s = txp.util.TransformedVariable(2.0, txp.bijectors.Exp())
    >>> round(float(s.numpy()), 5), len(s.trainable_variables)
    (2.0, 1)
    """

    def __init__(self, initial_value, bijector, dtype=None, name=None, **kwargs):
        initial = tx.convert_to_tensor(initial_value, dtype=dtype)
        variable = tx.Variable(bijector.inverse(initial), name=name or "transformed_variable", **kwargs)
        super().__init__(variable, bijector.forward, dtype=initial.dtype, shape=initial.shape, name=name)
        self._bijector = bijector

    bijector = property(lambda self: self._bijector)

    def assign(self, value):
        """Sets the read value to ``value`` (the Variable to its inverse image)."""
        self._pretransformed_input.assign(self._bijector.inverse(tx.convert_to_tensor(value, dtype=self.dtype)))
        return self


__all__ = ["DeferredTensor", "TransformedVariable"]
