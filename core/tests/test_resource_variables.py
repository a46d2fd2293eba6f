"""Resource variables end to end: error cases (the session stays usable after each), snapshot
reads, gradients through reads and gathers, and the fused optimizer updates against
TensorFlow's kernels."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops as ops

F32 = tx.float32


def _var(value, name="v", shape=None):
    value = np.asarray(value)
    h = ops.var_handle_op(dtype=tx.as_dtype(value.dtype), shape=value.shape if shape is None else shape,
                          shared_name=name, name=name)
    return h, ops.assign_variable_op(h, tx.constant(value))


def _read(h, dtype=F32):
    return ops.read_variable_op(h, dtype=dtype)


def _run_fails(sess, fetch, match, error=tx.errors.InvalidArgumentError):
    """Runs `fetch`, expecting `error` matching `match`; returns the error."""
    with pytest.raises(error, match=match) as e:
        sess.run(fetch)
    return e.value


def _still_usable(sess, h, init):
    sess.run(init)
    assert sess.run(_read(h)).shape == (2,)


def test_read_uninitialized_fails_naming_the_variable():
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(np.ones(2, np.float32), name="weights")
        r = _read(h)
        with pytest.raises(tx.errors.FailedPreconditionError, match="resource variable weights.*uninitialized") as e:
            sess.run(r)
        assert "ReadVariableOp" in e.value.node_name
        _still_usable(sess, h, init)


def test_update_uninitialized_fails():
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(np.ones(2, np.float32), name="acc")
        add = ops.assign_add_variable_op(h, tx.constant(np.ones(2, np.float32)))
        step = ops.resource_apply_gradient_descent(h, tx.constant(np.float32(0.1)), tx.constant(np.ones(2, np.float32)))
        for op in (add, step):
            _run_fails(sess, op, "resource variable acc.*uninitialized", tx.errors.FailedPreconditionError)
        _still_usable(sess, h, init)


def test_assign_wrong_dtype_and_shape():
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(np.ones(2, np.float32))
        with pytest.raises(tx.errors.InvalidArgumentError, match="wrong dtype"):
            ops.assign_variable_op(h, tx.constant(np.ones(2, np.int32)))
        with pytest.raises(tx.errors.InvalidArgumentError, match="cannot assign a value of shape"):
            ops.assign_variable_op(h, tx.constant(np.ones(3, np.float32)))
        # Handles to the same variable declared with an unknown shape (and another dtype) hide what
        # the shape functions check, so the kernels check (Identity forwards handle data, as in TF).
        hidden = ops.var_handle_op(dtype=F32, shape=tx.TensorShape(None), shared_name="v", name="v_unshaped")
        as_int = ops.var_handle_op(dtype=tx.int32, shape=tx.TensorShape(None), shared_name="v", name="v_as_int")
        bad_dtype = ops.assign_variable_op(as_int, tx.constant(np.ones(2, np.int32)), name="bad_dtype")
        bad_shape = ops.assign_add_variable_op(hidden, tx.constant(np.ones(3, np.float32)), name="bad_add")
        bad_assign = ops.assign_variable_op(hidden, tx.constant(np.ones(3, np.float32)), name="bad_assign")
        sess.run(init)
        assert _run_fails(sess, bad_dtype, "exists with dtype float, but a handle asks for dtype int32").node_name \
            == "v_as_int"
        assert _run_fails(sess, bad_shape, "shapes must be equal").node_name == "bad_add"
        assert _run_fails(sess, bad_assign, "wrong shape").node_name == "bad_assign"
        _still_usable(sess, h, init)


def test_apply_mismatched_shapes():
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(np.ones(2, np.float32), name="w")
        acc, acc_init = _var(np.ones(3, np.float32), name="acc")
        lr, g = tx.constant(np.float32(0.1)), tx.constant(np.ones(2, np.float32))
        with pytest.raises(tx.errors.InvalidArgumentError, match="var and accum do not have the same shape"):
            ops.resource_apply_adagrad_v2(h, acc, lr, tx.constant(np.float32(1e-6)), g)
        unshaped_h = ops.var_handle_op(dtype=F32, shape=tx.TensorShape(None), shared_name="w", name="w_unshaped")
        unshaped_acc = ops.var_handle_op(dtype=F32, shape=tx.TensorShape(None), shared_name="acc", name="acc_unshaped")
        step = ops.resource_apply_momentum(unshaped_h, unshaped_acc, lr, g, tx.constant(np.float32(0.9)))
        sess.run([init, acc_init])
        _run_fails(sess, step, r"var and accum do not have the same shape: \[2\] vs \[3\]")
        _still_usable(sess, h, init)


def test_fetch_handle_is_an_error():
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(np.ones(2, np.float32))
        _run_fails(sess, h, "cannot fetch a resource handle")
        _still_usable(sess, h, init)


def test_reads_are_snapshots_and_control_dependencies_order_updates():
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(np.zeros(3, np.float32))
        before = _read(h)
        with tx.control_dependencies([before]):
            add = ops.assign_add_variable_op(h, tx.constant(np.ones(3, np.float32)))
        with tx.control_dependencies([add]):
            after = _read(h)
        sess.run(init)
        b, a = sess.run([before, after])
        np.testing.assert_array_equal(b, np.zeros(3))
        np.testing.assert_array_equal(a, np.ones(3))
        kept = sess.run(after)
        sess.run(add)
        np.testing.assert_array_equal(kept, np.full(3, 2.0))  # fetched earlier, not changed by the update
        np.testing.assert_array_equal(sess.run(_read(h)), np.full(3, 3.0))


def test_fed_value_is_copied():
    with tx.Graph().as_default(), tx.Session() as sess:
        h = ops.var_handle_op(dtype=F32, shape=[3], shared_name="v")
        x = tx.placeholder(F32, [3])
        init = ops.assign_variable_op(h, x)
        arr = np.ones(3, np.float32)
        sess.run(init, {x: arr})
        arr[:] = 7
        np.testing.assert_array_equal(sess.run(_read(h)), np.ones(3))


def test_variables_live_with_the_session():
    with tx.Graph().as_default() as g:
        h, init = _var(np.ones(2, np.float32))
        r = _read(h)
        with tx.Session(graph=g) as s1:
            s1.run(init)
            np.testing.assert_array_equal(s1.run(r), np.ones(2))
        with tx.Session(graph=g) as s2:
            assert not s2.run(ops.var_is_initialized_op(h))


def test_read_gradient_sums_over_reads():
    rng = np.random.default_rng(0)
    w0, x0 = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(w0)
        w1, w2 = _read(h, tx.float64), _read(h, tx.float64)
        x = tx.constant(x0)
        loss = tx.reduce_sum(tx.matmul(x, w1)) + tx.reduce_sum(w2 * w2)
        (dh,) = tx.gradients(loss, [h])
        (dw,) = tx.gradients(loss, [w1])
        sess.run(init)
        want = x0.T @ np.ones((4, 2)) + 2 * w0
        np.testing.assert_allclose(sess.run(dh), want, rtol=1e-12)
        np.testing.assert_allclose(sess.run(dw), x0.T @ np.ones((4, 2)), rtol=1e-12)


@pytest.mark.parametrize("batch_dims", [0, 1])
@pytest.mark.parametrize("static", [True, False])
def test_gather_gradient(batch_dims, static):
    rng = np.random.default_rng(1)
    p0 = rng.standard_normal((2, 5, 3))
    idx0 = np.array([[4, 0, 4], [1, 1, 2]], np.int32) if batch_dims else np.array([1, 0, 1], np.int32)
    wts = rng.standard_normal(np.take(p0, idx0, axis=0).shape if not batch_dims else (2, 3, 3))
    with tx.Graph().as_default(), tx.Session() as sess:
        h = ops.var_handle_op(dtype=tx.float64, shape=p0.shape if static else tx.TensorShape(None), shared_name="p")
        init = ops.assign_variable_op(h, tx.constant(p0))
        z = ops.resource_gather(h, tx.constant(idx0), dtype=tx.float64, batch_dims=batch_dims)
        loss = tx.reduce_sum(z * tx.constant(wts))
        (dh,) = tx.gradients(loss, [h])
        sess.run(init)
        got = sess.run(dh)
    want = np.zeros_like(p0)
    if batch_dims:
        for b in range(2):
            np.add.at(want[b], idx0[b], wts[b])
    else:
        np.add.at(want, idx0, wts)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_unconnected_variable_gradient_is_zeros():
    with tx.Graph().as_default(), tx.Session() as sess:
        h, init = _var(np.ones((2, 2)), name="a")
        other, other_init = _var(np.ones(3), name="b")
        loss = tx.reduce_sum(_read(other, tx.float64))
        (dh,) = tx.gradients(loss, [h], unconnected_gradients="zero")
        sess.run([init, other_init])
        np.testing.assert_array_equal(sess.run(dh), np.zeros((2, 2)))


def _tf_apply(op, sample):
    """Runs the fused update in TensorFlow (eager) on tf.Variables; returns every variable after."""
    tf = pytest.importorskip("tensorflow")
    from conformance.entries_resource import Var

    kwargs, variables = {}, []
    for k, v in sample.inputs.items():
        if isinstance(v, Var):
            var = tf.Variable(v.value)
            variables.append(var)
            kwargs[k] = var.handle
        else:
            kwargs[k] = tf.constant(v)
    getattr(tf.raw_ops, op)(**kwargs, **sample.attrs)
    return [var.numpy() for var in variables]


@pytest.mark.parametrize("op", ["ResourceApplyGradientDescent", "ResourceApplyMomentum", "ResourceApplyAdam",
                                "ResourceApplyRMSProp", "ResourceApplyAdagradV2"])
def test_apply_matches_tensorflow(op):
    from conformance import harness
    from conformance.registry import ENTRIES

    entry = ENTRIES[op]
    for sample in entry.samples:
        want = _tf_apply(op, sample)
        got, _ = harness.run_sample(entry, sample, "static")
        assert len(got) == len(want)
        for g, w in zip(got, want):
            tol = 1e-5 if g.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"{op} ({sample.note})")
