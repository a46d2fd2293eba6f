#!/usr/bin/env python3
"""Writes frozen TensorFlow 2 graphs with functional control flow, with inputs and TensorFlow's
outputs, for core/tests/test_tf_control_flow_import.py (which needs no TensorFlow).

Each model is a tf.function using tf.cond, tf.switch_case or tf.while_loop (nested loops, a
loop with maximum_iterations, a growing loop variable, an RNN-like loop over a matrix, AutoGraph
loops) whose variables are frozen into constants by convert_variables_to_constants_v2 with
lower_control_flow=False, so the GraphDef keeps If/StatelessIf, Case/StatelessCase and
While/StatelessWhile nodes calling functions of its library; one loop writes a tf.TensorArray
(TensorList ops), and one graph is frozen with lowered control flow, which import rebuilds into
While/If.
For model NAME it writes into core/tests/data/tf_control_flow/:

    NAME.pb   the serialized GraphDef
    NAME.npz  "inputs" and "outputs": the graph's input and output tensor names; for each case
              k, "case{k}/in{j}" the value fed to input j and "case{k}/out{j}" what TensorFlow
              computed for output j

Run with TensorFlow 2.21 installed (the outputs depend on its kernels, so regenerate only with
a reason):

    python tools/testdata/make_tf_control_flow_graphs.py
"""

import pathlib

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
from tensorflow.python.ops import control_flow_switch_case

OUT = pathlib.Path(__file__).resolve().parents[2] / "core" / "tests" / "data" / "tf_control_flow"
RNG = np.random.default_rng(2021)


def _normal(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def cond_model():
    """If (the branches read variables) with a StatelessIf nested in its else branch, and a
    StatelessIf on a computed predicate."""
    w, b = tf.Variable(_normal(4, 3, scale=0.5)), tf.Variable(_normal(3))

    def fn(x, flag):
        def then_fn():
            return tf.matmul(x, w) + b

        def else_fn():
            h = tf.nn.relu(x[:, :3])
            return tf.cond(tf.reduce_max(h) > 1.0, lambda: h * 0.5, lambda: h - 1.0)

        y = tf.cond(flag, then_fn, else_fn)
        z = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(x, axis=1), lambda: tf.reduce_max(x, axis=1) * 2.0)
        return y, z

    specs = [tf.TensorSpec([None, 4], tf.float32, name="x"), tf.TensorSpec([], tf.bool, name="flag")]
    cases = [(_normal(2, 4), np.array(flag)) for flag in (True, False)]
    cases += [(np.abs(_normal(3, 4)) * s, np.array(False)) for s in (3.0, 0.1, -1.0)]
    return fn, specs, cases


def _switch_case(index, branches):
    """tf.switch_case, marked to stay a Case node when frozen: TensorFlow's freezing lowers Case
    to _SwitchN/Merge even with lower_control_flow=False (disable_lower_using_switch_merge only
    covers If and While), so this sets _lower_using_switch_merge=False as TensorFlow's own
    device dispatch (execute_fn_for_device) does."""
    return control_flow_switch_case._indexed_case_helper(branches, None, index, "switch_case",
                                                         lower_using_switch_merge=False)


def switch_case_model():
    """Case: three branches, one reading a variable, indices in and out of range; and a Case in
    a loop body choosing the step by the iteration number."""
    c = tf.Variable(_normal(5))

    def fn(i, x):
        y = _switch_case(i, [lambda: x * 2.0, lambda: tf.square(x) - c, lambda: tf.sin(x) + tf.cos(c)])

        def body(k, v):
            return k + 1, _switch_case(k % 3, [lambda: v * 0.5, lambda: v - 1.0, lambda: tf.tanh(v)])

        return y, tf.while_loop(lambda k, v: k < i, body, [tf.constant(0), x])[1]

    specs = [tf.TensorSpec([], tf.int32, name="i"), tf.TensorSpec([5], tf.float32, name="x")]
    x = _normal(5)
    return fn, specs, [(np.array(i, np.int32), x) for i in (0, 1, 2, 7, -1)]


def while_max_iterations_model():
    """StatelessWhile stopping at a data-dependent bound or at maximum_iterations, and one whose
    loop variable grows (shape_invariants)."""

    def fn(n, x):
        def body(i, s, v):
            return i + 1, s + tf.cast(i * i, tf.float32), v * 0.5 + tf.reduce_mean(v)

        i, s, v = tf.while_loop(lambda i, s, v: i < n, body, [tf.constant(0), tf.constant(0.0), x],
                                maximum_iterations=6)

        def grow(k, acc):
            return k + 1, tf.concat([acc, tf.reshape(tf.cast(k * k, tf.float32), [1])], 0)

        squares = tf.while_loop(lambda k, acc: k < n, grow, [tf.constant(0), tf.zeros([0])],
                                shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])[1]
        return i, s, v, squares

    specs = [tf.TensorSpec([], tf.int32, name="n"), tf.TensorSpec([None], tf.float32, name="x")]
    return fn, specs, [(np.array(n, np.int32), _normal(4)) for n in (0, 3, 6, 20)]


@tf.function(autograph=False, experimental_attributes={"_noinline": True})
def _product(i, j):
    """A function the freezing keeps as a call (PartitionedCall) instead of inlining it."""
    return tf.cast(i * j, tf.float64)


def nested_while_model():
    """A StatelessWhile whose body runs another loop, whose body calls a function: the sum of
    i * j for 0 <= j < i < n, in float64."""

    def fn(n):
        def outer_body(i, acc):
            def inner_body(j, a):
                return j + 1, a + _product(i, j)

            _, acc = tf.while_loop(lambda j, a: j < i, inner_body, [tf.constant(0), acc])
            return i + 1, acc

        return tf.while_loop(lambda i, acc: i < n, outer_body, [tf.constant(0), tf.constant(0.0, tf.float64)])[1]

    specs = [tf.TensorSpec([], tf.int32, name="n")]
    return fn, specs, [(np.array(n, np.int32),) for n in (0, 1, 5, 12)]


def rnn_model():
    """While over time steps: h = tanh(x[t] @ W + h @ U + b) with W, U, b frozen variables."""
    w, u, b = tf.Variable(_normal(3, 8, scale=0.6)), tf.Variable(_normal(8, 8, scale=0.4)), tf.Variable(_normal(8))

    def fn(x):
        steps, batch = tf.shape(x)[0], tf.shape(x)[1]

        def body(t, h, total):
            h = tf.tanh(tf.matmul(x[t], w) + tf.matmul(h, u) + b)
            return t + 1, h, total + tf.reduce_sum(h)

        _, h, total = tf.while_loop(lambda t, h, total: t < steps, body,
                                    [tf.constant(0), tf.zeros(tf.stack([batch, 8])), tf.constant(0.0)])
        return h, total

    specs = [tf.TensorSpec([None, None, 3], tf.float32, name="x")]
    return fn, specs, [(_normal(7, 2, 3),), (_normal(1, 5, 3),), (_normal(0, 3, 3),)]


def autograph_model():
    """Python control flow converted by AutoGraph: a while with an if inside (Collatz steps) and a
    for over tf.range with a break."""

    def fn(n, x):
        steps = tf.constant(0)
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        total = tf.constant(0.0)
        for i in tf.range(tf.shape(x)[0]):
            if total > 2.0:
                break
            total += tf.abs(x[i])
        return steps, total

    specs = [tf.TensorSpec([], tf.int32, name="n"), tf.TensorSpec([None], tf.float32, name="x")]
    return fn, specs, [(np.array(n, np.int32), _normal(8)) for n in (1, 6, 27)]


def tensor_array_model():
    """A loop writing each step into a tf.TensorArray (TensorList* ops on variant tensors)."""

    def fn(x):
        steps = tf.shape(x)[0]

        def body(t, h, ta):
            h = tf.tanh(x[t] + h)
            return t + 1, h, ta.write(t, h)

        ta = tf.TensorArray(tf.float32, size=steps)
        return tf.while_loop(lambda t, h, ta: t < steps, body, [0, tf.zeros([3]), ta])[2].stack()

    return fn, [tf.TensorSpec([None, 3], tf.float32, name="x")], [(_normal(4, 3),)]


def lowered_model():
    """A cond and a loop frozen with TensorFlow's default lower_control_flow=True: Switch, Merge,
    Enter, Exit, NextIteration and LoopCond instead of If and While."""

    def fn(n, x):
        y = tf.cond(n > 2, lambda: x * 2.0, lambda: -x)
        return tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * 0.5), [tf.constant(0), y])[1]

    specs = [tf.TensorSpec([], tf.int32, name="n"), tf.TensorSpec([3], tf.float32, name="x")]
    return fn, specs, [(np.array(n, np.int32), _normal(3)) for n in (1, 4)]


# name: (model, options); "lowered" keeps lowered control flow.
MODELS = {
    "cond": (cond_model, {}),
    "switch_case": (switch_case_model, {}),
    "while_max_iterations": (while_max_iterations_model, {}),
    "nested_while": (nested_while_model, {}),
    "rnn": (rnn_model, {}),
    "autograph": (autograph_model, {"autograph": True}),
    "tensor_array": (tensor_array_model, {}),
    "lowered": (lowered_model, {"lower_control_flow": True}),
}


def write(name, make, autograph=False, lower_control_flow=False):
    fn, specs, cases = make()
    concrete = tf.function(fn, input_signature=specs, autograph=autograph).get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=lower_control_flow)
    graph_def = frozen.graph.as_graph_def()
    arrays = {"inputs": np.array([t.name for t in frozen.inputs]),
              "outputs": np.array([t.name for t in frozen.outputs])}
    for k, values in enumerate(cases):
        results = frozen(*[tf.constant(v) for v in values])
        for j, v in enumerate(values):
            arrays["case%d/in%d" % (k, j)] = v
        for j, r in enumerate(results):
            arrays["case%d/out%d" % (k, j)] = r.numpy()
    (OUT / (name + ".pb")).write_bytes(graph_def.SerializeToString(deterministic=True))
    np.savez_compressed(OUT / (name + ".npz"), **arrays)
    ops = sorted({n.op for n in graph_def.node} | {n.op for f in graph_def.library.function for n in f.node_def})
    print("%s: %d nodes, %d functions, ops %s" % (name, len(graph_def.node), len(graph_def.library.function), ops))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (make, options) in MODELS.items():
        write(name, make, **options)


if __name__ == "__main__":
    main()
