"""The Distribution base class: batch and event shapes, sampling with seeds, densities and
moments, following TensorFlow Probability's contract.

Note [Batch and event shapes]: a distribution is a batch of independent distributions, each over
events of ``event_shape``. ``sample(sample_shape)`` has shape ``sample_shape + batch_shape +
event_shape``; ``log_prob(x)`` broadcasts ``x`` against ``batch_shape + event_shape`` and returns
the batch part of the result's shape. A subclass declares each parameter's event rank in
``_params_event_ndims`` and the batch shape is the broadcast of the parameters' shapes without
those trailing dimensions; it implements ``_sample_n(n, seed)`` (shape ``[n] + batch + event``),
``_log_prob`` and whichever of ``_cdf``, ``_mean``, ... have a closed form. A method without one
raises NotImplementedError naming the distribution.
"""

import numpy as np

import tensorflux as tx

from tensorflux_probability.internal import shapes as _shapes
from tensorflux_probability.internal import tensors as _tensors


class ReparameterizationType:
    """Whether samples are differentiable functions of the parameters (TFP's enum)."""

    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return "<Reparameterization Type: %s>" % self._rep_type

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def _static_or_list(shape):
    return tx.TensorShape(shape) if shape is not None else tx.TensorShape(None)


class Distribution(tx.Module):
    """A batch of probability distributions (Note [Batch and event shapes]).

    >>> import tensorflux_probability as txp
    >>> d = txp.distributions.Normal(loc=[0.0, 1.0], scale=1.0)
    >>> d.batch_shape, d.event_shape
    (TensorShape([2]), TensorShape([]))
    >>> d.sample(3, seed=1).shape
    TensorShape([3, 2])
    """

    _params_event_ndims = {}
    # Parameter name -> check applied by ``_p`` when validate_args (internal/assertions.py).
    _validators = {}

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats, parameters=None,
                 name=None):
        super().__init__(name=name or type(self).__name__)
        self._dtype = tx.as_dtype(dtype) if dtype is not None else None
        self._reparameterization_type = reparameterization_type
        self._validate_args = bool(validate_args)
        self._allow_nan_stats = bool(allow_nan_stats)
        self._parameters = {k: v for k, v in (parameters or {}).items() if k not in ("self", "__class__")}
        self._cached_batch_shape = None

    def _init_params(self, dtype, **params):
        """Stores each parameter as ``self._<name>`` (internal/tensors.as_param) in ``dtype``; with
        validate_args, parameters known now are checked now."""
        for k, v in params.items():
            setattr(self, "_" + k, _tensors.as_param(v, dtype, k))
        if self._validate_args:
            for k in params:
                p = getattr(self, "_" + k)
                if p is not None and k in self._validators and not _tensors.is_variable_like(p):
                    self._validators[k](p, k)

    def _p(self, k):
        """The current value of parameter ``k`` (a Variable read), checked when validate_args."""
        v = _tensors.value(getattr(self, "_" + k))
        if self._validate_args and k in self._validators and v is not None:
            v = self._validators[k](v, k)
        return v

    # ---- properties -------------------------------------------------------------------------
    @property
    def dtype(self):
        """The dtype of samples and of the values ``log_prob`` takes."""
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def parameters(self):
        """The constructor's arguments, as given."""
        return dict(self._parameters)

    @property
    def reparameterization_type(self):
        return self._reparameterization_type

    @property
    def validate_args(self):
        return self._validate_args

    @property
    def allow_nan_stats(self):
        return self._allow_nan_stats

    def copy(self, **override):
        """The same distribution with some constructor arguments replaced."""
        return type(self)(**{**self._parameters, **override})

    # ---- shapes -----------------------------------------------------------------------------
    def _param_batch_shapes(self):
        out = []
        for pname, ndims in self._params_event_ndims.items():
            p = getattr(self, "_" + pname, None)
            if p is None:
                continue
            s = _shapes.static_shape(p)
            if s is None:
                return None
            out.append(s[:len(s) - ndims] if ndims else s)
        return out

    def _batch_shape(self):
        """The static batch shape as a list (None entries unknown; None: unknown rank)."""
        shapes = self._param_batch_shapes()
        return None if shapes is None else _shapes.broadcast_static(*shapes)

    def _batch_shape_tensor(self):
        zeros = None
        for pname, ndims in self._params_event_ndims.items():
            p = getattr(self, "_" + pname, None)
            if p is None:
                continue
            p = _tensors.value(p)
            z = tx.zeros(tx.shape(p)[:tx.rank(p) - ndims] if ndims else tx.shape(p), tx.int32)
            zeros = z if zeros is None else zeros + z
        return tx.shape(zeros) if zeros is not None else tx.constant([], tx.int32)

    def _event_shape(self):
        return []

    def _event_shape_tensor(self):
        return tx.constant(self._event_shape(), tx.int32)

    @property
    def batch_shape(self):
        """The static batch shape (a TensorShape; dimensions unknown while building a graph may be None)."""
        if self._cached_batch_shape is None:
            self._cached_batch_shape = self._batch_shape()
            if self._cached_batch_shape is None:
                return tx.TensorShape(None)
        return tx.TensorShape(self._cached_batch_shape)

    @property
    def event_shape(self):
        """The static event shape (a TensorShape)."""
        return _static_or_list(self._event_shape())

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """The batch shape: a Python list when static, else an int32 tensor."""
        s = self.batch_shape
        if s.rank is not None and s.is_fully_defined():
            return s.as_list()
        return self._batch_shape_tensor()

    def event_shape_tensor(self, name="event_shape_tensor"):
        s = self.event_shape
        if s.rank is not None and s.is_fully_defined():
            return s.as_list()
        return self._event_shape_tensor()

    def is_scalar_event(self):
        return self.event_shape.rank == 0

    def is_scalar_batch(self):
        return self.batch_shape.rank == 0

    # ---- sampling ---------------------------------------------------------------------------
    def sample(self, sample_shape=(), seed=None, name="sample"):
        """Samples of shape ``sample_shape + batch_shape + event_shape``; ``seed`` is None, an int
        or a shape-[2] stateless seed tensor (Note [Seeds] in internal/samplers.py)."""
        shape = _shapes.sample_shape_list(sample_shape)
        n = _shapes.num_elements(shape)
        x = self._sample_n(n, seed)
        if isinstance(shape, list) and len(shape) == 1:
            return x
        rest = _shapes.static_shape(x)
        rest = rest[1:] if _shapes.is_fully_defined(rest) else tx.shape(x)[1:]
        return tx.reshape(x, _shapes.concat(shape, rest))

    def _sample_n(self, n, seed):
        raise NotImplementedError("%s does not implement sample" % type(self).__name__)

    def _sample_batch_event_shape(self, n):
        """[n] + batch_shape + event_shape, a list when static, else a tensor."""
        return _shapes.concat([n] if isinstance(n, int) else tx.reshape(n, [1]), self.batch_shape_tensor(),
                              self.event_shape_tensor())

    # ---- densities --------------------------------------------------------------------------
    def _convert_value(self, value):
        return tx.convert_to_tensor(value, dtype=self._dtype) if not _is_tensor(value) else _check_dtype(
            value, self._dtype)

    def log_prob(self, value, name="log_prob"):
        """The log density (log probability mass for discrete distributions) of ``value``."""
        return self._call("_log_prob", value)

    def prob(self, value, name="prob"):
        """The density (or probability mass) of ``value``."""
        if type(self)._prob is not Distribution._prob:
            return self._call("_prob", value)
        return tx.exp(self.log_prob(value))

    def _prob(self, value):  # overridden where a direct form is better
        raise NotImplementedError

    def cdf(self, value, name="cdf"):
        """P(X <= value)."""
        if _overrides(self, "_cdf"):
            return self._call("_cdf", value)
        if _overrides(self, "_log_cdf"):
            return tx.exp(self._call("_log_cdf", value))
        raise self._not_implemented("cdf")

    def log_cdf(self, value, name="log_cdf"):
        """log P(X <= value)."""
        if _overrides(self, "_log_cdf"):
            return self._call("_log_cdf", value)
        return tx.math.log(self.cdf(value))

    def survival_function(self, value, name="survival_function"):
        """P(X > value)."""
        if _overrides(self, "_survival_function"):
            return self._call("_survival_function", value)
        if _overrides(self, "_log_survival_function"):
            return tx.exp(self._call("_log_survival_function", value))
        return 1.0 - self.cdf(value)

    def log_survival_function(self, value, name="log_survival_function"):
        """log P(X > value)."""
        if _overrides(self, "_log_survival_function"):
            return self._call("_log_survival_function", value)
        if _overrides(self, "_survival_function"):
            return tx.math.log(self._call("_survival_function", value))
        return tx.math.log1p(-self.cdf(value))

    def quantile(self, value, name="quantile"):
        """The inverse of ``cdf``."""
        if not _overrides(self, "_quantile"):
            raise self._not_implemented("quantile")
        return self._quantile(tx.convert_to_tensor(value, dtype=self._float_dtype()))

    def _float_dtype(self):
        return self._dtype if self._dtype.is_floating else tx.float32

    def _call(self, method, value):
        if not _overrides(self, method):
            raise self._not_implemented(method.lstrip("_"))
        return getattr(self, method)(self._convert_value(value))

    def _not_implemented(self, what):
        return NotImplementedError("%s has no closed-form %s" % (type(self).__name__, what))

    # ---- statistics -------------------------------------------------------------------------
    def _stat(self, what):
        if not _overrides(self, "_" + what):
            raise self._not_implemented(what)
        return getattr(self, "_" + what)()

    def mean(self, name="mean"):
        return self._stat("mean")

    def mode(self, name="mode"):
        return self._stat("mode")

    def variance(self, name="variance"):
        if _overrides(self, "_variance"):
            return self._variance()
        if _overrides(self, "_stddev"):
            return tx.square(self._stddev())
        raise self._not_implemented("variance")

    def stddev(self, name="stddev"):
        if _overrides(self, "_stddev"):
            return self._stddev()
        return tx.sqrt(self.variance())

    def covariance(self, name="covariance"):
        """The event covariance matrix (for scalar events, the variance)."""
        if _overrides(self, "_covariance"):
            return self._covariance()
        if self.event_shape.rank == 0:
            return self.variance()
        v = self.variance()
        return tx.linalg.diag(v)

    def entropy(self, name="entropy"):
        """Shannon entropy in nats."""
        return self._stat("entropy")

    def kl_divergence(self, other, name="kl_divergence"):
        """KL(self || other) from the KL registry (kullback_leibler.py)."""
        from tensorflux_probability.distributions.kullback_leibler import kl_divergence
        return kl_divergence(self, other)

    def cross_entropy(self, other, name="cross_entropy"):
        """H(self, other) = H(self) + KL(self || other)."""
        return self.entropy() + self.kl_divergence(other)

    # ---- misc -------------------------------------------------------------------------------
    def _broadcast_to_batch(self, t, extra_dims=()):
        """``t`` broadcast to batch_shape + extra_dims."""
        return _shapes.broadcast_to_shape(t, _shapes.concat(self.batch_shape_tensor(), list(extra_dims)))

    @staticmethod
    def _in_support(lp, condition, fill=-np.inf):
        """``lp`` where ``condition`` holds, ``fill`` (-inf: a value outside the support) elsewhere."""
        out = tx.where(condition, lp, tx.constant(fill, lp.dtype))  # broadcasts the scalar: no filled buffer
        return out if out.shape == lp.shape or lp.shape.rank is None else tx.broadcast_to(out, tx.shape(lp))

    def _nan_if(self, condition, value):
        """``value`` with NaN where ``condition`` holds, unless ``allow_nan_stats`` is False (then an
        error when it holds, as TFP)."""
        if not self._allow_nan_stats:
            from tensorflux_probability.internal import assertions
            return assertions.check(tx.logical_not(condition), "%s: statistic undefined for these parameters "
                                    "(allow_nan_stats=False)" % type(self).__name__, value)
        return tx.where(condition, tx.fill(tx.shape(value), tx.constant(np.nan, value.dtype)), value)

    def __repr__(self):
        return ("<txp.distributions.%s '%s' batch_shape=%s event_shape=%s dtype=%s>"
                % (type(self).__name__, self.name, _fmt(self.batch_shape), _fmt(self.event_shape),
                   self._dtype.name if self._dtype else None))

    __str__ = __repr__


def _fmt(shape):
    return "?" if shape.rank is None else str([d for d in shape.as_list()])


def _overrides(obj, method):
    impl = getattr(type(obj), method, None)
    return impl is not None and impl is not getattr(Distribution, method, None)


def _is_tensor(x):
    return tx.is_tensor(x) or _tensors.is_variable_like(x)


def _check_dtype(value, dtype):
    if _tensors.is_variable_like(value):
        value = tx.convert_to_tensor(value)
    if dtype is not None and value.dtype != dtype:
        if value.dtype.is_integer and (dtype.is_floating or dtype.is_integer):
            return tx.cast(value, dtype)
        raise TypeError("value has dtype %s, expected %s" % (value.dtype.name, dtype.name))
    return value
