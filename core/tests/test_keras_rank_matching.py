"""Labels of rank one against predictions of shape [N, 1]: Keras's loss and metric wrappers compare
them elementwise (not broadcast to [N, N], which once left a binary classifier untrainable)."""
import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

Y = np.array([0.0, 1.0, 1.0, 0.0], "float32")
P = np.array([[0.1], [0.8], [0.3], [0.4]], "float32")


def _keras():
    return pytest.importorskip("keras")


@pytest.mark.parametrize("name", ["BinaryCrossentropy", "MeanSquaredError", "MeanAbsoluteError", "Huber",
                                  "LogCosh", "Hinge"])
@pytest.mark.parametrize("labels,preds", [(Y, P), (Y[:, None], P[:, 0])], ids=["labels_rank1", "preds_rank1"])
def test_losses_match_ranks_as_keras(name, labels, preds):
    keras = _keras()
    ours = float(getattr(tx.keras.losses, name)()(labels, preds).numpy())
    np.testing.assert_allclose(ours, float(getattr(keras.losses, name)()(labels, preds)), rtol=1e-5)


@pytest.mark.parametrize("name", ["MeanSquaredError", "MeanAbsoluteError", "BinaryAccuracy", "AUC"])
def test_metrics_match_ranks_as_keras(name):
    keras = _keras()
    ours, theirs = getattr(tx.keras.metrics, name)(), getattr(keras.metrics, name)()
    ours.update_state(Y, P)
    theirs.update_state(Y, P)
    np.testing.assert_allclose(float(ours.result().numpy()), float(theirs.result()), rtol=1e-5)


def test_sparse_labels_keep_their_rank():
    preds = np.array([[0.6, 0.4], [0.3, 0.7]], "float32")
    loss = tx.keras.losses.SparseCategoricalCrossentropy()
    np.testing.assert_allclose(float(loss(np.array([0, 1]), preds).numpy()),
                               float(loss(np.array([[0], [1]]), preds).numpy()), rtol=1e-6)


def test_a_binary_classifier_learns_from_rank1_labels():
    tx.keras.utils.set_random_seed(0)  # a lucky initial loss would make the halving below flaky
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 4)).astype("float32")
    y = (x[:, 0] > 0).astype("float32")  # shape [N]; the model predicts [N, 1]
    model = tx.keras.Sequential([tx.keras.Input((4,)), tx.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=tx.keras.optimizers.SGD(0.5), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=5, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    assert model.evaluate(x, y, verbose=0)[1] > 0.9
