"""JointDistributionSequential and JointDistributionNamed: a joint distribution of several
variables, each a distribution or a function of the variables before it (TFP's conventions: a
function's arguments are the previous variables, most recent first; for Named, by name)."""

import inspect

import tensorflux as tx

from tensorflux_probability.distributions.distribution import Distribution
from tensorflux_probability.internal import samplers


class JointDistributionSequential(Distribution):
    """A list of distributions or callables; callable i gets the values of variables i-1, i-2, ...
    (as many as it takes). ``sample`` returns a list, ``log_prob`` takes one and sums the parts.

    >>> tfd = txp.distributions
    >>> jd = tfd.JointDistributionSequential([tfd.Normal(0.0, 1.0), lambda m: tfd.Normal(m, 1.0)])
    >>> xs = jd.sample(seed=1)
    >>> bool(abs(float(jd.log_prob(xs)) - float(sum(jd.log_prob_parts(xs)))) < 1e-6)
    True
    """

    def __init__(self, model, validate_args=False, name=None):
        parameters = dict(locals())
        super().__init__(None, None, validate_args, True, parameters, name or "JointDistributionSequential")
        self._model = list(model)

    model = property(lambda self: list(self._model))

    def _dist_at(self, i, values):
        m = self._model[i]
        if isinstance(m, Distribution):
            return m
        nargs = len(inspect.signature(m).parameters)
        args = list(reversed(values[:i]))[:nargs]
        return m(*args)

    def _distributions_for(self, values):
        return [self._dist_at(i, values) for i in range(len(self._model))]

    def sample(self, sample_shape=(), seed=None, name="sample", value=None):
        """A list of samples, one per variable (later variables drawn given earlier ones)."""
        seeds = samplers.split_seed(seed, len(self._model), salt="joint")
        values = []
        for i in range(len(self._model)):
            d = self._dist_at(i, values)
            if value is not None and i < len(value) and value[i] is not None:
                values.append(tx.convert_to_tensor(value[i], dtype=d.dtype))
                continue
            # A variable whose distribution already depends on sampled parents carries their
            # sample dims in its batch shape: draw one sample per parent draw.
            depends = not isinstance(self._model[i], Distribution) and i > 0
            values.append(d.sample(() if depends else sample_shape, seed=seeds[i]))
        return values

    def sample_distributions(self, sample_shape=(), seed=None, value=None):
        """(distributions, values): each variable's distribution given the sampled values before it."""
        values = self.sample(sample_shape, seed=seed, value=value)
        return self._distributions_for(values), values

    def log_prob_parts(self, value):
        """Each variable's log_prob of its part of ``value``."""
        value = list(value)
        if len(value) != len(self._model):
            raise ValueError("%s has %d variables, got %d values" % (self.name, len(self._model), len(value)))
        return [d.log_prob(v) for d, v in zip(self._distributions_for(value), value)]

    def log_prob(self, *args, name="log_prob", **kwargs):
        value = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        return tx.add_n(self.log_prob_parts(value))

    def prob(self, *args, name="prob"):
        return tx.exp(self.log_prob(*args))

    @property
    def dtype(self):
        return [d.dtype for d in self._distributions_for(self.sample(seed=0))]

    def __repr__(self):
        return "<txp.distributions.%s '%s' with %d variables>" % (type(self).__name__, self.name, len(self._model))


class JointDistributionNamed(JointDistributionSequential):
    """A dict (or namedtuple-like mapping) of distributions or callables whose argument names are
    the names of the variables they depend on; samples and log_prob use dicts.

    >>> tfd = txp.distributions
    >>> jd = tfd.JointDistributionNamed(dict(m=tfd.Normal(0.0, 1.0), x=lambda m: tfd.Normal(m, 1.0)))
    >>> sorted(jd.sample(seed=2))
    ['m', 'x']
    """

    def __init__(self, model, validate_args=False, name=None):
        names = list(model)
        order = []
        pending = dict(model)
        while pending:
            progress = False
            for k in list(pending):
                m = pending[k]
                deps = [] if isinstance(m, Distribution) else list(inspect.signature(m).parameters)
                unknown = [d for d in deps if d not in model]
                if unknown:
                    raise ValueError("variable %r depends on %s, which the model does not define" % (k, unknown))
                if all(d in order for d in deps):
                    order.append(k)
                    del pending[k]
                    progress = True
            if not progress:
                raise ValueError("the model's dependencies form a cycle among %s" % sorted(pending))
        super().__init__([model[k] for k in order], validate_args, name or "JointDistributionNamed")
        self._names = order
        self._given = names
        self._named_model = dict(model)

    def _dist_at(self, i, values):
        m = self._model[i]
        if isinstance(m, Distribution):
            return m
        have = dict(zip(self._names, values))
        return m(**{a: have[a] for a in inspect.signature(m).parameters})

    def sample(self, sample_shape=(), seed=None, name="sample", value=None):
        given = None if value is None else [value.get(k) for k in self._names]
        values = super().sample(sample_shape, seed, name, given)
        return {k: values[self._names.index(k)] for k in self._given}

    def log_prob_parts(self, value):
        return {k: lp for k, lp in zip(self._names, super().log_prob_parts([value[k] for k in self._names]))}

    def log_prob(self, *args, name="log_prob", **kwargs):
        value = args[0] if args else kwargs
        return tx.add_n(list(self.log_prob_parts(value).values()))
