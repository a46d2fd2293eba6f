"""tx.while_loop: graph mode (one While op over traced cond/body functions), eager mode (a Python
loop) and inside tx.function; structures, captures as loop invariants, nesting,
maximum_iterations, shape_invariants, stateful bodies and the errors."""

import collections

import numpy as np
import pytest

import tensorflux as tx

Point = collections.namedtuple("Point", "x y")


def _types(graph):
    return [op.type for op in graph.get_operations()]


def test_counter_loop_is_one_stateless_while(sess):
    i = tx.while_loop(lambda i: i < 10, lambda i: i + 1, [tx.constant(0)])
    assert isinstance(i, list) and len(i) == 1
    assert i[0].op.type == "StatelessWhile" and i[0].shape == tx.TensorShape([])
    assert sess.run(i) == [10]


def test_cumulative_sum_of_1000_elements(sess):
    x = np.random.default_rng(0).standard_normal(1000)
    xt = tx.constant(x)

    def body(i, total, out):
        total = total + xt[i]
        return i + 1, total, out + tx.one_hot(i, 1000, dtype=tx.float64) * total

    _, total, out = tx.while_loop(lambda i, t, o: i < 1000, body, (0, tx.constant(0.0, tx.float64),
                                                                   tx.zeros([1000], tx.float64)))
    got_total, got = sess.run([total, out])
    np.testing.assert_allclose(got, np.cumsum(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_total, x.sum(), rtol=1e-12)


def test_fibonacci(sess):
    n = tx.placeholder(tx.int32, shape=[])
    _, a, _ = tx.while_loop(lambda k, a, b: k < n, lambda k, a, b: (k + 1, b, a + b),
                            [0, np.int64(0), np.int64(1)])
    assert a.dtype == tx.int64
    fib = [0, 1]
    while len(fib) < 91:
        fib.append(fib[-1] + fib[-2])
    assert [sess.run(a, {n: k}) for k in (0, 1, 2, 10, 90)] == [fib[0], fib[1], fib[2], fib[10], fib[90]]


def test_ten_thousand_iterations(sess):
    i, s = tx.while_loop(lambda i, s: i < 10000, lambda i, s: (i + 1, s + 0.5), [0, 0.0])
    assert sess.run([i, s]) == [10000, 5000.0]


def test_nested_structures_are_kept(sess):
    loop_vars = (tx.constant(0), {"p": Point(tx.constant(1.0), [tx.constant([1, 2])]), "q": tx.constant(2.0)})

    def body(i, d):
        p = d["p"]
        return [i + 1, {"q": d["q"] * 2.0, "p": Point(p.x + 1.0, [p.y[0] * 2])}]

    i, d = tx.while_loop(lambda i, d: i < 3, body, loop_vars)
    assert isinstance(d, dict) and isinstance(d["p"], Point) and isinstance(d["p"].y, list)
    got = sess.run((i, d))
    assert got[0] == 3 and got[1]["q"] == 16.0 and got[1]["p"].x == 4.0
    np.testing.assert_array_equal(got[1]["p"].y[0], [8, 16])


def test_python_and_numpy_loop_vars_become_tensors(sess):
    out = tx.while_loop(lambda a, b, c: a < 5, lambda a, b, c: (a + 1, b * 2.0, c + 1),
                        [0, 1.0, np.array([1, 2], np.int64)])
    assert [t.dtype for t in out] == [tx.int32, tx.float32, tx.int64]
    got = sess.run(out)
    assert got[0] == 5 and got[1] == 32.0
    np.testing.assert_array_equal(got[2], [6, 7])


def test_body_returning_python_numbers_takes_the_loop_var_dtype(sess):
    out = tx.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1, 7), [0, tx.constant(0.0)])
    assert out[1].dtype == tx.float32 and sess.run(out) == [3, 7.0]


def test_captured_tensors_are_loop_invariants(sess):
    step = tx.placeholder(tx.float32, shape=[])
    limit = tx.placeholder(tx.float32, shape=[])
    x, = tx.while_loop(lambda x: x < limit, lambda x: x + step, [tx.constant(0.0)])
    assert len(x.op.inputs) == 3  # x, then the captures of cond and body
    assert sess.run(x, {step: 2.0, limit: 7.0}) == 8.0
    assert sess.run(x, {step: 0.5, limit: 1.0}) == 1.0


def test_nested_loops_and_cond_in_body_capture_through_two_levels(sess):
    x = tx.constant(1.0)
    y = tx.constant(3.0)

    def body(i, a):
        a2 = tx.cond(tx.equal(i % 2, 0), lambda: a + y, lambda: a - 1.0)
        _, b = tx.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, b + x), [0, a2])
        return i + 1, b

    out = tx.while_loop(lambda i, a: i < 6, body, [0, 0.0])
    want = 0.0
    for i in range(6):
        want = (want + 3.0 if i % 2 == 0 else want - 1.0) + i * 1.0
    assert sess.run(out) == [6, want]


def test_maximum_iterations(sess):
    m = tx.placeholder(tx.int32, shape=[])
    forever, = tx.while_loop(lambda i: True, lambda i: i + 1, [0], maximum_iterations=100)
    both, = tx.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations=m)
    assert sess.run(forever) == 100
    assert [sess.run(both, {m: k}) for k in (0, 3, 5, 50)] == [0, 3, 5, 5]
    big, = tx.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations=np.int64(2))
    assert sess.run(big) == 2


def test_shape_invariants_allow_a_growing_variable(sess):
    def body(i, m):
        return i + 1, tx.concat([m, m], axis=0)

    i, m = tx.while_loop(lambda i, m: i < 3, body, [0, tx.ones([2, 2])],
                         shape_invariants=[tx.TensorShape([]), tx.TensorShape([None, 2])])
    assert m.shape.as_list() == [None, 2]
    assert sess.run(m).shape == (16, 2)
    _, v = tx.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tx.concat([v, v], 0)), [0, tx.ones([3])],
                         shape_invariants=[None, [None]])  # shapes may be lists; None: any shape
    assert v.shape.as_list() == [None] and sess.run(v).shape == (12,)


def test_shape_change_without_invariant_is_an_error(sess):
    with pytest.raises(ValueError, match=r"\[while\] Input tensor `Const:0` \(loop_vars\[0\]\) enters the loop with "
                       r"shape \(2,\), but has shape \(4,\) after one iteration. To allow the shape to vary across "
                       r"iterations, use the `shape_invariants` argument"):
        tx.while_loop(lambda v: tx.reduce_sum(v) < 10.0, lambda v: tx.concat([v, v], 0), [tx.constant([1.0, 2.0])])
    with pytest.raises(ValueError, match=r"enters the loop with shape \(2, 3\), but has shape \(2, None\)"):
        p = tx.placeholder(tx.float32, shape=[2, None])
        tx.while_loop(lambda v: False, lambda v: p, [tx.zeros([2, 3])])
    with pytest.raises(ValueError, match=r"shape invariant specified for loop_vars\[0\] .* It enters the loop with "
                       r"shape \(2,\), but the specified shape invariant is \(3,\)"):
        tx.while_loop(lambda v: False, lambda v: v, [tx.zeros([2])], shape_invariants=[tx.TensorShape([3])])
    with pytest.raises(ValueError, match="shape_invariants must have the structure of loop_vars"):
        tx.while_loop(lambda a, b: False, lambda a, b: (a, b), [1, 2], shape_invariants=[[]])
    assert sess.run(tx.constant(1.0) + 1.0) == 2.0


def test_body_and_cond_errors(sess):
    with pytest.raises(ValueError, match=r"body must return the same structure as loop_vars \(2 values\): it "
                                         r"returned 1 values"):
        tx.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), [0, 1])
    with pytest.raises(ValueError, match="same structure"):
        tx.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1, (j,)], [0, 1])
    with pytest.raises(TypeError, match=r"Loop variable loop_vars\[0\] \(`.*`\) enters the loop with type int32 but "
                                        r"has type float32 after one iteration"):
        tx.while_loop(lambda i: i < 3, lambda i: tx.cast(i, tx.float32), [0])
    with pytest.raises(TypeError, match="returned None for loop variable loop_vars\\[1\\]"):
        tx.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, None), [0, 1])
    with pytest.raises(TypeError, match=r"\[while_\d+\] cond output must be a bool tensor, got a int32 tensor"):
        tx.while_loop(lambda i: i, lambda i: i + 1, [0])
    with pytest.raises(ValueError, match=r"cond output must be a scalar, got shape \(2,\)"):
        tx.while_loop(lambda i: tx.constant([True, False]), lambda i: i + 1, [0])
    with pytest.raises(TypeError, match="list or tuple"):
        tx.while_loop(lambda i: i < 3, lambda i: i + 1, tx.constant(0))
    with pytest.raises(ValueError, match="must be provided"):
        tx.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(TypeError, match="parallel_iterations"):
        tx.while_loop(lambda i: i < 3, lambda i: i + 1, [0], parallel_iterations=0)
    with pytest.raises(ValueError, match="'maximum_iterations' must be a scalar"):
        tx.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=[3, 4])
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tx.while_loop(True, lambda i: i + 1, [0])
    # The graph and a session on it still work.
    ok, = tx.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    assert sess.run(ok) == 3


def test_cond_of_unknown_shape_checked_at_run_time(sess):
    p = tx.placeholder(tx.bool)
    out, = tx.while_loop(lambda i: tx.logical_and(p, i < 3), lambda i: i + 1, [0])
    with pytest.raises(tx.errors.InvalidArgumentError, match="pred_must_be_scalar"):
        sess.run(out, {p: [True, True]})
    assert sess.run(out, {p: True}) == 3


def test_error_in_body_at_run_time(sess):
    x = tx.placeholder(tx.float32, shape=[None])
    out = tx.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tx.reshape(tx.reshape(v, [2, -1]), [-1])), [0, x])
    with pytest.raises(tx.errors.InvalidArgumentError, match="Reshape"):
        sess.run(out, {x: [1.0, 2.0, 3.0]})
    assert sess.run(out, {x: [1.0, 2.0]})[0] == 2


def test_stateful_body_is_a_while_and_runs_every_iteration(sess):
    v = tx.Variable(0.0)

    def body(i):
        with tx.control_dependencies([v.assign_add(2.0, read_value=False)]):
            return i + 1

    i, = tx.while_loop(lambda i: i < 5, body, [0])
    assert i.op.type == "While"
    sess.run(v.initializer)
    assert sess.run(i) == 5 and sess.run(v.value()) == 10.0


def test_variable_read_in_cond_sees_updates_from_body(sess):
    v = tx.Variable(0)
    i, = tx.while_loop(lambda i: v < 4, lambda i: (v.assign_add(1) * 0 + i + 1), [0])
    sess.run(v.initializer)
    assert sess.run(i) == 4


def test_back_prop_false_stops_gradients_at_the_results():
    out, = tx.while_loop(lambda x: x < 10.0, lambda x: x * 2.0, [tx.constant(1.0)], back_prop=False)
    assert out.op.type == "StopGradient"


def test_while_attrs(sess):
    out, = tx.while_loop(lambda x: x < 10.0, lambda x: x * 2.0, [tx.constant(1.0)], parallel_iterations=3,
                         name="doubling")
    assert out.op.name == "doubling" and out.op.get_attr("parallel_iterations") == 3
    shapes = out.op.get_attr("output_shapes").shape
    assert len(shapes) == 1 and not shapes[0].dim and not shapes[0].unknown_rank
    assert sess.run(out) == 16.0


@pytest.mark.eager
def test_eager_while_runs_in_python():
    seen = []

    def body(i, acc):
        seen.append(int(i))
        return i + 1, acc + tx.cast(i, tx.float32)

    i, acc = tx.while_loop(lambda i, acc: i < 4, body, (0, 0.0))
    assert seen == [0, 1, 2, 3] and int(i) == 4 and float(acc) == 6.0
    x, = tx.while_loop(lambda x: True, lambda x: x * 2, [1], maximum_iterations=5)
    assert int(x) == 32
    d = tx.while_loop(lambda d: d["n"] < 3, lambda d: {"n": d["n"] + 1, "v": d["v"] * 2.0},
                      [{"n": 0, "v": np.ones(2, np.float32)}])
    assert int(d[0]["n"]) == 3 and d[0]["v"].numpy().tolist() == [8.0, 8.0]
    # Shapes may change executing eagerly (no graph to keep them static).
    v, = tx.while_loop(lambda v: tx.size(v) < 8, lambda v: tx.concat([v, v], 0), [tx.ones([1])])
    assert v.shape == tx.TensorShape([8])


@pytest.mark.eager
def test_eager_while_errors():
    with pytest.raises(TypeError, match="enters the loop with type int32 but has type float32"):
        tx.while_loop(lambda i: i < 3, lambda i: tx.cast(i, tx.float32), [0])
    with pytest.raises(ValueError, match="same structure"):
        tx.while_loop(lambda i, j: i < 3, lambda i, j: i + 1, [0, 1])
    with pytest.raises(TypeError, match="bool tensor"):
        tx.while_loop(lambda i: i, lambda i: i + 1, [0])


@pytest.mark.eager
def test_while_inside_function_with_captured_eager_values():
    w = tx.Variable(np.full((3,), 0.5, np.float32))
    bias = tx.constant(1.0)

    @tx.function
    def f(x, n):
        def body(k, h):
            return k + 1, tx.tanh(h * w + bias)

        return tx.while_loop(lambda k, h: k < n, body, [0, x])[1]

    x = np.array([0.1, -0.2, 0.3], np.float32)
    want = x.copy()
    for _ in range(4):
        want = np.tanh(want * 0.5 + 1.0)
    np.testing.assert_allclose(f(tx.constant(x), tx.constant(4)).numpy(), want, rtol=1e-6)
    cf = f.get_concrete_function(tx.constant(x), tx.constant(4))
    assert "While" in _types(cf.graph)  # the variable read makes the body stateful
    w.assign(np.zeros(3, np.float32))
    np.testing.assert_allclose(f(tx.constant(x), tx.constant(2)).numpy(), np.tanh(np.ones(3)), rtol=1e-6)


@pytest.mark.eager
def test_while_inside_function_updates_a_variable_each_iteration():
    v = tx.Variable(1.0)

    @tx.function
    def f(n):
        def body(i):
            v.assign(v * 3.0)
            return i + 1

        tx.while_loop(lambda i: i < n, body, [0])
        return v.read_value()

    assert float(f(tx.constant(3))) == 27.0
    assert float(v.numpy()) == 27.0


def test_build_again_after_importing_a_graph_made_by_another_process(sess, monkeypatch):
    from tensorflux._src import control_flow

    def program(k):
        def body(i, a):
            return i + 1, tx.cond(tx.equal(i % 2, 0), lambda: a * k, lambda: a + 1.0)

        return tx.while_loop(lambda i, a: i < 4, body, [0, 1.0])[1]

    monkeypatch.setattr(control_flow, "_ids", __import__("itertools").count(1))
    g = tx.Graph()
    with g.as_default():
        program(2.0)
    graph_def = g.as_graph_def()
    # A new process numbers its functions from 1 again: nested names must still differ.
    monkeypatch.setattr(control_flow, "_ids", __import__("itertools").count(1))
    tx.import_graph_def(graph_def, name="")
    out = program(3.0)  # same scopes inside the body, other definitions
    assert sess.run([out, "while:1"]) == [13.0, 7.0]
