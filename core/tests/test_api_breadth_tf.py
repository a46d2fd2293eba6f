"""Top-level names added for API breadth (group, tuple, ensure_shape, DeviceSpec, TensorProto
helpers, hessians, ...) against TensorFlow (skipped without it) and NumPy."""

import logging

import numpy as np
import pytest

import tensorflux as tx

eager = pytest.mark.eager


def _tf():
    return pytest.importorskip("tensorflow")


# -- group, tuple ----------------------------------------------------------------------------------

def test_group_runs_every_input(sess):
    v = tx.Variable(1.0)
    step = tx.group(v.assign_add(1.0), [v.assign_add(2.0), None])
    assert isinstance(step, tx.Operation) and step.type == "NoOp"
    sess.run(tx.global_variables_initializer())
    sess.run(step)
    assert sess.run(v.read_value()) == 4.0


@eager
def test_group_and_tuple_eager():
    assert tx.group(tx.constant(1.0)) is None
    a, b = tx.tuple([tx.constant(1), tx.constant(2)])
    assert (int(a), int(b)) == (1, 2)


def test_tuple_gates_each_output_on_all(sess):
    v = tx.Variable(0.0)
    init = v.assign(5.0)
    a, none, b = tx.tuple([tx.constant(1.0), None, tx.constant(2.0)], control_inputs=[init])
    assert none is None
    assert a.op.type == "Identity" and a.op.control_inputs
    assert sess.run([a, b]) == [1.0, 2.0]
    assert sess.run(v.read_value()) == 5.0


# -- ensure_shape ----------------------------------------------------------------------------------

@eager
def test_ensure_shape_eager_matches_tensorflow():
    tf = _tf()
    assert tx.ensure_shape(tx.constant([[1, 2, 3]]), [None, 3]).shape == [1, 3]
    for value, shape in (([1, 2, 3], [2]), ([[1, 2, 3]], [None, 2]), ([1, 2], [1, 2])):
        with pytest.raises(tf.errors.InvalidArgumentError) as want:
            tf.ensure_shape(tf.constant(value), shape)
        with pytest.raises(tx.errors.InvalidArgumentError) as got:
            tx.ensure_shape(tx.constant(value), shape)
        tail = str(want.value).split("}} ")[1].split(" [Op:")[0].replace("tensor input", "tensor")
        assert str(got.value) == tail


def test_ensure_shape_static_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match=r"not compatible with the expected shape \(2,\)"):
        tx.ensure_shape(tx.constant([1, 2, 3]), [2])


def test_ensure_shape_checks_unknown_dims_at_run_time(sess):
    x = tx.placeholder(tx.float32, [None, None])
    y = tx.ensure_shape(x, [None, 2])
    assert y.shape.as_list() == [None, 2]
    np.testing.assert_array_equal(sess.run(y, {x: np.ones([3, 2])}), np.ones([3, 2]))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Shape of tensor .*\[3 5\].*expected shape \[\?,2\]"):
        sess.run(y, {x: np.ones([3, 5])})
    np.testing.assert_array_equal(sess.run(y, {x: np.zeros([1, 2])}), np.zeros([1, 2]))  # still usable
    z = tx.placeholder(tx.float32, None)
    w = tx.ensure_shape(z, [2])
    assert w.shape.as_list() == [2]
    with pytest.raises(tx.errors.InvalidArgumentError, match="expected shape"):
        sess.run(w, {z: np.ones([2, 1])})
    assert sess.run(w, {z: [1.0, 2.0]}).tolist() == [1.0, 2.0]


# -- broadcast_dynamic_shape, required_space_to_batch_paddings ---------------------------------------

@eager
@pytest.mark.parametrize("sx,sy", [([2, 1], [4, 1, 3]), ([], [3]), ([5, 1, 7], [1, 6, 1]), ([1], [1])])
def test_broadcast_dynamic_shape(sx, sy):
    tf = _tf()
    got = tx.broadcast_dynamic_shape(np.array(sx, np.int32), np.array(sy, np.int32)).numpy()
    np.testing.assert_array_equal(got, tf.broadcast_dynamic_shape(np.array(sx, np.int32),
                                                                  np.array(sy, np.int32)).numpy())
    np.testing.assert_array_equal(got, np.broadcast_shapes(tuple(sx), tuple(sy)))


@eager
def test_broadcast_dynamic_shape_incompatible():
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[4,1,2\]"):
        tx.broadcast_dynamic_shape([2, 3], [4, 1, 2])


def test_broadcast_dynamic_shape_graph(sess):
    a = tx.placeholder(tx.int32, [None])
    out = tx.broadcast_dynamic_shape(a, [4, 1, 3])
    assert sess.run(out, {a: [2, 1]}).tolist() == [4, 2, 3]
    with pytest.raises(tx.errors.InvalidArgumentError, match="Incompatible shapes"):
        sess.run(out, {a: [2, 2]})


@eager
@pytest.mark.parametrize("shape,block,base", [([5, 7], [2, 3], None), ([5, 7], [2, 3], [[1, 0], [0, 2]]),
                                              ([4], [4], [[3, 1]]), ([1, 2, 3], [3, 3, 3], None)])
def test_required_space_to_batch_paddings(shape, block, base):
    tf = _tf()
    got = tx.required_space_to_batch_paddings(shape, block, base)
    want = tf.required_space_to_batch_paddings(shape, block, base)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    padded = np.array(shape) + got[0].numpy().sum(1)
    assert (padded % np.array(block) == 0).all()


# -- small names -----------------------------------------------------------------------------------

@eager
def test_names_and_logger():
    assert tx.get_logger() is logging.getLogger("tensorflux")
    assert tx.get_current_name_scope() == ""
    with tx.name_scope("a"):
        with tx.name_scope("b"):
            assert tx.get_current_name_scope() == "a/b"


def test_get_current_name_scope_in_graph():
    with tx.name_scope("outer"):
        assert tx.get_current_name_scope() == "outer"


def test_parallel_stack_graph(sess):
    s = tx.parallel_stack([tx.constant([1, 2]), tx.constant([3, 4]), tx.constant([5, 6])])
    assert s.shape.as_list() == [3, 2]
    np.testing.assert_array_equal(sess.run(s), [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(ValueError, match="fully defined"):
        tx.parallel_stack([tx.placeholder(tx.float32, [None])])


@eager
def test_parallel_stack_eager_is_an_error_as_in_tensorflow():
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        tx.parallel_stack([tx.constant(1)])


def test_timestamp_runs_each_time(sess):
    import time

    t = tx.timestamp()
    assert t.dtype == tx.float64 and t.shape.rank == 0
    before = time.time()
    first = sess.run(t)
    second = sess.run(t)
    assert before - 1 <= first <= second <= time.time() + 1


@eager
def test_guarantee_const_and_enums():
    tf = _tf()
    np.testing.assert_array_equal(tx.guarantee_const(tx.constant([1.0, 2.0])).numpy(), [1.0, 2.0])
    assert [(m.name, m.value) for m in tx.VariableAggregation] == \
        [(m.name, m.value) for m in tf.VariableAggregation]
    assert [(m.name, m.value) for m in tx.VariableSynchronization] == \
        [(m.name, m.value) for m in tf.VariableSynchronization]
    for name in ("ADD_N", "DEFAULT", "EXPERIMENTAL_TREE", "EXPERIMENTAL_ACCUMULATE_N"):
        assert getattr(tx.AggregationMethod, name) == getattr(tf.AggregationMethod, name)


@eager
def test_type_spec_from_value():
    tf = _tf()
    for value in (np.ones([2, 3]), 3, [1.0, 2.0], True, [[1, 2]], "text"):
        got, want = tx.type_spec_from_value(value), tf.type_spec_from_value(value)
        assert (got.shape.as_list(), got.dtype.name) == (want.shape.as_list(), want.dtype.name)
    assert tx.type_spec_from_value(tx.constant([1, 2])) == tx.TensorSpec([2], tx.int32)
    sp = tx.SparseTensor([[0, 0]], [1.0], [2, 2])
    assert isinstance(tx.type_spec_from_value(sp), tx.SparseTensorSpec)
    with pytest.raises(TypeError, match="Could not build a TypeSpec for .* of unsupported type"):
        tx.type_spec_from_value(object())


# -- DeviceSpec ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["/job:w/task:1/device:gpu:0", "/cpu:1", "CPU:1", "/job:ps/replica:2",
                                  "/job:w/replica:0/task:1/device:GPU:*", "", "/device:TPU:3", "/gpu:*"])
def test_device_spec_parse_and_print(text):
    tf = _tf()
    got, want = tx.DeviceSpec.from_string(text), tf.DeviceSpec.from_string(text)
    assert got.to_string() == want.to_string()
    for field in ("job", "replica", "task", "device_type", "device_index"):
        assert getattr(got, field) == getattr(want, field), field


def test_device_spec_construct_merge_replace():
    tf = _tf()
    for kwargs in ({"device_type": "gpu"}, {"job": "a", "device_index": 2}, {"task": 3, "device_type": "CPU"}):
        assert tx.DeviceSpec(**kwargs).to_string() == tf.DeviceSpec(**kwargs).to_string()
    d, e = tx.DeviceSpec.from_string("/job:w/task:1/device:GPU:0"), tx.DeviceSpec(job="x", device_type="CPU")
    td, te = tf.DeviceSpec.from_string("/job:w/task:1/device:GPU:0"), tf.DeviceSpec(job="x", device_type="CPU")
    assert d.make_merged_spec(e).to_string() == td.make_merged_spec(te).to_string()
    assert e.make_merged_spec(d).to_string() == te.make_merged_spec(td).to_string()
    assert d.replace(task=3, device_index=None).to_string() == td.replace(task=3, device_index=None).to_string()
    assert d.to_string() == "/job:w/task:1/device:GPU:0"  # unchanged: specs are immutable
    assert d == tx.DeviceSpec.from_string(d.to_string()) and hash(d) == hash(tx.DeviceSpec(**{
        "job": "w", "task": 1, "device_type": "GPU", "device_index": 0}))
    assert repr(d) == repr(td)
    with pytest.raises(TypeError, match="unknown field"):
        d.replace(core=1)


def test_device_spec_errors():
    with pytest.raises(ValueError, match="Unknown attribute 'bogus' is encountered while parsing the device spec"):
        tx.DeviceSpec.from_string("/bogus:1")
    with pytest.raises(ValueError, match="task must be an integer"):
        tx.DeviceSpec(task="x")


# -- make_tensor_proto / make_ndarray ----------------------------------------------------------------

PROTO_VALUES = [
    (np.arange(6, dtype=np.float32).reshape(2, 3), None, None),
    (np.float64(2.5), None, None),
    ([1, 2, 3], None, None),
    (np.array([1, -2], np.int8), None, None),
    (np.array([1, 2], np.uint8), None, None),
    (np.array([7, 8], np.int16), None, None),
    (np.array([2 ** 40, 3], np.int64), None, None),
    (np.array([1, 2], np.uint16), None, None),
    (np.array([1, 2 ** 31 + 5], np.uint32), None, None),
    (np.array([1, 2 ** 63 + 5], np.uint64), None, None),
    (np.array([0.5, -1.25], np.float16), None, None),
    (np.array([True, False, True]), None, None),
    (np.array([1 + 2j, 3 - 4j], np.complex64), None, None),
    (np.array([1 + 2j], np.complex128), None, None),
    ([b"ab", b"", b"c\x00d"], None, None),
    (["x", "yz"], None, None),
    (1.0, None, [2, 3]),
    ([1, 2], None, [4]),
    (3, "float32", [2]),
    ([1.5, 2.5], "float64", None),
    (np.zeros([0, 3], np.float32), None, None),
]


@pytest.mark.parametrize("value,dtype,shape", PROTO_VALUES)
def test_make_tensor_proto_bytes_equal_tensorflows(value, dtype, shape):
    tf = _tf()
    want = tf.make_tensor_proto(value, dtype=dtype, shape=shape)
    got = tx.make_tensor_proto(value, dtype=dtype, shape=shape)
    assert got.SerializeToString() == want.SerializeToString()
    np.testing.assert_array_equal(tx.make_ndarray(got), tf.make_ndarray(want))
    assert tx.make_ndarray(got).dtype == tf.make_ndarray(want).dtype
    # TensorFlow's proto parsed by Tensorflux's classes, and back.
    from tensorflux.proto import tensor_pb2

    parsed = tensor_pb2.TensorProto.FromString(want.SerializeToString())
    np.testing.assert_array_equal(tx.make_ndarray(parsed), tf.make_ndarray(want))


@eager
def test_make_tensor_proto_of_eager_tensor_and_bfloat16():
    tf = _tf()
    got = tx.make_tensor_proto(tx.constant([[1.0, 2.0]]))
    assert got.SerializeToString() == tf.make_tensor_proto(np.array([[1.0, 2.0]], np.float32)).SerializeToString()
    b = tx.make_tensor_proto([1.0, 2.5], dtype=tx.bfloat16)
    assert b.SerializeToString() == tf.make_tensor_proto([1.0, 2.5], dtype=tf.bfloat16).SerializeToString()
    assert tx.make_ndarray(b).astype(np.float32).tolist() == [1.0, 2.5]


def test_make_tensor_proto_errors_as_tensorflow():
    with pytest.raises(ValueError, match="Too many elements provided. Takes at most 2, but got 3."):
        tx.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3,\), but got \(2,\)."):
        tx.make_tensor_proto([1, 2], shape=[3], verify_shape=True)
    with pytest.raises(TypeError, match=r"Expected Tensor's shape"):
        tx.make_tensor_proto([1, 2], shape=[3], allow_broadcast=True)
    assert tx.make_ndarray(tx.make_tensor_proto(7, shape=[3], allow_broadcast=True)).tolist() == [7, 7, 7]


# -- hessians, grad_pass_through, recompute_grad -------------------------------------------------------

def test_hessians_match_tensorflow_and_numpy(sess):
    tf = _tf()
    xv = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    av = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    x = tx.constant(xv)
    y = tx.reduce_sum(tx.sin(x) * tx.matmul(tx.constant(av), x))
    z = tx.constant([1.0, 2.0, 3.0])
    hx, hz = tx.hessians([y, tx.reduce_sum(z * z * z)], [x, z])
    got_x, got_z = sess.run([hx, hz])
    with tf.Graph().as_default():
        tx_ = tf.constant(xv)
        ty = tf.reduce_sum(tf.sin(tx_) * tf.matmul(tf.constant(av), tx_))
        (want,) = tf.hessians(ty, tx_)
        with tf.compat.v1.Session() as s:
            want_x = s.run(want)
    assert got_x.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(got_x, want_x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_z, np.diag([6.0, 12.0, 18.0]))


def test_hessians_unconnected_and_unknown_shape():
    x = tx.constant([1.0])
    assert tx.hessians(tx.reduce_sum(tx.constant([2.0])), x) == [None]
    p = tx.placeholder(tx.float32, [None])
    with pytest.raises(ValueError, match="needs a fully defined shape"):
        tx.hessians(tx.reduce_sum(p * p), p)


@eager
def test_hessians_eager_is_an_error():
    with pytest.raises(RuntimeError, match="GradientTape"):
        tx.hessians(tx.constant(1.0), tx.constant(1.0))


@eager
def test_grad_pass_through_against_tensorflow():
    tf = _tf()
    xv = np.array([0.4, 1.6, -2.2], np.float32)
    x, tfx = tx.constant(xv), tf.constant(xv)
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.reduce_sum(tx.grad_pass_through(tx.round)(x) * tx.constant([1.0, 2.0, 3.0]))
    with tf.GradientTape() as ttape:
        ttape.watch(tfx)
        ty = tf.reduce_sum(tf.grad_pass_through(tf.round)(tfx) * tf.constant([1.0, 2.0, 3.0]))
    assert float(y) == float(ty)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), ttape.gradient(ty, tfx).numpy())


@eager
def test_recompute_grad_recomputes_and_matches():
    calls = []

    def block(x, w):
        calls.append(1)
        return tx.tanh(tx.matmul(x, w)) * x

    f = tx.recompute_grad(block)
    xv = np.array([[0.3, -0.7], [1.1, 0.2]], np.float32)
    wv = np.array([[0.5, 1.0], [-1.5, 0.25]], np.float32)
    x, w = tx.constant(xv), tx.constant(wv)
    with tx.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = tx.reduce_sum(f(x, w) ** 2)
        y_plain = tx.reduce_sum(block(x, w) ** 2)
    assert len(calls) == 2
    got = tape.gradient(y, [x, w])
    assert len(calls) == 3  # the backward pass ran the block again
    want = tape.gradient(y_plain, [x, w])
    np.testing.assert_allclose(float(y), float(y_plain), rtol=1e-6)
    for g, wnt in zip(got, want):
        np.testing.assert_allclose(g.numpy(), wnt.numpy(), rtol=1e-5, atol=1e-6)


def test_recompute_grad_and_grad_pass_through_in_graphs(sess):
    x = tx.constant([0.3, -1.2])
    y = tx.reduce_sum(tx.recompute_grad(lambda t: tx.sin(t) * t)(x))
    (g,) = tx.gradients(y, [x])
    z = tx.reduce_sum(tx.grad_pass_through(tx.round)(x) * 2.0)
    (gz,) = tx.gradients(z, [x])
    xv = np.array([0.3, -1.2], np.float32)
    got, got_z = sess.run([g, gz])
    np.testing.assert_allclose(got, np.cos(xv) * xv + np.sin(xv), rtol=1e-5)
    np.testing.assert_array_equal(got_z, [2.0, 2.0])


@eager
def test_scatter_nd_methods_sparse_read_and_gather_nd_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    got = {}
    for m in (tf, tx):
        v = m.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        r = [v.scatter_nd_update([[1, 0], [2, 1]], [9.0, 8.0]).numpy().tolist(),
             v.scatter_nd_add([[0], [0]], [[1.0, 1.0], [2.0, 2.0]]).numpy().tolist(),  # repeated: both added
             v.scatter_nd_sub([[2]], [[1.0, 1.0]]).numpy().tolist(),
             v.sparse_read([2, 0]).numpy().tolist(), v.gather_nd([[0, 1], [2, 0]]).numpy().tolist()]

        @m.function
        def add_in_function():
            v.scatter_nd_add([[1, 1]], [10.0])
            return v.read_value()

        r.append(add_in_function().numpy().tolist())
        r.append(v.numpy().tolist())
        got[m.__name__] = r
    assert got["tensorflux"] == got["tensorflow"]
