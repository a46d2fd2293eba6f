"""Trains classifiers on scikit-learn's bundled digits (8x8 images, 1,797 samples): an MLP and a
small CNN with Adam, a progress bar per epoch and test accuracy at the end — in graph mode with a
Session, and again eagerly with the train step compiled by tx.function (GradientTape inside).

After training, each model is saved as a safetensors checkpoint, restored in a fresh process
(`--evaluate MODEL PATH`), and its test accuracy printed again.

Usage: python tools/demo/digits.py [--epochs N] [--dir DIR] [--mode graph|eager|both]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

import tensorflux as tx

BATCH = 32
# Checkpoints stay where the user can open them (build/ is ignored by git).
DEFAULT_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "demo"))


def load_digits(seed: int = 0):
    """(x_train, y_train, x_test, y_test): pixels scaled to [0, 1], a fixed 80/20 split."""
    from sklearn.datasets import load_digits as sk_load

    d = sk_load()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    cut = int(0.8 * len(x))
    tr, te = order[:cut], order[cut:]
    return x[tr], y[tr], x[te], y[te]


# The variables of the model being built: layers create theirs on first use and reuse them after
# (an eager model runs its layers on every step).
_STORE: dict = {}


def _variable(scope, name, make):
    key = f"{scope}/{name}"
    if key not in _STORE:
        if tx.executing_eagerly():
            _STORE[key] = tx.Variable(make(), name=key)
        else:
            with tx.name_scope(scope):
                _STORE[key] = tx.Variable(make(), name=name)
    return _STORE[key]


def _seed(name):
    return sum(map(ord, name)) % 1000  # stable across processes (str hash is not)


def dense(x, units, name, activation=None):
    w = _variable(name, "kernel", lambda: tx.initializers.glorot_uniform(seed=_seed(name))([x.shape[-1], units]))
    b = _variable(name, "bias", lambda: tx.zeros([units]))
    y = tx.nn.bias_add(tx.matmul(x, w), b)
    return activation(y) if activation else y


def conv(x, filters, name):
    k = _variable(name, "kernel", lambda: tx.initializers.he_normal(seed=_seed(name))([3, 3, x.shape[-1], filters]))
    b = _variable(name, "bias", lambda: tx.zeros([filters]))
    return tx.nn.relu(tx.nn.bias_add(tx.nn.conv2d(x, k, strides=1, padding="SAME"), b))


def mlp(x):
    return dense(dense(x, 128, "mlp/hidden", tx.nn.relu), 10, "mlp/logits")


def cnn(x):
    h = tx.reshape(x, [-1, 8, 8, 1])
    h = tx.nn.max_pool2d(conv(h, 16, "cnn/conv1"), ksize=2, strides=2, padding="VALID")
    h = tx.nn.max_pool2d(conv(h, 32, "cnn/conv2"), ksize=2, strides=2, padding="VALID")
    return dense(tx.reshape(h, [-1, 2 * 2 * 32]), 10, "cnn/logits")


class Model:
    """A classifier graph: placeholders, logits, loss, accuracy, one Adam train op."""

    def __init__(self, build, learning_rate):
        _STORE.clear()
        self.graph = tx.Graph()
        with self.graph.as_default():
            tx.random.set_seed(0)
            self.x = tx.placeholder(tx.float32, [None, 64], name="x")
            self.y = tx.placeholder(tx.int32, [None], name="y")
            self.logits = build(self.x)
            self.loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=self.y,
                                                                                      logits=self.logits))
            correct = tx.equal(tx.cast(tx.argmax(self.logits, axis=1), tx.int32), self.y)
            self.accuracy = tx.reduce_mean(tx.cast(correct, tx.float32))
            self.optimizer = tx.optimizers.Adam(learning_rate)
            self.train = self.optimizer.minimize(self.loss)
            self.init = tx.global_variables_initializer()
            self.checkpoint = tx.train.Checkpoint(model=tx.trainable_variables(), optimizer=self.optimizer)
        self.session = tx.Session(graph=self.graph)
        self.session.run(self.init)

    def step(self, xb, yb):
        loss, _ = self.session.run([self.loss, self.train], {self.x: xb, self.y: yb})
        return float(loss)

    def fit(self, x, y, epochs, title):
        fit(self, x, y, epochs, title)

    def evaluate(self, x, y):
        return float(self.session.run(self.accuracy, {self.x: x, self.y: y}))

    def save(self, path):
        return self.checkpoint.write(path, session=self.session)

    def restore(self, path):
        self.checkpoint.restore(path, session=self.session)


class EagerModel:
    """The same classifier in eager mode: variables created by a first forward pass, the train
    step (GradientTape + Adam) and the accuracy compiled by tx.function."""

    def __init__(self, build, learning_rate):
        _STORE.clear()
        build(tx.zeros([1, 64]))  # creates the variables
        self.variables = list(_STORE.values())
        self.optimizer = tx.optimizers.Adam(learning_rate)
        self.optimizer.build(self.variables)  # slots exist before a restore
        variables, optimizer = self.variables, self.optimizer
        signature = [tx.TensorSpec([None, 64], tx.float32), tx.TensorSpec([None], tx.int32)]

        @tx.function(input_signature=signature)
        def train_step(x, y):
            with tx.GradientTape() as tape:
                loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=build(x)))
            optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            return loss

        @tx.function(input_signature=signature)
        def accuracy(x, y):
            correct = tx.equal(tx.cast(tx.argmax(build(x), axis=1), tx.int32), y)
            return tx.reduce_mean(tx.cast(correct, tx.float32))

        self._train_step, self._accuracy = train_step, accuracy
        self.checkpoint = tx.train.Checkpoint(model=self.variables, optimizer=self.optimizer)

    def step(self, xb, yb):
        return float(self._train_step(tx.constant(xb), tx.constant(yb)))

    def evaluate(self, x, y):
        return float(self._accuracy(tx.constant(x), tx.constant(y)))

    def save(self, path):
        return self.checkpoint.write(path)

    def restore(self, path):
        self.checkpoint.restore(path)


def fit(model, x, y, epochs, title):
    """Trains `model` (Model or EagerModel) for `epochs` under one progress bar for the whole run."""
    from tqdm import tqdm

    rng = np.random.default_rng(1)
    with tqdm(total=epochs * len(x), desc=title, unit="img", mininterval=0.25,
              bar_format="{desc} {bar:20} {n_fmt}/{total_fmt} [{elapsed}]{postfix}") as bar:
        for epoch in range(epochs):
            order = rng.permutation(len(x))
            total = 0.0
            for i in range(0, len(x), BATCH):
                idx = order[i:i + BATCH]
                total += model.step(x[idx], y[idx]) * len(idx)
                bar.update(len(idx))
            bar.set_postfix_str(f"epoch {epoch + 1}/{epochs}, mean loss {total / len(x):.4f}")


MODELS = {"MLP": (mlp, 3e-3), "CNN": (cnn, 3e-3)}
KINDS = {"graph": Model, "eager": EagerModel}


def evaluate_checkpoint(title, path, mode="graph"):
    """Rebuilds model `title`, restores `path` and prints the test accuracy."""
    _, _, x_te, y_te = load_digits()
    model = KINDS[mode](*MODELS[title])
    model.restore(path)
    title = title if mode == "graph" else f"{title} (eager)"
    print(f"{title}: test accuracy {model.evaluate(x_te, y_te):.4f} restored from {os.path.basename(path)} "
          "in a fresh process")


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--dir", default=DEFAULT_DIR, help=f"where checkpoints go (default: {DEFAULT_DIR})")
    p.add_argument("--mode", choices=["graph", "eager", "both"], default="both",
                   help="graph mode with a Session, eager with tx.function, or both (default)")
    p.add_argument("--evaluate", nargs=3, metavar=("MODEL", "PATH", "MODE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.evaluate:
        evaluate_checkpoint(*args.evaluate)
        return {}
    x_tr, y_tr, x_te, y_te = load_digits()
    print(f"digits: {len(x_tr)} training and {len(x_te)} test images (8x8)")
    results = {}
    directory = os.path.abspath(args.dir)
    os.makedirs(directory, exist_ok=True)
    print(f"checkpoints go to {directory}")
    modes = ["graph", "eager"] if args.mode == "both" else [args.mode]
    for mode in modes:
        print(f"-- {'graph mode, Session' if mode == 'graph' else 'eager mode, train step in tx.function'}")
        for name, (build, lr) in MODELS.items():
            title = name if mode == "graph" else f"{name} (eager)"
            t0 = time.perf_counter()
            model = KINDS[mode](build, lr)
            fit(model, x_tr, y_tr, args.epochs, title)
            acc = model.evaluate(x_te, y_te)
            print(f"{title}: test accuracy {acc:.4f} after {args.epochs} epochs "
                  f"({time.perf_counter() - t0:.1f} s)")
            path = model.save(os.path.join(directory, f"digits_{name.lower()}_{mode}.safetensors"))
            print(f"{title}: saved {path} ({os.path.getsize(path) / 1024:.0f} KiB)")
            subprocess.run([sys.executable, __file__, "--evaluate", name, path, mode], check=True)
            results[title] = acc
    return results


if __name__ == "__main__":
    main()
