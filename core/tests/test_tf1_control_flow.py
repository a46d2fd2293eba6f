"""TensorFlow 1 control flow (Switch, Merge, Enter, Exit, NextIteration, LoopCond, _SwitchN) built
with tf.compat.v1 in the test, frozen by TensorFlow, imported here (where the import rebuilds it
into While/If/Case, docs/control_flow.md) and run against TensorFlow; gradients through the rebuilt
ops against tf.gradients of the original graph; the rebuilt graph exported and run by TensorFlow.
Bad lowered control flow is in test_tf1_control_flow_errors.py (no TensorFlow needed there)."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")

RNG = np.random.default_rng(17)


@pytest.fixture(autouse=True)
def control_flow_v1():
    """tf.compat.v1.while_loop / cond build Switch/Merge graphs only with control flow v2 off."""
    from tensorflow.python.ops import control_flow_util

    old = control_flow_util.ENABLE_CONTROL_FLOW_V2
    tf.compat.v1.disable_control_flow_v2()
    yield
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = old


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _ph(dtype, shape, name):
    return tf.compat.v1.placeholder(dtype, shape, name=name)


class Model:
    """A TF1 graph: `build()` returns (placeholders, outputs); frozen into `graph_def`."""

    def __init__(self, build):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.inputs, self.outputs = build()
            init = tf.compat.v1.global_variables_initializer()
        self.session = tf.compat.v1.Session(graph=self.graph)  # holds the variables' values
        self.session.run(init)
        self.graph_def = tf.compat.v1.graph_util.convert_variables_to_constants(
            self.session, self.graph.as_graph_def(), [t.op.name for t in self.outputs])
        self.input_names = [t.name for t in self.inputs]
        self.output_names = [t.name for t in self.outputs]

    def ops(self):
        return {n.op for n in self.graph_def.node}

    def tensorflow(self, values, fetches=None):
        return self.session.run(self.outputs if fetches is None else fetches, dict(zip(self.inputs, values)))

    def import_here(self, graph_def=None, prefix=""):
        data = (graph_def or self.graph_def).SerializeToString()
        names = [prefix + n for n in self.input_names + self.output_names] if prefix else None
        tensors = tx.import_graph_def(data, return_elements=names or self.input_names + self.output_names, name="")
        return tensors[:len(self.inputs)], tensors[len(self.inputs):]

    def ours(self, values):
        with tx.Graph().as_default() as g:
            xs, ys = self.import_here()
            with tx.Session() as s:
                return g, s.run(ys, dict(zip(xs, values)))


def _check(got, want, where, rtol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (where, got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6, err_msg=where)


def _compare(model, cases, expect_ops, rtol=1e-5):
    assert {"Enter", "Exit", "Switch", "Merge", "NextIteration", "LoopCond"} & model.ops()  # really lowered
    for values in cases:
        g, got = model.ours(values)
        want = model.tensorflow(values)
        for k, (a, b) in enumerate(zip(got, want)):
            _check(a, b, "output %d (%s) for inputs %s" % (k, model.output_names[k], values), rtol)
    types = {op.type for op in g.get_operations()}
    assert not types & {"Enter", "Exit", "Switch", "Merge", "NextIteration", "LoopCond", "_SwitchN"}
    assert expect_ops <= types, types
    return g


# ---- models ------------------------------------------------------------------------------------

def while_model():
    """Sum of w * i**2 for i < n, with a frozen variable w and an invariant x (Enter is_constant)."""
    n = _ph(tf.int32, [], "n")
    x = _ph(tf.float32, [3], "x")
    w = tf.Variable([0.5, -1.0, 2.0], name="w")

    def body(i, acc):
        f = tf.cast(i, tf.float32)
        return i + 1, acc + w * f * f + x

    i, acc = tf.compat.v1.while_loop(lambda i, acc: i < n, body, [tf.constant(0), tf.zeros([3])])
    return [n, x], [tf.identity(i, name="i"), tf.identity(acc, name="acc")]


def cond_model():
    """A cond with two outputs reading captured tensors, a constant branch and a branch returning an
    outside tensor unchanged."""
    x = _ph(tf.float32, [None, 3], "x")
    flag = _ph(tf.bool, [], "flag")
    b = tf.Variable([1.0, 2.0, 3.0])
    a, c = tf.compat.v1.cond(flag, lambda: (x * 2.0 + b, tf.reduce_sum(x)), lambda: (x, tf.constant(-1.0)))
    d = tf.compat.v1.cond(tf.reduce_sum(x) > 0.0, lambda: tf.nn.relu(x), lambda: tf.square(x) - 1.0)
    return [x, flag], [tf.identity(a, name="a"), tf.identity(c, name="c"), tf.identity(d, name="d")]


def nested_while_model():
    """The sum of i * j for 0 <= j < i < n, in float64."""
    n = _ph(tf.int32, [], "n")

    def outer(i, acc):
        def inner(j, a):
            return j + 1, a + tf.cast(i * j, tf.float64)

        _, acc = tf.compat.v1.while_loop(lambda j, a: j < i, inner, [tf.constant(0), acc])
        return i + 1, acc

    out = tf.compat.v1.while_loop(lambda i, acc: i < n, outer, [tf.constant(0), tf.constant(0.0, tf.float64)])[1]
    return [n], [tf.identity(out, name="out")]


def cond_in_loop_model():
    """Even steps add x * w, odd steps subtract 1 (a cond inside the loop body, capturing x)."""
    n = _ph(tf.int32, [], "n")
    x = _ph(tf.float32, [3], "x")
    w = tf.constant([1.0, 2.0, 3.0])

    def body(i, acc):
        acc2 = tf.compat.v1.cond(tf.equal(i % 2, 0), lambda: acc + x * w, lambda: acc - 1.0)
        return i + 1, acc2

    acc = tf.compat.v1.while_loop(lambda i, acc: i < n, body, [tf.constant(0), tf.zeros([3])])[1]
    return [n, x], [tf.identity(acc, name="acc")]


def loop_in_cond_model():
    """A cond whose true branch runs a loop (halving until below 1) and whose false branch does not."""
    x = _ph(tf.float32, [], "x")

    def halve():
        k, v = tf.compat.v1.while_loop(lambda k, v: v > 1.0, lambda k, v: (k + 1, v * 0.5), [tf.constant(0), x])
        return tf.cast(k, tf.float32) + v

    y = tf.compat.v1.cond(x > 0.0, halve, lambda: x * 3.0)
    return [x], [tf.identity(y, name="y")]


def nested_cond_model():
    """A cond in each branch of a cond, and tf.compat.v1.case (nested conds) over three predicates."""
    x = _ph(tf.float32, [], "x")
    y = tf.compat.v1.cond(x > 0.0,
                          lambda: tf.compat.v1.cond(x > 5.0, lambda: x - 5.0, lambda: x * 2.0),
                          lambda: tf.compat.v1.cond(x < -5.0, lambda: -x, lambda: x * x))
    z = tf.compat.v1.case([(x < -1.0, lambda: tf.constant(1.0)), (x < 1.0, lambda: x + 10.0),
                           (x < 3.0, lambda: x * 100.0)], default=lambda: tf.constant(-7.0), exclusive=False)
    return [x], [tf.identity(y, name="y"), tf.identity(z, name="z")]


def rnn_model(parallel_iterations):
    """h = tanh(x[t] W + h U + b) over the time steps of x; W, U, b frozen variables."""
    x = _ph(tf.float32, [None, None, 3], "x")
    rng = np.random.default_rng(5)  # the same weights each time the model is built
    w = tf.Variable(rng.standard_normal((3, 5)).astype(np.float32) * 0.5)
    u = tf.Variable(rng.standard_normal((5, 5)).astype(np.float32) * 0.4)
    b = tf.Variable(rng.standard_normal(5).astype(np.float32))
    steps, batch = tf.shape(x)[0], tf.shape(x)[1]

    def body(t, h, total):
        h = tf.tanh(tf.matmul(x[t], w) + tf.matmul(h, u) + b)
        return t + 1, h, total + tf.reduce_sum(h)

    _, h, total = tf.compat.v1.while_loop(lambda t, h, total: t < steps, body,
                                          [tf.constant(0), tf.zeros(tf.stack([batch, 5])), tf.constant(0.0)],
                                          parallel_iterations=parallel_iterations)
    return [x], [tf.identity(h, name="h"), tf.identity(total, name="total")]


def max_iterations_model():
    """maximum_iterations stops a loop whose condition never turns false."""
    n = _ph(tf.int32, [], "n")
    v = tf.compat.v1.while_loop(lambda v: True, lambda v: v * 2, [tf.constant(1)], maximum_iterations=n)
    return [n], [tf.identity(v, name="v")]


# ---- tests -------------------------------------------------------------------------------------

def test_while_loop():
    m = Model(while_model)
    g = _compare(m, [(np.int32(n), _f32(3)) for n in (0, 1, 4, 9)], {"StatelessWhile"})
    (w,) = [op for op in g.get_operations() if op.type == "StatelessWhile"]
    assert w.name == "while/While" and len(w.inputs) == 5  # 2 loop variables; invariants n, w (frozen) and x


def test_cond():
    m = Model(cond_model)
    cases = [(_f32(2, 3), np.bool_(f)) for f in (True, False)] + [(np.abs(_f32(4, 3)), np.bool_(True))]
    _compare(m, cases, {"StatelessIf"})


def test_nested_while():
    _compare(Model(nested_while_model), [(np.int32(n),) for n in (0, 1, 2, 7)], {"StatelessWhile"})


def test_cond_in_loop():
    g = _compare(Model(cond_in_loop_model), [(np.int32(n), _f32(3)) for n in (0, 1, 5)], {"StatelessWhile"})
    (w,) = [op for op in g.get_operations() if op.type == "StatelessWhile"]
    (body,) = [f for f in g.as_graph_def().library.function if f.signature.name == w.get_attr("body").name]
    assert "StatelessIf" in {n.op for n in body.node_def}


def test_loop_in_cond():
    _compare(Model(loop_in_cond_model), [(np.float32(v),) for v in (37.0, 0.5, -2.0)], {"StatelessIf"})


def test_nested_conds_and_case():
    _compare(Model(nested_cond_model), [(np.float32(v),) for v in (-9.0, -3.0, 0.0, 2.0, 4.0, 8.0)], {"StatelessIf"})


@pytest.mark.parametrize("parallel_iterations", [1, 32])
def test_rnn_loop_keeps_parallel_iterations(parallel_iterations):
    m = Model(lambda: rnn_model(parallel_iterations))
    g = _compare(m, [(_f32(6, 2, 3),), (_f32(1, 4, 3),), (_f32(0, 2, 3),)], {"StatelessWhile"}, rtol=1e-4)
    (w,) = [op for op in g.get_operations() if op.type == "StatelessWhile"]
    assert w.get_attr("parallel_iterations") == parallel_iterations


def test_maximum_iterations():
    _compare(Model(max_iterations_model), [(np.int32(n),) for n in (0, 3, 10)], {"StatelessWhile"})


def test_exit_and_merge_keep_their_names():
    """Consumers and fetches by name of Exit and Merge nodes still work; values inside are gone."""
    m = Model(cond_in_loop_model)
    with tx.Graph().as_default() as g:
        tx.import_graph_def(m.graph_def.SerializeToString(), name="")
        assert g.get_operation_by_name("while/Exit_1").type == "Identity"
        with tx.Session() as s:
            got = s.run("while/Exit_1:0", {"n:0": 3, "x:0": np.ones(3, np.float32)})
        np.testing.assert_allclose(got, [1.0, 3.0, 5.0])
    with tx.Graph().as_default():
        with pytest.raises(tx.errors.NotFoundError,
                           match=r"'while/add:0' names no node .* inside lowered control flow .*'while/While'"):
            tx.import_graph_def(m.graph_def.SerializeToString(), return_elements=["while/add:0"], name="")


@pytest.mark.parametrize("make", [while_model, cond_model, nested_while_model, cond_in_loop_model,
                                  loop_in_cond_model, nested_cond_model])
def test_exported_graph_runs_in_tensorflow(make):
    """The rebuilt graph (While/If and its new library functions) is a valid TensorFlow graph."""
    from tensorflow.core.framework import graph_pb2

    m = Model(make)
    with tx.Graph().as_default() as g:
        m.import_here()
        exported = graph_pb2.GraphDef.FromString(g.as_graph_def().SerializeToString())
    assert exported.library.function
    cases = {while_model: (np.int32(5), _f32(3)), cond_model: (_f32(2, 3), np.bool_(False)),
             nested_while_model: (np.int32(6),), cond_in_loop_model: (np.int32(4), _f32(3)),
             loop_in_cond_model: (np.float32(9.0),), nested_cond_model: (np.float32(2.5),)}
    values = cases[make]
    tg = tf.Graph()
    with tg.as_default():
        tensors = tf.graph_util.import_graph_def(exported, return_elements=m.input_names + m.output_names, name="")
    with tf.compat.v1.Session(graph=tg) as s:
        got = s.run(tensors[len(m.inputs):], dict(zip(tensors[:len(m.inputs)], values)))
    for a, b in zip(got, m.tensorflow(values)):
        _check(a, b, make.__name__)


# ---- gradients through the rebuilt ops ---------------------------------------------------------

def _gradient_case(build, values, wrt, out):
    """tx.gradients of sum(outputs[out]) with respect to input `wrt` on the imported (rebuilt) graph,
    against tf.gradients of the TF1 graph (TensorFlow's gradients of Switch/Merge/Enter/Exit)."""
    m = Model(build)
    with m.graph.as_default():
        (want_t,) = tf.gradients(tf.reduce_sum(m.outputs[out]), [m.inputs[wrt]])
    want = m.tensorflow(values, want_t)
    with tx.Graph().as_default():
        xs, ys = m.import_here()
        (grad,) = tx.gradients(tx.reduce_sum(ys[out]), [xs[wrt]])
        with tx.Session() as s:
            got = s.run(grad, dict(zip(xs, values)))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_gradient_through_while():
    _gradient_case(while_model, (np.int32(4), _f32(3)), wrt=1, out=1)


def test_gradient_through_cond():
    for flag in (True, False):
        for out in (0, 1, 2):
            _gradient_case(cond_model, (_f32(2, 3), np.bool_(flag)), wrt=0, out=out)


def test_gradient_through_rnn_loop():
    for out in (0, 1):
        _gradient_case(lambda: rnn_model(10), (_f32(5, 2, 3),), wrt=0, out=out)


def test_gradient_through_cond_in_loop():
    _gradient_case(cond_in_loop_model, (np.int32(5), _f32(3)), wrt=1, out=0)


# ---- TensorFlow 2 functions frozen with lowered control flow -----------------------------------

def _frozen_tf2(fn, specs):
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    concrete = tf.function(fn, input_signature=specs, autograph=False).get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete)  # lower_control_flow=True, TensorFlow's default
    return frozen, frozen.graph.as_graph_def()


def test_tf2_function_frozen_with_lowered_control_flow():
    """tf.cond, tf.switch_case (lowered to _SwitchN) and tf.while_loop in a tf.function, frozen."""
    v = tf.Variable(_f32(4))

    def fn(n, x):
        y = tf.cond(n > 2, lambda: x * 2.0 + v, lambda: -x)
        z = tf.switch_case(n % 3, [lambda: y * 0.5, lambda: y - 1.0, lambda: tf.tanh(y)])
        return tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * 0.5 + z), [tf.constant(0), y])[1]

    frozen, gd = _frozen_tf2(fn, [tf.TensorSpec([], tf.int32, name="n"), tf.TensorSpec([4], tf.float32, name="x")])
    ops = {n.op for n in gd.node}
    assert {"_SwitchN", "Switch", "Merge", "Enter", "Exit", "LoopCond"} <= ops
    names = [t.name for t in frozen.inputs] + [t.name for t in frozen.outputs]
    for n in (0, 1, 2, 3, 4, 7):
        x = _f32(4)
        want = frozen(tf.constant(n), tf.constant(x))[0].numpy()
        with tx.Graph().as_default() as g:
            tn, tx_, y = tx.import_graph_def(gd.SerializeToString(), return_elements=names, name="")
            with tx.Session() as s:
                got = s.run(y, {tn: n, tx_: x})
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg="n=%d" % n)
    assert {"StatelessCase", "StatelessIf", "StatelessWhile"} <= {op.type for op in g.get_operations()}
