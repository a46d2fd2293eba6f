"""The digits CNN with tx.keras, as a Keras user writes it: a Sequential model, compile, fit with a
validation split and EarlyStopping (best weights restored), evaluate, then model.save() to a .keras
file that a fresh process loads with tx.keras.models.load_model and evaluates again.

Usage: python tools/demo/keras_digits.py [--epochs N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

from tensorflux import keras
from tensorflux.keras import layers


def load_digits(seed: int = 0):
    """(x_train, y_train, x_test, y_test): 8x8x1 images scaled to [0, 1], a fixed 80/20 split."""
    from sklearn.datasets import load_digits as sk_load

    d = sk_load()
    x = (d.images / 16.0).astype(np.float32)[..., None]
    y = d.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    cut = int(0.8 * len(x))
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]


def build_model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([
        keras.Input(shape=(8, 8, 1)),
        layers.Conv2D(16, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(2),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(2),
        layers.Flatten(),
        layers.Dropout(0.2),
        layers.Dense(10, activation="softmax"),
    ], name="digits_cnn")
    model.compile(optimizer=keras.optimizers.Adam(3e-3), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def evaluate_saved(path: str) -> None:
    """Loads the .keras file in this (fresh) process and prints its test accuracy."""
    _, _, x_te, y_te = load_digits()
    model = keras.models.load_model(path)
    _, accuracy = model.evaluate(x_te, y_te, verbose=0)
    print(f"tx.keras CNN: test accuracy {accuracy:.4f} restored from {os.path.basename(path)} in a fresh process")


def main(argv=None) -> float:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--dir", default=None, help="where the .keras file goes (a temporary directory by default)")
    p.add_argument("--evaluate", default=None, help=argparse.SUPPRESS)  # the fresh process's job
    args = p.parse_args(argv)
    if args.evaluate:
        evaluate_saved(args.evaluate)
        return 0.0
    x_tr, y_tr, x_te, y_te = load_digits()
    model = build_model()
    model.summary()
    stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=4, restore_best_weights=True)
    history = model.fit(x_tr, y_tr, batch_size=32, epochs=args.epochs, validation_split=0.1, callbacks=[stop],
                        verbose=2)
    _, accuracy = model.evaluate(x_te, y_te, verbose=0)
    print(f"tx.keras CNN: test accuracy {accuracy:.4f} after {len(history.history['loss'])} epochs "
          f"(early stopping: best epoch {stop.best_epoch + 1})")
    directory = args.dir or tempfile.mkdtemp(prefix="tx_keras_digits_")
    path = os.path.join(directory, "digits_cnn.keras")
    model.save(path)
    subprocess.run([sys.executable, __file__, "--evaluate", path], check=True)
    return accuracy


if __name__ == "__main__":
    main()
