"""Bayesian dense and convolution layers for tx.keras: weights drawn from a trainable posterior
at every call, KL(posterior || prior) added to the layer's losses.

Note [Flipout]: DenseFlipout (Wen et al. 2018) draws one weight perturbation dW ~ q - mean per
call and decorrelates it across the batch with random signs: y = x W_mean + ((x * s_in) dW) * s_out,
s_in and s_out rows of +-1 per example. The result has the posterior's distribution for every
example, with lower-variance gradients than one shared sample; the posterior must be a
(possibly Independent) Normal, whose scale gives dW = scale * eps.
"""

import numpy as np

import tensorflux as tx

from tensorflux_probability import distributions as tfd
from tensorflux_probability.internal import samplers
from tensorflux_probability.internal import tensors as _tensors
from tensorflux_probability.util import DeferredTensor


def default_mean_field_normal_fn(is_singular=False, loc_initializer=None, untransformed_scale_initializer=None):
    """A posterior factory ``fn(dtype, shape, name, trainable, add_variable_fn)`` -> independent
    Normals with a trainable location and a softplus scale (a point mass at the location when
    ``is_singular``), TFP's default."""
    def fn(dtype, shape, name, trainable, add_variable_fn):
        loc = add_variable_fn(name + "_loc", shape, loc_initializer or tx.keras.initializers.RandomNormal(stddev=0.1),
                              dtype, trainable)
        if is_singular:
            return _PointMass(loc)
        raw = add_variable_fn(name + "_untransformed_scale", shape, untransformed_scale_initializer or
                              tx.keras.initializers.RandomNormal(mean=-3.0, stddev=0.1), dtype, trainable)
        scale = DeferredTensor(raw, lambda v: 1e-5 + tx.math.softplus(v))
        return tfd.Independent(tfd.Normal(loc, scale), reinterpreted_batch_ndims=len(shape))
    return fn


def default_multivariate_normal_fn(dtype, shape, name, trainable, add_variable_fn):
    """The standard-normal prior over a weight of ``shape`` (TFP's default kernel prior)."""
    del name, trainable, add_variable_fn
    zeros = tx.zeros(shape, dtype)
    return tfd.Independent(tfd.Normal(zeros, tx.ones(shape, dtype)), reinterpreted_batch_ndims=len(shape))


class _PointMass:
    """The 'distribution' of a deterministic weight: its sample is the Variable itself."""

    def __init__(self, value):
        self.value = value

    def sample(self, seed=None):
        return tx.convert_to_tensor(self.value)


_DEFAULT = object()  # the default posterior factories (None disables the bias, as in TFP)


def _kl(q, p, _):
    return tfd.kl_divergence(q, p)


class _VariationalLayer(tx.keras.layers.Layer):
    """Shared machinery: posteriors and priors for the kernel and bias, their KL losses."""

    def __init__(self, units_or_filters, activation=None, activity_regularizer=None, trainable=True,
                 kernel_posterior_fn=_DEFAULT, kernel_prior_fn=default_multivariate_normal_fn, kernel_divergence_fn=_kl,
                 bias_posterior_fn=_DEFAULT, bias_prior_fn=None, bias_divergence_fn=_kl, seed=None, **kwargs):
        super().__init__(trainable=trainable, **kwargs)
        self.units = int(units_or_filters)
        self.activation = tx.keras.activations.get(activation)
        self.kernel_posterior_fn = (default_mean_field_normal_fn() if kernel_posterior_fn is _DEFAULT
                                    else kernel_posterior_fn)
        self.kernel_prior_fn = kernel_prior_fn
        self.kernel_divergence_fn = kernel_divergence_fn
        # TFP's defaults: a point-mass bias; bias_posterior_fn=None means no bias.
        self.bias_posterior_fn = (default_mean_field_normal_fn(is_singular=True) if bias_posterior_fn is _DEFAULT
                                  else bias_posterior_fn)
        self.bias_prior_fn = bias_prior_fn
        self.bias_divergence_fn = bias_divergence_fn
        self._seed = seed

    def _add_variable(self, name, shape, initializer, dtype, trainable):
        return self.add_weight(shape=shape, initializer=initializer, dtype=dtype, trainable=trainable, name=name)

    def _build_weights(self, kernel_shape):
        dtype = self.variable_dtype
        self.kernel_posterior = self.kernel_posterior_fn(dtype, kernel_shape, "kernel_posterior", self.trainable,
                                                         self._add_variable)
        self.kernel_prior = (self.kernel_prior_fn(dtype, kernel_shape, "kernel_prior", self.trainable,
                                                  self._add_variable)
                             if self.kernel_prior_fn is not None else None)
        self.bias_posterior = (self.bias_posterior_fn(dtype, [self.units], "bias_posterior", self.trainable,
                                                      self._add_variable) if self.bias_posterior_fn else None)
        self.bias_prior = (self.bias_prior_fn(dtype, [self.units], "bias_prior", self.trainable, self._add_variable)
                           if self.bias_prior_fn is not None else None)
        self.built = True

    def _next_seed(self):
        """A fresh stateless seed per call, also per run of a traced training step (an op-level
        seed, the layer's ``seed``, makes the sequence reproducible)."""
        return samplers.fresh_seed(self._seed)

    def _add_kl(self, q, p, fn, sample):
        if p is None or fn is None or isinstance(q, _PointMass):
            return
        self.add_loss(fn(q, p, sample))

    def _finish(self, outputs, kernel, bias):
        self._add_kl(self.kernel_posterior, self.kernel_prior, self.kernel_divergence_fn, kernel)
        if self.bias_posterior is not None:
            outputs = outputs + bias
            self._add_kl(self.bias_posterior, self.bias_prior, self.bias_divergence_fn, bias)
        return self.activation(outputs) if self.activation is not None else outputs


class DenseReparameterization(_VariationalLayer):
    """A dense layer whose kernel (and bias) are sampled by reparameterisation from a trainable
    posterior at each call; the KL to the prior joins ``losses``.

    >>> layer = txp.layers.DenseReparameterization(3)
    >>> layer(tx.ones([2, 4])).shape, len(layer.losses)
    (TensorShape([2, 3]), 1)
    """

    def build(self, input_shape):
        self._build_weights([int(input_shape[-1]), self.units])

    def call(self, inputs):
        seed_k, seed_b = samplers.split_seed(self._next_seed(), 2)
        kernel = self.kernel_posterior.sample(seed=seed_k)
        bias = self.bias_posterior.sample(seed=seed_b) if self.bias_posterior is not None else None
        return self._finish(tx.matmul(inputs, kernel), kernel, bias)


def _normal_parts(q, name):
    base = q.distribution if isinstance(q, tfd.Independent) else q
    if not isinstance(base, tfd.Normal):
        raise TypeError("%s needs a Normal (or Independent Normal) kernel posterior, got %s" % (name, type(q).__name__))
    return base.loc, base.scale


def _signs(shape, seed, dtype):
    return tx.sign(samplers.uniform(shape, seed, dtype, -1.0, 1.0))


class DenseFlipout(_VariationalLayer):
    """A Bayesian dense layer with Flipout weight perturbations (Note [Flipout]).

    >>> layer = txp.layers.DenseFlipout(2, seed=1)
    >>> layer(tx.ones([5, 3])).shape
    TensorShape([5, 2])
    """

    def build(self, input_shape):
        self._build_weights([int(input_shape[-1]), self.units])

    def call(self, inputs):
        loc, scale = _normal_parts(self.kernel_posterior, self.name)
        loc, scale = _tensors.value(loc), _tensors.value(scale)
        s_eps, s_in, s_out, s_b = samplers.split_seed(self._next_seed(), 4)
        eps = samplers.normal(tx.shape(loc), s_eps, loc.dtype)
        delta = scale * eps
        x = tx.convert_to_tensor(inputs)
        sign_in = _signs(tx.shape(x), s_in, x.dtype)
        sign_out = _signs(tx.concat([tx.shape(x)[:-1], [self.units]], 0), s_out, x.dtype)
        outputs = tx.matmul(x, loc) + tx.matmul(x * sign_in, delta) * sign_out
        bias = self.bias_posterior.sample(seed=s_b) if self.bias_posterior is not None else None
        return self._finish(outputs, loc + delta, bias)


class Convolution2DReparameterization(_VariationalLayer):
    """A Bayesian 2-D convolution (NHWC) whose kernel is sampled by reparameterisation each call.

    >>> layer = txp.layers.Convolution2DReparameterization(4, kernel_size=3, padding="SAME")
    >>> layer(tx.ones([1, 5, 5, 2])).shape
    TensorShape([1, 5, 5, 4])
    """

    def __init__(self, filters, kernel_size, strides=1, padding="VALID", **kwargs):
        super().__init__(filters, **kwargs)
        self.kernel_size = [kernel_size] * 2 if isinstance(kernel_size, int) else list(kernel_size)
        self.strides = [strides] * 2 if isinstance(strides, int) else list(strides)
        self.padding = padding.upper()

    def build(self, input_shape):
        self._build_weights(self.kernel_size + [int(input_shape[-1]), self.units])

    def _conv(self, x, kernel):
        return tx.nn.conv2d(x, kernel, strides=[1] + self.strides + [1], padding=self.padding)

    def call(self, inputs):
        seed_k, seed_b = samplers.split_seed(self._next_seed(), 2)
        kernel = self.kernel_posterior.sample(seed=seed_k)
        bias = self.bias_posterior.sample(seed=seed_b) if self.bias_posterior is not None else None
        return self._finish(self._conv(inputs, kernel), kernel, bias)


class Convolution2DFlipout(Convolution2DReparameterization):
    """A Bayesian 2-D convolution with Flipout perturbations (Note [Flipout]; signs per example
    and channel).

    >>> layer = txp.layers.Convolution2DFlipout(4, kernel_size=3, seed=2)
    >>> layer(tx.ones([2, 5, 5, 1])).shape
    TensorShape([2, 3, 3, 4])
    """

    def call(self, inputs):
        loc, scale = _normal_parts(self.kernel_posterior, self.name)
        loc, scale = _tensors.value(loc), _tensors.value(scale)
        s_eps, s_in, s_out, s_b = samplers.split_seed(self._next_seed(), 4)
        delta = scale * samplers.normal(tx.shape(loc), s_eps, loc.dtype)
        x = tx.convert_to_tensor(inputs)
        batch = tx.shape(x)[:1]
        sign_in = _signs(tx.concat([batch, [1, 1], tx.shape(x)[-1:]], 0), s_in, x.dtype)
        mean_out = self._conv(x, loc)
        sign_out = _signs(tx.concat([batch, [1, 1], [self.units]], 0), s_out, x.dtype)
        outputs = mean_out + self._conv(x * sign_in, delta) * sign_out
        bias = self.bias_posterior.sample(seed=s_b) if self.bias_posterior is not None else None
        return self._finish(outputs, loc + delta, bias)


class DenseVariational(tx.keras.layers.Layer):
    """A dense layer whose kernel and bias (one flat vector of size in*units + units) come from
    ``make_posterior_fn(kernel_size, bias_size, dtype)`` (a callable returning a Distribution
    over that vector, whose Variables it owns); ``kl_weight`` times KL(posterior || prior) joins
    the losses (exact KL when ``kl_use_exact``, else the one-sample estimate).

    >>> layer = txp.layers.DenseVariational(2, txp.layers.mean_field_posterior, txp.layers.standard_normal_prior,
    ...                                     kl_weight=0.1)
    >>> layer(tx.ones([3, 4])).shape, len(layer.trainable_weights)
    (TensorShape([3, 2]), 2)
    """

    def __init__(self, units, make_posterior_fn, make_prior_fn, kl_weight=None, kl_use_exact=True, activation=None,
                 use_bias=True, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self._make_posterior_fn = make_posterior_fn
        self._make_prior_fn = make_prior_fn
        self._kl_weight = kl_weight
        self._kl_use_exact = kl_use_exact
        self.activation = tx.keras.activations.get(activation)
        self.use_bias = use_bias
        self._seed = seed

    def build(self, input_shape):
        self._in = int(input_shape[-1])
        dtype = self.variable_dtype
        bias_size = self.units if self.use_bias else 0
        self._posterior = self._make_posterior_fn(self._in * self.units, bias_size, dtype)
        self._prior = self._make_prior_fn(self._in * self.units, bias_size, dtype)
        # Variables held in an attribute are the layer's own weights (tx.keras tracks them).
        self.posterior_variables = _variables_of(self._posterior)
        self.built = True

    def call(self, inputs):
        q, p = _as_dist(self._posterior), _as_dist(self._prior)
        w = q.sample(seed=samplers.fresh_seed(self._seed))
        kernel = tx.reshape(w[:self._in * self.units], [self._in, self.units])
        out = tx.matmul(inputs, kernel)
        if self.use_bias:
            out = out + w[self._in * self.units:]
        kl = tfd.kl_divergence(q, p) if self._kl_use_exact else q.log_prob(w) - p.log_prob(w)
        if self._kl_weight is not None:
            kl = kl * self._kl_weight
        self.add_loss(kl)
        return self.activation(out) if self.activation is not None else out


def _as_dist(maker):
    return maker() if callable(maker) and not isinstance(maker, tfd.Distribution) else maker


def _variables_of(obj):
    return list(getattr(obj, "trainable_variables", ()))


class _Posterior(tx.Module):
    def __init__(self, dist):
        super().__init__(name="posterior")
        self.dist = dist

    def __call__(self):
        return self.dist


def mean_field_posterior(kernel_size, bias_size, dtype):
    """A ``make_posterior_fn`` for DenseVariational: independent Normals over the n = kernel_size
    + bias_size weights with trainable locations and softplus scales."""
    n = kernel_size + bias_size
    c = float(np.log(np.expm1(1.0)))
    loc = tx.Variable(samplers.normal([n], samplers.sanitize_seed(None), dtype) * 0.1, name="posterior_loc")
    raw = tx.Variable(tx.fill([n], tx.constant(c - 5.0, dtype)), name="posterior_untransformed_scale")
    scale = DeferredTensor(raw, lambda v: 1e-5 + tx.math.softplus(v))
    return _Posterior(tfd.Independent(tfd.Normal(loc, scale), reinterpreted_batch_ndims=1))


def standard_normal_prior(kernel_size, bias_size, dtype):
    """A ``make_prior_fn`` for DenseVariational: N(0, 1) on every weight (no trainable variables)."""
    n = kernel_size + bias_size
    return tfd.Independent(tfd.Normal(tx.zeros([n], dtype), tx.ones([n], dtype)), reinterpreted_batch_ndims=1)
