"""Per-layer Conv2D time of frozen Keras models (issue 22): every distinct Conv2D of ResNet50 and
MobileNetV2 (random weights, 96x96 inputs, batch 2; the graphs of inference_bench.py), run alone as
Conv2D + BiasAdd + Relu with a constant filter (the pattern TensorFlow's Grappler fuses
into one oneDNN _FusedConv2D, as it does in the models) by Tensorflux and by TensorFlow's tf1 Session (2 intra-op and
2 inter-op threads each), in one process run. Prints each layer's GFLOP/s and the model's Conv2D time
summed over its layers (times the number of layers of that geometry), the starting point for the
convolution kernels' work.

Usage: python tools/bench/conv_layers_bench.py [--model ResNet50] [--repeats 20]
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))

from harness import median_seconds  # noqa: E402
from inference_bench import THREADS, freeze, models  # noqa: E402
from linalg_bench import cpu_model  # noqa: E402

# A layer: (input shape, filter shape, strides, padding, explicit paddings, dilations).
Layer = collections.namedtuple("Layer", "x w strides padding explicit dilations")


def conv_layers(graph_def, input_name, shape):
    """Counter of the Conv2D layers of a frozen graph, with their input shapes at `shape`."""
    import tensorflow as tf
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape)
        tf.compat.v1.import_graph_def(graph_def, input_map={input_name: x}, name="")
    layers = collections.Counter()
    for op in g.get_operations():
        if op.type != "Conv2D":
            continue
        a = op.node_def.attr
        layers[Layer(tuple(op.inputs[0].shape.as_list()), tuple(op.inputs[1].shape.as_list()),
                     tuple(a["strides"].list.i), a["padding"].s.decode(), tuple(a["explicit_paddings"].list.i),
                     tuple(a["dilations"].list.i))] += 1
    return layers


def flops(layer, out_shape):
    """2 * multiply-adds of the layer."""
    kh, kw, c, _ = layer.w
    return 2.0 * np.prod(out_shape) * kh * kw * c


def layer_graph(lib, layer, w, b):
    """The layer (+ bias and relu) as a graph of `lib` (tensorflux or tensorflow, same API here) with
    w and b as constants; returns (graph, placeholder, output)."""
    g = lib.Graph()
    with g.as_default():
        xp = lib.compat.v1.placeholder(lib.float32, layer.x)
        y = lib.raw_ops.Conv2D(input=xp, filter=lib.constant(w), strides=list(layer.strides), padding=layer.padding,
                               explicit_paddings=list(layer.explicit), dilations=list(layer.dilations))
        y = lib.nn.relu(lib.nn.bias_add(y, lib.constant(b)))
    return g, xp, y


def tensorflux_conv(layer, x, w, b):
    """A Session running the layer on the fed x; returns (run, output)."""
    import tensorflux as tx
    g, xp, y = layer_graph(tx, layer, w, b)
    sess = tx.Session(graph=g, config=dict(inter_op_parallelism_threads=THREADS,
                                           intra_op_parallelism_threads=THREADS))
    return (lambda: sess.run(y, {xp: x})), sess.run(y, {xp: x})


def tensorflow_conv(layer, x, w, b):
    """The same layer in TensorFlow's tf1 Session; returns (run, output)."""
    import tensorflow as tf
    g, xp, y = layer_graph(tf, layer, w, b)
    cfg = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=THREADS, intra_op_parallelism_threads=THREADS)
    sess = tf.compat.v1.Session(graph=g, config=cfg)
    return (lambda: sess.run(y, {xp: x})), sess.run(y, {xp: x})


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--model", action="append", help="model(s) to run (default ResNet50 and MobileNetV2)")
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args(argv)
    print("Conv2D layers of frozen models on %s (%d threads)" % (cpu_model(), THREADS))
    rng = np.random.default_rng(5)
    for name in args.model or ["ResNet50", "MobileNetV2"]:
        graph_def, inputs, _, shape = freeze(models()[name])
        totals = collections.Counter()
        print("%s, batch %d, input %s" % (name, shape[0], "x".join(map(str, shape[1:]))))
        print("    %-42s %5s %9s %9s %7s" % ("input -> filter, stride, padding", "count", "tx GF/s", "tf GF/s",
                                            "tf/tx"))
        for layer, count in sorted(conv_layers(graph_def, inputs[0], shape).items()):
            x = rng.standard_normal(layer.x).astype(np.float32)
            w = (rng.standard_normal(layer.w) / np.sqrt(np.prod(layer.w[:3]))).astype(np.float32)
            b = rng.standard_normal(layer.w[3]).astype(np.float32)
            ours, got = tensorflux_conv(layer, x, w, b)
            theirs, want = tensorflow_conv(layer, x, w, b)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
            t_ours, t_theirs = (median_seconds(fn, repeats=args.repeats) for fn in (ours, theirs))
            totals["tensorflux"] += count * t_ours
            totals["tensorflow"] += count * t_theirs
            f = flops(layer, got.shape)
            print("    %-42s %5d %9.1f %9.1f %7.2f" % (
                "%s -> %s, s%d, %s" % ("x".join(map(str, layer.x[1:])), "x".join(map(str, layer.w)),
                                       layer.strides[1], layer.padding),
                count, f / t_ours * 1e-9, f / t_theirs * 1e-9, t_theirs / t_ours))
        print("    all Conv2D layers: tensorflux %.2f ms, tensorflow %.2f ms (tf/tx %.2f)" % (
            totals["tensorflux"] * 1e3, totals["tensorflow"] * 1e3, totals["tensorflow"] / totals["tensorflux"]))


if __name__ == "__main__":
    main()
