"""The KL divergence registry: ``kl_divergence(p, q)`` finds the analytic KL registered for the
most specific (type(p), type(q)) pair along both classes' MROs, as TFP's ``RegisterKL``."""

import math

import tensorflux as tx

_REGISTRY = {}


class RegisterKL:
    """Decorator registering ``fn(p, q)`` as KL(p || q) for instances of (dist_cls_a, dist_cls_b)."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, fn):
        if self._key in _REGISTRY:
            raise ValueError("KL(%s || %s) is already registered" % (self._key[0].__name__, self._key[1].__name__))
        _REGISTRY[self._key] = fn
        return fn


def _lookup(type_a, type_b):
    best, best_dist = None, None
    for i, a in enumerate(type_a.__mro__):
        for j, b in enumerate(type_b.__mro__):
            fn = _REGISTRY.get((a, b))
            if fn is not None and (best_dist is None or i + j < best_dist):
                best, best_dist = fn, i + j
    return best


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(distribution_a || distribution_b) in nats, batched; NotImplementedError naming both types
    when no analytic form is registered.

    >>> tfd = txp.distributions
    >>> round(float(tfd.kl_divergence(tfd.Normal(0.0, 1.0), tfd.Normal(1.0, 1.0))), 5)
    0.5
    """
    fn = _lookup(type(distribution_a), type(distribution_b))
    if fn is None:
        raise NotImplementedError("no KL(%s || %s) is registered" % (type(distribution_a).__name__,
                                                                      type(distribution_b).__name__))
    return fn(distribution_a, distribution_b)


def _register_all():
    from tensorflux_probability.distributions import bernoulli, beta, categorical, counts, gamma, independent
    from tensorflux_probability.distributions import location_scale, multinomial, mvn, normal, uniform
    from tensorflux_probability.distributions._logits_probs import log_probs_pair, probs_of

    @RegisterKL(normal.Normal, normal.Normal)
    def _kl_normal(a, b):
        sa, sb = a._p("scale"), b._p("scale")
        ratio = tx.square(sa / sb)
        return 0.5 * (ratio - 1.0 - tx.math.log(ratio)) + 0.5 * tx.square((a._p("loc") - b._p("loc")) / sb)

    @RegisterKL(location_scale.LogNormal, location_scale.LogNormal)
    def _kl_lognormal(a, b):
        sa, sb = a._p("scale"), b._p("scale")
        ratio = tx.square(sa / sb)
        return 0.5 * (ratio - 1.0 - tx.math.log(ratio)) + 0.5 * tx.square((a._p("loc") - b._p("loc")) / sb)

    @RegisterKL(normal.HalfNormal, normal.HalfNormal)
    def _kl_halfnormal(a, b):
        ratio = tx.square(a._p("scale") / b._p("scale"))
        return 0.5 * (ratio - 1.0 - tx.math.log(ratio))

    @RegisterKL(location_scale.Laplace, location_scale.Laplace)
    def _kl_laplace(a, b):
        sa, sb = a._p("scale"), b._p("scale")
        d = tx.abs(a._p("loc") - b._p("loc"))
        return tx.math.log(sb / sa) + d / sb + sa / sb * tx.exp(-d / sa) - 1.0

    @RegisterKL(uniform.Uniform, uniform.Uniform)
    def _kl_uniform(a, b):
        la, ha = a._bounds()
        lb, hb = b._bounds()
        kl = tx.math.log(hb - lb) - tx.math.log(ha - la)
        inside = tx.logical_and(lb <= la, ha <= hb)
        return tx.where(inside, kl, tx.fill(tx.shape(kl), tx.constant(math.inf, kl.dtype)))

    @RegisterKL(gamma.Gamma, gamma.Gamma)
    def _kl_gamma(a, b):
        ca, ra = a._p("concentration"), a._p("rate")
        cb, rb = b._p("concentration"), b._p("rate")
        return ((ca - cb) * tx.math.digamma(ca) + tx.math.lgamma(cb) - tx.math.lgamma(ca)
                + cb * (tx.math.log(ra) - tx.math.log(rb)) + ca * (rb / ra - 1.0))

    @RegisterKL(beta.Beta, beta.Beta)
    def _kl_beta(a, b):
        a1, a0 = a._p("concentration1"), a._p("concentration0")
        b1, b0 = b._p("concentration1"), b._p("concentration0")
        from tensorflux_probability.math.special import lbeta
        dg = tx.math.digamma
        return (lbeta(b1, b0) - lbeta(a1, a0) + (a1 - b1) * dg(a1) + (a0 - b0) * dg(a0)
                + (b1 - a1 + b0 - a0) * dg(a1 + a0))

    @RegisterKL(multinomial.Dirichlet, multinomial.Dirichlet)
    def _kl_dirichlet(a, b):
        ca, cb = a._alpha(), b._p("concentration")
        sa = tx.reduce_sum(ca, axis=-1)
        dg = tx.math.digamma
        return (tx.math.lgamma(sa) - tx.reduce_sum(tx.math.lgamma(ca), axis=-1)
                - tx.math.lgamma(tx.reduce_sum(cb, axis=-1)) + tx.reduce_sum(tx.math.lgamma(cb), axis=-1)
                + tx.reduce_sum((ca - cb) * (dg(ca) - tx.expand_dims(dg(sa), -1)), axis=-1))

    @RegisterKL(bernoulli.Bernoulli, bernoulli.Bernoulli)
    def _kl_bernoulli(a, b):
        lpa, lqa = log_probs_pair(a)
        lpb, lqb = log_probs_pair(b)
        pa = probs_of(a)
        return (tx.math.multiply_no_nan(lpa - lpb, pa) + tx.math.multiply_no_nan(lqa - lqb, 1.0 - pa))

    @RegisterKL(categorical._CategoricalBase, categorical._CategoricalBase)
    def _kl_categorical(a, b):
        la, lb = a._log_probs_all(), b._log_probs_all()
        return tx.reduce_sum(tx.math.multiply_no_nan(la - lb, tx.exp(la)), axis=-1)

    @RegisterKL(counts.Poisson, counts.Poisson)
    def _kl_poisson(a, b):
        ra, rb = a.rate_parameter(), b.rate_parameter()
        return ra * (a._log_rate_value() - b._log_rate_value()) - ra + rb

    @RegisterKL(gamma.Exponential, gamma.Exponential)
    def _kl_exponential(a, b):
        ra, rb = a._p("rate"), b._p("rate")
        return tx.math.log(ra) - tx.math.log(rb) + rb / ra - 1.0

    def _mvn_parts(d):
        """(loc, L) of an MVN as a dense lower-triangular scale."""
        if isinstance(d, mvn.MultivariateNormalDiag):
            return d._loc_v(), tx.linalg.diag(d._scale_v())
        return d._loc_v(), d._p("scale_tril")

    @RegisterKL(mvn.MultivariateNormalDiag, mvn.MultivariateNormalDiag)
    def _kl_mvn_diag(a, b):
        sa, sb = a._scale_v(), b._scale_v()
        ratio = tx.square(sa / sb)
        z = (a._loc_v() - b._loc_v()) / sb
        return 0.5 * tx.reduce_sum(ratio - 1.0 - tx.math.log(ratio) + tx.square(z), axis=-1)

    def _kl_mvn_dense(a, b):
        la, sa = _mvn_parts(a)
        lb, sb = _mvn_parts(b)
        d = a.event_shape.as_list()[-1]
        shape = tx.shape(sa + tx.zeros_like(sb))
        sa_b, sb_b = tx.broadcast_to(sa, shape), tx.broadcast_to(sb, shape)
        m = tx.linalg.triangular_solve(sb_b, sa_b, lower=True)  # Lb^-1 La
        diff = tx.broadcast_to(tx.expand_dims(lb - la, -1), tx.concat([shape[:-1], [1]], 0))
        z = tx.linalg.triangular_solve(sb_b, diff, lower=True)
        log_det = (tx.reduce_sum(tx.math.log(tx.abs(tx.linalg.diag_part(sb))), axis=-1)
                   - tx.reduce_sum(tx.math.log(tx.abs(tx.linalg.diag_part(sa))), axis=-1))
        return 0.5 * (tx.reduce_sum(tx.square(m), axis=[-2, -1]) + tx.reduce_sum(tx.square(z), axis=[-2, -1])
                      - float(d)) + log_det

    for pa in (mvn.MultivariateNormalTriL, mvn.MultivariateNormalDiag):
        for pb in (mvn.MultivariateNormalTriL, mvn.MultivariateNormalDiag):
            if (pa, pb) not in _REGISTRY:
                RegisterKL(pa, pb)(_kl_mvn_dense)

    @RegisterKL(independent.Independent, independent.Independent)
    def _kl_independent(a, b):
        if a.reinterpreted_batch_ndims != b.reinterpreted_batch_ndims:
            raise NotImplementedError("KL between Independents of different reinterpreted_batch_ndims")
        return a._reduce(kl_divergence(a.distribution, b.distribution))

    @RegisterKL(independent.Sample, independent.Sample)
    def _kl_sample(a, b):
        if a.sample_shape != b.sample_shape:
            raise NotImplementedError("KL between Samples of different sample_shape")
        n = 1
        for s in a.sample_shape:
            n *= s
        return kl_divergence(a.distribution, b.distribution) * float(n)


_register_all()
