"""PyTorch (eager) and JAX (jit) versions of the train-step benchmarks in train_bench.py; each
returns a step function or None when the framework is not installed."""

from __future__ import annotations

import numpy as np

THREADS = 2


def torch_step(kind, xv, yv):
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(THREADS)
    nn = torch.nn
    if kind == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        x = torch.from_numpy(xv)
    else:
        model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(64 * 8 * 8, 10, bias=False))
        x = torch.from_numpy(np.ascontiguousarray(xv.transpose(0, 3, 1, 2)))
    y = torch.from_numpy(yv.astype(np.int64))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def jax_step(kind, xv, yv):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    key = jax.random.PRNGKey(0)
    if kind == "mlp":
        sizes = [784, 512, 512, 10]
        params = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            key, k = jax.random.split(key)
            params.append((jax.random.normal(k, (a, b)) / np.sqrt(a), jnp.zeros(b)))

        def forward(p, x):
            for i, (w, b) in enumerate(p):
                x = x @ w + b
                if i < len(p) - 1:
                    x = jax.nn.relu(x)
            return x
    else:
        shapes = [(3, 3, 3, 32), (3, 3, 32, 64), (64 * 8 * 8, 10)]
        params = []
        for s in shapes:
            key, k = jax.random.split(key)
            params.append(jax.random.normal(k, s) * 0.05)

        def forward(p, x):
            for w in p[:2]:
                x = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
                x = jax.nn.relu(x)
                x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            return x.reshape(x.shape[0], -1) @ p[2]

    def loss_fn(p, x, y):
        logits = forward(p, x)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))

    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    state = [params, zeros, zeros, 0]

    @jax.jit
    def update(p, m, v, t, x, y):
        g = jax.grad(loss_fn)(p, x, y)
        t = t + 1
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        lr = 1e-3 * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        p = jax.tree_util.tree_map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + 1e-7), p, m, v)
        return p, m, v, t

    x, y = jnp.asarray(xv), jnp.asarray(yv)

    def step():
        p, m, v, t = update(state[0], state[1], state[2], state[3], x, y)
        jax.block_until_ready(p)
        state[:] = [p, m, v, t]
    return step
