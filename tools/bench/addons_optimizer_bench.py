"""Optimizer update steps of tensorflux-addons on the parameters of the 784-512-512-10 MLP, in one
process run: Lion and LAMB fused (one plugin kernel per variable, through the plugin ABI) and
composed, AdamW fused (core's decay and Adam kernels), Shampoo composed; against optax under
jax.jit (optax.lion, optax.lamb, optax.adamw, and the same block-diagonal Shampoo written in
jax.numpy, optax having none) and
torch (torch.optim.AdamW foreach and fused; torch.optim has no Lion, LAMB or Shampoo, so Lion is
written with torch._foreach_* ops as lion-pytorch does, the others are not measured).

Usage: python tools/bench/addons_optimizer_bench.py   (needs tensorflux-addons installed)
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from harness import median_seconds, report  # noqa: E402
from linalg_bench import cpu_model  # noqa: E402

SHAPES = [(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]
LR, B1, B2, WD = 1e-4, 0.9, 0.99, 0.01
BLOCK, EPS = 128, 1e-4   # Shampoo: blocks of 128, inverse roots every step (the costliest setting)
THREADS = 2


def _params_and_grads(seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in SHAPES]
    grads = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    return params, grads


def _ours(make, compiled, repeats=15, inner=10):
    import tensorflux as tx

    params, grads = _params_and_grads()
    variables = [tx.Variable(p) for p in params]
    gs = [tx.constant(g) for g in grads]
    opt = make()
    step = lambda: opt.apply_gradients(zip(gs, variables))  # noqa: E731
    if compiled:
        step = tx.function(step)
    step()
    return median_seconds(step, repeats=repeats, inner=inner)


def _jitted(make, repeats=15, inner=10):
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError:
        return None
    params, grads = _params_and_grads()
    opt = make(optax, jnp)
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
    return median_seconds(run, repeats=repeats, inner=inner)


def _jax_shampoo(optax, jnp):
    """Block-diagonal Shampoo with inverse 4th roots every step, as txa.optimizers.Shampoo."""
    def blocks(x):
        m = x.reshape(-1, 1) if x.ndim == 1 else x
        r, c = m.shape
        br, bc = min(BLOCK, r), min(BLOCK, c)
        nr, nc = -(-r // br), -(-c // bc)
        m = jnp.pad(m, ((0, nr * br - r), (0, nc * bc - c)))
        return m.reshape(nr, br, nc, bc).transpose(0, 2, 1, 3), (r, c, nr, nc, br, bc)

    def root(a):
        e, v = jnp.linalg.eigh(a)
        return (v * jnp.maximum(e, EPS)[..., None, :] ** -0.25) @ jnp.swapaxes(v, -1, -2)

    def init(params):
        out = []
        for p in params:
            b, _ = blocks(p)
            eye_l, eye_r = jnp.eye(b.shape[2]) * EPS, jnp.eye(b.shape[3]) * EPS
            out.append((jnp.broadcast_to(eye_l, b.shape[:2] + eye_l.shape), jnp.broadcast_to(eye_r, b.shape[:2] +
                                                                                               eye_r.shape)))
        return out

    def update(grads, state, params=None):
        ups, new = [], []
        for g, (left, right) in zip(grads, state):
            b, (r, c, nr, nc, br, bc) = blocks(g)
            left, right = left + b @ jnp.swapaxes(b, -1, -2), right + jnp.swapaxes(b, -1, -2) @ b
            u = (root(left) @ b @ root(right)).transpose(0, 2, 1, 3).reshape(nr * br, nc * bc)[:r, :c]
            ups.append(-LR * u.reshape(g.shape))
            new.append((left, right))
        return ups, new
    return optax.GradientTransformation(init, update)


def _torch(step_fn, repeats=15, inner=10):
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(THREADS)
    params, grads = _params_and_grads()
    p = [torch.from_numpy(x.copy()) for x in params]
    g = [torch.from_numpy(x) for x in grads]
    run = step_fn(torch, p, g)
    if run is None:
        return None
    run()
    return median_seconds(run, repeats=repeats, inner=inner)


def _torch_lion(torch, p, g):
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
    return run


def _torch_adamw(**kind):
    def make(torch, p, g):
        for x, gx in zip(p, g):
            x.grad = gx
        try:
            opt = torch.optim.AdamW(p, lr=LR, weight_decay=WD, **kind)
        except (RuntimeError, TypeError, ValueError):   # fused=True where this torch has no CPU kernel
            return None
        return opt.step
    return make


def lion_update_step():
    """One Lion step over the MLP's ~670k parameters (6 variables)."""
    import tensorflux_addons as txa

    print(f"optimizer update steps on {cpu_model()} ({THREADS} threads where configurable)", flush=True)
    make = lambda fused: lambda: txa.optimizers.Lion(LR, B1, B2, WD, fused=fused)  # noqa: E731
    others = {"tensorflux composed (tx.function)": _ours(make(False), True),
              "tensorflux fused (eager)": _ours(make(True), False),
              "tensorflux composed (eager)": _ours(make(False), False),
              "optax.lion (jax.jit)": _jitted(lambda optax, jnp: optax.lion(LR, B1, B2, weight_decay=WD)),
              "torch foreach Lion": _torch(_torch_lion)}
    return report("Lion update step, 784-512-512-10 MLP params (ours: fused kernel in tx.function)", "us", 1e6,
                  _ours(make(True), True), others)


def lamb_update_step():
    """One LAMB step over the MLP's parameters."""
    import tensorflux_addons as txa

    make = lambda fused: lambda: txa.optimizers.LAMB(LR, weight_decay=WD, fused=fused)  # noqa: E731
    others = {"tensorflux composed (tx.function)": _ours(make(False), True),
              "tensorflux fused (eager)": _ours(make(True), False),
              "tensorflux composed (eager)": _ours(make(False), False),
              "optax.lamb (jax.jit)": _jitted(lambda optax, jnp: optax.lamb(LR, eps=1e-6, weight_decay=WD))}
    return report("LAMB update step, 784-512-512-10 MLP params (ours: fused kernel in tx.function)", "us", 1e6,
                  _ours(make(True), True), others)


def adamw_update_step():
    """One AdamW step over the MLP's parameters (fused: the decay kernel, then ResourceApplyAdam)."""
    import tensorflux_addons as txa

    make = lambda: txa.optimizers.AdamW(LR, weight_decay=WD)  # noqa: E731
    others = {"tensorflux fused (eager)": _ours(make, False),
              "optax.adamw (jax.jit)": _jitted(lambda optax, jnp: optax.adamw(LR, weight_decay=WD)),
              "torch.optim.AdamW (foreach)": _torch(_torch_adamw(foreach=True)),
              "torch.optim.AdamW (fused)": _torch(_torch_adamw(fused=True))}
    return report("AdamW update step, 784-512-512-10 MLP params (ours: fused, in tx.function)", "us", 1e6,
                  _ours(make, True), others)


JAX_SHAMPOO_TIMEOUT_S = 300


def _jax_shampoo_seconds():
    """The jitted jax Shampoo step's median seconds, measured in a child process: on this project's
    2-core machine (jax 0.10.2) its repeated steps sometimes block forever in block_until_ready at
    0% CPU, so a run that does not finish in JAX_SHAMPOO_TIMEOUT_S is reported as such (None)."""
    code = ("import sys; sys.path.insert(0, %r); import addons_optimizer_bench as b; "
            "print(b._jitted(b._jax_shampoo, repeats=3, inner=1))" % str(pathlib.Path(__file__).parent))
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             timeout=JAX_SHAMPOO_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print("    (jax Shampoo did not finish within %d s: blocked in XLA's CPU runtime)" % JAX_SHAMPOO_TIMEOUT_S)
        return None
    return float(out.stdout.strip().splitlines()[-1])


def shampoo_update_step():
    """One Shampoo step (blocks of 128, inverse roots every step) over the MLP's parameters."""
    import tensorflux_addons as txa

    make = lambda: txa.optimizers.Shampoo(LR, block_size=BLOCK, epsilon=EPS)  # noqa: E731
    others = {"tensorflux (eager)": _ours(make, False, repeats=3, inner=1),
              "same Shampoo in jax.numpy (jax.jit)": _jax_shampoo_seconds()}
    return report("Shampoo update step, 784-512-512-10 MLP params (ours: composed, in tx.function)", "ms", 1e3,
                  _ours(make, True, repeats=3, inner=1), others)


ALL = [lion_update_step, lamb_update_step, adamw_update_step, shampoo_update_step]

if __name__ == "__main__":
    for bench in ALL:
        bench()
