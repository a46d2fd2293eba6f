"""Prodigy: the paper's update in NumPy (with the global step-size estimate), optax.contrib.prodigy,
the core kit."""

import numpy as np
import pytest

import tensorflux_addons as txa
from tensorflux.optimizers import testing

import optim_checks


def test_matches_optax():
    contrib = pytest.importorskip("optax.contrib")
    optim_checks.check_matches_optax(lambda: txa.optimizers.Prodigy(weight_decay=0.01, estim_lr0=1e-3),
                                     lambda: contrib.prodigy(weight_decay=0.01, estim_lr0=1e-3), steps=15,
                                     rtol=1e-4, atol=1e-6)


class NumpyProdigy:
    """The paper's Algorithm 4 over several variables at once (d and r are global)."""

    def __init__(self, lr=1.0, b1=0.9, b2=0.999, eps=1e-8, d0=1e-6, wd=0.0):
        self.lr, self.b1, self.b2, self.b3, self.eps, self.d0, self.wd = lr, b1, b2, b2 ** 0.5, eps, d0, wd
        self.d, self.r, self.state = d0, 0.0, None

    def step(self, params, grads, t):
        if self.state is None:
            self.state = [dict(m=0.0, v=0.0, s=0.0, x0=p.copy()) for p in params]
        b1, b2, b3, d = self.b1, self.b2, self.b3, self.d
        dlr = d * self.lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        num = sum(np.sum(g * (st["x0"] - p)) for g, p, st in zip(grads, params, self.state))
        self.r = b3 * self.r + (d / self.d0) * dlr * num
        out = []
        for g, p, st in zip(grads, params, self.state):
            st["m"] = b1 * st["m"] + (1 - b1) * d * g
            st["v"] = b2 * st["v"] + (1 - b2) * (d * g) ** 2
            st["s"] = b3 * st["s"] + (dlr / self.d0) * d * g
            out.append(p - self.wd * dlr * p - dlr * st["m"] / (np.sqrt(st["v"]) + d * self.eps))
        self.d = max(d, self.r / sum(np.sum(np.abs(st["s"])) for st in self.state))
        return out


def test_matches_the_paper_across_variables():
    init, grads = optim_checks.random_problem(8, seed=2, dtype=np.float64)
    ours = optim_checks.trajectory(lambda: txa.optimizers.Prodigy(0.5, weight_decay=0.01, estim_lr0=1e-2),
                                   init, grads)
    ref, params = NumpyProdigy(0.5, wd=0.01, d0=1e-2), init
    for t, (step, got) in enumerate(zip(grads, ours), start=1):
        params = ref.step(params, step, t)
        for a, b in zip(got, params):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_converges_and_checkpoints(tmp_path):
    testing.check_converges_on_quadratic(lambda: txa.optimizers.Prodigy(), steps=400)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.Prodigy(estim_lr0=1e-3), str(tmp_path / "c"))
