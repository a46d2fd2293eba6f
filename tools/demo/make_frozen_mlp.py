"""Makes the TensorFlow-frozen MLP the demo and tests import (needs tensorflow-cpu).

Writes frozen_mlp.pb (a TF2 graph frozen with convert_variables_to_constants_v2: MatMul, AddV2,
BiasAdd, Relu, Softmax) and frozen_mlp_expected.npz (an input batch and TensorFlow's output).
Run: python tools/demo/make_frozen_mlp.py
"""

import pathlib

import numpy as np


def build_frozen_mlp(seed: int = 0):
    """Returns (GraphDef bytes, input name, output name, x, TensorFlow's y) for a small MLP."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    rng = np.random.default_rng(seed)
    w1 = tf.Variable(rng.normal(size=(8, 16)).astype(np.float32) * 0.5)
    b1 = tf.Variable(rng.normal(size=(16,)).astype(np.float32) * 0.1)
    w2 = tf.Variable(rng.normal(size=(16, 4)).astype(np.float32) * 0.5)
    b2 = tf.Variable(rng.normal(size=(4,)).astype(np.float32) * 0.1)

    @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32, name="x")])
    def mlp(x):
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        logits = tf.matmul(h, w2) + b2  # AddV2
        return tf.nn.softmax(logits, name="probs")

    frozen = convert_variables_to_constants_v2(mlp.get_concrete_function())
    graph_def = frozen.graph.as_graph_def()
    x = rng.normal(size=(5, 8)).astype(np.float32)
    y = frozen(tf.constant(x))[0].numpy()
    in_name = frozen.inputs[0].name
    out_name = frozen.outputs[0].name
    return graph_def.SerializeToString(), in_name, out_name, x, y


def main() -> None:
    here = pathlib.Path(__file__).parent
    data, in_name, out_name, x, y = build_frozen_mlp()
    (here / "frozen_mlp.pb").write_bytes(data)
    np.savez(here / "frozen_mlp_expected.npz", x=x, y=y, input_name=in_name, output_name=out_name)
    print(f"wrote frozen_mlp.pb ({len(data)} bytes): input {in_name}, output {out_name}")


if __name__ == "__main__":
    main()
