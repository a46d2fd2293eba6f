"""Convergence diagnostics: effective sample size and potential scale reduction (R-hat), with
TFP's signatures and formulas (Geyer's truncated autocorrelation sum; Gelman-Rubin / Vehtari).

Note [ESS across chains]: with ``cross_chain_dims`` the autocorrelation at lag t is Vehtari et
al.'s 1 - (W - mean over chains of the lag-t autocovariance) / var_plus, with W the mean
within-chain variance and var_plus = (N - 1) / N W + B / N; the sum stops at the first lag whose
autocorrelation falls below ``filter_threshold`` (or, with ``filter_beyond_positive_pairs``, at
the first pair of lags whose sum is negative, Geyer's initial positive sequence).
"""

import tensorflux as tx


def _autocovariance(x):
    """Autocovariance along axis 0 of ``x`` ([N, ...]) for every lag, by FFT (biased, divided by N)."""
    n = x.shape.as_list()[0]
    centered = x - tx.reduce_mean(x, axis=0, keepdims=True)
    rank = x.shape.rank
    perm = list(range(1, rank)) + [0]
    c = tx.transpose(centered, perm)
    size = 1
    while size < 2 * n:
        size *= 2
    spec = tx.signal.rfft(c, fft_length=[size])
    power = tx.cast(tx.math.real(spec * tx.math.conj(spec)), x.dtype) if spec.dtype.is_complex else spec
    acov = tx.signal.irfft(tx.complex(power, tx.zeros_like(power)), fft_length=[size])[..., :n] / n
    inv = [rank - 1] + list(range(rank - 1))
    return tx.transpose(tx.cast(acov, x.dtype), inv)


def _truncated_sum(rho, filter_threshold, filter_beyond_lag, positive_pairs):
    """sum over lags of (1 - t/N) rho_t, stopped as Note [ESS across chains] says; rho: [N, ...]."""
    n = rho.shape.as_list()[0]
    if filter_beyond_lag is not None:
        rho = rho[:int(filter_beyond_lag) + 1]
    lags = rho.shape.as_list()[0]
    t = tx.reshape(tx.cast(tx.range(lags), rho.dtype), [lags] + [1] * (rho.shape.rank - 1))
    weighted = (1.0 - t / n) * rho
    if positive_pairs:
        even = lags - lags % 2
        pairs = tx.reshape(rho[:even], [even // 2, 2] + rho.shape.as_list()[1:])
        pair_sum = tx.reduce_sum(pairs, axis=1)
        keep = tx.math.cumprod(tx.cast(pair_sum > 0, rho.dtype), axis=0)
        keep = tx.reshape(tx.stack([keep, keep], axis=1), [even] + rho.shape.as_list()[1:])
        return tx.reduce_sum(weighted[:even] * keep, axis=0)
    if filter_threshold is not None:
        keep = tx.math.cumprod(tx.cast(rho >= filter_threshold, rho.dtype), axis=0)
        weighted = weighted * keep
    return tx.reduce_sum(weighted, axis=0)


def effective_sample_size(states, filter_threshold=0.0, filter_beyond_lag=None, filter_beyond_positive_pairs=False,
                          cross_chain_dims=None, name=None):
    """The effective sample size of each coordinate of ``states`` (``[N, ...]`` draws along axis 0;
    a list of such gives a list), TFP's ``tfp.mcmc.effective_sample_size``; ``cross_chain_dims``
    (e.g. 1 for ``[N, chains, ...]``) pools those chain dimensions (Note [ESS across chains]).

    >>> import numpy as np
    >>> x = tx.constant(np.random.default_rng(0).normal(size=[1000]))
    >>> 800 < float(txp.mcmc.effective_sample_size(x)) < 1250
    True
    """
    if isinstance(states, (list, tuple)):
        return [effective_sample_size(s, filter_threshold, filter_beyond_lag, filter_beyond_positive_pairs,
                                      cross_chain_dims) for s in states]
    x = tx.convert_to_tensor(states)
    if not x.dtype.is_floating:
        raise TypeError("effective_sample_size needs floating states, got %s" % x.dtype.name)
    n = x.shape.as_list()[0]
    if n is None or n < 2:
        raise ValueError("effective_sample_size needs at least 2 draws along axis 0, got shape %s" % (x.shape,))
    acov = _autocovariance(x)
    if cross_chain_dims is None:
        rho = acov / acov[:1]
        total = n
    else:
        dims = [cross_chain_dims] if isinstance(cross_chain_dims, int) else list(cross_chain_dims)
        m = 1
        for d in dims:
            m *= x.shape.as_list()[d]
        if m < 2:
            raise ValueError("cross_chain_dims needs at least 2 chains")
        within = tx.reduce_mean(acov[0] * n / (n - 1.0), axis=[d - 1 for d in dims])
        chain_means = tx.reduce_mean(x, axis=0)
        between = tx.math.reduce_variance(chain_means, axis=[d - 1 for d in dims]) * m / (m - 1.0)
        var_plus = (n - 1.0) / n * within + between
        mean_acov = tx.reduce_mean(acov, axis=dims)
        rho = 1.0 - (within - mean_acov) / var_plus
        total = n * m
    return total / (-1.0 + 2.0 * _truncated_sum(rho, filter_threshold, filter_beyond_lag,
                                                  filter_beyond_positive_pairs))


def potential_scale_reduction(chains_states, independent_chain_ndims=1, split_chains=False, name=None):
    """Gelman-Rubin R-hat of ``chains_states`` (``[N, chains, ...]``; a list gives a list), TFP's
    ``tfp.mcmc.potential_scale_reduction``: sqrt of ((C + 1) / C * var_plus / W - (N - 1) / (C N))
    in TFP's definition; ``split_chains`` halves each chain first.

    >>> import numpy as np
    >>> x = tx.constant(np.random.default_rng(0).normal(size=[500, 4]))
    >>> abs(float(txp.mcmc.potential_scale_reduction(x)) - 1.0) < 0.01
    True
    """
    if isinstance(chains_states, (list, tuple)):
        return [potential_scale_reduction(s, independent_chain_ndims, split_chains) for s in chains_states]
    x = tx.convert_to_tensor(chains_states)
    if independent_chain_ndims < 1:
        raise ValueError("independent_chain_ndims must be >= 1, got %d" % independent_chain_ndims)
    if x.shape.rank is None or x.shape.rank < 1 + independent_chain_ndims:
        raise ValueError("potential_scale_reduction needs states of shape [N, chains, ...], got %s" % (x.shape,))
    if split_chains:
        n = x.shape.as_list()[0] // 2
        x = tx.concat([x[:n], x[n:2 * n]], axis=1)
    n = x.shape.as_list()[0]
    if n < 2:
        raise ValueError("potential_scale_reduction needs at least 2 draws per chain")
    chain_axes = list(range(1, 1 + independent_chain_ndims))
    c = 1
    for a in chain_axes:
        c *= x.shape.as_list()[a]
    means = tx.reduce_mean(x, axis=0)
    within = tx.reduce_mean(tx.math.reduce_variance(x, axis=0) * n / (n - 1.0), axis=[a - 1 for a in chain_axes])
    between_over_n = tx.math.reduce_variance(means, axis=[a - 1 for a in chain_axes]) * c / (c - 1.0)
    var_plus = (n - 1.0) / n * within + between_over_n
    return tx.sqrt((c + 1.0) / c * var_plus / within - (n - 1.0) / (c * n))
