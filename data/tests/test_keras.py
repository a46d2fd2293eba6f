"""tx.keras's Model.fit/evaluate/predict take datasets of (x, y) batches (or x alone for predict)
and train exactly as they do on the same batches given as arrays."""

import numpy as np
import pytest

import tensorflux as tx
import tensorflux_data as txd

keras = pytest.importorskip("tensorflux.keras")


def _model(seed=0):
    tx.random.set_seed(seed)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    return model


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(96, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)
    return x, y


def test_fit_on_a_dataset_equals_fit_on_the_same_batches_as_arrays():
    x, y = _data()
    a, b = _model(), _model()
    b.set_weights(a.get_weights())
    ds = txd.Dataset.from_tensor_slices((x, y)).batch(16).prefetch(2)
    hist = a.fit(ds, epochs=3, verbose=0)
    b.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    for wa, wb in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_allclose(wa, wb, rtol=1e-5, atol=1e-6)
    losses = hist.history["loss"]
    assert losses[-1] < losses[0]


def test_evaluate_and_predict_take_datasets():
    model = _model()
    xs, ys = _data()
    model.fit(txd.Dataset.from_tensor_slices((xs, ys)).shuffle(96, seed=1).batch(32), epochs=2, verbose=0)
    loss_ds = model.evaluate(txd.Dataset.from_tensor_slices((xs, ys)).batch(32), verbose=0)
    loss_np = model.evaluate(xs, ys, batch_size=32, verbose=0)
    np.testing.assert_allclose(loss_ds, loss_np, rtol=1e-5)
    pred = model.predict(txd.Dataset.from_tensor_slices(xs).batch(32), verbose=0)
    np.testing.assert_allclose(pred, model.predict(xs, batch_size=32, verbose=0), rtol=1e-5, atol=1e-6)
    assert pred.shape == (96, 1)


def test_fit_on_an_infinite_dataset_with_steps_per_epoch():
    xs, ys = _data()
    model = _model()
    hist = model.fit(txd.Dataset.from_tensor_slices((xs, ys)).repeat().batch(16), steps_per_epoch=4, epochs=3,
                     verbose=0)
    assert len(hist.history["loss"]) == 3 and hist.history["loss"][-1] < hist.history["loss"][0]
