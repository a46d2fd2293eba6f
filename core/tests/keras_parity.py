"""Helpers of the tx.keras tests: Keras 3 (TensorFlow backend) as the oracle, when installed."""

import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "tensorflow")


def keras3():
    """Keras 3 on the TensorFlow backend, or skip the test."""
    keras = pytest.importorskip("keras")
    if not keras.__version__.startswith("3") or keras.backend.backend() != "tensorflow":
        pytest.skip("needs Keras 3 with the TensorFlow backend")
    return keras


def as_numpy(x):
    if isinstance(x, (list, tuple)):
        return [as_numpy(v) for v in x]
    return np.asarray(x)


def copy_weights(ours, theirs):
    """Gives ``ours`` (a built tx.keras layer) the weights of ``theirs`` (a built Keras layer)."""
    values = theirs.get_weights()
    assert [tuple(v.shape) for v in values] == [tuple(w.shape.as_list()) for w in ours.weights], (
        "weight shapes differ: keras %s, tx %s" % ([v.shape for v in values], [w.shape for w in ours.weights]))
    ours.set_weights(values)
