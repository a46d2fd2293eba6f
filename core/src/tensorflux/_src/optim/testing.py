"""A reusable test kit for optimizers (``tx.optimizers.testing``): every optimizer, built-in or
contributed, should pass `check_against_reference` and `check_converges_on_quadratic`."""

import numpy as np

from tensorflux._src import graph as _graph
from tensorflux._src import math_ops
from tensorflux._src.constant_op import constant
from tensorflux._src.dtypes import as_dtype
from tensorflux._src.session import Session
from tensorflux._src.variables import Variable, global_variables_initializer
from tensorflux._src.array_ops import placeholder
from tensorflux._src.checkpoint import Checkpoint

SHAPES = ((3,), (2, 4))


def check_against_reference(make_optimizer, reference_step, steps=4, dtype=np.float64, shapes=SHAPES, rtol=1e-6,
                            atol=1e-9, seed=0):
    """Applies `steps` steps of random gradients and compares each variable after every step with
    ``reference_step(param, grad, state, t) -> param`` (NumPy; ``state`` is a dict the reference
    keeps per variable; ``t`` counts steps from 1). Returns the final NumPy values.

    >>> from tensorflux.optimizers import testing
    >>> def sgd_step(param, grad, state, t):
    ...     return param - 0.1 * grad
    >>> final = testing.check_against_reference(lambda: tx.optimizers.SGD(0.1), sgd_step)
    >>> [v.shape for v in final]
    [(3,), (2, 4)]
    """
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(steps)]
    g = _graph.Graph()
    with g.as_default():
        vars_ = [Variable(constant(v), name="v%d" % i) for i, v in enumerate(init)]
        phs = [placeholder(as_dtype(dtype), s) for s in shapes]
        opt = make_optimizer()
        train = opt.apply_gradients(list(zip(phs, vars_)))
        with Session(graph=g) as sess:
            sess.run(global_variables_initializer())
            ref = [v.copy() for v in init]
            states = [{} for _ in shapes]
            for t, step_grads in enumerate(grads, start=1):
                sess.run(train, dict(zip(phs, step_grads)))
                ref = [reference_step(p, gr, st, t) for p, gr, st in zip(ref, step_grads, states)]
                got = sess.run([v.value() for v in vars_])
                for k, (a, b) in enumerate(zip(got, ref)):
                    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                               err_msg="%s: variable %d after step %d" % (opt.name, k, t))
            return got


def check_converges_on_quadratic(make_optimizer, steps=300, dims=8, factor=1e-3, seed=0):
    """Minimizes sum(c * (x - target)^2) with condition number 10 from a random start; the final
    loss must be below ``factor`` times the initial loss. Returns (initial, final) losses.

    >>> first, last = tx.optimizers.testing.check_converges_on_quadratic(lambda: tx.optimizers.SGD(0.05))
    >>> bool(last < 1e-3 * first)
    True
    """
    rng = np.random.default_rng(seed)
    target = rng.standard_normal(dims).astype(np.float32)
    c = np.linspace(1.0, 10.0, dims).astype(np.float32)
    g = _graph.Graph()
    with g.as_default():
        x = Variable(constant(rng.standard_normal(dims).astype(np.float32) * 3), name="x")
        loss = math_ops.reduce_sum(constant(c) * (x - constant(target)) * (x - constant(target)))
        train = make_optimizer().minimize(loss, [x])
        with Session(graph=g) as sess:
            sess.run(global_variables_initializer())
            first = sess.run(loss)
            for _ in range(steps):
                sess.run(train)
            last = sess.run(loss)
    assert last < factor * first, "did not converge: loss %g -> %g after %d steps" % (first, last, steps)
    return first, last


def check_slot_checkpoint_round_trip(make_optimizer, path, steps=3, seed=0):
    """Trains a few steps, checkpoints the variables and every slot (tx.train.Checkpoint), then in
    a fresh graph restores and takes more steps: the result must equal uninterrupted training.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     tx.optimizers.testing.check_slot_checkpoint_round_trip(lambda: tx.optimizers.Adam(0.1), d + "/ckpt")
    """
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(2 * steps)]

    def run(step_grads, restore=None, save=None):
        g = _graph.Graph()
        with g.as_default():
            vars_ = [Variable(constant(v), name="v%d" % i) for i, v in enumerate(init)]
            phs = [placeholder(as_dtype(np.float32), s) for s in SHAPES]
            opt = make_optimizer()
            train = opt.apply_gradients(list(zip(phs, vars_)))
            ckpt = Checkpoint(model=vars_, optimizer=opt)
            with Session(graph=g) as sess:
                sess.run(global_variables_initializer())
                if restore:
                    ckpt.restore(restore, session=sess)
                for gr in step_grads:
                    sess.run(train, dict(zip(phs, gr)))
                if save:
                    ckpt.write(save, session=sess)
                return sess.run([v.value() for v in vars_])

    run(grads[:steps], save=path)
    resumed = run(grads[steps:], restore=path)
    straight = run(grads)
    for a, b in zip(resumed, straight):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
