"""EMA and SWA: the averages in NumPy (around AdamW, whose weight decay is kept), assigning the
averages, averages surviving a checkpoint, the core kit."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_addons as txa
from tensorflux.optimizers import testing

from test_decoupled import numpy_adamw


def _run(opt, steps, seed=0):
    rng = np.random.default_rng(seed)
    w = tx.Variable(rng.standard_normal(4))
    init = w.numpy().copy()
    grads = [rng.standard_normal(4) for _ in range(steps)]
    for g in grads:
        opt.apply_gradients([(tx.constant(g), w)])
    return w, init, grads


def _numpy_iterates(init, grads):
    step, state, p, out = numpy_adamw(lambda t: 0.05, 0.1), {}, init, []
    for t, g in enumerate(grads, start=1):
        p = step(p, g, state, t)
        out.append(p)
    return out


def test_ema_of_the_iterates():
    opt = txa.optimizers.EMA(txa.optimizers.AdamW(0.05, weight_decay=0.1), decay=0.8)
    w, init, grads = _run(opt, 6)
    avg = init
    for p in _numpy_iterates(init, grads):
        avg = 0.8 * avg + 0.2 * p
    np.testing.assert_allclose(opt.average(w).numpy(), avg, rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), _numpy_iterates(init, grads)[-1], rtol=1e-6)


def test_swa_of_the_iterates():
    opt = txa.optimizers.SWA(txa.optimizers.AdamW(0.05, weight_decay=0.1), start=2, every=2)
    w, init, grads = _run(opt, 7)
    iterates = _numpy_iterates(init, grads)
    np.testing.assert_allclose(opt.average(w).numpy(), np.mean([iterates[i] for i in (2, 4, 6)], axis=0),
                               rtol=1e-6)
    opt.assign_average_vars([w])
    np.testing.assert_allclose(w.numpy(), opt.average(w).numpy())


def test_averages_survive_a_checkpoint(tmp_path):
    opt = txa.optimizers.EMA(tx.optimizers.SGD(0.1), decay=0.5)
    w, _, _ = _run(opt, 3)
    avg = opt.average(w).numpy().copy()
    ckpt = tx.train.Checkpoint(model=[w], optimizer=opt)
    path = ckpt.write(str(tmp_path / "ema"))
    opt.average(w).assign(np.zeros(4))
    ckpt.restore(path)
    np.testing.assert_allclose(opt.average(w).numpy(), avg)
    testing.check_slot_checkpoint_round_trip(lambda: txa.optimizers.SWA(tx.optimizers.Adam(0.01)),
                                             str(tmp_path / "swa"))


def test_errors_and_convergence():
    with pytest.raises(ValueError, match="decay must lie in"):
        txa.optimizers.EMA(tx.optimizers.SGD(0.1), decay=1.5)
    with pytest.raises(ValueError, match="every must be a positive integer"):
        txa.optimizers.SWA(tx.optimizers.SGD(0.1), every=0)
    testing.check_converges_on_quadratic(lambda: txa.optimizers.EMA(tx.optimizers.SGD(0.05)), steps=300)
