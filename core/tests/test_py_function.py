"""tx.py_function / tx.numpy_function: Python callables as ops eagerly, in graphs and inside
tx.function, with errors carrying the Python traceback and gradients through py_function."""

import threading

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import lib

pytestmark = pytest.mark.eager


def _np_double_plus_one(x):
    return (x * 2 + 1).astype(x.dtype)


def _tx_square(x):
    return x * x


def test_numpy_function_eager():
    n0 = lib.c.num_host_callbacks()
    out = tx.numpy_function(_np_double_plus_one, [tx.constant([1.0, 2.0])], tx.float32)
    np.testing.assert_array_equal(out.numpy(), [3.0, 5.0])
    assert lib.c.num_host_callbacks() == n0  # the eager registration ends with the call
    outs = tx.numpy_function(lambda a, b: (a + b, a * b), [np.int64(3), np.int64(4)], [tx.int64, tx.int64])
    assert [o.numpy() for o in outs] == [7, 12]
    assert tx.numpy_function(lambda: None, [], None) is None


def test_numpy_function_graph_and_stateless():
    calls = []

    def f(x):
        calls.append(x.copy())
        return x.sum()

    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.float64, [None])
        y = tx.numpy_function(f, [x], tx.float64)
        z = tx.numpy_function(f, [x], tx.float64, stateful=False)
        assert y.op.type == "PyFunc" and z.op.type == "PyFuncStateless"
        with tx.Session(graph=g) as sess:
            assert sess.run(y, {x: [1.0, 2.0, 3.5]}) == 6.5
            assert sess.run(z, {x: [1.0]}) == 1.0
    assert len(calls) == 2
    del g, sess, x, y, z


def test_graph_release_unregisters_tokens():
    import gc

    gc.collect()  # graphs of earlier tests
    n0 = lib.c.num_host_callbacks()
    g = tx.Graph()
    with g.as_default():
        tx.py_function(_tx_square, [tx.constant(2.0)], tx.float32)
    assert lib.c.num_host_callbacks() == n0 + 2  # the function and its gradient
    del g
    gc.collect()
    assert lib.c.num_host_callbacks() == n0


def test_py_function_eager_sees_eager_tensors():
    seen = []

    def f(a, b):
        seen.append((type(a).__name__, a.dtype))
        return tx.matmul(a, b), tx.reduce_sum(b)

    a = tx.constant([[1.0, 2.0]])
    b = tx.constant([[3.0], [4.0]])
    m, s = tx.py_function(f, [a, b], [tx.float32, tx.float32])
    np.testing.assert_allclose(m.numpy(), [[11.0]])
    assert s.numpy() == 7.0
    assert seen == [("EagerTensor", tx.float32)]


def test_py_function_output_dtype_checked():
    with pytest.raises(tx.errors.InvalidArgumentError, match="dtype int32, but Tout expects float32"):
        tx.py_function(lambda x: tx.constant([1, 2]), [tx.constant(1.0)], tx.float32)


@pytest.mark.parametrize("exc,error", [
    (ValueError("bad value"), tx.errors.InvalidArgumentError),
    (TypeError("bad type"), tx.errors.InvalidArgumentError),
    (IndexError("bad index"), tx.errors.OutOfRangeError),
    (NotImplementedError("later"), tx.errors.UnimplementedError),
    (RuntimeError("other"), tx.errors.UnknownError),
])
def test_exception_codes_and_traceback_eager(exc, error):
    def fails(x):
        raise exc

    with pytest.raises(error) as info:
        tx.numpy_function(fails, [tx.constant(1.0)], tx.float32)
    msg = info.value.message
    assert type(exc).__name__ + ": " + str(exc) in msg
    assert "Traceback (most recent call last)" in msg and "in fails" in msg
    # The context still works.
    assert tx.numpy_function(_np_double_plus_one, [tx.constant(1.0)], tx.float32).numpy() == 3.0


def test_exception_in_graph_session_survives():
    def fails(x):
        if x > 0:
            raise ValueError("positive input %s" % x)
        return x

    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.float32, [])
        y = tx.py_function(lambda t: fails(t.numpy()), [x], tx.float32, name="checker")
        with tx.Session(graph=g) as sess:
            with pytest.raises(tx.errors.InvalidArgumentError, match=r"(?s)\[checker\].*ValueError: positive "
                               r"input 1\.0.*Traceback"):
                sess.run(y, {x: 1.0})
            assert sess.run(y, {x: -2.0}) == -2.0


def test_wrong_number_of_values():
    with pytest.raises(tx.errors.InvalidArgumentError, match="returned 1 values, but Tout has 2"):
        tx.numpy_function(lambda x: x, [tx.constant(1.0)], [tx.float32, tx.float32])


def test_inside_tx_function_runs_and_is_ordered():
    log = []

    @tx.function
    def f(x):
        tx.numpy_function(lambda v: log.append(float(v)), [x], [])  # result unused: runs anyway
        y = tx.py_function(lambda t: t * 3.0, [x], tx.float32)
        return y + 1.0

    assert f(tx.constant(2.0)).numpy() == 7.0
    assert f(tx.constant(5.0)).numpy() == 16.0
    assert log == [2.0, 5.0]
    assert f.experimental_get_tracing_count() == 1


def test_py_function_gradient_eager():
    x = tx.constant([1.0, -2.0, 3.0])
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.py_function(lambda t: tx.sin(t) * t, [x], tx.float32)
        loss = tx.reduce_sum(y * y)
    g = tape.gradient(loss, x).numpy()
    xv = x.numpy()
    f = np.sin(xv) * xv
    np.testing.assert_allclose(g, 2 * f * (np.cos(xv) * xv + np.sin(xv)), rtol=1e-5)


def test_py_function_gradient_graph_and_function():
    xv = np.array([0.5, 1.5], np.float64)
    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.float64, [2])
        w = tx.constant(np.array([2.0, 3.0]))
        y, z = tx.py_function(lambda a, b: (a * b, tx.reduce_sum(a)), [x, w], [tx.float64, tx.float64])
        dx, dw = tx.gradients(tx.reduce_sum(y) + 10.0 * z, [x, w])
        with tx.Session(graph=g) as sess:
            gx, gw = sess.run([dx, dw], {x: xv})
    np.testing.assert_allclose(gx, [12.0, 13.0])
    np.testing.assert_allclose(gw, xv)

    @tx.function
    def loss(a):
        return tx.reduce_sum(tx.py_function(lambda t: t ** 3, [a], tx.float64))

    a = tx.constant(xv)
    with tx.GradientTape() as tape:
        tape.watch(a)
        value = loss(a)
    np.testing.assert_allclose(value.numpy(), np.sum(xv ** 3))
    np.testing.assert_allclose(tape.gradient(value, a).numpy(), 3 * xv ** 2)


def test_gradient_without_a_path_is_zero():
    def bad(t):
        return tx.constant(np.array(1.0, np.float32)) * 0 + tx.constant(t.numpy())  # not differentiable in t

    x = tx.constant(2.0)
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.py_function(bad, [x], tx.float32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 0.0)  # no path: zeros, as TensorFlow's None->0


def test_many_threads_session():
    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.float32, [])
        y = tx.numpy_function(lambda v: np.float32(v + 1), [x], tx.float32)
        with tx.Session(graph=g) as sess:
            results = {}

            def run(i):
                results[i] = sess.run(y, {x: float(i)})

            threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    assert results == {i: i + 1.0 for i in range(8)}


def test_c_api_registry_errors():
    lib.c.register_host_callback("tx_test_token", lambda arrays: ([], None))
    try:
        with pytest.raises(tx.errors.AlreadyExistsError, match="already registered"):
            lib.c.register_host_callback("tx_test_token", lambda arrays: ([], None))
    finally:
        assert lib.c.unregister_host_callback("tx_test_token")
    assert not lib.c.unregister_host_callback("tx_test_token")
    with pytest.raises(TypeError):
        lib.c.register_host_callback("t2", 5)


def test_unregistered_token_fails_cleanly():
    from tensorflux._src.generated import gen_ops

    with pytest.raises(tx.errors.InvalidArgumentError, match="no host callback is registered under token 'nope'"):
        gen_ops.py_func([tx.constant(1.0)], token="nope", Tout=[tx.float32])


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    xv = np.array([1.0, 2.0, 4.0], np.float32)

    def ours(t):
        return tx.sqrt(t) * 2.0

    def theirs(t):
        return tf.sqrt(t) * 2.0

    x = tx.constant(xv)
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.py_function(ours, [x], tx.float32)
    tx_grad = tape.gradient(y, x).numpy()
    xt = tf.constant(xv)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        yt = tf.py_function(theirs, [xt], tf.float32)
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-6)
    np.testing.assert_allclose(tx_grad, tape.gradient(yt, xt).numpy(), rtol=1e-6)
    np.testing.assert_allclose(tx.numpy_function(np.cumsum, [x], tx.float32).numpy(),
                               tf.numpy_function(np.cumsum, [xt], tf.float32).numpy())
