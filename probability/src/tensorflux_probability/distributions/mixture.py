"""Mixtures: MixtureSameFamily (one batched component distribution) and Mixture (a list of
components). log_prob is a logsumexp over components; samples pick a component per draw."""

import tensorflux as tx

from tensorflux_probability.distributions.distribution import NOT_REPARAMETERIZED, Distribution


class MixtureSameFamily(Distribution):
    """A mixture whose K components are the last batch dimension of ``components_distribution``,
    weighted by ``mixture_distribution`` (a Categorical over K).

    >>> tfd = txp.distributions
    >>> m = tfd.MixtureSameFamily(tfd.Categorical(probs=[0.3, 0.7]), tfd.Normal([-1.0, 1.0], [0.5, 0.5]))
    >>> round(float(m.mean()), 5)
    0.4
    """

    def __init__(self, mixture_distribution, components_distribution, reparameterize=False, validate_args=False,
                 allow_nan_stats=True, name="MixtureSameFamily"):
        parameters = dict(locals())
        super().__init__(components_distribution.dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, name)
        self._mix = mixture_distribution
        self._components = components_distribution
        cb = components_distribution.batch_shape
        if cb.rank is not None and cb.rank == 0:
            raise ValueError("components_distribution needs a batch dimension of components")
        k_mix = mixture_distribution.num_categories
        k_comp = cb.as_list()[-1] if cb.rank else None
        if None not in (k_mix, k_comp) and k_mix != k_comp:
            raise ValueError("mixture_distribution has %d categories but components_distribution %d components"
                             % (k_mix, k_comp))

    mixture_distribution = property(lambda self: self._mix)
    components_distribution = property(lambda self: self._components)

    def _batch_shape(self):
        from tensorflux_probability.internal.shapes import broadcast_static
        cb = self._components.batch_shape
        mb = self._mix.batch_shape
        if cb.rank is None or mb.rank is None:
            return None
        return broadcast_static(cb.as_list()[:-1], mb.as_list())

    def _event_shape(self):
        return self._components.event_shape.as_list()

    def _event_rank(self):
        return self._components.event_shape.rank

    def _mix_log_probs(self):
        return self._mix._log_probs_all()

    def _convert_value(self, value):
        return tx.convert_to_tensor(value, dtype=self.dtype) if not tx.is_tensor(value) else value

    def _log_prob(self, x):
        x = tx.expand_dims(x, -1 - self._event_rank())
        lp = self._components.log_prob(x)  # [..., K]
        return tx.reduce_logsumexp(lp + self._mix_log_probs(), axis=-1)

    def _cdf(self, x):
        c = self._components.cdf(tx.expand_dims(x, -1 - self._event_rank()))
        return tx.reduce_sum(c * tx.exp(self._mix_log_probs()), axis=-1)

    def _sample_n(self, n, seed):
        from tensorflux_probability.internal import samplers
        s_mix, s_comp = samplers.split_seed(seed, 2, salt="mixture_same_family")
        idx = self._mix.sample(n, seed=s_mix)  # [n, batch]
        xs = self._components.sample(n, seed=s_comp)  # [n, batch, K, event]
        k = self._mix.num_categories
        mask = tx.one_hot(tx.cast(idx, tx.int32), k, dtype=xs.dtype)  # [n, batch, K]
        for _ in range(self._event_rank()):
            mask = tx.expand_dims(mask, -1)
        return tx.reduce_sum(xs * mask, axis=-1 - self._event_rank())

    def _weights(self):
        w = tx.exp(self._mix_log_probs())
        for _ in range(self._event_rank()):
            w = tx.expand_dims(w, -1)
        return w

    def _mean(self):
        return tx.reduce_sum(self._weights() * self._components.mean(), axis=-1 - self._event_rank())

    def _variance(self):
        w = self._weights()
        axis = -1 - self._event_rank()
        m = self._components.mean()
        mean = tx.reduce_sum(w * m, axis=axis)
        second = tx.reduce_sum(w * (self._components.variance() + tx.square(m)), axis=axis)
        return second - tx.square(mean)


class Mixture(Distribution):
    """A mixture of the distributions in ``components`` (same event shape and dtype) weighted by
    ``cat`` (a Categorical over len(components)).

    >>> tfd = txp.distributions
    >>> m = tfd.Mixture(tfd.Categorical(probs=[0.5, 0.5]), [tfd.Normal(0.0, 1.0), tfd.Laplace(2.0, 1.0)])
    >>> round(float(m.mean()), 5)
    1.0
    """

    def __init__(self, cat, components, validate_args=False, allow_nan_stats=True, name="Mixture"):
        parameters = dict(locals())
        components = list(components)
        if not components:
            raise ValueError("Mixture needs at least one component")
        dtypes = {c.dtype for c in components}
        if len(dtypes) != 1:
            raise TypeError("Mixture components must share a dtype, got %s" % sorted(d.name for d in dtypes))
        events = {tuple(c.event_shape.as_list()) for c in components}
        if len(events) != 1:
            raise ValueError("Mixture components must share an event shape, got %s" % sorted(events))
        if cat.num_categories is not None and cat.num_categories != len(components):
            raise ValueError("cat has %d categories but there are %d components" % (cat.num_categories,
                                                                                   len(components)))
        super().__init__(components[0].dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats, parameters, name)
        self._cat = cat
        self._components_list = components

    cat = property(lambda self: self._cat)
    components = property(lambda self: list(self._components_list))

    def _batch_shape(self):
        from tensorflux_probability.internal.shapes import broadcast_static
        shapes = [c.batch_shape for c in self._components_list] + [self._cat.batch_shape]
        if any(s.rank is None for s in shapes):
            return None
        return broadcast_static(*[s.as_list() for s in shapes])

    def _event_shape(self):
        return self._components_list[0].event_shape.as_list()

    def _convert_value(self, value):
        return tx.convert_to_tensor(value, dtype=self.dtype) if not tx.is_tensor(value) else value

    def _log_prob(self, x):
        log_w = tx.unstack(self._cat._log_probs_all(), axis=-1)
        terms = [lw + c.log_prob(x) for lw, c in zip(log_w, self._components_list)]
        return tx.reduce_logsumexp(tx.stack(terms, axis=-1), axis=-1)

    def _sample_n(self, n, seed):
        from tensorflux_probability.internal import samplers
        seeds = samplers.split_seed(seed, len(self._components_list) + 1, salt="mixture")
        idx = tx.cast(self._cat.sample(n, seed=seeds[0]), tx.int32)
        out = None
        for k, (c, s) in enumerate(zip(self._components_list, seeds[1:])):
            xk = c.sample(n, seed=s)
            pick = tx.equal(idx, k)
            for _ in range(c.event_shape.rank):
                pick = tx.expand_dims(pick, -1)
            out = tx.where(pick, xk, tx.zeros_like(xk)) if out is None else tx.where(pick, xk, out)
        return out

    def _weights(self):
        w = tx.unstack(tx.exp(self._cat._log_probs_all()), axis=-1)
        rank = self._components_list[0].event_shape.rank
        out = []
        for wk in w:
            for _ in range(rank):
                wk = tx.expand_dims(wk, -1)
            out.append(wk)
        return out

    def _mean(self):
        return tx.add_n([w * c.mean() for w, c in zip(self._weights(), self._components_list)])

    def _variance(self):
        ws = self._weights()
        mean = self._mean()
        second = tx.add_n([w * (c.variance() + tx.square(c.mean())) for w, c in zip(ws, self._components_list)])
        return second - tx.square(mean)
