"""Shampoo: the block-diagonal update with stale inverse roots in NumPy, blocking, the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing
from tensorflux_addons.optimizers.shampoo import blocking


def numpy_root(a, eps):
    e, v = np.linalg.eigh(a)
    return (v * np.maximum(e, eps) ** -0.25) @ v.T


def numpy_shampoo(lr, block_size, every, eps=1e-4):
    def step(param, grad, state, t):
        g = grad.reshape(-1, 1) if grad.ndim == 1 else grad
        rows, cols = g.shape
        br, bc = min(block_size, rows), min(block_size, cols)
        out = np.zeros_like(g)
        for i in range(0, rows, br):
            for j in range(0, cols, bc):
                b = g[i:i + br, j:j + bc]
                key = (i, j)
                left, right = state.get(("l", key), eps * np.eye(b.shape[0])), state.get(("r", key), eps * np.eye(
                    b.shape[1]))
                left, right = left + b @ b.T, right + b.T @ b
                state[("l", key)], state[("r", key)] = left, right
                if (t - 1) % every == 0:
                    state[("pl", key)], state[("pr", key)] = numpy_root(left, eps), numpy_root(right, eps)
                out[i:i + br, j:j + bc] = state[("pl", key)] @ b @ state[("pr", key)]
        return param - lr * out.reshape(param.shape)
    return step


def test_blocking():
    assert blocking([784, 512], 128) == (7, 4, 128, 128)
    assert blocking([10], 128) == (1, 1, 10, 1)
    assert blocking([5, 3, 7], 4) == (4, 2, 4, 4)


@pytest.mark.parametrize("block_size, every", [(128, 1), (3, 1), (3, 3)])
def test_matches_the_paper(block_size, every):
    # (2, 4) with blocks of 3: uneven blocks, padded; every 3 steps: stale roots in between
    testing.check_against_reference(lambda: txa.optimizers.Shampoo(0.05, block_size=block_size, update_every=every),
                                    numpy_shampoo(0.05, block_size, every), steps=5, rtol=1e-7)


def test_inside_tx_function():
    w = tx.Variable(np.ones((4, 5), np.float32))
    opt = txa.optimizers.Shampoo(0.1, block_size=3, update_every=2)

    @tx.function
    def step():
        opt.minimize(lambda: tx.reduce_sum(w * w * w), var_list=[w])
    for _ in range(3):
        step()
    eager_w = tx.Variable(np.ones((4, 5), np.float32))
    eager = txa.optimizers.Shampoo(0.1, block_size=3, update_every=2)
    for _ in range(3):
        eager.minimize(lambda: tx.reduce_sum(eager_w * eager_w * eager_w), var_list=[eager_w])
    np.testing.assert_allclose(w.numpy(), eager_w.numpy(), rtol=1e-5)


def test_converges_and_checkpoints(tmp_path):
    with pytest.raises(ValueError, match="block_size and update_every must be positive integers"):
        txa.optimizers.Shampoo(update_every=0)
    testing.check_converges_on_quadratic(lambda: txa.optimizers.Shampoo(1.0, update_every=2), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.Shampoo(0.01, block_size=3, update_every=2),
                                             str(tmp_path / "ckpt"))
