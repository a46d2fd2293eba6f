"""Optimizer update steps of tensorflux-addons on the parameters of the 784-512-512-10 MLP: Lion
fused (one AddonsResourceApplyLion kernel per variable, through the plugin ABI) vs its op-by-op
composition, vs optax.lion under jax.jit and a torch foreach Lion (torch.optim has no Lion; the
step is written with torch._foreach_* ops as lion-pytorch does), in one process run.

Usage: python tools/bench/addons_optimizer_bench.py   (needs tensorflux-addons installed)
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from harness import median_seconds, report  # noqa: E402
from linalg_bench import cpu_model  # noqa: E402

SHAPES = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
LR, B1, B2, WD = 1e-4, 0.9, 0.99, 0.01
THREADS = 2


def _params_and_grads(seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in SHAPES]
    grads = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    return params, grads


def _ours(fused, compiled):
    import tensorflux as tx
    import tensorflux_addons as txa

    params, grads = _params_and_grads()
    variables = [tx.Variable(p) for p in params]
    gs = [tx.constant(g) for g in grads]
    opt = txa.optimizers.Lion(LR, B1, B2, WD, fused=fused)
    step = lambda: opt.apply_gradients(zip(gs, variables))  # noqa: E731
    if compiled:
        step = tx.function(step)
    step()
    return median_seconds(step, repeats=15, inner=10)


def _optax():
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError:
        return None
    params, grads = _params_and_grads()
    opt = optax.lion(LR, B1, B2, weight_decay=WD)
    p = [jnp.asarray(x) for x in params]
    g = [jnp.asarray(x) for x in grads]
    state = opt.init(p)

    @jax.jit
    def step(p, state, g):
        updates, state = opt.update(g, state, p)
        return optax.apply_updates(p, updates), state

    box = [p, state]

    def run():
        box[0], box[1] = step(box[0], box[1], g)
        jax.block_until_ready(box[0])
    run()
    return median_seconds(run, repeats=15, inner=10)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(THREADS)
    params, grads = _params_and_grads()
    p = [torch.from_numpy(x.copy()) for x in params]
    g = [torch.from_numpy(x) for x in grads]
    m = [torch.zeros_like(x) for x in p]

    @torch.no_grad()
    def run():
        c = torch._foreach_mul(m, B1)
        torch._foreach_add_(c, g, alpha=1 - B1)
        torch._foreach_sign_(c)
        torch._foreach_mul_(p, 1 - LR * WD)
        torch._foreach_add_(p, c, alpha=-LR)
        torch._foreach_mul_(m, B2)
        torch._foreach_add_(m, g, alpha=1 - B2)
    run()
    return median_seconds(run, repeats=15, inner=10)


def lion_update_step():
    """One Lion step over the MLP's ~670k parameters (6 variables)."""
    print(f"optimizer update steps on {cpu_model()} ({THREADS} threads where configurable)", flush=True)
    fused = _ours(fused=True, compiled=False)
    fused_fn = _ours(fused=True, compiled=True)
    composed = _ours(fused=False, compiled=False)
    composed_fn = _ours(fused=False, compiled=True)
    others = {"tensorflux composed (tx.function)": composed_fn, "tensorflux fused (eager)": fused,
              "tensorflux composed (eager)": composed, "optax.lion (jax.jit)": _optax(),
              "torch foreach Lion": _torch()}
    return report("Lion update step, 784-512-512-10 MLP params (ours: fused kernel in tx.function)", "us", 1e6,
                  fused_fn, others)


ALL = [lion_update_step]

if __name__ == "__main__":
    lion_update_step()
