"""Chain (composition) and Invert."""

import tensorflux as tx

from tensorflux_probability.bijectors.bijector import Bijector


class Chain(Bijector):
    """The composition of ``bijectors``, applied right to left (``Chain([f, g]).forward(x) = f(g(x))``).

    >>> b = txp.bijectors.Chain([txp.bijectors.Shift(1.0), txp.bijectors.Scale(2.0)])
    >>> float(b.forward(3.0))
    7.0
    """

    def __init__(self, bijectors=None, validate_args=False, name=None):
        bijectors = list(bijectors or [])
        # The least forward event rank at which every member, at the point it acts, gets at least
        # its own minimum (each member changes the rank by inverse_min - forward_min).
        fwd_min, shift = 0, 0
        for b in reversed(bijectors):
            fwd_min = max(fwd_min, b.forward_min_event_ndims - shift)
            shift += b.inverse_min_event_ndims - b.forward_min_event_ndims
        inv_min = fwd_min + shift
        super().__init__(fwd_min, max(inv_min, 0), is_constant_jacobian=all(b.is_constant_jacobian for b in bijectors),
                         validate_args=validate_args, parameters=dict(locals()),
                         name=name or "chain_of_" + "_of_".join(b.name for b in bijectors))
        self._bijectors = bijectors

    bijectors = property(lambda self: list(self._bijectors))

    def _forward(self, x):
        for b in reversed(self._bijectors):
            x = b.forward(x)
        return x

    def _inverse(self, y):
        for b in self._bijectors:
            y = b.inverse(y)
        return y

    def forward_log_det_jacobian(self, x, event_ndims=None, name="forward_log_det_jacobian"):
        event_ndims = self._check_event_ndims(event_ndims, self._forward_min_event_ndims, "forward")
        x = self._as_tensor(x)
        total = tx.zeros([], x.dtype)
        for b in reversed(self._bijectors):
            total = total + b.forward_log_det_jacobian(x, event_ndims)
            y = b.forward(x)
            event_ndims += b.inverse_min_event_ndims - b.forward_min_event_ndims
            x = y
        return total

    def inverse_log_det_jacobian(self, y, event_ndims=None, name="inverse_log_det_jacobian"):
        event_ndims = self._check_event_ndims(event_ndims, self._inverse_min_event_ndims, "inverse")
        y = self._as_tensor(y)
        total = tx.zeros([], y.dtype)
        for b in self._bijectors:
            total = total + b.inverse_log_det_jacobian(y, event_ndims)
            y = b.inverse(y)
            event_ndims += b.forward_min_event_ndims - b.inverse_min_event_ndims
        return total

    def _forward_event_shape(self, s):
        for b in reversed(self._bijectors):
            s = b.forward_event_shape(s)
        return s

    def _inverse_event_shape(self, s):
        for b in self._bijectors:
            s = b.inverse_event_shape(s)
        return s


class Invert(Bijector):
    """The inverse of ``bijector``: forward and inverse swapped.

    >>> round(float(txp.bijectors.Invert(txp.bijectors.Exp()).forward(1.0)), 5)
    0.0
    """

    def __init__(self, bijector, validate_args=False, name=None):
        super().__init__(bijector.inverse_min_event_ndims, bijector.forward_min_event_ndims,
                         is_constant_jacobian=bijector.is_constant_jacobian, validate_args=validate_args,
                         parameters=dict(locals()), name=name or "invert_" + bijector.name)
        self._bijector = bijector

    bijector = property(lambda self: self._bijector)

    def _forward(self, x):
        return self._bijector.inverse(x)

    def _inverse(self, y):
        return self._bijector.forward(y)

    def forward_log_det_jacobian(self, x, event_ndims=None, name="forward_log_det_jacobian"):
        return self._bijector.inverse_log_det_jacobian(x, event_ndims)

    def inverse_log_det_jacobian(self, y, event_ndims=None, name="inverse_log_det_jacobian"):
        return self._bijector.forward_log_det_jacobian(y, event_ndims)

    def _forward_event_shape(self, s):
        return self._bijector.inverse_event_shape(s)

    def _inverse_event_shape(self, s):
        return self._bijector.forward_event_shape(s)
