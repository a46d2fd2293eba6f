"""Element-wise bijectors: Identity, Exp, Log, Softplus, Sigmoid, Tanh, Scale, Shift."""

import math

import tensorflux as tx

from tensorflux_probability.bijectors.bijector import Bijector
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.math.special import softplus_inverse


class Identity(Bijector):
    """y = x.

    >>> float(txp.bijectors.Identity().forward(3.0))
    3.0
    """

    def __init__(self, validate_args=False, name="identity"):
        super().__init__(0, is_constant_jacobian=True, validate_args=validate_args, name=name)

    def _forward(self, x):
        return x

    def _inverse(self, y):
        return y

    def _forward_log_det_jacobian(self, x):
        return tx.zeros([], x.dtype)


class Exp(Bijector):
    """y = exp(x).

    >>> round(float(txp.bijectors.Exp().inverse(1.0)), 5)
    0.0
    """

    def __init__(self, validate_args=False, name="exp"):
        super().__init__(0, validate_args=validate_args, name=name)

    def _forward(self, x):
        return tx.exp(x)

    def _inverse(self, y):
        return tx.math.log(y)

    def _forward_log_det_jacobian(self, x):
        return x

    def _inverse_log_det_jacobian(self, y):
        return -tx.math.log(y)


class Log(Bijector):
    """y = log(x) (the inverse of Exp).

    >>> round(float(txp.bijectors.Log().forward(1.0)), 5)
    0.0
    """

    def __init__(self, validate_args=False, name="log"):
        super().__init__(0, validate_args=validate_args, name=name)

    def _forward(self, x):
        return tx.math.log(x)

    def _inverse(self, y):
        return tx.exp(y)

    def _forward_log_det_jacobian(self, x):
        return -tx.math.log(x)

    def _inverse_log_det_jacobian(self, y):
        return y


class Softplus(Bijector):
    """y = softplus(x / hinge_softness) * hinge_softness (+ low), mapping R onto (low, inf).

    >>> round(float(txp.bijectors.Softplus().forward(0.0)), 5)
    0.69315
    """

    def __init__(self, hinge_softness=None, low=None, validate_args=False, name="softplus"):
        super().__init__(0, validate_args=validate_args, parameters=dict(locals()), name=name)
        self._hinge = None if hinge_softness is None else tx.convert_to_tensor(hinge_softness)
        self._low = None if low is None else tx.convert_to_tensor(low)

    hinge_softness = property(lambda self: self._hinge)
    low = property(lambda self: self._low)

    def _forward(self, x):
        y = tx.math.softplus(x) if self._hinge is None else self._hinge * tx.math.softplus(x / self._hinge)
        return y if self._low is None else y + self._low

    def _inverse(self, y):
        y = y if self._low is None else y - self._low
        if self._hinge is None:
            return softplus_inverse(y)
        return self._hinge * softplus_inverse(y / self._hinge)

    def _forward_log_det_jacobian(self, x):
        # dy/dx = sigmoid(x / h); log sigmoid(z) = -softplus(-z).
        z = x if self._hinge is None else x / self._hinge
        return -tx.math.softplus(-z)


class Sigmoid(Bijector):
    """y = low + (high - low) * sigmoid(x) (default (0, 1)).

    >>> round(float(txp.bijectors.Sigmoid().forward(0.0)), 5)
    0.5
    """

    def __init__(self, low=None, high=None, validate_args=False, name="sigmoid"):
        super().__init__(0, validate_args=validate_args, parameters=dict(locals()), name=name)
        if (low is None) != (high is None):
            raise ValueError("Sigmoid: pass both low and high, or neither")
        self._low = None if low is None else tx.convert_to_tensor(low)
        self._high = None if high is None else tx.convert_to_tensor(high)

    low = property(lambda self: self._low)
    high = property(lambda self: self._high)

    def _forward(self, x):
        s = tx.sigmoid(x)
        return s if self._low is None else self._low + (self._high - self._low) * s

    def _inverse(self, y):
        if self._low is not None:
            y = (y - self._low) / (self._high - self._low)
        return tx.math.log(y) - tx.math.log1p(-y)

    def _forward_log_det_jacobian(self, x):
        ldj = -tx.math.softplus(-x) - tx.math.softplus(x)
        return ldj if self._low is None else ldj + tx.math.log(self._high - self._low)


class Tanh(Bijector):
    """y = tanh(x), mapping R onto (-1, 1).

    >>> round(float(txp.bijectors.Tanh().inverse(0.5)), 5)
    0.54931
    """

    def __init__(self, validate_args=False, name="tanh"):
        super().__init__(0, validate_args=validate_args, name=name)

    def _forward(self, x):
        return tx.tanh(x)

    def _inverse(self, y):
        return tx.atanh(y)

    def _forward_log_det_jacobian(self, x):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|.
        return 2.0 * (math.log(2.0) - x - tx.math.softplus(-2.0 * x))


class Scale(Bijector):
    """y = scale * x (or exp(log_scale) * x), element-wise.

    >>> float(txp.bijectors.Scale(2.0).forward_log_det_jacobian([1.0, 1.0], event_ndims=1))
    1.3862943649291992
    """

    def __init__(self, scale=None, log_scale=None, validate_args=False, name="scale"):
        super().__init__(0, is_constant_jacobian=True, validate_args=validate_args, parameters=dict(locals()),
                         name=name)
        if (scale is None) == (log_scale is None):
            raise ValueError("Scale: pass exactly one of scale and log_scale")
        dtype = _tensors.common_dtype([scale, log_scale])
        self._scale = _tensors.as_param(scale, dtype, "scale")
        self._log_scale = _tensors.as_param(log_scale, dtype, "log_scale")
        self._dtype = dtype

    scale = property(lambda self: self._scale)
    log_scale = property(lambda self: self._log_scale)

    def _s(self):
        return _tensors.value(self._scale) if self._scale is not None else tx.exp(_tensors.value(self._log_scale))

    def _forward(self, x):
        return x * self._s()

    def _inverse(self, y):
        return y / self._s()

    def _forward_log_det_jacobian(self, x):
        if self._log_scale is not None:
            return _tensors.value(self._log_scale)
        return tx.math.log(tx.abs(_tensors.value(self._scale)))


class Shift(Bijector):
    """y = x + shift.

    >>> float(txp.bijectors.Shift(3.0).inverse(5.0))
    2.0
    """

    def __init__(self, shift, validate_args=False, name="shift"):
        super().__init__(0, is_constant_jacobian=True, validate_args=validate_args, parameters=dict(locals()),
                         name=name)
        self._dtype = _tensors.common_dtype([shift])
        self._shift = _tensors.as_param(shift, self._dtype, "shift")

    shift = property(lambda self: self._shift)

    def _forward(self, x):
        return x + _tensors.value(self._shift)

    def _inverse(self, y):
        return y - _tensors.value(self._shift)

    def _forward_log_det_jacobian(self, x):
        return tx.zeros([], x.dtype)
