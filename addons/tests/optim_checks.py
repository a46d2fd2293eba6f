"""Checks shared by the optimizer tests beyond the core kit (tx.optimizers.testing): a trajectory
against an independent implementation (optax), and training on a small real problem."""

import numpy as np
import pytest

import tensorflux as tx

SHAPES = ((5, 7), (7,))


def random_problem(steps, shapes=SHAPES, seed=0, dtype=np.float32):
    """Initial values and ``steps`` lists of gradients, all drawn from one seed."""
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(steps)]
    return init, grads


def trajectory(make_optimizer, init, grads):
    """The variables (NumPy) after each eager apply_gradients of ``grads``."""
    vars_ = [tx.Variable(v) for v in init]
    opt = make_optimizer()
    out = []
    for step in grads:
        opt.apply_gradients(zip([tx.constant(g) for g in step], vars_))
        out.append([v.numpy().copy() for v in vars_])
    return out


def optax_trajectory(optax_transformation, init, grads):
    """The parameters after each optax update of ``grads`` (float32, as ours)."""
    optax = pytest.importorskip("optax")
    jnp = pytest.importorskip("jax.numpy")
    params = [jnp.asarray(v) for v in init]
    state = optax_transformation.init(params)
    out = []
    for step in grads:
        updates, state = optax_transformation.update([jnp.asarray(g) for g in step], state, params)
        params = optax.apply_updates(params, updates)
        out.append([np.asarray(p) for p in params])
    return out


def check_matches_optax(make_optimizer, make_optax, steps=12, shapes=SHAPES, rtol=2e-5, atol=2e-6, seed=0):
    """``steps`` random-gradient steps of ours and of optax's optimizer agree after every step."""
    pytest.importorskip("optax")
    init, grads = random_problem(steps, shapes, seed)
    ours = trajectory(make_optimizer, init, grads)
    theirs = optax_trajectory(make_optax(), init, grads)
    for t, (a, b) in enumerate(zip(ours, theirs), start=1):
        for k, (x, y) in enumerate(zip(a, b)):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg="variable %d after step %d" % (k, t))


def digits_accuracy(make_optimizer, steps=60, batch=256, seed=0):
    """Trains softmax regression on sklearn's 8x8 digits (graph mode, mini-batches) and returns the
    held-out accuracy (about 0.1 untrained); skips without scikit-learn."""
    datasets = pytest.importorskip("sklearn.datasets")
    data = datasets.load_digits()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int64)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x))
    train, test = order[:1400], order[1400:]
    g = tx.Graph()
    with g.as_default():
        xs = tx.placeholder(tx.float32, [None, 64])
        ys = tx.placeholder(tx.int64, [None])
        w = tx.Variable(tx.zeros([64, 10]), name="w")
        b = tx.Variable(tx.zeros([10]), name="b")
        logits = tx.matmul(xs, w) + b
        loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=ys, logits=logits))
        train_op = make_optimizer().minimize(loss, [w, b])
        correct = tx.reduce_mean(tx.cast(tx.equal(tx.argmax(logits, 1), ys), tx.float32))
        with tx.Session(graph=g) as sess:
            sess.run(tx.global_variables_initializer())
            for i in range(steps):
                idx = train[rng.integers(0, len(train), batch)]
                sess.run(train_op, {xs: x[idx], ys: y[idx]})
            return float(sess.run(correct, {xs: x[test], ys: y[test]}))
