"""Layers whose output is a distribution (TFP's ``tfp.layers``): DistributionLambda and the
parameterised families built on it, and the KL-divergence loss layers.

Note [Distribution outputs]: a distribution layer returns a ``Distribution`` when called on
tensors (subclassed models, custom training steps, ``model(x)`` on data), so ``-y_hat.log_prob(y)``
is a loss and ``y_hat.mean()``/``.stddev()`` give predictions with uncertainty. The functional API
and ``Sequential.build`` describe layer outputs by shape and dtype alone, so there the layer's
output spec is that of ``convert_to_tensor_fn(distribution)`` (a sample by default), as TFP's
tensor-coercible distributions. The distributions a layer returns are tensor-coercible too
(``tx.convert_to_tensor``, ops, metrics and ``predict`` see ``convert_to_tensor_fn(d)``), and
tx.keras hands them to a loss function as they are, so ``compile(loss=lambda y, d:
-d.log_prob(y))`` trains the model.
"""

import numpy as np

import tensorflux as tx

from tensorflux_probability import distributions as tfd
from tensorflux_probability.bijectors.matrix import FillScaleTriL


def _sample(d):
    return d.sample()


class DistributionLambda(tx.keras.layers.Layer):
    """``make_distribution_fn(inputs)`` as a layer (Note [Distribution outputs]).

    >>> layer = txp.layers.DistributionLambda(lambda t: txp.distributions.Normal(t[..., 0], tx.exp(t[..., 1])))
    >>> d = layer(tx.zeros([3, 2]))
    >>> type(d).__name__, d.batch_shape
    ('Normal', TensorShape([3]))
    """

    def __init__(self, make_distribution_fn, convert_to_tensor_fn=_sample, **kwargs):
        super().__init__(**kwargs)
        self._make_distribution_fn = make_distribution_fn
        self._convert_to_tensor_fn = _convert_fn(convert_to_tensor_fn)

    def call(self, inputs):
        d = self._make_distribution_fn(inputs)
        d._txp_convert_to_tensor_fn = self._convert_to_tensor_fn  # Note [Distribution outputs]
        return d

    def compute_output_spec(self, *args, **kwargs):
        from tensorflux_probability.layers._spec import spec_of
        return spec_of(self, args, kwargs)


def _convert_coercible(d, dtype=None, name=None, as_ref=False):
    """tx.convert_to_tensor of a distribution layer's output: ``convert_to_tensor_fn(d)``, computed
    once per distribution and graph (one sample serves every use, as in TFP); NotImplemented for
    distributions not made by a layer, which stay non-tensors."""
    fn = getattr(d, "_txp_convert_to_tensor_fn", None)
    if fn is None:
        return NotImplemented
    where = None if tx.executing_eagerly() else tx.get_default_graph()
    cached = getattr(d, "_txp_tensor_value", None)
    if cached is None or cached[0] is not where:
        cached = (where, tx.convert_to_tensor(fn(d)))
        d._txp_tensor_value = cached
    return tx.convert_to_tensor(cached[1], dtype=dtype, name=name)


tx.register_tensor_conversion_function(tfd.Distribution, _convert_coercible)


def _convert_fn(fn):
    if isinstance(fn, str) or fn is None:
        name = fn or "sample"
        return lambda d: getattr(d, name)()
    return fn


class IndependentNormal(DistributionLambda):
    """Independent Normals over events of ``event_shape`` from 2 * prod(event_shape) inputs
    (locations, then softplus'd scales).

    >>> d = txp.layers.IndependentNormal([2])(tx.zeros([4, 4]))
    >>> d.batch_shape, d.event_shape
    (TensorShape([4]), TensorShape([2]))
    """

    def __init__(self, event_shape=(), convert_to_tensor_fn=_sample, **kwargs):
        shape = [int(d) for d in np.reshape(event_shape, [-1])]
        super().__init__(lambda t: IndependentNormal.new(t, shape), convert_to_tensor_fn, **kwargs)
        self._event = shape

    @staticmethod
    def params_size(event_shape=()):
        """The number of inputs the layer takes per example."""
        return 2 * int(np.prod(event_shape, dtype=np.int64))

    @staticmethod
    def new(params, event_shape=()):
        n = int(np.prod(event_shape, dtype=np.int64))
        loc, raw = tx.split(params, [n, n], axis=-1)
        shape = tx.concat([tx.shape(params)[:-1], tx.constant(list(event_shape), tx.int32)], 0)
        scale = 1e-5 + tx.math.softplus(raw)
        return tfd.Independent(tfd.Normal(tx.reshape(loc, shape), tx.reshape(scale, shape)),
                               reinterpreted_batch_ndims=len(event_shape))


class MultivariateNormalTriL(DistributionLambda):
    """MultivariateNormalTriL over vectors of size ``event_size`` from event_size + event_size *
    (event_size + 1) / 2 inputs (location, then FillScaleTriL's packed scale).

    >>> d = txp.layers.MultivariateNormalTriL(2)(tx.zeros([3, 5]))
    >>> d.event_shape
    TensorShape([2])
    """

    def __init__(self, event_size, convert_to_tensor_fn=_sample, **kwargs):
        n = int(event_size)
        super().__init__(lambda t: MultivariateNormalTriL.new(t, n), convert_to_tensor_fn, **kwargs)

    @staticmethod
    def params_size(event_size):
        return event_size + event_size * (event_size + 1) // 2

    @staticmethod
    def new(params, event_size):
        loc, packed = tx.split(params, [event_size, event_size * (event_size + 1) // 2], axis=-1)
        return tfd.MultivariateNormalTriL(loc, FillScaleTriL(diag_shift=1e-5).forward(packed))


class OneHotCategorical(DistributionLambda):
    """OneHotCategorical over ``event_size`` classes from as many logits.

    >>> txp.layers.OneHotCategorical(3)(tx.zeros([2, 3])).event_shape
    TensorShape([3])
    """

    def __init__(self, event_size, convert_to_tensor_fn=_sample, sample_dtype=None, **kwargs):
        self._n = int(event_size)
        super().__init__(lambda t: tfd.OneHotCategorical(logits=t, dtype=sample_dtype or tx.float32),
                         convert_to_tensor_fn, **kwargs)

    @staticmethod
    def params_size(event_size):
        return int(event_size)


class CategoricalMixtureOfOneHotCategorical(DistributionLambda):
    """A mixture of ``num_components`` OneHotCategoricals over ``event_size`` classes, from
    num_components * (1 + event_size) inputs (mixture logits, then each component's logits).

    >>> txp.layers.CategoricalMixtureOfOneHotCategorical(3, 2)(tx.zeros([4, 8])).event_shape
    TensorShape([3])
    """

    def __init__(self, event_size, num_components, convert_to_tensor_fn=_sample, sample_dtype=None, **kwargs):
        e, k = int(event_size), int(num_components)

        def make(t):
            mix, comp = tx.split(t, [k, k * e], axis=-1)
            comp = tx.reshape(comp, tx.concat([tx.shape(t)[:-1], [k, e]], 0))
            return tfd.MixtureSameFamily(tfd.Categorical(logits=mix),
                                         tfd.OneHotCategorical(logits=comp, dtype=sample_dtype or tx.float32))
        super().__init__(make, convert_to_tensor_fn, **kwargs)

    @staticmethod
    def params_size(event_size, num_components):
        return num_components * (1 + event_size)


class MixtureNormal(DistributionLambda):
    """A mixture of ``num_components`` Normals over events of ``event_shape`` from
    num_components * (1 + 2 * prod(event_shape)) inputs (logits, locations, softplus'd scales).

    >>> d = txp.layers.MixtureNormal(2, [1])(tx.zeros([4, 6]))
    >>> d.batch_shape, d.event_shape
    (TensorShape([4]), TensorShape([1]))
    """

    def __init__(self, num_components, event_shape=(), convert_to_tensor_fn=_sample, **kwargs):
        k = int(num_components)
        shape = [int(d) for d in np.reshape(event_shape, [-1])]
        n = int(np.prod(shape, dtype=np.int64))

        def make(t):
            logits, loc, raw = tx.split(t, [k, k * n, k * n], axis=-1)
            comp_shape = tx.concat([tx.shape(t)[:-1], [k], tx.constant(shape, tx.int32)], 0)
            normal = tfd.Normal(tx.reshape(loc, comp_shape), tx.reshape(1e-5 + tx.math.softplus(raw), comp_shape))
            return tfd.MixtureSameFamily(tfd.Categorical(logits=logits),
                                         tfd.Independent(normal, reinterpreted_batch_ndims=len(shape)))
        super().__init__(make, convert_to_tensor_fn, **kwargs)

    @staticmethod
    def params_size(num_components, event_shape=()):
        return int(num_components) * (1 + 2 * int(np.prod(event_shape, dtype=np.int64)))


class KLDivergenceRegularizer:
    """An activity regularizer: weight * KL(q || ``distribution_b``) of the layer's output
    distribution q (exact when ``use_exact_kl``, else estimated from ``test_points_fn(q)``)."""

    def __init__(self, distribution_b, use_exact_kl=False, test_points_reduce_axis=(), test_points_fn=_sample,
                 weight=None):
        self.distribution_b = distribution_b
        self.use_exact_kl = use_exact_kl
        self.test_points_reduce_axis = test_points_reduce_axis
        self.test_points_fn = _convert_fn(test_points_fn)
        self.weight = weight

    def __call__(self, distribution_a):
        if self.use_exact_kl:
            kl = tfd.kl_divergence(distribution_a, self.distribution_b)
        else:
            z = self.test_points_fn(distribution_a)
            kl = distribution_a.log_prob(z) - self.distribution_b.log_prob(z)
            if self.test_points_reduce_axis:
                kl = tx.reduce_mean(kl, axis=list(self.test_points_reduce_axis))
        kl = tx.reduce_mean(kl)
        return kl * self.weight if self.weight is not None else kl


class KLDivergenceAddLoss(tx.keras.layers.Layer):
    """Passes its input distribution through and adds KL(input || ``distribution_b``) (see
    KLDivergenceRegularizer) to the layer's losses.

    >>> tfd = txp.distributions
    >>> layer = txp.layers.KLDivergenceAddLoss(tfd.Normal(0.0, 1.0), use_exact_kl=True)
    >>> _ = layer(tfd.Normal(1.0, 1.0)); round(float(layer.losses[0]), 5)
    0.5
    """

    def __init__(self, distribution_b, use_exact_kl=False, test_points_reduce_axis=None, test_points_fn=_sample,
                 weight=None, **kwargs):
        super().__init__(**kwargs)
        self._regularizer = KLDivergenceRegularizer(distribution_b, use_exact_kl, test_points_reduce_axis or (),
                                                    test_points_fn, weight)

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, tfd.Distribution):  # a distribution is not a tensor: no input conversion
            self._clear_losses()
            self.add_loss(self._regularizer(inputs))
            return inputs
        return super().__call__(inputs, *args, **kwargs)

    def call(self, inputs):
        return inputs


def negative_log_likelihood(y, distribution):
    """-log p(y) under a distribution layer's output: a loss for custom training steps."""
    return -distribution.log_prob(y)
