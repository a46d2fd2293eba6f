"""The Bijector base class: an invertible, differentiable map with its log-det-Jacobian.

Note [Bijector event ranks]: a bijector acts on events of at least ``forward_min_event_ndims``
dimensions (0 for element-wise maps, 1 for maps of vectors, ...). ``forward_log_det_jacobian(x,
event_ndims)`` is the log |det J| of the map on events of ``event_ndims`` dimensions: the
subclass computes it for its minimal event rank and the base class sums it over the remaining
``event_ndims - min`` rightmost dimensions. ``event_ndims`` below the minimum is a ValueError
naming the bijector (a bijector applied to the wrong event rank).

Note [Bijector caching]: ``forward`` remembers the last few (x, y) pairs it made (and ``inverse``
likewise), so ``inverse(forward(x))`` returns the very tensor x: exact, cheaper, and the only way
to invert a bijector whose inverse has no closed form on samples it made.
"""

import tensorflux as tx

from tensorflux_probability.internal import shapes as _shapes

_CACHE_SIZE = 8


class Bijector(tx.Module):
    """An invertible differentiable map (Note [Bijector event ranks], Note [Bijector caching]).

    >>> b = txp.bijectors.Exp()
    >>> round(float(b.forward(1.0)), 5), round(float(b.inverse_log_det_jacobian(2.0, event_ndims=0)), 5)
    (2.71828, -0.69315)
    """

    def __init__(self, forward_min_event_ndims=0, inverse_min_event_ndims=None, is_constant_jacobian=False,
                 validate_args=False, dtype=None, parameters=None, name=None):
        super().__init__(name=name or type(self).__name__.lower())
        self._forward_min_event_ndims = int(forward_min_event_ndims)
        self._inverse_min_event_ndims = int(forward_min_event_ndims if inverse_min_event_ndims is None
                                            else inverse_min_event_ndims)
        self._is_constant_jacobian = is_constant_jacobian
        self._validate_args = validate_args
        self._dtype = dtype
        self._parameters = {k: v for k, v in (parameters or {}).items() if k not in ("self", "__class__")}
        self._fwd_cache = []
        self._inv_cache = []

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    validate_args = property(lambda self: self._validate_args)
    parameters = property(lambda self: dict(self._parameters))
    forward_min_event_ndims = property(lambda self: self._forward_min_event_ndims)
    inverse_min_event_ndims = property(lambda self: self._inverse_min_event_ndims)
    is_constant_jacobian = property(lambda self: self._is_constant_jacobian)

    # ---- caching ----------------------------------------------------------------------------
    @staticmethod
    def _lookup(cache, x):
        for a, b in cache:
            if a is x:
                return b
        return None

    @staticmethod
    def _remember(cache, a, b):
        cache.append((a, b))
        if len(cache) > _CACHE_SIZE:
            del cache[0]

    def _as_tensor(self, x):
        if tx.is_tensor(x):
            return x if not isinstance(x, tx.Variable) else tx.convert_to_tensor(x)
        return tx.convert_to_tensor(x, dtype=self._dtype)

    # ---- the map ----------------------------------------------------------------------------
    def forward(self, x, name="forward"):
        """y = f(x)."""
        hit = self._lookup(self._inv_cache, x)
        if hit is not None:
            return hit
        x = self._as_tensor(x)
        y = self._forward(x)
        self._remember(self._fwd_cache, y, x)
        return y

    def inverse(self, y, name="inverse"):
        """x = f^-1(y)."""
        hit = self._lookup(self._fwd_cache, y)
        if hit is not None:
            return hit
        y = self._as_tensor(y)
        x = self._inverse(y)
        self._remember(self._inv_cache, x, y)
        return x

    def _check_event_ndims(self, event_ndims, minimum, which):
        if event_ndims is None:
            event_ndims = minimum
        event_ndims = int(event_ndims)
        if event_ndims < minimum:
            raise ValueError("%s: event_ndims=%d is less than its %s_min_event_ndims=%d (a bijector of rank-%d "
                             "events applied to rank-%d events)" % (self.name, event_ndims, which, minimum,
                                                                    minimum, event_ndims))
        return event_ndims

    def _reduce_ldj(self, ldj, x, event_ndims, minimum):
        extra = event_ndims - minimum
        rank = x.shape.rank
        if rank is not None and rank < event_ndims:
            raise ValueError("%s: the input has rank %d, less than event_ndims=%d" % (self.name, rank, event_ndims))
        ldj = tx.convert_to_tensor(ldj, dtype=x.dtype)
        if extra == 0:
            return ldj
        target = _shapes.shape_tensor(x)
        target = target[:len(target) - minimum] if isinstance(target, list) else target[:tx.rank(x) - minimum]
        ldj = _shapes.broadcast_to_shape(ldj, target) if ldj.shape.as_list() != list(target) else ldj
        return tx.reduce_sum(ldj, axis=list(range(-extra, 0)))

    def forward_log_det_jacobian(self, x, event_ndims=None, name="forward_log_det_jacobian"):
        """log |det dy/dx| on events of ``event_ndims`` dimensions (Note [Bijector event ranks])."""
        event_ndims = self._check_event_ndims(event_ndims, self._forward_min_event_ndims, "forward")
        x = self._as_tensor(x)
        if self._has("_forward_log_det_jacobian"):
            ldj = self._forward_log_det_jacobian(x)
        else:
            ldj = -self._inverse_log_det_jacobian(self.forward(x))
        return self._reduce_ldj(ldj, x, event_ndims, self._forward_min_event_ndims)

    def inverse_log_det_jacobian(self, y, event_ndims=None, name="inverse_log_det_jacobian"):
        """log |det dx/dy| on events of ``event_ndims`` dimensions."""
        event_ndims = self._check_event_ndims(event_ndims, self._inverse_min_event_ndims, "inverse")
        y_in = y
        y = self._as_tensor(y)
        if self._has("_inverse_log_det_jacobian"):
            ldj = self._inverse_log_det_jacobian(y)
        else:
            ldj = -self._forward_log_det_jacobian(self.inverse(y_in))
        return self._reduce_ldj(ldj, y, event_ndims, self._inverse_min_event_ndims)

    def _has(self, method):
        impl = getattr(type(self), method, None)
        return impl is not None and impl is not getattr(Bijector, method, None)

    # ---- shapes -----------------------------------------------------------------------------
    def forward_event_shape(self, input_shape):
        """The event shape of y for x of event shape ``input_shape`` (a TensorShape)."""
        return tx.TensorShape(self._forward_event_shape(tx.TensorShape(input_shape)))

    def inverse_event_shape(self, output_shape):
        return tx.TensorShape(self._inverse_event_shape(tx.TensorShape(output_shape)))

    def _forward_event_shape(self, s):
        return s

    def _inverse_event_shape(self, s):
        return s

    def forward_event_shape_tensor(self, shape):
        return self._forward_event_shape_tensor(shape)

    def inverse_event_shape_tensor(self, shape):
        return self._inverse_event_shape_tensor(shape)

    def _forward_event_shape_tensor(self, shape):
        return shape

    def _inverse_event_shape_tensor(self, shape):
        return shape

    def forward_dtype(self, dtype):
        return dtype

    def inverse_dtype(self, dtype):
        return dtype

    def __call__(self, value, name=None, **kwargs):
        """Applied to a Distribution, a TransformedDistribution; to a Bijector, their Chain; to a
        tensor, ``forward``."""
        from tensorflux_probability.distributions.distribution import Distribution
        if isinstance(value, Distribution):
            from tensorflux_probability.distributions.transformed import TransformedDistribution
            return TransformedDistribution(value, self, **kwargs)
        if isinstance(value, Bijector):
            from tensorflux_probability.bijectors.chain import Chain
            return Chain([self, value])
        return self.forward(value)

    def __repr__(self):
        return "<txp.bijectors.%s '%s' forward_min_event_ndims=%d>" % (type(self).__name__, self.name,
                                                                       self._forward_min_event_ndims)
