"""Trains classifiers on scikit-learn's bundled digits (8x8 images, 1,797 samples) in graph mode:
an MLP and a small CNN, with Adam, a progress bar per epoch and test accuracy at the end.

After training, each model is saved as a safetensors checkpoint, restored in a fresh process
(`--evaluate MODEL PATH`), and its test accuracy printed again.

Usage: python tools/demo/digits.py [--epochs N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import tensorflux as tx

BATCH = 32


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


def dense(x, units, name, activation=None):
    with tx.name_scope(name):
        w = tx.Variable(tx.initializers.glorot_uniform(seed=hash(name) % 1000)([x.shape[-1], units]), name="kernel")
        b = tx.Variable(tx.zeros([units]), name="bias")
        y = tx.nn.bias_add(tx.matmul(x, w), b)
        return activation(y) if activation else y


def conv(x, filters, name):
    with tx.name_scope(name):
        k = tx.Variable(tx.initializers.he_normal(seed=hash(name) % 1000)([3, 3, x.shape[-1], filters]),
                        name="kernel")
        b = tx.Variable(tx.zeros([filters]), name="bias")
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

    def fit(self, x, y, epochs, title):
        from tqdm import tqdm

        rng = np.random.default_rng(1)
        for epoch in range(epochs):
            order = rng.permutation(len(x))
            total = 0.0
            with tqdm(total=len(x), desc=f"{title} epoch {epoch + 1:2d}/{epochs}", unit="img", mininterval=0.25,
                      bar_format="{desc} {bar:20} {n_fmt}/{total_fmt} [{elapsed}]{postfix}") as bar:
                for i in range(0, len(x), BATCH):
                    idx = order[i:i + BATCH]
                    loss, _ = self.session.run([self.loss, self.train], {self.x: x[idx], self.y: y[idx]})
                    total += float(loss) * len(idx)
                    bar.update(len(idx))
                bar.set_postfix_str(f"mean loss {total / len(x):.4f}")

    def evaluate(self, x, y):
        return float(self.session.run(self.accuracy, {self.x: x, self.y: y}))


MODELS = {"MLP": (mlp, 3e-3), "CNN": (cnn, 3e-3)}


def evaluate_checkpoint(title, path):
    """Rebuilds model `title`, restores `path` and prints the test accuracy."""
    _, _, x_te, y_te = load_digits()
    model = Model(*MODELS[title])
    model.checkpoint.restore(path, session=model.session)
    print(f"{title}: test accuracy {model.evaluate(x_te, y_te):.4f} restored from {os.path.basename(path)} "
          "in a fresh process")


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--dir", default=None, help="where checkpoints go (a temporary directory by default)")
    p.add_argument("--evaluate", nargs=2, metavar=("MODEL", "PATH"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.evaluate:
        evaluate_checkpoint(*args.evaluate)
        return {}
    x_tr, y_tr, x_te, y_te = load_digits()
    print(f"digits: {len(x_tr)} training and {len(x_te)} test images (8x8)")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir or tmp
        for title, (build, lr) in MODELS.items():
            t0 = time.perf_counter()
            model = Model(build, lr)
            model.fit(x_tr, y_tr, args.epochs, title)
            acc = model.evaluate(x_te, y_te)
            print(f"{title}: test accuracy {acc:.4f} after {args.epochs} epochs ({time.perf_counter() - t0:.1f} s)")
            path = model.checkpoint.write(os.path.join(directory, f"digits_{title.lower()}.safetensors"),
                                          session=model.session)
            print(f"{title}: saved {os.path.basename(path)} ({os.path.getsize(path) / 1024:.0f} KiB)")
            subprocess.run([sys.executable, __file__, "--evaluate", title, path], check=True)
            results[title] = acc
    return results


if __name__ == "__main__":
    main()
