"""tx.losses and tx.nn.sigmoid_cross_entropy_with_logits: values against NumPy formulas and, when
tensorflow-cpu is installed, against tf.keras.losses; gradients flow through them."""

import numpy as np
import pytest

import tensorflux as tx

rng = np.random.default_rng(5)
LOGITS = rng.standard_normal((6, 4)) * 3
PROBS = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
ONE_HOT = np.eye(4)[rng.integers(0, 4, 6)]
SPARSE = ONE_HOT.argmax(-1).astype(np.int32)
BIN = (rng.random((6, 4)) > 0.5).astype(np.float64)


def _run(t):
    with tx.Session() as s:
        return s.run(t)


@pytest.fixture(autouse=True)
def _graph():
    with tx.Graph().as_default():
        yield


def _np_log_softmax(x):
    z = x - x.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


CASES = {
    "mse": (lambda: tx.losses.mean_squared_error(ONE_HOT, PROBS), ((PROBS - ONE_HOT) ** 2).mean(-1)),
    "cce_logits": (lambda: tx.losses.categorical_crossentropy(ONE_HOT, LOGITS, from_logits=True),
                   -(ONE_HOT * _np_log_softmax(LOGITS)).sum(-1)),
    "cce_probs": (lambda: tx.losses.categorical_crossentropy(ONE_HOT, PROBS), -(ONE_HOT * np.log(PROBS)).sum(-1)),
    "scce_logits": (lambda: tx.losses.sparse_categorical_crossentropy(SPARSE, LOGITS, from_logits=True),
                    -(ONE_HOT * _np_log_softmax(LOGITS)).sum(-1)),
    "scce_probs": (lambda: tx.losses.sparse_categorical_crossentropy(SPARSE, PROBS),
                   -(ONE_HOT * np.log(PROBS)).sum(-1)),
    "bce_logits": (lambda: tx.losses.binary_crossentropy(BIN, LOGITS, from_logits=True),
                   (np.maximum(LOGITS, 0) - LOGITS * BIN + np.log1p(np.exp(-np.abs(LOGITS)))).mean(-1)),
    "bce_probs": (lambda: tx.losses.binary_crossentropy(BIN, PROBS),
                  -(BIN * np.log(PROBS) + (1 - BIN) * np.log(1 - PROBS)).mean(-1)),
    "huber": (lambda: tx.losses.huber(ONE_HOT, LOGITS, delta=1.5),
              np.where(np.abs(LOGITS - ONE_HOT) <= 1.5, 0.5 * (LOGITS - ONE_HOT) ** 2,
                       1.5 * (np.abs(LOGITS - ONE_HOT) - 0.75)).mean(-1)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_values(case):
    fn, expected = CASES[case]
    np.testing.assert_allclose(_run(fn()), expected, rtol=1e-6, atol=1e-7)


def test_sigmoid_xent_is_stable_and_differentiable():
    x = tx.constant(np.array([-800.0, -2.0, 0.0, 3.0, 800.0]))
    z = tx.constant(np.array([0.0, 1.0, 0.5, 0.0, 1.0]))
    loss = tx.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    (dx,) = tx.gradients(loss, x)
    lv, gv = _run([loss, dx])
    assert np.all(np.isfinite(lv)) and np.all(np.isfinite(gv))
    with np.errstate(over="ignore"):
        sig = 1 / (1 + np.exp(-np.array([-800.0, -2.0, 0.0, 3.0, 800.0])))
    np.testing.assert_allclose(gv, sig - np.array([0.0, 1.0, 0.5, 0.0, 1.0]), atol=1e-12)
    with pytest.raises(ValueError, match="same shape"):
        tx.nn.sigmoid_cross_entropy_with_logits(labels=tx.constant([1.0, 0.0]), logits=tx.constant([1.0, 2.0, 3.0]))


def test_losses_match_keras():
    tf = pytest.importorskip("tensorflow")
    k = tf.keras.losses
    pairs = [
        (tx.losses.categorical_crossentropy(ONE_HOT, PROBS, label_smoothing=0.1),
         k.categorical_crossentropy(ONE_HOT, PROBS, label_smoothing=0.1)),
        (tx.losses.sparse_categorical_crossentropy(SPARSE, LOGITS, from_logits=True),
         k.sparse_categorical_crossentropy(SPARSE, LOGITS, from_logits=True)),
        (tx.losses.binary_crossentropy(BIN, PROBS), k.binary_crossentropy(BIN, PROBS)),
        (tx.losses.huber(ONE_HOT, LOGITS), k.huber(ONE_HOT, LOGITS)),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(_run(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)
