"""tx.keras callbacks (History, EarlyStopping with restore_best_weights, ModelCheckpoint,
LearningRateScheduler, ReduceLROnPlateau, CSVLogger, TerminateOnNaN, LambdaCallback) and the
progress bar (verbose 0/1/2, terminal or not)."""

import csv
import os
import re

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager
keras = tx.keras
rng = np.random.default_rng(11)
X = rng.standard_normal((64, 4)).astype(np.float32)
Y = (X @ np.array([1.0, -2.0, 0.5, 0.0], np.float32))[:, None]


def _model(lr=0.05):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(lr), "mse", metrics=["mae"])
    return model


def test_history_and_lambda_callback_see_every_hook():
    seen = []
    cb = keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(("epoch", e, sorted(logs))),
                                        on_train_batch_end=lambda b, logs: seen.append(("batch", b)),
                                        on_train_begin=lambda logs: seen.append("begin"),
                                        on_train_end=lambda logs: seen.append("end"))
    history = _model().fit(X, Y, batch_size=32, epochs=2, validation_split=0.25, callbacks=[cb], verbose=0)
    assert history.epoch == [0, 1]
    assert sorted(history.history) == ["loss", "mae", "val_loss", "val_mae"]
    assert seen == ["begin", ("batch", 0), ("batch", 1), ("epoch", 0, ["loss", "mae", "val_loss", "val_mae"]),
                    ("batch", 0), ("batch", 1), ("epoch", 1, ["loss", "mae", "val_loss", "val_mae"]), "end"]


def test_early_stopping_restores_the_best_weights():
    model = _model(lr=0.05)
    weights_at_epoch = []
    val_losses = iter([1.0, 0.5, 0.7, 0.8, 0.9, 0.95])

    class FakeVal(keras.callbacks.Callback):  # a validation loss whose best epoch is known (epoch 1)
        def on_epoch_end(self, epoch, logs=None):
            logs["val_loss"] = next(val_losses)
            weights_at_epoch.append(self.model.get_weights())

    stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
    history = model.fit(X, Y, epochs=6, callbacks=[FakeVal(), stop], verbose=0)
    assert len(history.history["loss"]) == 4  # epochs 2 and 3 did not improve: stop after epoch 3
    assert stop.stopped_epoch == 3 and stop.best_epoch == 1
    for a, b in zip(model.get_weights(), weights_at_epoch[1]):
        np.testing.assert_array_equal(a, b)


def test_model_checkpoint_best_only_and_weights_only(tmp_path):
    model = _model()
    best = str(tmp_path / "best.keras")
    every = str(tmp_path / "w-{epoch:02d}.weights.safetensors")
    cbs = [keras.callbacks.ModelCheckpoint(best, monitor="loss", save_best_only=True),
           keras.callbacks.ModelCheckpoint(every, save_weights_only=True)]
    model.fit(X, Y, epochs=3, callbacks=cbs, verbose=0)
    assert sorted(os.listdir(tmp_path)) == ["best.keras", "w-01.weights.safetensors", "w-02.weights.safetensors",
                                            "w-03.weights.safetensors"]
    restored = keras.models.load_model(best)
    np.testing.assert_allclose(restored.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-6)
    assert cbs[0].best == pytest.approx(model.evaluate(X, Y, verbose=0)[0], rel=0.5)
    with pytest.raises(ValueError, match="must end in `.keras`"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "model.h5"))


def test_learning_rate_scheduler_and_reduce_on_plateau():
    model = _model(lr=0.1)
    sched = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    history = model.fit(X, Y, epochs=3, callbacks=[sched], verbose=0)
    np.testing.assert_allclose(history.history["learning_rate"], [0.05, 0.025, 0.0125], rtol=1e-6)
    assert float(np.asarray(model.optimizer.learning_rate)) == pytest.approx(0.0125)

    model = _model(lr=0.1)
    val_losses = iter([1.0, 1.0, 1.0, 1.0, 1.0])

    class Flat(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs["val_loss"] = next(val_losses)

    plateau = keras.callbacks.ReduceLROnPlateau(factor=0.5, patience=1, min_lr=0.02)
    history = model.fit(X, Y, epochs=5, callbacks=[Flat(), plateau], verbose=0)
    # As Keras: each epoch without improvement past the first halves the rate, down to min_lr.
    np.testing.assert_allclose(history.history["learning_rate"], [0.1, 0.1, 0.05, 0.025, 0.02], rtol=1e-6)
    assert float(np.asarray(model.optimizer.learning_rate)) == pytest.approx(0.02)


def test_csv_logger_and_terminate_on_nan(tmp_path):
    path = str(tmp_path / "log.csv")
    _model().fit(X, Y, epochs=2, callbacks=[keras.callbacks.CSVLogger(path)], verbose=0)
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["0", "1"] and set(rows[0]) == {"epoch", "loss", "mae"}
    _model().fit(X, Y, epochs=1, callbacks=[keras.callbacks.CSVLogger(path, append=True)], verbose=0)
    with open(path) as f:
        assert len(list(csv.DictReader(f))) == 3

    bad = Y.copy()
    bad[5] = np.inf
    history = _model().fit(X, bad, batch_size=8, epochs=3, callbacks=[keras.callbacks.TerminateOnNaN()], verbose=0)
    assert len(history.history["loss"]) == 1


def test_progress_bar_lines(capsys, monkeypatch):
    model = _model()
    model.fit(X, Y, batch_size=16, epochs=2, verbose=2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Epoch 1/2" and out[2] == "Epoch 2/2"
    assert re.fullmatch(r"4/4 - \d+m?s \d+[mu]?s/step - loss: [\d.e+-]+ - mae: [\d.e+-]+", out[1]), out[1]
    monkeypatch.setenv("TX_KERAS_PROGBAR_INTERACTIVE", "0")
    model.fit(X, Y, batch_size=16, epochs=1, verbose=1)
    out = capsys.readouterr().out
    assert "\r" not in out and re.search("4/4 \u2501{20} \\d+m?s", out)  # not a terminal: the final line only
    monkeypatch.setenv("TX_KERAS_PROGBAR_INTERACTIVE", "1")
    model.fit(X, Y, batch_size=16, epochs=1, verbose=1)
    out = capsys.readouterr().out
    assert "\r" in out and out.endswith("\n")
    model.fit(X, Y, epochs=1, verbose=0)
    model.evaluate(X, Y, verbose=0)
    model.predict(X, verbose=0)
    assert capsys.readouterr().out == ""
    model.evaluate(X, Y, verbose=1)
    assert re.search(r"2/2 .* - loss: ", capsys.readouterr().out)
