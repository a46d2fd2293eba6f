"""tx.function: tracing per signature, input_signature, captures, state, gradients through calls,
nesting, graph-mode calls, and the errors TensorFlow users expect."""

import collections

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def test_runs_as_one_call_and_matches_eager():
    def f(x, y):
        return tx.nn.relu(tx.matmul(x, y)) + 1.0

    tf_ = tx.function(f)
    x = tx.constant(np.arange(6, dtype=np.float32).reshape(2, 3) - 2)
    y = tx.constant(np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(tf_(x, y).numpy(), f(x, y).numpy())
    cf = tf_.get_concrete_function(x, y)
    types = [op.type for op in cf.graph.get_operations()]
    assert "MatMul" in types and "Relu" in types
    assert cf.function_def.signature.name == cf.name
    assert [a.type for a in cf.function_def.signature.input_arg] == [1, 1]  # DT_FLOAT


def test_retraces_per_signature_and_caches():
    calls = []

    @tx.function
    def f(x, scale):
        calls.append(1)
        return x * scale

    f(tx.constant([1.0, 2.0]), 2.0)
    f(tx.constant([3.0, 4.0]), 2.0)  # same signature: cached
    assert len(calls) == 1
    f(tx.constant([1.0, 2.0, 3.0]), 2.0)  # new shape
    f(tx.constant([1, 2]), 2)  # new dtype
    f(tx.constant([1.0, 2.0]), 3.0)  # new Python value
    assert len(calls) == 4 and f.experimental_get_tracing_count() == 4
    assert f(tx.constant([1.0, 2.0]), 3.0).numpy().tolist() == [3.0, 6.0]


def test_input_signature_and_reduce_retracing():
    @tx.function(input_signature=[tx.TensorSpec([None], tx.float32)])
    def f(x):
        return tx.reduce_sum(x)

    assert float(f(tx.constant([1.0, 2.0]))) == 3.0
    assert float(f(tx.constant([1.0, 2.0, 3.0]))) == 6.0
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError, match="input_signature"):
        f(tx.constant([1, 2]))
    with pytest.raises(ValueError, match="input_signature"):
        f(tx.constant([[1.0]]))
    with pytest.raises(TypeError, match="input_signature"):
        f(tx.constant([1.0]), tx.constant([1.0]))

    @tx.function(reduce_retracing=True)
    def g(x):
        return x * 2.0

    for n in (2, 3, 4, 5):
        g(tx.constant(np.ones(n, np.float32)))
    assert g.experimental_get_tracing_count() == 2  # the second shape relaxes to [None]


def test_captures_eager_tensors_and_variables_by_handle():
    c = tx.constant([10.0, 20.0])
    v = tx.Variable([1.0, 2.0])

    @tx.function
    def f(x):
        return x + c + v

    assert f(tx.constant([1.0, 1.0])).numpy().tolist() == [12.0, 23.0]
    v.assign([0.0, 0.0])  # captured by handle: the new value is seen without retracing
    assert f(tx.constant([1.0, 1.0])).numpy().tolist() == [11.0, 21.0]
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function(tx.constant([1.0, 1.0])).variables == [v]


def test_state_updates_run_in_program_order():
    v = tx.Variable(1.0)

    @tx.function
    def f():
        v.assign_add(1.0)
        a = v.read_value()
        v.assign(a * 10.0)
        return a, v.read_value()

    a, b = f()
    assert (float(a), float(b)) == (2.0, 20.0)

    @tx.function
    def bump():
        v.assign_add(1.0)  # no output depends on it: still runs (a control output)

    bump()
    assert float(v.numpy()) == 21.0


def test_gradients_through_calls_with_tape_and_nested_functions():
    @tx.function
    def inner(x):
        return tx.tanh(x) * x

    @tx.function
    def outer(x):
        return tx.reduce_sum(inner(x) * 2.0)

    x = tx.constant([0.5, -1.0])
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * (t + x.numpy() * (1 - t * t)), rtol=1e-6)

    w = tx.Variable([[1.0], [2.0]])

    @tx.function
    def loss(xs):
        return tx.reduce_sum(tx.matmul(xs, w) ** 2)

    with tx.GradientTape() as tape:
        lv = loss(tx.constant([[1.0, 1.0]]))
    np.testing.assert_allclose(tape.gradient(lv, w).numpy(), [[6.0], [6.0]])


def test_training_inside_a_function_equals_eager_training():
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((16, 4)).astype(np.float32)
    yv = rng.integers(0, 3, 16).astype(np.int32)
    results = []
    for compiled in (False, True):
        w = tx.Variable(tx.initializers.glorot_uniform(seed=3)([4, 3]))
        opt = tx.optimizers.Adam(0.1)

        def step(x, y):
            with tx.GradientTape() as tape:
                loss = tx.reduce_mean(tx.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=tx.matmul(x, w)))
            opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
            return loss

        run = tx.function(step) if compiled else step
        losses = [float(run(tx.constant(xv), tx.constant(yv))) for _ in range(5)]
        results.append((losses, w.numpy().copy(), int(opt.iterations.numpy())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    assert results[0][2] == results[1][2] == 5


def test_structured_outputs_and_none():
    Pair = collections.namedtuple("Pair", "a b")

    @tx.function
    def f(x):
        return {"sum": tx.reduce_sum(x), "pair": Pair(x * 2.0, None), "n": 3}

    out = f(tx.constant([1.0, 2.0]))
    assert float(out["sum"]) == 3.0 and out["pair"].b is None and out["pair"].a.numpy().tolist() == [2.0, 4.0]
    assert int(out["n"]) == 3


def test_called_inside_a_graph_adds_a_call_op():
    @tx.function
    def f(x):
        return x * x

    g = tx.Graph()
    with g.as_default():
        p = tx.constant([3.0])
        y = f(p)
        assert "StatefulPartitionedCall" in [op.type for op in g.get_operations()]
        assert tx.Session().run(y).tolist() == [9.0]
        (dy,) = tx.gradients(y, [p])
        assert tx.Session().run(dy).tolist() == [6.0]
    assert any(fd.signature.name.startswith("__inference_f") for fd in g.as_graph_def().library.function)


def test_errors():
    def branchy(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="tx.cond"):  # Python control flow on a tensor without AutoGraph
        tx.function(branchy, autograph=False)(tx.constant(1.0))
    assert float(tx.function(branchy)(tx.constant(-2.0))) == 2.0  # AutoGraph (the default) converts it

    @tx.function
    def bad_return(x):
        return object()

    with pytest.raises(TypeError, match="returns tensors"):
        bad_return(tx.constant(1.0))

    @tx.function
    def f(x, opts):
        return x

    with pytest.raises(TypeError, match="hashable"):
        f(tx.constant(1.0), {1, 2})  # a set: neither a structure nor hashable

    @tx.function
    def fails(x):
        return tx.matmul(x, x)

    with pytest.raises(tx.errors.InvalidArgumentError):
        fails(tx.constant([1.0, 2.0, 3.0]))  # rank 1: MatMul rejects it at trace or run time
    assert float(tx.function(lambda x: x + 1.0)(tx.constant(1.0))) == 2.0  # still usable


def test_methods_and_variables_created_on_first_call():
    class Model:
        def __init__(self):
            self.w = None

        @tx.function
        def __call__(self, x):
            if self.w is None:
                self.w = tx.Variable(tx.ones([2, 1]))
            return tx.matmul(x, self.w)

    m = Model()
    assert m(tx.constant([[1.0, 2.0]])).numpy().tolist() == [[3.0]]
    assert m.w.numpy().tolist() == [[1.0], [1.0]]
    assert m(tx.constant([[2.0, 2.0]])).numpy().tolist() == [[4.0]]


def test_custom_gradient_inside_functions_and_graphs():
    @tx.custom_gradient
    def log1pexp(x):
        e = tx.exp(x)

        def grad(dy):
            return dy * (1.0 - 1.0 / (1.0 + e))

        return tx.math.log(1.0 + e), grad

    @tx.function
    def f(x):
        return tx.reduce_sum(log1pexp(x))

    x = tx.constant([0.0, 100.0])
    with tx.GradientTape() as tape:  # taped through the call
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 1.0])

    @tx.function
    def g(x):  # a symbolic tape inside the function
        with tx.GradientTape() as t:
            t.watch(x)
            y = tx.reduce_sum(log1pexp(x))
        return t.gradient(y, x)

    np.testing.assert_allclose(g(x).numpy(), [0.5, 1.0])
    gr = tx.Graph()
    with gr.as_default():  # graph mode, tx.gradients
        xc = tx.constant([0.0, 100.0])
        (dx,) = tx.gradients(tx.reduce_sum(log1pexp(xc)), [xc])
        np.testing.assert_allclose(tx.Session().run(dx), [0.5, 1.0])

    v = tx.Variable(1.0)

    @tx.custom_gradient
    def uses_variable(x):
        return x * v, lambda dy: dy

    with pytest.raises(NotImplementedError, match="arguments only"):
        tx.function(lambda x: uses_variable(x))(x)


def test_custom_gradient_whose_gradient_uses_a_loop_result_in_a_graph():
    """The gradient function's own callees (the while_loop's body and cond) reach the graph."""
    @tx.custom_gradient
    def doubled_thrice(x):
        out = tx.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [0, x])[1]
        return out, lambda dy: dy * out

    with tx.Graph().as_default():
        x = tx.compat.v1.placeholder(tx.float32, [])
        y = doubled_thrice(x)
        (dx,) = tx.gradients(y, [x])
        with tx.Session() as s:
            assert s.run([y, dx], {x: 1.5}) == [12.0, 12.0]


def test_nested_functions_capture_the_enclosing_graphs_tensors_as_tensorflow():
    """Note [Nested captures]: an inner function uses tensors of the function (or TF1 graph) it is
    traced in, also without AutoGraph, through control flow, and with gradients."""
    tf = pytest.importorskip("tensorflow")

    def program(m):
        out = []
        for autograph in (True, False):
            @m.function(autograph=autograph)
            def outer(x, y):
                z = y * 2.0

                @m.function(autograph=autograph)
                def inner(e):
                    @m.function(autograph=autograph)
                    def innermost(u):
                        return u + z  # two graphs out

                    return m.cond(e > 0.0, lambda: innermost(e * y), lambda: e - y)

                with m.GradientTape() as tape:
                    tape.watch(y)
                    r = inner(x) + inner(-x)
                return r, tape.gradient(r, y)

            out += [float(v) for v in outer(m.constant(1.5), m.constant(3.0))]
        g = m.Graph()
        with g.as_default():
            a = m.constant(4.0)

            @m.function
            def plus_a(v):
                return v + a

            r = plus_a(m.constant(1.0))
            with m.compat.v1.Session(graph=g) if m is tf else m.Session(graph=g) as sess:
                out.append(float(sess.run(r)))
        return out

    ours, theirs = program(tx), program(tf)
    # d/dy of (1.5y + 2y) + (-1.5 - y) is 2.5; TensorFlow 2.21 gives 0.5, missing the path through
    # z = 2y, which the innermost function captures two graphs out. Values agree otherwise.
    assert ours == [6.0, 2.5, 6.0, 2.5, 5.0]
    assert theirs[0::2] == ours[0::2]


def test_a_nested_trace_using_a_tensor_of_an_unrelated_graph_raises():
    other = tx.Graph()
    with other.as_default():
        foreign = tx.constant(1.0)

    @tx.function
    def f(x):
        return x + foreign

    with pytest.raises(ValueError, match="neither is this one nor encloses it|same graph"):
        f(tx.constant(1.0))


def test_with_captured_inputs_runs_the_trace_on_other_captured_values():
    scale = tx.constant(2.0)
    offset = tx.constant([1, 2], tx.int32)
    f = tx.function(lambda x: (x * scale, offset + 1)).get_concrete_function(tx.TensorSpec([], tx.float32))
    g = f.with_captured_inputs([5.0, np.array([10, 20])])
    assert float(g(tx.constant(3.0))[0]) == 15.0 and g(tx.constant(3.0))[1].numpy().tolist() == [11, 21]
    assert g(tx.constant(3.0))[1].dtype == tx.int32  # converted to the captured dtype
    assert float(f(tx.constant(3.0))[0]) == 6.0  # the original keeps its values
    with pytest.raises(ValueError, match="captured 2 values, got 1"):
        f.with_captured_inputs([1.0])
