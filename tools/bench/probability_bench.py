"""tensorflux-probability benchmarks (issue 21), all in one run: NUTS on a 10-dimensional
logistic regression (1,000 data points, 4 chains, warm-up + draws) as effective samples per second
against NumPyro on JAX (CPU) and TensorFlow Probability; and log_prob of a 1M-sample batch for
Normal, Gamma and a 10-dimensional MultivariateNormalTriL against TFP and torch.distributions.
Frameworks that do not import are reported as such. Not part of run_all.py: it needs the add-on.
TFP 0.25 imports only with NumPy < 2.3, so its rows need a venv pinned so.

Usage: python tools/bench/probability_bench.py [--warmup 1000 --draws 1000]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from harness import median_seconds, report  # noqa: E402
from linalg_bench import cpu_model  # noqa: E402

N_DATA, DIM, CHAINS = 1000, 10, 4
N_LOGPROB, MVN_DIM = 1_000_000, 10


def logistic_data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(N_DATA, DIM))
    w = rng.normal(size=DIM)
    y = (rng.uniform(size=N_DATA) < 1 / (1 + np.exp(-x @ w))).astype(np.float64)
    return x, y


def make_log_joint(lib):
    """The logistic regression's log joint density of w [chains, D] (standard normal prior), built
    with ``lib``: tensorflux or tensorflow, whose names here are the same."""
    x, y = logistic_data()
    xt, yt = lib.constant(x), lib.constant(y)

    def log_joint(w):
        logits = lib.matmul(w, xt, transpose_b=True)
        lik = lib.reduce_sum(yt * logits - lib.math.softplus(logits), axis=-1)
        return lik - 0.5 * lib.reduce_sum(lib.square(w), axis=-1)
    return log_joint


def min_ess(draws):
    """The smallest per-coordinate ESS (pooled over chains) of draws [N, chains, D], by the
    add-on's estimator, so every framework is scored the same way."""
    import tensorflux as tx
    import tensorflux_probability as txp
    return float(np.min(txp.mcmc.effective_sample_size(tx.constant(draws), cross_chain_dims=1).numpy()))


def nuts_tensorflux(warmup, draws):
    import tensorflux as tx
    import tensorflux_probability as txp
    log_joint = make_log_joint(tx)
    kernel = txp.mcmc.WindowedAdaptation(txp.mcmc.NoUTurnSampler(log_joint, step_size=0.1), num_adaptation_steps=warmup)
    t0 = time.perf_counter()
    out = txp.mcmc.sample_chain(draws, tx.zeros([CHAINS, DIM], tx.float64), kernel, num_burnin_steps=warmup,
                                trace_fn=None, seed=0)
    samples = out.numpy()
    return time.perf_counter() - t0, samples


def nuts_numpyro(warmup, draws):
    try:
        import jax
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS
    except Exception as e:  # noqa: BLE001 (any import failure: report and go on)
        return None, "does not import (%s)" % type(e).__name__
    jax.config.update("jax_enable_x64", True)
    x, y = logistic_data()

    def model(x, y):
        w = numpyro.sample("w", dist.Normal(jnp.zeros(DIM), 1.0).to_event(1))
        numpyro.sample("y", dist.Bernoulli(logits=x @ w), obs=y)
    mcmc = MCMC(NUTS(model), num_warmup=warmup, num_samples=draws, num_chains=CHAINS, chain_method="vectorized",
                progress_bar=False)
    t0 = time.perf_counter()
    mcmc.run(jax.random.PRNGKey(0), jnp.asarray(x), jnp.asarray(y))
    samples = np.asarray(mcmc.get_samples(group_by_chain=True)["w"]).transpose(1, 0, 2)
    return time.perf_counter() - t0, samples


def tfp_module():
    try:
        import tensorflow_probability as tfp
        tfp.distributions.Normal(0.0, 1.0)
        return tfp, None
    except Exception as e:  # noqa: BLE001
        return None, "does not import (%s: %s)" % (type(e).__name__, str(e).splitlines()[0][:80])


def nuts_tfp(tfp, warmup, draws):
    """TFP's NUTS with dual-averaging step-size adaptation (TFP has no mass-matrix adaptation
    outside its JointDistribution-only windowed_adaptive_nuts), the whole chain in one tf.function."""
    import tensorflow as tf
    kernel = tfp.mcmc.DualAveragingStepSizeAdaptation(
        tfp.mcmc.NoUTurnSampler(make_log_joint(tf), step_size=tf.constant(0.1, tf.float64)),
        num_adaptation_steps=int(0.8 * warmup))

    @tf.function
    def run():
        return tfp.mcmc.sample_chain(draws, tf.zeros([CHAINS, DIM], tf.float64), kernel=kernel,
                                     num_burnin_steps=warmup, trace_fn=None, seed=[0, 1])
    t0 = time.perf_counter()
    samples = run().numpy()
    return time.perf_counter() - t0, samples


def logprob_cases():
    rng = np.random.default_rng(1)
    x = rng.gamma(2.0, 1.0, size=N_LOGPROB).astype(np.float32)
    xm = rng.normal(size=(N_LOGPROB, MVN_DIM)).astype(np.float32)
    a = rng.normal(size=(MVN_DIM, MVN_DIM))
    tril = np.linalg.cholesky(a @ a.T + MVN_DIM * np.eye(MVN_DIM)).astype(np.float32)
    return x, xm, tril


def _torch_best(fn):
    """torch's time at its best thread count (1 or all cores): on a loaded machine its OpenMP
    threads can spin-wait for a busy core and lose 10x."""
    import torch
    times = []
    for threads in sorted({1, os.cpu_count() or 1}):
        torch.set_num_threads(threads)
        times.append(median_seconds(fn, repeats=7))
    torch.set_num_threads(os.cpu_count() or 1)
    return min(times)


def bench_logprob():
    import tensorflux as tx
    import tensorflux_probability as txp
    tfd = txp.distributions
    x, xm, tril = logprob_cases()
    loc = np.zeros(MVN_DIM, np.float32)
    xt, xmt = tx.constant(x), tx.constant(xm)
    ours = {
        "Normal": tx.function(lambda v: tfd.Normal(0.5, 1.5).log_prob(v)),
        "Gamma": tx.function(lambda v: tfd.Gamma(2.0, 1.5).log_prob(v)),
        "MultivariateNormalTriL": tx.function(lambda v: tfd.MultivariateNormalTriL(loc, tril).log_prob(v)),
    }
    inputs = {"Normal": xt, "Gamma": xt, "MultivariateNormalTriL": xmt}
    try:
        import torch
        torch.set_num_threads(os.cpu_count() or 1)
        td = torch.distributions
        tx_in = {"Normal": torch.from_numpy(x), "Gamma": torch.from_numpy(x),
                 "MultivariateNormalTriL": torch.from_numpy(xm)}
        theirs_torch = {
            "Normal": td.Normal(0.5, 1.5).log_prob, "Gamma": td.Gamma(2.0, 1.5).log_prob,
            "MultivariateNormalTriL": td.MultivariateNormal(torch.from_numpy(loc),
                                                            scale_tril=torch.from_numpy(tril)).log_prob}
    except Exception:  # noqa: BLE001
        theirs_torch = None
    tfp, why = tfp_module()
    if tfp is not None:
        import tensorflow as tf
        tdist = tfp.distributions
        theirs_tfp = {
            "Normal": tf.function(tdist.Normal(0.5, 1.5).log_prob),
            "Gamma": tf.function(tdist.Gamma(2.0, 1.5).log_prob),
            "MultivariateNormalTriL": tf.function(tdist.MultivariateNormalTriL(loc, tril).log_prob)}
        tf_in = {"Normal": tf.constant(x), "Gamma": tf.constant(x), "MultivariateNormalTriL": tf.constant(xm)}
    else:
        print("TFP: %s" % why)
    rows = []
    for name, fn in ours.items():
        arg = inputs[name]
        ref = np.asarray(fn(arg).numpy())
        t_ours = median_seconds(lambda fn=fn, arg=arg: fn(arg).numpy(), repeats=7)
        others = {}
        if theirs_torch is not None:
            t_fn, t_arg = theirs_torch[name], tx_in[name]
            np.testing.assert_allclose(t_fn(t_arg).numpy(), ref, rtol=2e-4, atol=2e-4)
            others["torch.distributions"] = _torch_best(lambda f=t_fn, a=t_arg: f(a).numpy())
        else:
            others["torch.distributions"] = None
        if tfp is not None:
            f_fn, f_arg = theirs_tfp[name], tf_in[name]
            others["tfp"] = median_seconds(lambda f=f_fn, a=f_arg: f(a).numpy(), repeats=7)
        else:
            others["tfp"] = None
        rows.append(report("log_prob of %d samples: %s" % (N_LOGPROB, name), "ms", 1e3, t_ours, others))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--warmup", type=int, default=1000)
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--skip-nuts", action="store_true")
    args = p.parse_args(argv)
    print("CPU: %s (%d cores visible)" % (cpu_model(), os.cpu_count() or 1))
    bench_logprob()
    if args.skip_nuts:
        return
    print("NUTS, logistic regression D=%d, N=%d, %d chains, %d warm-up + %d draws (float64):"
          % (DIM, N_DATA, CHAINS, args.warmup, args.draws))
    secs, draws = nuts_tensorflux(args.warmup, args.draws)
    ess = min_ess(draws)
    ours = secs / ess  # seconds per effective sample: lower is better
    print("    tensorflux: %.1f s, min ESS %.0f, %.1f ESS/s" % (secs, ess, ess / secs))
    others = {}
    secs_n, draws_n = nuts_numpyro(args.warmup, args.draws)
    if secs_n is None:
        print("    numpyro: %s" % draws_n)
        others["numpyro"] = None
    else:
        ess_n = min_ess(draws_n)
        print("    numpyro: %.1f s, min ESS %.0f, %.1f ESS/s" % (secs_n, ess_n, ess_n / secs_n))
        np.testing.assert_allclose(draws_n.reshape(-1, DIM).mean(0), draws.reshape(-1, DIM).mean(0), atol=0.1)
        others["numpyro"] = secs_n / ess_n
    # tensorflow-probability 0.25 (the release for this TensorFlow) fails in its bijectors with
    # NumPy >= 2.3 (np.reshape(newshape=)); run this in a venv with NumPy < 2.3 to get its row.
    tfp, why = tfp_module()
    if tfp is None:
        print("    tfp: %s" % why)
        others["tfp"] = None
    else:
        secs_t, draws_t = nuts_tfp(tfp, args.warmup, args.draws)
        ess_t = min_ess(draws_t)
        print("    tfp: %.1f s, min ESS %.0f, %.1f ESS/s" % (secs_t, ess_t, ess_t / secs_t))
        np.testing.assert_allclose(draws_t.reshape(-1, DIM).mean(0), draws.reshape(-1, DIM).mean(0), atol=0.1)
        others["tfp"] = secs_t / ess_t
    report("NUTS seconds per effective sample (min over coordinates)", "ms/ESS", 1e3, ours, others)


if __name__ == "__main__":
    main()
