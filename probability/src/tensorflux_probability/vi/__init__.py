"""``txp.vi``: variational inference: ELBO estimators, ``fit_surrogate_posterior`` and mean-field
and full-rank normal surrogates (TFP's ``tfp.vi`` and ``tfp.experimental.vi`` names).

Note [Variational fitting]: ``fit_surrogate_posterior`` minimises the Monte Carlo estimate of
KL(q || p) up to the evidence, E_q[log q(z) - log p(z, x)] (the negative ELBO), with
reparameterised samples of the surrogate q, so gradients reach q's Variables. Each step is one
traced ``tx.function`` (sampling, log densities, gradients, the optimizer update) run by the
engine; the Python loop only calls it ``num_steps`` times and collects the trace.
"""

import numpy as np

import tensorflux as tx

from tensorflux_probability import bijectors as tfb
from tensorflux_probability import distributions as tfd
from tensorflux_probability.internal import samplers
from tensorflux_probability.util import TransformedVariable


def monte_carlo_variational_loss(target_log_prob_fn, surrogate_posterior, sample_size=1, importance_sample_size=1,
                                 seed=None, name=None):
    """E_q[log q(z) - log p(z)] estimated with ``sample_size`` reparameterised draws (the negative
    ELBO); ``importance_sample_size`` > 1 gives the IWAE bound -E[log mean_k p(z_k) / q(z_k)].

    >>> q = txp.distributions.Normal(0.0, 1.0)
    >>> round(float(txp.vi.monte_carlo_variational_loss(q.log_prob, q, sample_size=10, seed=1)), 5)
    0.0
    """
    k = int(importance_sample_size)
    z = surrogate_posterior.sample([int(sample_size) * k] if k > 1 else int(sample_size), seed=seed)
    log_ratio = _call(target_log_prob_fn, z) - surrogate_posterior.log_prob(z)
    if k > 1:
        log_ratio = tx.reshape(log_ratio, tx.concat([[int(sample_size), k], tx.shape(log_ratio)[1:]], 0))
        return -tx.reduce_mean(tx.math.reduce_logsumexp(log_ratio, axis=1) - np.log(k), axis=0)
    return -tx.reduce_mean(log_ratio, axis=0)


def _call(fn, z):
    if isinstance(z, dict):
        return fn(**z)
    if isinstance(z, (list, tuple)):
        return fn(*z)
    return fn(z)


def fit_surrogate_posterior(target_log_prob_fn, surrogate_posterior, optimizer, num_steps, trace_fn=None,
                            sample_size=1, importance_sample_size=1, trainable_variables=None, seed=None, name=None):
    """Fits ``surrogate_posterior``'s Variables by minimising the negative ELBO for ``num_steps``
    optimizer steps (Note [Variational fitting]); returns the loss per step (or the stacked
    ``trace_fn(loss, grads, variables)`` values).

    >>> tfd = txp.distributions
    >>> q = txp.vi.build_factored_surrogate_posterior(event_shape=[2])
    >>> target = tfd.Independent(tfd.Normal([1.0, -2.0], [0.5, 2.0]), 1).log_prob
    >>> losses = txp.vi.fit_surrogate_posterior(target, q, tx.optimizers.Adam(0.05), 400, sample_size=16, seed=0)
    >>> bool(np.allclose(q.mean().numpy(), [1.0, -2.0], atol=0.3))
    True
    """
    variables = list(trainable_variables if trainable_variables is not None
                     else surrogate_posterior.trainable_variables)
    if not variables:
        raise ValueError("the surrogate posterior has no trainable variables to fit")
    base_seed = samplers.sanitize_seed(seed)

    @tx.function(autograph=False)
    def step(i):
        with tx.GradientTape() as tape:
            loss = monte_carlo_variational_loss(target_log_prob_fn, surrogate_posterior, sample_size,
                                                importance_sample_size, seed=tx.random.experimental.stateless_fold_in(
                                                    base_seed, i))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss if trace_fn is None else trace_fn(loss, grads, variables)

    trace = [step(tx.constant(i)) for i in range(int(num_steps))]
    return tx.nest.map_structure(lambda *xs: tx.stack(xs), *trace)


def build_factored_surrogate_posterior(event_shape, initial_loc=None, initial_scale=1e-2, dtype=tx.float32,
                                       seed=None, name=None):
    """A mean-field normal surrogate over events of ``event_shape``: independent Normals with
    trainable locations (random near 0, or ``initial_loc``) and softplus-positive scales.

    >>> q = txp.vi.build_factored_surrogate_posterior([3])
    >>> q.event_shape, len(q.trainable_variables)
    (TensorShape([3]), 2)
    """
    shape = [int(d) for d in np.reshape(event_shape, [-1])]
    loc0 = (samplers.uniform(shape, samplers.sanitize_seed(seed), dtype, -2.0, 2.0) if initial_loc is None
            else tx.broadcast_to(tx.convert_to_tensor(initial_loc, dtype=dtype), shape))
    loc = tx.Variable(loc0, name="loc")
    scale = TransformedVariable(tx.fill(shape, tx.constant(initial_scale, dtype)), tfb.Softplus(), name="scale")
    return tfd.Independent(tfd.Normal(loc, scale), reinterpreted_batch_ndims=len(shape))


def build_affine_surrogate_posterior(event_shape, initial_loc=None, initial_scale=1e-2, dtype=tx.float32, seed=None,
                                     name=None):
    """A full-rank normal surrogate over vectors of ``event_shape`` ([n]): MultivariateNormalTriL
    with a trainable location and a trainable lower-triangular scale (FillScaleTriL of a Variable).

    >>> q = txp.vi.build_affine_surrogate_posterior([3])
    >>> q.event_shape, len(q.trainable_variables)
    (TensorShape([3]), 2)
    """
    shape = [int(d) for d in np.reshape(event_shape, [-1])]
    if len(shape) != 1:
        raise ValueError("build_affine_surrogate_posterior takes a vector event shape [n], got %s" % shape)
    n = shape[0]
    loc0 = (samplers.uniform(shape, samplers.sanitize_seed(seed), dtype, -2.0, 2.0) if initial_loc is None
            else tx.broadcast_to(tx.convert_to_tensor(initial_loc, dtype=dtype), shape))
    loc = tx.Variable(loc0, name="loc")
    fill = tfb.FillScaleTriL(diag_shift=None)
    tril = TransformedVariable(tx.eye(n, dtype=dtype) * initial_scale, fill, name="scale_tril")
    return tfd.MultivariateNormalTriL(loc, tril)


__all__ = ["build_affine_surrogate_posterior", "build_factored_surrogate_posterior",
           "fit_surrogate_posterior", "monte_carlo_variational_loss"]
