"""tx.TensorArray with TensorFlow 2 semantics, eagerly (a Python list of tensors) and in graphs
(the engine's TensorList ops): every method, dynamic_size, clear_after_read, element_shape
inference, loops (tx.while_loop, tx.function, AutoGraph), gradients, and the errors (reading past
the end, writing the wrong dtype or shape) naming the node. Against NumPy, and TensorFlow when
it is installed."""

import numpy as np
import pytest

import tensorflux as tx

RNG = np.random.default_rng(3)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _graph_run(fn, *args):
    """Runs ``fn`` while building a graph (TensorList ops) and returns its results as arrays."""
    with tx.Graph().as_default():
        out = fn(*[tx.constant(a) for a in args])
        with tx.Session() as s:
            return s.run(out)


MODES = [pytest.param("eager", marks=pytest.mark.eager), "graph"]


def _run(mode, fn, *args):
    if mode == "eager":
        out = fn(*[tx.constant(a) for a in args])
        return tx.nest.map_structure(lambda t: t.numpy(), out)
    return _graph_run(fn, *args)


@pytest.mark.parametrize("mode", MODES)
def test_write_read_stack(mode):
    x = _f32(4, 3)

    def fn(x):
        ta = tx.TensorArray(tx.float32, size=4)
        for i in range(4):
            ta = ta.write(i, x[3 - i] * 2.0)
        return ta.stack(), ta.read(1), ta.size()

    stacked, one, size = _run(mode, fn, x)
    np.testing.assert_allclose(stacked, x[::-1] * 2.0, rtol=1e-6)
    np.testing.assert_allclose(one, x[2] * 2.0, rtol=1e-6)
    assert int(size) == 4


@pytest.mark.parametrize("mode", MODES)
def test_unstack_gather_scatter_concat_split(mode):
    x = _f32(5, 2)

    def fn(x):
        ta = tx.TensorArray(tx.float32, size=5).unstack(x)
        g = ta.gather([4, 0, 2])
        sc = tx.TensorArray(tx.float32, size=3).scatter([2, 0], x[:2])
        parts = tx.TensorArray(tx.float32, size=3).split(tx.reshape(x, [10]), [3, 5, 2])
        return g, sc.stack(), parts.concat(), parts.read(1), ta.concat()

    g, sc, cat, mid, cat_all = _run(mode, fn, x)
    np.testing.assert_allclose(g, x[[4, 0, 2]])
    np.testing.assert_allclose(sc, np.stack([x[1], np.zeros(2, np.float32), x[0]]))
    np.testing.assert_allclose(cat, x.reshape(10))
    np.testing.assert_allclose(mid, x.reshape(10)[3:8])
    np.testing.assert_allclose(cat_all, x.reshape(10))


@pytest.mark.parametrize("mode", MODES)
def test_dynamic_size_and_unwritten_elements(mode):
    def fn(x):
        ta = tx.TensorArray(tx.float32, size=0, dynamic_size=True, element_shape=[2])
        ta = ta.write(3, x)
        return ta.stack(), ta.size()

    stacked, size = _run(mode, fn, np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(stacked, [[0, 0], [0, 0], [0, 0], [1, 2]])
    assert int(size) == 4


@pytest.mark.parametrize("mode", MODES)
def test_element_shape_is_inferred_from_writes(mode):
    if mode == "eager":
        ta = tx.TensorArray(tx.float32, size=2)
        ta = ta.write(0, tx.ones([3]))
        assert ta.element_shape == tx.TensorShape([3])
        with pytest.raises(ValueError):
            ta.write(1, tx.ones([4]))
        return
    with tx.Graph().as_default():
        ta = tx.TensorArray(tx.float32, size=2)
        ta = ta.write(0, tx.ones([3]))
        assert ta.element_shape == tx.TensorShape([3])
        assert ta.read(1).shape == tx.TensorShape([3])
        assert ta.stack().shape == tx.TensorShape([2, 3])
        with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(4,\) but expected \(3,\)"):
            ta.write(1, tx.ones([4]))


@pytest.mark.eager
def test_eager_clear_after_read_and_errors():
    ta = tx.TensorArray(tx.float32, size=2).write(0, 1.0).write(1, 2.0)
    assert float(ta.read(0)) == 1.0
    with pytest.raises(tx.errors.InvalidArgumentError, match="Could not read index 0 twice"):
        ta.read(0)
    keep = tx.TensorArray(tx.float32, size=1, clear_after_read=False).write(0, 5.0)
    assert float(keep.read(0)) == float(keep.read(0)) == 5.0
    with pytest.raises(tx.errors.OutOfRangeError, match="Tried to read from index 2 but array size is: 2"):
        ta.read(2)
    with pytest.raises(tx.errors.OutOfRangeError, match="Tried to write to index 3 but array is not resizeable"):
        ta.write(3, 1.0)
    with pytest.raises(tx.errors.InvalidArgumentError, match="TensorArray dtype is float32 but Op is trying to write "
                                                             "dtype int32"):
        tx.TensorArray(tx.float32, size=1).write(0, tx.constant(1))


def test_graph_errors_name_the_node_and_the_session_stays_usable():
    with tx.Graph().as_default():
        i = tx.placeholder(tx.int32, [])
        ta = tx.TensorArray(tx.float32, size=3, element_shape=[2]).unstack(tx.ones([3, 2]))
        item = ta.read(i)
        with tx.Session() as s:
            np.testing.assert_allclose(s.run(item, {i: 1}), [1.0, 1.0])
            with pytest.raises(tx.errors.InvalidArgumentError, match=r"Trying to access element 5 in a list with 3 "
                                                                     r"elements") as e:
                s.run(item, {i: 5})
            assert "TensorListGetItem" in e.value.node_name
            np.testing.assert_allclose(s.run(item, {i: 2}), [1.0, 1.0])
        with pytest.raises(tx.errors.InvalidArgumentError, match="TensorArray dtype is float32 but Op is trying to "
                                                                 "write dtype int32"):
            ta.write(0, tx.constant([1, 2]))
        # The engine checks what the Python layer cannot see: an element of the wrong shape.
        from tensorflux._src.generated import gen_ops

        bad = gen_ops.tensor_list_set_item(ta.flow, 0, tx.placeholder(tx.float32, None, name="item"))
        with tx.Session() as s:
            with pytest.raises(tx.errors.InvalidArgumentError, match=r"incompatible shape \[3\] into a list whose "
                                                                     r"element shape is \[2\]"):
                s.run(bad, {"item:0": np.ones(3, np.float32)})


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_writes_each_step(mode):
    x = _f32(6, 3)

    def fn(x):
        n = tx.shape(x)[0]

        def body(t, h, ta):
            h = tx.tanh(x[t] + h)
            return t + 1, h, ta.write(t, h)

        _, h, ta = tx.while_loop(lambda t, h, ta: t < n, body, [0, tx.zeros([3]), tx.TensorArray(tx.float32, size=n)])
        return ta.stack(), h

    stacked, h = _run(mode, fn, x)
    want, hh = [], np.zeros(3, np.float32)
    for row in x:
        hh = np.tanh(row + hh)
        want.append(hh)
    np.testing.assert_allclose(stacked, np.stack(want), rtol=1e-5)
    np.testing.assert_allclose(h, want[-1], rtol=1e-5)


def test_static_shapes_flow_through_the_loop():
    with tx.Graph().as_default():
        x = tx.placeholder(tx.float32, [None, 3])
        n = tx.shape(x)[0]
        ta = tx.TensorArray(tx.float32, size=n, element_shape=[3])
        _, ta = tx.while_loop(lambda t, ta: t < n, lambda t, ta: (t + 1, ta.write(t, x[t] * 2.0)), [0, ta])
        assert ta.stack().shape.as_list() == [None, 3]
        assert ta.read(0).shape.as_list() == [3]


@pytest.mark.eager
def test_function_and_autograph_for_loop():
    @tx.function
    def squares(n):
        ta = tx.TensorArray(tx.int32, size=0, dynamic_size=True)
        for i in tx.range(n):
            ta = ta.write(i, i * i)
        return ta.stack()

    np.testing.assert_array_equal(squares(tx.constant(5)).numpy(), [0, 1, 4, 9, 16])
    np.testing.assert_array_equal(squares(tx.constant(3)).numpy(), [0, 1, 4])


@pytest.mark.parametrize("mode", MODES)
def test_gradient_through_writes_reads_and_stack(mode):
    """d/dx of sum(w * stack(tanh-RNN states)) against central differences of the same NumPy RNN."""
    x = _f32(5, 3).astype(np.float64)
    w = _f32(5, 3).astype(np.float64)

    def loss_np(x):
        h, hs = np.zeros(3), []
        for row in x:
            h = np.tanh(row + 0.5 * h)
            hs.append(h)
        return float(np.sum(w * np.stack(hs)))

    def loss(x):
        n = tx.shape(x)[0]

        def body(t, h, ta):
            h = tx.tanh(x[t] + 0.5 * h)
            return t + 1, h, ta.write(t, h)

        ta0 = tx.TensorArray(tx.float64, size=n, element_shape=[3])
        _, _, ta = tx.while_loop(lambda t, h, ta: t < n, body, [0, tx.zeros([3], tx.float64), ta0])
        return tx.reduce_sum(tx.constant(w) * ta.stack())

    if mode == "eager":
        xt = tx.constant(x)
        with tx.GradientTape() as tape:
            tape.watch(xt)
            y = loss(xt)
        got = tape.gradient(y, xt).numpy()
    else:
        with tx.Graph().as_default():
            xp = tx.placeholder(tx.float64, [5, 3])
            (g,) = tx.gradients(loss(xp), [xp])
            with tx.Session() as s:
                got = s.run(g, {xp: x})
    eps, want = 1e-6, np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        want[idx] = (loss_np(x + d) - loss_np(x - d)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_gradient_through_unstack_read_gather_concat():
    x = _f32(4, 2).astype(np.float64)
    with tx.Graph().as_default():
        xp = tx.placeholder(tx.float64, [4, 2])
        ta = tx.TensorArray(tx.float64, size=4).unstack(xp)
        y = (tx.reduce_sum(ta.read(1) * 3.0) + tx.reduce_sum(ta.gather([0, 3]) ** 2)
             + tx.reduce_sum(ta.concat() * tx.constant(np.arange(8.0))))
        (g,) = tx.gradients(y, [xp])
        # TensorFlow's gradient of a gather scatters into a fresh list: a repeated index counts once.
        (g_repeated,) = tx.gradients(tx.reduce_sum(ta.gather([0, 0, 3])), [xp])
        with tx.Session() as s:
            got, got_repeated = s.run([g, g_repeated], {xp: x})
    want = np.arange(8.0).reshape(4, 2)
    want[1] += 3.0
    want[0] += 2 * x[0]
    want[3] += 2 * x[3]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(got_repeated, [[1, 1], [0, 0], [0, 0], [1, 1]])


@pytest.mark.eager
def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = _f32(7, 4)

    def fn(m, x):  # the same program for TensorFlow (m = tf) and here (m = tx)
        ta = m.TensorArray(m.float32, size=m.shape(x)[0], element_shape=[4])
        ta = ta.unstack(x)
        out = m.TensorArray(m.float32, size=0, dynamic_size=True)
        for i in m.range(m.shape(x)[0]):
            out = out.write(i, ta.read(i) * m.cast(i, m.float32))
        return out.stack(), out.gather([6, 1]), out.concat(), out.size()

    def run(m):  # a def, not a lambda: AutoGraph runs lambdas unconverted (docs/autograph.md)
        def traced(x):
            return fn(m, x)
        return [t.numpy() for t in m.function(traced)(m.constant(x))]

    want, got = run(tf), run(tx)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def _list_op_cases():
    """name -> f(x) over a float64 [4, 3] x, built from the TensorList op under test."""
    from tensorflux._src.generated import gen_ops as g

    f64 = tx.float64

    def shape(d):
        return tx.constant(np.asarray(d, np.int32))

    def lst(x):
        return g.tensor_list_from_tensor(x, shape([3]))

    def stack(handle):
        return g.tensor_list_stack(handle, shape([3]), element_dtype=f64)

    def i1():
        return tx.constant(1)

    return {
        "TensorListFromTensor": lambda x: stack(lst(x)) * 2.0,
        "TensorListStack": lambda x: stack(lst(tx.sin(x))),
        "TensorListGetItem": lambda x: g.tensor_list_get_item(lst(x), i1(), shape([3]), element_dtype=f64) ** 2,
        "TensorListSetItem": lambda x: stack(g.tensor_list_set_item(lst(x), i1(), x[3] * x[0])),
        "TensorListSetItem(resize)": lambda x: stack(g.tensor_list_set_item(
            lst(x), tx.constant(5), x[2] * 3.0, resize_if_index_out_of_bounds=True)),
        "TensorListPushBack": lambda x: stack(g.tensor_list_push_back(lst(x[:2]), x[3] ** 2)),
        "TensorListPopBack": lambda x: [stack(o) if o.dtype == tx.variant else o * 5.0
                                        for o in g.tensor_list_pop_back(lst(x), shape([3]), element_dtype=f64)],
        "TensorListConcatV2": lambda x: g.tensor_list_concat_v2(
            g.tensor_list_split(x, shape([-1, 3]), tx.constant(np.array([1, 3], np.int64))),
            shape([-1, 3]), tx.constant(np.zeros([0], np.int64)), element_dtype=f64)[0] ** 2,
        "TensorListGather": lambda x: g.tensor_list_gather(lst(x), tx.constant([3, 0, 2]), shape([3]),
                                                           element_dtype=f64),
        "TensorListScatterV2": lambda x: stack(g.tensor_list_scatter_v2(
            x * x, tx.constant([5, 0, 2, 1]), shape([3]), tx.constant(7))),
        "TensorListScatterIntoExistingList": lambda x: stack(g.tensor_list_scatter_into_existing_list(
            lst(x), x[:2] * 4.0, tx.constant([3, 5]))),
        "TensorListSplit": lambda x: g.tensor_list_get_item(
            g.tensor_list_split(x, shape([-1, 3]), tx.constant(np.array([3, 1], np.int64))),
            tx.constant(0), shape([-1, 3]), element_dtype=f64) * 7.0,
        "TensorListResize": lambda x: stack(g.tensor_list_resize(lst(x * x), tx.constant(2))),
    }


def test_list_op_gradients():
    """Every differentiable TensorList op: tx.gradients against central differences in float64
    (the conformance entries in conformance/entries_list.py name this test)."""
    x0 = np.random.default_rng(5).standard_normal((4, 3))
    for name, f in _list_op_cases().items():
        with tx.Graph().as_default():
            x = tx.placeholder(tx.float64, [4, 3])
            outs = f(x)
            outs = outs if isinstance(outs, list) else [outs]
            with tx.Session() as s:
                vals = s.run(outs, {x: x0})
                ws = [np.random.default_rng(k).standard_normal(np.shape(v)) for k, v in enumerate(vals)]
                loss = tx.add_n([tx.reduce_sum(o * tx.constant(w)) for o, w in zip(outs, ws)])
                (grad,) = tx.gradients(loss, [x])
                got = s.run(grad, {x: x0})
                want = np.zeros_like(x0)
                for idx in np.ndindex(*x0.shape):
                    d = np.zeros_like(x0)
                    d[idx] = 1e-6
                    want[idx] = (s.run(loss, {x: x0 + d}) - s.run(loss, {x: x0 - d})) / 2e-6
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=name)
