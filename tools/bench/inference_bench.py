"""Inference latency of frozen graphs (issues 17 and 22): ResNet50, InceptionV3, VGG16, DenseNet121,
MobileNetV2 and EfficientNetB0 (random weights, 96x96 inputs, batch 2), the transformer block and
the LSTM+GRU model of the model-zoo test (core/tests/test_model_zoo.py, whose builders this
reuses), each frozen once by TensorFlow and run
from the same GraphDef by Tensorflux and by TensorFlow's tf1 Session, both with 2 intra-op and 2
inter-op threads, in one process run. Outputs are checked to agree before timing.

With --ops, also prints the op types that take most of each framework's time on each model (from
the step stats of one traced run of each), the starting point where Tensorflux is slower.

Usage: python tools/bench/inference_bench.py [--ops] [--model NAME]   (needs tensorflow-cpu and keras)
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "core" / "tests"))

from harness import median_seconds, report  # noqa: E402
from linalg_bench import cpu_model  # noqa: E402

THREADS = 2
IMAGE_SIZE = 96
APPLICATIONS = ("ResNet50", "InceptionV3", "VGG16", "DenseNet121", "MobileNetV2", "EfficientNetB0")


def models():
    """name -> builder() returning (keras model, input shape), from the model-zoo test."""
    import test_model_zoo as zoo
    apps = {name: zoo._application(name, IMAGE_SIZE) for name in APPLICATIONS}
    return {**apps, "transformer block": zoo._transformer, "LSTM+GRU": zoo.OTHERS["LSTM_GRU"]}


def freeze(build):
    """The model frozen by TensorFlow: (GraphDef, input names, output names, input shape)."""
    import keras
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    keras.utils.set_random_seed(17)
    model, shape = build()
    fn = tf.function(lambda x: model(x, training=False), input_signature=[tf.TensorSpec([None, *shape[1:]])])
    frozen = convert_variables_to_constants_v2(fn.get_concrete_function())
    return (frozen.graph.as_graph_def(), [t.name for t in frozen.inputs], [t.name for t in frozen.outputs], shape)


def tensorflux_runner(graph_def, inputs, outputs, x):
    """(run(), op_profile()) of the graph in a Tensorflux Session."""
    import tensorflux as tx
    g = tx.Graph()
    with g.as_default():
        tensors = tx.import_graph_def(graph_def.SerializeToString(), return_elements=inputs + outputs, name="")
    sess = tx.Session(graph=g, config=dict(inter_op_parallelism_threads=THREADS,
                                           intra_op_parallelism_threads=THREADS))
    feed = {tensors[0]: x}
    fetches = tensors[len(inputs):]

    def op_profile():
        meta = tx.RunMetadata()
        sess.run(fetches, feed, options=tx.RunOptions(trace_level=tx.RunOptions.FULL_TRACE), run_metadata=meta)
        return _time_by_op(meta.step_stats)

    return (lambda: sess.run(fetches, feed)), op_profile


def _time_by_op(step_stats, top=5):
    """The op types taking most of a traced run's kernel time, as "Op 40%, ..." (the op that ran,
    after each framework's rewrites: TensorFlow's _FusedConv2D, Tensorflux's _FusedElementwise)."""
    per_op = collections.Counter()
    for dev in step_stats.dev_stats:
        for ns in dev.node_stats:
            # "name = Op(inputs)": the op that ran.
            label = ns.timeline_label.split(" = ", 1)
            op = label[1].split("(", 1)[0] if len(label) == 2 else ns.node_name
            per_op[op] += ns.op_end_rel_micros - ns.op_start_rel_micros
    total = sum(per_op.values()) or 1
    return ", ".join("%s %.0f%%" % (op, 100.0 * t / total) for op, t in per_op.most_common(top))


def tensorflow_session(graph_def, inputs, outputs):
    import tensorflow as tf
    g = tf.Graph()
    with g.as_default():
        tensors = tf.compat.v1.import_graph_def(graph_def, return_elements=inputs + outputs, name="")
    cfg = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=THREADS, intra_op_parallelism_threads=THREADS)
    return tf.compat.v1.Session(graph=g, config=cfg), tensors[0], tensors[len(inputs):]


def tensorflow_op_profile(sess, x_t, fetches, x):
    """TensorFlow's own time per op type (sum of node compute times, from one traced run)."""
    import tensorflow as tf
    opts = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    meta = tf.compat.v1.RunMetadata()
    sess.run(fetches, {x_t: x}, options=opts, run_metadata=meta)
    return _time_by_op(meta.step_stats)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--ops", action="store_true", help="print the op types dominating TensorFlow's time")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--model", action="append", help="model(s) to run (default: all)")
    args = p.parse_args(argv)
    print("inference latency of frozen graphs on %s (%d threads)" % (cpu_model(), THREADS))
    rows = []
    for name, build in models().items():
        if args.model and name not in args.model:
            continue
        graph_def, inputs, outputs, shape = freeze(build)
        x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
        ours, ours_by_op = tensorflux_runner(graph_def, inputs, outputs, x)
        sess, x_t, fetches = tensorflow_session(graph_def, inputs, outputs)
        theirs = lambda: sess.run(fetches, {x_t: x})  # noqa: E731
        got, want = ours(), theirs()
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * float(np.abs(w).max()))
        title = "%s, batch %d, input %s, %d nodes" % (name, shape[0], "x".join(map(str, shape[1:])),
                                                     len(graph_def.node))
        rows.append(report(title, "ms", 1e3, median_seconds(ours, repeats=args.repeats),
                           {"tensorflow tf1 Session": median_seconds(theirs, repeats=args.repeats)}))
        if args.ops:
            print("    Tensorflux's time by op: " + ours_by_op())
            print("    TensorFlow's time by op: " + tensorflow_op_profile(sess, x_t, fetches, x))
        sess.close()
    return rows


if __name__ == "__main__":
    main()
