"""The main demo: build a graph in Python, run it in the C++ engine, run a frozen MLP that
TensorFlow made (tools/demo/frozen_mlp.pb, with TensorFlow's recorded outputs), train an MLP
and a CNN on scikit-learn's digits in graph mode and eagerly (tools/demo/digits.py), then the
digits CNN with tx.keras: compile, fit with EarlyStopping, evaluate, and a .keras file reloaded
in a fresh process (tools/demo/keras_digits.py)."""

import pathlib
import time

import numpy as np

import tensorflux as tx

HERE = pathlib.Path(__file__).parent / "demo"


def build_and_run() -> None:
    """A small dense layer built with the graph-mode API."""
    g = tx.Graph()
    with g.as_default():
        x = tx.placeholder(tx.float32, shape=[None, 3], name="x")
        with tx.name_scope("dense"):
            w = tx.constant([[1.0, -1.0], [0.5, 0.25], [-2.0, 1.0]], name="w")
            b = tx.constant([0.1, -0.1], name="b")
            logits = tx.nn.bias_add(x @ w, b)
            probs = tx.nn.softmax(tx.nn.relu(logits), name="probs")
        total = tx.reduce_sum(probs, axis=1)
    print(f"graph: {len(g.get_operations())} ops; probs is {probs.name} with static shape {probs.shape}")
    batch = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=np.float32)
    with tx.Session(graph=g) as sess:
        p, t = sess.run([probs, total], feed_dict={x: batch})
    print("softmax(relu(x @ w + b)) =\n", np.round(p, 4))
    print("row sums:", t)


def run_tensorflow_frozen_graph() -> None:
    """Imports a GraphDef that TensorFlow wrote and checks the result against TensorFlow's."""
    graph_def = (HERE / "frozen_mlp.pb").read_bytes()
    expected = np.load(HERE / "frozen_mlp_expected.npz")
    g = tx.Graph()
    with g.as_default():
        tx.import_graph_def(graph_def, name="")
    inp = g.get_tensor_by_name(str(expected["input_name"]))
    out = g.get_tensor_by_name(str(expected["output_name"]))
    with tx.Session(graph=g) as sess:
        t0 = time.perf_counter()
        y = sess.run(out, feed_dict={inp: expected["x"]})
        dt = (time.perf_counter() - t0) * 1e6
    err = float(np.max(np.abs(y - expected["y"])))
    print(f"TensorFlow frozen MLP: {len(g.get_operations())} ops imported; first run {dt:.0f} us; "
          f"max |tensorflux - tensorflow| = {err:.2e}")
    if err > 1e-5:
        raise SystemExit("mismatch against TensorFlow's recorded output")


if __name__ == "__main__":
    print(f"tensorflux {tx.__version__}")
    build_and_run()
    run_tensorflow_frozen_graph()
    import sys
    sys.path.insert(0, str(HERE))
    import digits  # noqa: E402  (tools/demo/digits.py: training on scikit-learn's digits)
    digits.main([])
    import keras_digits  # noqa: E402  (tools/demo/keras_digits.py: the same CNN with tx.keras)
    keras_digits.main([])
