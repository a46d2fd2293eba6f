"""LAMB: the paper's update in NumPy, optax.lamb, the core test kit (fused and composed), the fused
kernel against its composed twin and its input checks."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing
from tensorflux_addons import _native

import optim_checks


def numpy_lamb(lr, b1=0.9, b2=0.999, eps=1e-6, wd=0.0):
    def step(param, grad, state, t):
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * grad
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * grad ** 2
        r = (state["m"] / (1 - b1 ** t)) / (np.sqrt(state["v"] / (1 - b2 ** t)) + eps) + wd * param
        ratio = np.linalg.norm(param) / np.linalg.norm(r)
        return param - lr * ratio * r
    return step


def test_matches_the_paper():
    testing.check_against_reference(lambda: txa.optimizers.LAMB(0.05, 0.8, 0.99, 1e-6, weight_decay=0.1),
                                    numpy_lamb(0.05, 0.8, 0.99, 1e-6, 0.1), steps=5)


def test_matches_optax():
    optax = pytest.importorskip("optax")
    optim_checks.check_matches_optax(lambda: txa.optimizers.LAMB(0.01, weight_decay=0.01),
                                     lambda: optax.lamb(0.01, eps=1e-6, weight_decay=0.01))


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "composed"])
def test_converges_and_checkpoints(fused, tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.LAMB(0.05, fused=fused), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.LAMB(0.01, fused=fused), str(tmp_path / "ckpt"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_and_composed_agree(dtype):
    init, grads = optim_checks.random_problem(8, shapes=((300, 40), (40,), (3,)), seed=4, dtype=dtype)
    fused = optim_checks.trajectory(lambda: txa.optimizers.LAMB(0.01, weight_decay=0.05), init, grads)
    composed = optim_checks.trajectory(lambda: txa.optimizers.LAMB(0.01, weight_decay=0.05, fused=False), init, grads)
    tol = 2e-6 if dtype == np.float32 else 1e-12
    for a, b in zip(fused, composed):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def test_fused_in_a_graph_and_the_kit_on_both():
    testing.check_against_reference(lambda: txa.optimizers.LAMB(0.05, 0.8, 0.99, 1e-6, weight_decay=0.1,
                                                                fused=False),
                                    numpy_lamb(0.05, 0.8, 0.99, 1e-6, 0.1), steps=3)
    with tx.Graph().as_default() as g:
        v = tx.Variable([2.0, 1.0])
        txa.optimizers.LAMB(0.1).minimize(tx.reduce_sum(v * v), [v])
        assert [op.type for op in g.get_operations()].count("AddonsResourceApplyLamb") == 1


def test_kernel_checks_its_inputs_and_zero_norms():
    kernel = _native.ops().addons_resource_apply_lamb
    w, m, v = tx.Variable([1.0, 2.0]), tx.Variable([0.0, 0.0]), tx.Variable([0.0, 0.0])
    one = tx.constant(0.5)
    with pytest.raises(tx.errors.InvalidArgumentError, match="epsilon must be a scalar, got a tensor of rank 1"):
        kernel(w.handle, m.handle, v.handle, one, one, one, one, one, tx.constant([1e-6, 1e-6]), one,
               tx.constant([1.0, 1.0]))
    short = tx.Variable([0.0])
    with pytest.raises(tx.errors.InvalidArgumentError, match="v and grad do not have the same shape"):
        kernel(w.handle, m.handle, short.handle, one, one, one, one, one, one, one, tx.constant([1.0, 1.0]))
    zero = tx.Variable([0.0, 0.0])      # ||var|| = 0: the trust ratio is 1
    kernel(zero.handle, m.handle, v.handle, tx.constant(0.9), tx.constant(0.999), tx.constant(0.1), tx.constant(0.9),
           tx.constant(0.999), tx.constant(0.0), tx.constant(0.0), tx.constant([1.0, -1.0]))
    np.testing.assert_allclose(zero.numpy(), [-0.1, 0.1], rtol=1e-5)
