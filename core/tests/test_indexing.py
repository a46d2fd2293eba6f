"""NumPy-style indexing of Tensors (Tensor.__getitem__ -> one StridedSlice, or GatherV2 for a
lone 1-D integer index) checked against NumPy, plus the Python array-transform API."""

import importlib

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import array_ops
from tensorflux._src.generated import gen_ops

X = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)

# Index expressions and what NumPy makes of them.
EXPRESSIONS = [
    np.s_[0], np.s_[-1], np.s_[1:], np.s_[:2], np.s_[::2], np.s_[::-1], np.s_[-2::-1], np.s_[1:-1],
    np.s_[5:], np.s_[-10:10], np.s_[2:0], np.s_[2:0:-1], np.s_[::-2, ::3], np.s_[1, 2], np.s_[1, 2, 3],
    np.s_[-1, -1, -1], np.s_[:, 1], np.s_[:, :, -1], np.s_[..., 0], np.s_[0, ...], np.s_[..., 1, :],
    np.s_[1, ..., 2], np.s_[...], np.s_[None], np.s_[:, None], np.s_[..., None], np.s_[None, 1, None, ::-1],
    np.s_[1:3, None, -3:, None], np.s_[0, 0, 1:4:2], np.s_[::-1, ::-1, ::-1], np.s_[:, 3:1:-1, 4:0:-3],
    np.s_[np.int64(1)], np.s_[np.int32(-2), 1:], np.s_[:0], np.s_[0, :0], np.s_[np.array(2), ::2],
]


def _ids():
    return [repr(e) for e in EXPRESSIONS]


@pytest.mark.parametrize("index", EXPRESSIONS, ids=_ids())
def test_index_matches_numpy_static(sess, index):
    x = tx.constant(X)
    y = x[index]
    assert y.op.type == "StridedSlice"
    want = X[index]
    assert y.shape.as_list() == list(want.shape), f"static shape {y.shape} != {want.shape}"
    np.testing.assert_array_equal(sess.run(y), want)


@pytest.mark.parametrize("index", EXPRESSIONS, ids=_ids())
def test_index_matches_numpy_fed(sess, index):
    p = tx.placeholder(tx.float32, shape=None)
    np.testing.assert_array_equal(sess.run(p[index], feed_dict={p: X}), X[index])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_, np.float64, np.float16])
def test_index_dtypes(sess, dtype):
    v = (np.arange(24).reshape(4, 6) % 5).astype(dtype)
    x = tx.constant(v)
    out = sess.run([x[1], x[:, ::-2], x[None, 2:, 3]])
    for got, want in zip(out, [v[1], v[:, ::-2], v[None, 2:, 3]]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_scalar_tensor_indices(sess):
    x = tx.constant(X)
    i = tx.placeholder(tx.int32, shape=[])
    j = tx.placeholder(tx.int64, shape=[])
    y = x[i, 1:, j]
    assert y.shape.rank == 1
    for a, b in [(0, 0), (2, -1), (-1, 3)]:
        np.testing.assert_array_equal(sess.run(y, feed_dict={i: a, j: b}), X[a, 1:, b])
    z = x[1:i]
    np.testing.assert_array_equal(sess.run(z, feed_dict={i: 3}), X[1:3])
    with pytest.raises(tx.errors.InvalidArgumentError, match="out of bounds"):
        sess.run(y, feed_dict={i: 3, j: 0})


def test_newaxis_constant():
    assert tx.Tensor  # the class is public
    from tensorflux._src.operation import newaxis

    assert newaxis is None and array_ops.newaxis is None
    x = tx.constant(X)
    assert x[newaxis, :, newaxis].shape.as_list() == [1, 3, 1, 4, 5]


def test_one_dimensional_index_gathers(sess):
    x = tx.constant(X)
    if not hasattr(gen_ops, "gather_v2"):
        with pytest.raises(TypeError, match="GatherV2"):
            x[np.array([2, 0])]
        return
    for idx in (np.array([2, 0, 2]), [1, -1, -3], np.array([], np.int64)):
        y = x[idx]
        assert y.op.type == "GatherV2"
        np.testing.assert_array_equal(sess.run(y), X[np.asarray(idx, np.int64)])
    t = tx.constant(np.array([1, 0], np.int32))
    np.testing.assert_array_equal(sess.run(x[t]), X[[1, 0]])


@pytest.mark.parametrize("index,error,match", [
    (np.s_[3], tx.errors.InvalidArgumentError, "out of bounds"),
    (np.s_[:, -5], tx.errors.InvalidArgumentError, "out of bounds"),
    (np.s_[0, 0, 0, 0], tx.errors.InvalidArgumentError, "rank 3"),
    (np.s_[::0], ValueError, "step cannot be zero"),
    (np.s_[..., 0, ...], IndexError, "single ellipsis"),
    (np.s_[1.5], TypeError, "valid indices"),
    (np.s_[True], TypeError, "valid indices"),
    (np.s_["a"], TypeError, "valid indices"),
    (np.s_[0.5:2], TypeError, "slice start"),
    (np.s_[np.array([True, False])], ValueError, "mask's shape"),
    (np.s_[np.array([[0, 1]]), 0], TypeError, "valid indices"),
    (np.s_[[0, -4]], IndexError, "out of bounds"),
])
def test_bad_indices_raise_clear_errors(index, error, match):
    x = tx.constant(X)
    with pytest.raises(error, match=match):
        x[index]


def test_bad_index_tensor_dtype_and_rank():
    x = tx.constant(X)
    with pytest.raises(TypeError, match="float32"):
        x[tx.constant(1.0)]
    with pytest.raises(TypeError, match="shape"):
        x[tx.constant(np.array([[1]], np.int32))]


def test_fed_out_of_bounds_index_fails_at_run_time(sess):
    p = tx.placeholder(tx.float32)
    with pytest.raises(tx.errors.InvalidArgumentError, match="out of bounds") as info:
        sess.run(p[7], feed_dict={p: X})
    assert "strided_slice" in info.value.node_name


# ----------------------------------------------------------------------------- array API

def test_array_functions(sess):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = tx.constant(a)
    cases = [
        (array_ops.transpose(x), np.transpose(a)),
        (array_ops.transpose(x, [1, 0, 2]), np.transpose(a, [1, 0, 2])),
        (array_ops.concat([x, x], -1), np.concatenate([a, a], -1)),
        (array_ops.concat([x], 0), a),
        (array_ops.slice(x, [0, 1, 1], [-1, 2, 2]), a[:, 1:3, 1:3]),
        (array_ops.strided_slice(x, [0, 2], [2, 0], [1, -1]), a[0:2, 2:0:-1]),
        (array_ops.pad(x, [[0, 0], [1, 1], [2, 0]]), np.pad(a, [[0, 0], [1, 1], [2, 0]])),
        (array_ops.pad(x, [[1, 0], [0, 0], [0, 0]], constant_values=-1),
         np.pad(a, [[1, 0], [0, 0], [0, 0]], constant_values=-1)),
        (array_ops.pad(x, [[1, 1], [2, 2], [0, 3]], mode="reflect"),
         np.pad(a, [[1, 1], [2, 2], [0, 3]], mode="reflect")),
        (array_ops.pad(x, [[2, 2], [0, 3], [4, 0]], mode="SYMMETRIC"),
         np.pad(a, [[2, 2], [0, 3], [4, 0]], mode="symmetric")),
        (array_ops.tile(x, [1, 2, 1]), np.tile(a, [1, 2, 1])),
        (array_ops.expand_dims(x, -1), a[..., None]),
        (array_ops.squeeze(tx.constant(a[:, None, :1])), np.squeeze(a[:, None, :1])),
        (array_ops.squeeze(tx.constant(a[:, None, :1]), axis=1), a[:, :1]),
        (array_ops.stack([x, x], axis=1), np.stack([a, a], 1)),
        (array_ops.reverse(x, [0, -1]), a[::-1, :, ::-1]),
        (array_ops.broadcast_to(tx.constant(a[:1]), [5, 3, 4]), np.broadcast_to(a[:1], [5, 3, 4])),
    ]
    got = sess.run([c[0] for c in cases])
    for g, (_, want) in zip(got, cases):
        np.testing.assert_array_equal(g, want)
    parts = sess.run(array_ops.split(x, 2, axis=0))
    assert len(parts) == 2 and np.array_equal(parts[1], a[1:])
    parts = sess.run(array_ops.split(x, [1, -1], axis=2))
    assert [p.shape for p in parts] == [(2, 3, 1), (2, 3, 3)]
    rows = sess.run(array_ops.unstack(x, axis=1))
    assert len(rows) == 3 and np.array_equal(rows[2], a[:, 2])


def test_transpose_of_unknown_rank_reverses_dimensions():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with tx.Graph().as_default():
        p = tx.placeholder(tx.float32)
        y = tx.transpose(p)
        assert y.shape.rank is None
        with tx.Session() as s:
            np.testing.assert_array_equal(s.run(y, {p: a}), a.T)
            np.testing.assert_array_equal(s.run(y, {p: a[0]}), a[0].T)


def test_array_function_errors():
    x = tx.constant(np.zeros([2, 3], np.float32))
    with pytest.raises(ValueError, match="mode"):
        array_ops.pad(x, [[0, 0], [0, 0]], mode="EDGE")
    with pytest.raises(ValueError, match="num"):
        array_ops.unstack(tx.placeholder(tx.float32))
    with pytest.raises(tx.errors.InvalidArgumentError, match="Unable to broadcast"):
        array_ops.broadcast_to(x, [3, 3])


# The array, shape, gather and reduction functions TensorFlow exports at its top level, and the
# modules that define them: each is public in ``tx.__all__`` and is that module's object.
_TOP_LEVEL_SOURCES = {
    "array_ops": ["transpose", "concat", "split", "slice", "strided_slice", "pad", "tile", "expand_dims", "squeeze",
                  "stack", "unstack", "reverse", "broadcast_to", "newaxis"],
    "shape_ops": ["zeros", "ones", "fill", "zeros_like", "ones_like", "range", "shape", "size", "rank", "identity_n",
                  "stop_gradient"],
    "gather_ops": ["gather", "gather_nd", "scatter_nd", "one_hot", "where"],
    "reduce_ops": ["reduce_prod", "reduce_max", "reduce_min", "reduce_all", "reduce_any", "argmax", "argmin"],
    "misc_api": ["group", "tuple", "ensure_shape", "broadcast_dynamic_shape", "get_current_name_scope", "get_logger",
                 "parallel_stack", "required_space_to_batch_paddings", "timestamp", "guarantee_const",
                 "type_spec_from_value", "VariableAggregation", "VariableSynchronization"],
    "gradient_utils": ["AggregationMethod", "hessians", "grad_pass_through", "recompute_grad"],
    "device_spec": ["DeviceSpec"],
    "tensor_proto": ["make_tensor_proto", "make_ndarray"],
}


@pytest.mark.parametrize("module_name", sorted(_TOP_LEVEL_SOURCES))
def test_top_level_names_are_the_modules_functions(module_name):
    module = importlib.import_module("tensorflux._src." + module_name)
    for name in _TOP_LEVEL_SOURCES[module_name]:
        assert name in tx.__all__, name
        assert getattr(tx, name) is getattr(module, name), name
