"""tx.SparseTensor and tx.sparse against NumPy (dense equivalents), eagerly, in graph mode and in
tx.function; bad input (out-of-order and out-of-range indices, mismatched shapes) raises
TensorFlow's errors and leaves the context usable."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(5)


def _random_sparse(shape, density=0.3, dtype=np.float32):
    dense = RNG.uniform(-3, 3, size=shape).astype(dtype)
    dense[RNG.random(shape) > density] = 0
    return dense


def _dense(st):
    return tx.sparse.to_dense(st).numpy()


def test_construction_and_properties():
    st = tx.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
    assert st.indices.dtype == tx.int64 and st.dense_shape.dtype == tx.int64 and st.dtype == tx.float32
    assert st.shape.as_list() == [3, 4] and st.get_shape() == st.shape
    assert isinstance(st, tx.sparse.SparseTensor)
    assert st._type_spec == tx.SparseTensorSpec([3, 4], tx.float32)
    assert "SparseTensor(indices=" in repr(st)
    assert tx.SparseTensor.from_value(st) is st
    np.testing.assert_array_equal(_dense(st.with_values(tx.constant([5, 6]))), [[0, 5, 0, 0], [0] * 4, [0, 0, 0, 6]])


@pytest.mark.parametrize("indices,values,shape,match", [
    ([[0, 1], [2, 3]], [1.0, 2.0, 3.0], [3, 4], "Dimensions 2 and 3 are not compatible"),
    ([[0, 1], [2, 3]], [1.0, 2.0], [3, 4, 5], "Dimensions 2 and 3 are not compatible"),
    ([0, 1], [1.0, 2.0], [3, 4], "must have rank 2"),
    ([[0, 1]], [[1.0]], [3, 4], "must have rank 1"),
])
def test_construction_checks_static_shapes(indices, values, shape, match):
    with pytest.raises(ValueError, match=match):
        tx.SparseTensor(indices, values, shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_from_dense_to_dense_round_trip(dtype):
    x = _random_sparse((4, 5, 3), dtype=np.float64).astype(dtype)
    st = tx.sparse.from_dense(x)
    np.testing.assert_array_equal(st.indices.numpy(), np.argwhere(x != 0))
    np.testing.assert_array_equal(st.values.numpy(), x[x != 0])
    np.testing.assert_array_equal(_dense(st), x)
    np.testing.assert_array_equal(tx.sparse.to_dense(st, default_value=7).numpy(), np.where(x != 0, x, 7))


def test_add():
    a, b = _random_sparse((4, 6)), _random_sparse((4, 6))
    sa, sb = tx.sparse.from_dense(a), tx.sparse.from_dense(b)
    out = tx.sparse.add(sa, sb)
    assert isinstance(out, tx.SparseTensor)
    np.testing.assert_allclose(_dense(out), a + b, rtol=1e-6)
    np.testing.assert_allclose(tx.sparse.add(sa, b).numpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose(tx.sparse.add(b, sa).numpy(), a + b, rtol=1e-6)
    # The threshold drops sums of entries in both operands whose magnitude is below it.
    c = tx.sparse.add(tx.SparseTensor([[0, 0], [0, 1]], [1.0, 2.0], [1, 2]),
                      tx.SparseTensor([[0, 0]], [-0.9], [1, 2]), threshold=0.5)
    assert c.indices.numpy().tolist() == [[0, 1]]


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_sparse_dense_matmul(adjoint_a, adjoint_b):
    a = _random_sparse((5, 4))
    b = RNG.normal(size=(3, 5) if adjoint_a else (3, 4)).astype(np.float32)
    b = b if adjoint_b else b.T.copy()
    want = (a.T if adjoint_a else a) @ (b.T if adjoint_b else b)
    got = tx.sparse.sparse_dense_matmul(tx.sparse.from_dense(a), b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    # A dense left operand with a sparse right operand.
    d = RNG.normal(size=(2, 5)).astype(np.float32)
    np.testing.assert_allclose(tx.sparse.sparse_dense_matmul(d, tx.sparse.from_dense(a)).numpy(), d @ a, rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(axis, keepdims):
    x = _random_sparse((3, 4, 5))
    st = tx.sparse.from_dense(x)
    np_axis = None if axis is None else tuple(np.atleast_1d(axis))
    np.testing.assert_allclose(tx.sparse.reduce_sum(st, axis, keepdims).numpy(),
                               x.sum(axis=np_axis, keepdims=keepdims), rtol=1e-5, atol=1e-6)
    sparse_sum = tx.sparse.reduce_sum(st, axis, keepdims, output_is_sparse=True)
    np.testing.assert_allclose(_dense(sparse_sum), x.sum(axis=np_axis, keepdims=keepdims), rtol=1e-5, atol=1e-6)
    # reduce_max sees the stored values only; groups with none give 0.
    stored = np.where(x != 0, x, -np.inf)
    want = stored.max(axis=np_axis, keepdims=keepdims)
    want = np.where(np.isinf(want), 0, want)
    np.testing.assert_allclose(tx.sparse.reduce_max(st, axis, keepdims).numpy(), want, rtol=1e-6)


def test_reorder_reshape_transpose():
    st = tx.SparseTensor([[2, 1], [0, 3], [1, 0]], [1.0, 2.0, 3.0], [3, 4])
    r = tx.sparse.reorder(st)
    assert r.indices.numpy().tolist() == [[0, 3], [1, 0], [2, 1]] and r.values.numpy().tolist() == [2.0, 3.0, 1.0]
    x = _dense(r)
    np.testing.assert_array_equal(_dense(tx.sparse.reshape(r, [2, -1, 3])), x.reshape(2, 2, 3))
    np.testing.assert_array_equal(_dense(tx.sparse.transpose(r)), x.T)
    y = _random_sparse((2, 3, 4))
    t = tx.sparse.transpose(tx.sparse.from_dense(y), [2, 0, 1])
    assert t.shape.as_list() == [4, 2, 3]
    np.testing.assert_array_equal(_dense(t), y.transpose(2, 0, 1))


def test_slice_concat_split():
    x = _random_sparse((5, 6))
    st = tx.sparse.from_dense(x)
    np.testing.assert_array_equal(_dense(tx.sparse.slice(st, [1, 2], [3, 10])), x[1:4, 2:])
    y = _random_sparse((5, 2))
    np.testing.assert_array_equal(_dense(tx.sparse.concat(1, [st, tx.sparse.from_dense(y)])), np.hstack([x, y]))
    np.testing.assert_array_equal(_dense(tx.sparse.concat(0, [st, tx.sparse.from_dense(x)])), np.vstack([x, x]))
    # expand_nonconcat_dims: the other dimensions grow to the largest input's.
    small = tx.SparseTensor([[0, 0]], [9.0], [2, 1])
    grown = tx.sparse.concat(1, [st, small], expand_nonconcat_dims=True)
    assert grown.dense_shape.numpy().tolist() == [5, 7]
    parts = tx.sparse.split(st, 4, axis=1)
    assert [p.dense_shape.numpy().tolist() for p in parts] == [[5, 2], [5, 2], [5, 1], [5, 1]]
    np.testing.assert_array_equal(np.hstack([_dense(p) for p in parts]), x)


def test_retain_fill_expand_indicator():
    st = tx.SparseTensor([[0, 0], [1, 1], [3, 2]], [1.0, 2.0, 3.0], [4, 3])
    kept = tx.sparse.retain(st, [True, False, True])
    assert kept.values.numpy().tolist() == [1.0, 3.0] and kept.dense_shape.numpy().tolist() == [4, 3]
    filled, empty = tx.sparse.fill_empty_rows(st, -1.0)
    assert empty.numpy().tolist() == [False, False, True, False]
    np.testing.assert_array_equal(_dense(filled)[2], [-1, 0, 0])
    e = tx.sparse.expand_dims(st, 1)
    assert e.dense_shape.numpy().tolist() == [4, 1, 3]
    np.testing.assert_array_equal(_dense(e), _dense(st)[:, None, :])
    ids = tx.SparseTensor([[0, 0], [0, 1], [2, 0]], tx.constant([4, 1, 0], tx.int64), [3, 2])
    want = np.zeros((3, 5), bool)
    want[0, [4, 1]] = True
    want[2, 0] = True
    np.testing.assert_array_equal(tx.sparse.to_indicator(ids, 5).numpy(), want)


def test_softmax_maximum_minimum_operators():
    x = _random_sparse((3, 5))
    st = tx.sparse.from_dense(x)
    got = _dense(tx.sparse.softmax(st))
    for r in range(3):
        nz = x[r] != 0
        if nz.any():
            e = np.exp(x[r, nz] - x[r, nz].max())
            np.testing.assert_allclose(got[r, nz], e / e.sum(), rtol=1e-5)
    y = _random_sparse((3, 5))
    sy = tx.sparse.from_dense(y)
    np.testing.assert_array_equal(_dense(tx.sparse.maximum(st, sy)), np.maximum(x, y))
    np.testing.assert_array_equal(_dense(tx.sparse.minimum(st, sy)), np.minimum(x, y))
    row = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    np.testing.assert_allclose(_dense(st * row), x * row, rtol=1e-6)
    np.testing.assert_allclose(_dense(st / row), x / row, rtol=1e-6)


def test_eye_reset_shape_map_values_bincount_sampled_addmm():
    np.testing.assert_array_equal(_dense(tx.sparse.eye(3, 4)), np.eye(3, 4))
    st = tx.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [5, 6])
    assert tx.sparse.reset_shape(st).dense_shape.numpy().tolist() == [3, 2]
    assert tx.sparse.reset_shape(st, [7, 6]).dense_shape.numpy().tolist() == [7, 6]
    with pytest.raises(ValueError, match="smaller"):
        tx.sparse.reset_shape(st, [4, 6])
    doubled = tx.sparse.map_values(tx.multiply, st, st)
    assert doubled.values.numpy().tolist() == [1.0, 4.0]
    counts = tx.sparse.bincount(tx.constant([[1, 1, 4], [2, 0, 0]]), axis=-1)
    assert counts.indices.numpy().tolist() == [[0, 1], [0, 4], [1, 0], [1, 2]]
    assert counts.values.numpy().tolist() == [2, 1, 2, 1] and counts.dense_shape.numpy().tolist() == [2, 5]
    m1, m2 = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    idx = np.array([[0, 1], [2, 0]])
    _, v, _ = tx.sparse.sampled_addmm(idx, [1.0, 2.0], [3, 2], m1, m2, beta=0.5, alpha=2.0, output_type=tx.float64)
    full = m1 @ m2
    np.testing.assert_allclose(v.numpy(), 2 * full[[0, 2], [1, 0]] + 0.5 * np.array([1.0, 2.0]), rtol=1e-5)


def test_graph_mode_with_fed_components():
    g = tx.Graph()
    with g.as_default():
        ind = tx.placeholder(tx.int64, [None, 2])
        val = tx.placeholder(tx.float32, [None])
        shp = tx.placeholder(tx.int64, [2])
        st = tx.SparseTensor(ind, val, shp)
        assert st.shape.as_list() == [None, None]
        dense = tx.sparse.to_dense(tx.sparse.reorder(st))
        total = tx.sparse.reduce_sum(st)
        with tx.Session(graph=g) as sess:
            d, t = sess.run([dense, total], {ind: [[1, 0], [0, 2]], val: [1.0, 2.0], shp: [2, 3]})
    np.testing.assert_array_equal(d, [[0, 0, 2], [1, 0, 0]])
    assert t == 3.0


def test_function_argument_traced_once_per_rank():
    traces = []

    @tx.function
    def f(st, scale):
        traces.append(st.shape.rank)
        return tx.sparse.reduce_sum(st) * scale, tx.sparse.softmax(st)

    a = tx.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
    b = tx.SparseTensor([[4, 0]], [5.0], [5, 4])
    total, soft = f(a, tx.constant(2.0))
    assert float(total) == 6.0 and isinstance(soft, tx.SparseTensor)
    assert soft.values.numpy().tolist() == [1.0, 1.0] and soft.dense_shape.numpy().tolist() == [3, 4]
    assert float(f(b, tx.constant(1.0))[0]) == 5.0
    assert f.experimental_get_tracing_count() == 1
    f(tx.SparseTensor([[0, 0, 0]], [1.0], [1, 1, 1]), tx.constant(1.0))
    assert f.experimental_get_tracing_count() == 2 and traces == [2, 3]
    f(tx.SparseTensor([[0, 0]], tx.constant([1.0], tx.float64), [1, 1]), tx.constant(1.0, tx.float64))
    assert f.experimental_get_tracing_count() == 3  # a new values dtype traces again


def test_function_input_signature_and_concrete_function():
    @tx.function(input_signature=[tx.SparseTensorSpec([None, 3], tx.float32)])
    def rows(st):
        return tx.sparse.reduce_sum(st, axis=1)

    st = tx.SparseTensor([[0, 0], [1, 2], [1, 1]], [1.0, 2.0, 3.0], [2, 3])
    np.testing.assert_array_equal(rows(st).numpy(), [1.0, 5.0])
    cf = rows.get_concrete_function()
    assert len(cf.inputs) == 3  # indices, values, dense_shape
    np.testing.assert_array_equal(cf(st).numpy(), [1.0, 5.0])


def test_nest_expand_composites():
    st = tx.SparseTensor([[0, 0]], [1.0], [2, 2])
    flat = tx.nest.flatten({"a": st, "b": 1}, expand_composites=True)
    assert len(flat) == 4 and flat[1] is st.values
    back = tx.nest.pack_sequence_as({"a": st, "b": 1}, flat, expand_composites=True)
    assert isinstance(back["a"], tx.SparseTensor) and back["b"] == 1
    assert tx.nest.flatten(st) == [st]


def test_bad_indices_raise_tensorflow_errors_and_the_context_survives():
    unordered = tx.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2])
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,0\] is out of order"):
        tx.sparse.to_dense(unordered)
    np.testing.assert_array_equal(_dense(tx.sparse.reorder(unordered)), [[2, 0], [1, 0]])
    out_of_range = tx.SparseTensor([[0, 0], [5, 1]], [1.0, 2.0], [2, 2])
    for fn in (tx.sparse.to_dense, tx.sparse.reorder, tx.sparse.softmax, lambda s: tx.sparse.reduce_sum(s, 1),
               lambda s: tx.sparse.reshape(s, [4]), lambda s: tx.sparse.slice(s, [0, 0], [1, 1])):
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"indices\[1\] = \[5,1\] is out of bounds"):
            fn(out_of_range)
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Operands' shapes do not match"):
        tx.sparse.add(tx.SparseTensor([[0, 0]], [1.0], [2, 2]), tx.SparseTensor([[0, 0]], [1.0], [2, 3]))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"inner dimension does not match"):
        tx.sparse.sparse_dense_matmul(tx.SparseTensor([[0, 0]], [1.0], [2, 2]), np.ones((3, 1), np.float32))
    with pytest.raises(tx.errors.InvalidArgumentError, match="Input to reshape is a tensor with 4 dense values"):
        tx.sparse.reshape(tx.SparseTensor([[0, 0]], [1.0], [2, 2]), [3, 3])
    assert float(tx.sparse.reduce_sum(tx.SparseTensor([[0, 0]], [4.0], [1, 1]))) == 4.0


def test_bad_arguments():
    with pytest.raises(TypeError, match="sp_input must be a SparseTensor"):
        tx.sparse.to_dense(tx.constant([1.0]))
    with pytest.raises(TypeError, match="SparseTensor"):
        tx.SparseTensor([[0]], [1.0], [1]) * tx.SparseTensor([[0]], [1.0], [1])
    with pytest.raises(TypeError, match="Python bool"):
        bool(tx.SparseTensor([[0]], [1.0], [1]))
    with pytest.raises(ValueError, match="Only 0 and -1"):
        tx.sparse.bincount(tx.constant([1]), axis=1)
    with pytest.raises(ValueError, match="out of range"):
        tx.sparse.expand_dims(tx.SparseTensor([[0]], [1.0], [1]), 3)
    with pytest.raises(ValueError, match=r"Dense shape: \[2, 2\] does not match output shape: \[3, 2\]"):
        tx.sparse.sampled_addmm([[0, 0]], [1.0], [2, 2], np.ones((3, 4)), np.ones((4, 2)))
