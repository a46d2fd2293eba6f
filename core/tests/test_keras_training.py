"""tx.keras training: fit/evaluate/predict against Keras 3 from the same weights and data (SGD and
Adam steps, losses, metrics, sample and class weights, regularization), the data forms fit takes,
the *_on_batch calls, custom train steps, and bad input."""

import numpy as np
import pytest

import tensorflux as tx
from keras_parity import keras3

pytestmark = pytest.mark.eager
keras = tx.keras
rng = np.random.default_rng(7)
X = rng.standard_normal((96, 6)).astype(np.float32)
Y = (X[:, :3].sum(1) > 0).astype(np.int32)


def _mlp(K, regularize=False):
    reg = K.regularizers.L2(0.01) if regularize else None
    return K.Sequential([K.Input((6,)), K.layers.Dense(8, activation="tanh", kernel_regularizer=reg),
                         K.layers.Dense(3, activation="softmax")])


def _pair(regularize=False):
    theirs = _mlp(keras3(), regularize)
    ours = _mlp(keras, regularize)
    ours.set_weights(theirs.get_weights())
    return ours, theirs


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "rmsprop", "adagrad"])
def test_fit_matches_keras(optimizer):
    ours, theirs = _pair(regularize=True)
    for m in (ours, theirs):
        m.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    h_ours = ours.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    h_theirs = theirs.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    for key in ("loss", "accuracy"):
        np.testing.assert_allclose(h_ours.history[key], h_theirs.history[key], rtol=2e-5, atol=2e-6)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.evaluate(X, Y, verbose=0), theirs.evaluate(X, Y, verbose=0), rtol=1e-5)
    np.testing.assert_allclose(ours.predict(X, verbose=0), theirs.predict(X, verbose=0), rtol=1e-5, atol=1e-6)


def test_sample_and_class_weights_match_keras():
    ours, theirs = _pair()
    sw = rng.random(len(X)).astype(np.float32)
    cw = {0: 0.5, 1: 2.0, 2: 1.0}
    for m in (ours, theirs):
        m.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", weighted_metrics=["accuracy"])
    for kwargs in ({"sample_weight": sw}, {"class_weight": cw}):
        a = ours.fit(X, Y, batch_size=32, shuffle=False, verbose=0, **kwargs).history
        b = theirs.fit(X, Y, batch_size=32, shuffle=False, verbose=0, **kwargs).history
        np.testing.assert_allclose(a["loss"], b["loss"], rtol=1e-5)
        np.testing.assert_allclose(a["accuracy"], b["accuracy"], rtol=1e-5)
    with pytest.raises(ValueError, match="You cannot `class_weight` and `sample_weight` at the same time"):
        ours.fit(X, Y, sample_weight=sw, class_weight=cw, verbose=0)
    np.testing.assert_allclose(ours.evaluate(X, Y, sample_weight=sw, verbose=0),
                               theirs.evaluate(X, Y, sample_weight=sw, verbose=0), rtol=1e-5)


def _binary_data():
    y = rng.integers(0, 2, (64, 1)).astype(np.float32)
    p = np.clip(y * 0.6 + rng.random((64, 1)) * 0.5, 0, 1).astype(np.float32)
    return y, p


@pytest.mark.parametrize("name, make", [
    ("auc", lambda K: K.metrics.AUC()), ("auc_pr", lambda K: K.metrics.AUC(curve="PR")),
    ("auc_minoring", lambda K: K.metrics.AUC(num_thresholds=50, summation_method="minoring")),
    ("precision", lambda K: K.metrics.Precision()), ("recall", lambda K: K.metrics.Recall(thresholds=[0.3, 0.7])),
    ("binary_accuracy", lambda K: K.metrics.BinaryAccuracy(threshold=0.4)),
    ("mse", lambda K: K.metrics.MeanSquaredError()), ("mae", lambda K: K.metrics.MeanAbsoluteError()),
    ("rmse", lambda K: K.metrics.RootMeanSquaredError()),
])
def test_binary_metrics_match_keras(name, make):
    K = keras3()
    y, p = _binary_data()
    sw = rng.random(64).astype(np.float32)
    for weights in (None, sw):
        ours, theirs = make(keras), make(K)
        for lo in range(0, 64, 16):
            w = None if weights is None else weights[lo:lo + 16]
            ours.update_state(y[lo:lo + 16], p[lo:lo + 16], sample_weight=w)
            theirs.update_state(y[lo:lo + 16], p[lo:lo + 16], sample_weight=w)
        np.testing.assert_allclose(np.asarray(ours.result()), np.asarray(theirs.result()), rtol=1e-5, atol=1e-6)
        ours.reset_state()
        assert float(np.sum(ours.result())) == 0.0 or name == "rmse"


@pytest.mark.parametrize("make", [lambda K: K.metrics.CategoricalAccuracy(),
                                  lambda K: K.metrics.SparseCategoricalAccuracy(),
                                  lambda K: K.metrics.TopKCategoricalAccuracy(k=2),
                                  lambda K: K.metrics.SparseTopKCategoricalAccuracy(k=2),
                                  lambda K: K.metrics.CategoricalCrossentropy(),
                                  lambda K: K.metrics.KLDivergence()])
def test_categorical_metrics_match_keras(make):
    K = keras3()
    labels = rng.integers(0, 4, 32)
    probs = rng.random((32, 4)).astype(np.float32)
    probs /= probs.sum(1, keepdims=True)
    ours, theirs = make(keras), make(K)
    sparse = "Sparse" in type(ours).__name__
    y = labels if sparse else np.eye(4, dtype=np.float32)[labels]
    ours.update_state(y, probs)
    theirs.update_state(y, probs)
    np.testing.assert_allclose(float(ours.result()), float(theirs.result()), rtol=1e-5)


@pytest.mark.parametrize("name", ["MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
                                  "MeanSquaredLogarithmicError", "BinaryCrossentropy", "CategoricalCrossentropy",
                                  "Huber", "KLDivergence", "Poisson", "Hinge", "SquaredHinge", "CategoricalHinge",
                                  "LogCosh", "CosineSimilarity"])
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
def test_loss_objects_match_keras(name, reduction):
    K = keras3()
    y = rng.random((8, 3)).astype(np.float32)
    p = rng.random((8, 3)).astype(np.float32) + 0.1
    sw = rng.random(8).astype(np.float32)
    ours = getattr(tx.losses, name)(reduction=reduction)
    theirs = getattr(K.losses, name)(reduction=reduction)
    for w in (None, sw):
        np.testing.assert_allclose(np.asarray(ours(y, p, sample_weight=w)), np.asarray(theirs(y, p, sample_weight=w)),
                                   rtol=1e-5, atol=1e-6)


def test_sparse_categorical_crossentropy_object_matches_keras():
    K = keras3()
    logits = rng.standard_normal((8, 5)).astype(np.float32)
    labels = rng.integers(0, 5, (8, 1))
    for from_logits in (True, False):
        x = logits if from_logits else np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        ours = tx.losses.SparseCategoricalCrossentropy(from_logits=from_logits)(labels, x)
        theirs = K.losses.SparseCategoricalCrossentropy(from_logits=from_logits)(labels, x)
        np.testing.assert_allclose(float(ours), float(theirs), rtol=1e-5)


def test_generator_dataset_and_pydataset_inputs():
    model = _mlp(keras)
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])

    def batches():
        for i in range(0, 96, 32):
            yield X[i:i + 32], Y[i:i + 32]

    class Dataset:  # re-iterable, like a tensorflux-data pipeline
        def __iter__(self):
            return batches()

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return X[32 * i:32 * i + 32], Y[32 * i:32 * i + 32]

    h = model.fit(Dataset(), epochs=2, verbose=0)
    assert len(h.history["loss"]) == 2
    h = model.fit(Batches(), epochs=2, verbose=0)
    assert len(h.history["loss"]) == 2
    h = model.fit(batches(), steps_per_epoch=3, epochs=1, verbose=0)
    assert len(h.history["loss"]) == 1
    with pytest.warns(UserWarning, match="ran out of data"):  # 3 batches: epoch 2 gets 1, then training stops
        h = model.fit(batches(), steps_per_epoch=2, epochs=3, verbose=0)
    assert len(h.history["loss"]) == 2
    assert model.evaluate(Dataset(), verbose=0)[0] > 0
    assert model.predict(Batches(), verbose=0).shape == (96, 3)


def test_fit_with_tensors_dict_inputs_and_validation_data():
    a = keras.Input((6,), name="a")
    b = keras.Input((2,), name="b")
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b]))
    model = keras.Model([a, b], out)
    model.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    xb = rng.standard_normal((96, 2)).astype(np.float32)
    target = X[:, :1] + xb[:, :1]
    h = model.fit({"a": tx.constant(X), "b": xb}, target, validation_data=([X, xb], target), epochs=3, verbose=0)
    assert set(h.history) == {"loss", "mae", "val_loss", "val_mae"}
    assert h.history["loss"][-1] < h.history["loss"][0]


def test_on_batch_calls_and_run_eagerly():
    model = _mlp(keras)
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"], run_eagerly=True)
    twin = _mlp(keras)
    twin.set_weights(model.get_weights())
    twin.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    for m in (model, twin):
        logs = m.train_on_batch(X[:32], Y[:32], return_dict=True)
        assert set(logs) == {"loss", "accuracy"}
    np.testing.assert_allclose(model.get_weights()[0], twin.get_weights()[0], rtol=1e-6)
    loss, acc = model.test_on_batch(X, Y)
    np.testing.assert_allclose([loss, acc], twin.test_on_batch(X, Y), rtol=1e-6)
    out = model.predict_on_batch(X[:4])
    assert isinstance(out, np.ndarray) and out.shape == (4, 3)


def test_custom_train_step_as_in_keras_guide():
    class CustomModel(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")

        def train_step(self, data):
            x, y = data
            with tx.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = keras.losses.mean_squared_error(y, y_pred)
                loss = tx.reduce_mean(loss)
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        @property
        def metrics(self):
            return [self.loss_tracker, self.mae_metric]

    inputs = keras.Input(shape=(6,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam")
    target = X[:, :1] * 2.0
    h = model.fit(X, target, epochs=3, verbose=0)
    assert list(h.history) == ["loss", "mae"]
    assert h.history["loss"][-1] < h.history["loss"][0]


def test_add_loss_and_regularizers_join_the_training_loss():
    class Penalized(keras.layers.Layer):
        def call(self, x):
            self.add_loss(0.5 * tx.reduce_sum(x * 0.0 + 1.0) / tx.cast(tx.shape(x)[0], tx.float32))
            return x

    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(2, kernel_regularizer="l2"), Penalized()])
    model.compile("sgd", "mse")
    model(X[:2])
    assert len(model.losses) == 2
    w = model.layers[0].kernel.numpy()
    expected = np.mean(np.square(X @ w + model.layers[0].bias.numpy())) + 0.01 * np.sum(w * w) + 0.5 * 2
    np.testing.assert_allclose(model.evaluate(X, np.zeros((96, 2), np.float32), batch_size=96, verbose=0), expected,
                               rtol=1e-5)


def test_constraints_apply_after_each_step():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(2, kernel_constraint=keras.constraints.NonNeg())])
    model.compile(keras.optimizers.SGD(1.0), "mse")
    model.fit(X, -np.ones((96, 2), np.float32) * 10, epochs=1, verbose=0)
    assert (model.layers[0].kernel.numpy() >= 0).all()


def test_bad_input_errors():
    model = _mlp(keras)
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(X, Y, verbose=0)
    with pytest.raises(ValueError, match="Could not interpret loss identifier: 'not_a_loss'"):
        model.compile("adam", loss="not_a_loss")
        model.fit(X, Y, verbose=0)
    with pytest.raises(ValueError, match="Could not interpret metric identifier: 'not_a_metric'"):
        model.compile("adam", loss="mse", metrics=["not_a_metric"])
        model.fit(X, Y, verbose=0)
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier: 'adamx'"):
        model.compile("adamx", loss="mse")
    model.compile("adam", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match=r"(?s)Data cardinality is ambiguous.*x sizes: 96.*y sizes: 95"):
        model.fit(X, Y[:95], verbose=0)
    for split in (-0.1, 1.0, 1.5):
        with pytest.raises(ValueError, match="validation_split must be in \\(0, 1\\)"):
            model.fit(X, Y, validation_split=split, verbose=0)
    with pytest.raises(ValueError, match=r'Input 0 of layer "sequential_?\d*" is incompatible with the layer: '
                                         r"expected shape=\(None, 6\), found shape=\(32, 5\)"):
        model.predict(X[:, :5], verbose=0)
    with pytest.raises(ValueError, match=r'Input 0 of layer "dense_?\d*" is incompatible with the layer: expected '
                                         r"axis -1 of input shape to have value 6, but received input with shape "
                                         r"\(4, 5\)"):
        model(X[:4, :5])
    with pytest.raises(ValueError, match="only supported for NumPy arrays"):
        model.fit((b for b in [(X, Y)]), validation_split=0.5, verbose=0)
    with pytest.raises(ValueError, match="class_weight has no entry for classes \\[1\\]"):
        model.fit(X, Y, class_weight={0: 1.0, 2: 1.0}, verbose=0)
    model.fit(X, Y, epochs=1, verbose=0)  # the model still trains after the errors
