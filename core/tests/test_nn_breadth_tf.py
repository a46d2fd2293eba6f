"""tx.nn names added for API breadth (CTC decoding helpers, sampled losses, space-to-batch
wrappers, sparse embedding lookups, isotonic regression) against TensorFlow (skipped without
it) and NumPy."""

import numpy as np
import pytest

import tensorflux as tx

eager = pytest.mark.eager
RNG = np.random.default_rng(11)


def _tf():
    return pytest.importorskip("tensorflow")


def _same(got, want, **tol):
    got = got.numpy() if hasattr(got, "numpy") else got
    want = want.numpy() if hasattr(want, "numpy") else want
    if tol:
        np.testing.assert_allclose(got, want, **tol)
    else:
        np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype


# -- CTC helpers -----------------------------------------------------------------------------------

@eager
@pytest.mark.parametrize("labels,lengths", [([[1, 1, 2, 2, 2, 1], [3, 3, 3, 0, 0, 0]], [6, 2]),
                                            ([[5, 5], [5, 6]], [0, 2]), ([[7, 7, 7]], [3])])
def test_collapse_repeated(labels, lengths):
    tf = _tf()
    for g, w in zip(tx.nn.collapse_repeated(labels, lengths), tf.nn.collapse_repeated(labels, lengths)):
        _same(g, w)


@eager
@pytest.mark.parametrize("labels", [[[3, 4, 4, 3], [1, 1, 1, 1]], [[0, 9, 0, 2, 9]], np.array([[2, 1]], np.int64)])
def test_ctc_unique_labels(labels):
    tf = _tf()
    for g, w in zip(tx.nn.ctc_unique_labels(labels), tf.nn.ctc_unique_labels(labels)):
        _same(g, w)
    for row, (u, i) in zip(np.asarray(labels), zip(*[t.numpy() for t in tx.nn.ctc_unique_labels(labels)])):
        values, index = np.unique(row, return_index=True)
        order = values[np.argsort(index)]
        np.testing.assert_array_equal(u[:len(order)], order)
        np.testing.assert_array_equal(order[i], row)


@eager
@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("blank", [None, 0, 2, -2, -1])
def test_ctc_greedy_decoder(merge, blank):
    tf = _tf()
    x = RNG.normal(size=(7, 4, 4)).astype(np.float32)
    x[1:4, 0] = x[0, 0]  # repeats
    lengths = [7, 3, 0, 5]
    (got,), got_s = tx.nn.ctc_greedy_decoder(x, lengths, merge_repeated=merge, blank_index=blank)
    (want,), want_s = tf.nn.ctc_greedy_decoder(x, lengths, merge_repeated=merge, blank_index=blank)
    for part in ("indices", "values", "dense_shape"):
        _same(getattr(got, part), getattr(want, part))
    _same(got_s, want_s, rtol=1e-6)


def test_ctc_greedy_decoder_graph_and_length_check():
    x = tx.placeholder(tx.float32, [None, None, 3])
    lengths = tx.placeholder(tx.int32, [None])
    (d,), s = tx.nn.ctc_greedy_decoder(x, lengths)
    dense = tx.sparse.to_dense(d)
    logits = np.log(np.array([[[0.1, 0.6, 0.3]], [[0.2, 0.7, 0.1]], [[0.1, 0.1, 0.8]], [[0.9, 0.05, 0.05]]],
                             np.float32))
    with tx.Session() as sess:
        got, score = sess.run([dense, s], {x: logits, lengths: [4]})
        assert got.tolist() == [[1, 0]]
        np.testing.assert_allclose(score, -np.log([[0.6 * 0.7 * 0.8 * 0.9]]), rtol=1e-5)
        with pytest.raises(tx.errors.InvalidArgumentError, match=r"sequence_length\(b\) <= max_time"):
            sess.run(dense, {x: logits, lengths: [5]})


@eager
def test_ctc_errors():
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"sequence_length\(b\) <= max_time"):
        tx.nn.ctc_greedy_decoder(np.zeros([2, 1, 3], np.float32), [3])
    with pytest.raises(ValueError, match="blank_index 5 is out of range"):
        tx.nn.ctc_greedy_decoder(np.zeros([2, 1, 3], np.float32), [1], blank_index=5)
    with pytest.raises(ValueError, match=r"labels must be \[batch, max_len\]"):
        tx.nn.collapse_repeated([1, 2], [2])


# -- sampled losses --------------------------------------------------------------------------------

def _sampled_case(num_true, sharded, dtype=np.float32):
    classes, dim, batch, num_sampled = 12, 5, 4, 6
    w = RNG.normal(size=(classes, dim)).astype(dtype)
    b = RNG.normal(size=(classes,)).astype(dtype)
    labels = RNG.integers(0, classes, size=(batch, num_true)).astype(np.int64)
    labels[0, 0] = 3  # an accidental hit with the sampled candidates below
    x = RNG.normal(size=(batch, dim)).astype(dtype)
    sampled = np.array([3, 7, 0, 11, 5, 9], np.int64)
    true_exp = RNG.uniform(0.1, 1.0, size=(batch, num_true)).astype(np.float32)
    sampled_exp = RNG.uniform(0.1, 1.0, size=(num_sampled,)).astype(np.float32)
    weights = [w[:3], w[3:6], w[6:8], w[8:10], w[10:]] if sharded else w  # "div": 3, 3, 2, 2, 2 rows
    return weights, b, labels, x, num_sampled, classes, (sampled, true_exp, sampled_exp)


@eager
@pytest.mark.parametrize("loss", ["sampled_softmax_loss", "nce_loss"])
@pytest.mark.parametrize("num_true,sharded,remove", [(1, False, True), (2, False, False), (3, True, True),
                                                     (1, True, False)])
def test_sampled_losses_equal_tensorflows(loss, num_true, sharded, remove):
    tf = _tf()
    weights, b, labels, x, num_sampled, classes, sv = _sampled_case(num_true, sharded)
    tx_w = [tx.constant(p) for p in weights] if sharded else tx.constant(weights)
    tf_w = [tf.constant(p) for p in weights] if sharded else tf.constant(weights)
    tx_b, tf_b, tx_x, tf_x = tx.constant(b), tf.constant(b), tx.constant(x), tf.constant(x)
    with tx.GradientTape() as tape:
        tape.watch([tx_x, tx_b])
        got = getattr(tx.nn, loss)(tx_w, tx_b, labels, tx_x, num_sampled, classes, num_true=num_true,
                                   sampled_values=tuple(tx.constant(v) for v in sv), remove_accidental_hits=remove)
    with tf.GradientTape() as ttape:
        ttape.watch([tf_x, tf_b])
        want = getattr(tf.nn, loss)(tf_w, tf_b, labels, tf_x, num_sampled, classes, num_true=num_true,
                                    sampled_values=tuple(tf.constant(v) for v in sv), remove_accidental_hits=remove)
    _same(got, want, rtol=1e-5, atol=1e-5)
    for g, w in zip(tape.gradient(got, [tx_x, tx_b]), ttape.gradient(want, [tf_x, tf_b])):
        g = tx.convert_to_tensor(g) if not hasattr(g, "numpy") else g
        w = tf.convert_to_tensor(w)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-4, atol=1e-5)


@eager
def test_sampled_softmax_loss_against_numpy():
    weights, b, labels, x, num_sampled, classes, (sampled, te, se) = _sampled_case(1, False)
    got = tx.nn.sampled_softmax_loss(weights, b, labels, x, num_sampled, classes,
                                     sampled_values=(sampled, te, se), remove_accidental_hits=False).numpy()
    true_logit = np.sum(x * weights[labels[:, 0]], 1) + b[labels[:, 0]] - np.log(te[:, 0])
    sampled_logit = x @ weights[sampled].T + b[sampled] - np.log(se)
    logits = np.concatenate([true_logit[:, None], sampled_logit], 1).astype(np.float64)
    want = -logits[:, 0] + np.log(np.exp(logits).sum(1))
    np.testing.assert_allclose(got, want, rtol=1e-5)


@eager
def test_sampled_losses_sample_by_default():
    weights, b, labels, x, num_sampled, classes, _ = _sampled_case(1, False)
    out = tx.nn.sampled_softmax_loss(weights, b, labels, x, num_sampled, classes, seed=3)
    assert out.shape == [4] and np.all(np.isfinite(out.numpy())) and np.all(out.numpy() > 0)
    out = tx.nn.nce_loss(weights, b, labels, x, num_sampled, classes)
    assert out.shape == [4] and np.all(out.numpy() > 0)
    with pytest.raises(ValueError, match="num_sampled must be >= 1"):
        tx.nn.nce_loss(weights, b, labels, x, 0, classes)


# -- with_space_to_batch, atrous_conv2d_transpose, batch_norm_with_global_normalization ----------------

@eager
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("rate", [[2, 3], [1, 1], [3, 1]])
def test_with_space_to_batch_conv(padding, rate):
    tf = _tf()
    x = RNG.normal(size=(2, 7, 9, 3)).astype(np.float32)
    f = RNG.normal(size=(3, 2, 3, 4)).astype(np.float32)
    got = tx.nn.with_space_to_batch(x, rate, padding, lambda t, n, p: tx.nn.conv2d(t, f, 1, p), filter_shape=f.shape)
    want = tf.nn.with_space_to_batch(x, rate, padding, lambda t, n, p: tf.nn.conv2d(t, f, 1, p), filter_shape=f.shape)
    _same(got, want, rtol=1e-5, atol=1e-5)
    # The same as a dilated convolution.
    dilated = tx.nn.convolution(x, f, padding=padding, dilations=rate)
    np.testing.assert_allclose(got.numpy(), dilated.numpy(), rtol=1e-5, atol=1e-5)


@eager
def test_with_space_to_batch_nchw_pool_and_errors():
    tf = _tf()
    x = RNG.normal(size=(1, 2, 8, 7)).astype(np.float32)
    got = tx.nn.with_space_to_batch(x, [2], "VALID", lambda t, n, p: t * 2.0, spatial_dims=[3])
    want = tf.nn.with_space_to_batch(x, [2], "VALID", lambda t, n, p: t * 2.0, spatial_dims=[3])
    _same(got, want)
    got = tx.nn.with_space_to_batch(x, [2, 2], "VALID", lambda t, n, p: t + 1.0, data_format="NCHW")
    want = tf.nn.with_space_to_batch(x, [2, 2], "VALID", lambda t, n, p: t + 1.0, data_format="NCHW")
    _same(got, want)
    with pytest.raises(ValueError, match="filter_shape must be specified for SAME padding"):
        tx.nn.with_space_to_batch(x, [2, 2], "SAME", lambda t, n, p: t)
    with pytest.raises(ValueError, match="dilation_rate must be positive"):
        tx.nn.with_space_to_batch(x, [0, 2], "VALID", lambda t, n, p: t)


@eager
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("rate", [1, 2, 3])
def test_atrous_conv2d_transpose(padding, rate):
    tf = _tf()
    v = RNG.normal(size=(2, 5, 6, 4)).astype(np.float32)
    f = RNG.normal(size=(3, 2, 3, 4)).astype(np.float32)
    out = [2, 5, 6, 3] if padding == "SAME" else [2, 5 + 2 * rate, 6 + rate, 3]
    _same(tx.nn.atrous_conv2d_transpose(v, f, out, rate, padding),
          tf.nn.atrous_conv2d_transpose(v, f, out, rate, padding), rtol=1e-5, atol=1e-5)


@eager
def test_atrous_conv2d_transpose_is_the_gradient_of_atrous_conv2d():
    x = tx.constant(RNG.normal(size=(1, 9, 9, 2)).astype(np.float32))
    f = tx.constant(RNG.normal(size=(3, 3, 2, 3)).astype(np.float32))
    dy = tx.constant(RNG.normal(size=(1, 9, 9, 3)).astype(np.float32))
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = tx.nn.atrous_conv2d(x, f, 2, "SAME")
    want = tape.gradient(y, x, output_gradients=dy)
    got = tx.nn.atrous_conv2d_transpose(dy, f, [1, 9, 9, 2], 2, "SAME")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="input channels"):
        tx.nn.atrous_conv2d_transpose(dy, tx.ones([3, 3, 2, 2]), [1, 9, 9, 2], 2, "SAME")
    with pytest.raises(ValueError, match="padding must be"):
        tx.nn.atrous_conv2d_transpose(dy, f, [1, 9, 9, 2], 2, "FULL")


@eager
@pytest.mark.parametrize("scale", [True, False])
def test_batch_norm_with_global_normalization(scale):
    tf = _tf()
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    m, v, b, g = (RNG.uniform(0.5, 2, size=3).astype(np.float32) for _ in range(4))
    got = tx.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, scale)
    want = tf.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, scale)
    _same(got, want, rtol=1e-6)
    np.testing.assert_allclose(got.numpy(), (x - m) / np.sqrt(v + 1e-3) * (g if scale else 1) + b, rtol=1e-5)


# -- sparse embedding lookups --------------------------------------------------------------------------

def _sparse(fw, indices, values, shape, dtype):
    return fw.SparseTensor(np.array(indices, np.int64), np.array(values, dtype), np.array(shape, np.int64))


IDS = ([[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [3, 0]], [1, 4, 1, 0, 3, 2], [5, 3])
WEIGHTS = [2.0, 0.5, 1.0, -1.0, 3.0, 0.0]


@eager
@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("sharded", [True, False])
def test_embedding_lookup_sparse(combiner, weighted, sharded):
    tf = _tf()
    table = RNG.normal(size=(5, 3)).astype(np.float32)
    params = [table[:2], table[2:4], table[4:]] if sharded else table
    got = tx.nn.embedding_lookup_sparse(params, _sparse(tx, *IDS, np.int64),
                                        _sparse(tx, IDS[0], WEIGHTS, IDS[2], np.float32) if weighted else None,
                                        combiner=combiner)
    want = tf.nn.embedding_lookup_sparse(params, _sparse(tf, *IDS, np.int64),
                                         _sparse(tf, IDS[0], WEIGHTS, IDS[2], np.float32) if weighted else None,
                                         combiner=combiner)
    _same(got, want, rtol=1e-6, atol=1e-6)


@eager
@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
@pytest.mark.parametrize("default_id", [None, 2])
@pytest.mark.parametrize("weighted", [True, False])
def test_safe_embedding_lookup_sparse(combiner, default_id, weighted):
    tf = _tf()
    table = RNG.normal(size=(5, 3)).astype(np.float32)
    indices = [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 1]]
    ids, shape = [1, -1, 4, 3, 0], [2, 3, 2]
    weights = [1.0, 2.0, -0.5, 0.0, 1.5]
    got = tx.nn.safe_embedding_lookup_sparse(
        table, _sparse(tx, indices, ids, shape, np.int64),
        _sparse(tx, indices, weights, shape, np.float32) if weighted else None, combiner=combiner,
        default_id=default_id)
    want = tf.nn.safe_embedding_lookup_sparse(
        table, _sparse(tf, indices, ids, shape, np.int64),
        _sparse(tf, indices, weights, shape, np.float32) if weighted else None, combiner=combiner,
        default_id=default_id)
    assert got.shape == [2, 3, 3]
    _same(got, want, rtol=1e-6, atol=1e-6)


@eager
def test_embedding_lookup_sparse_gradient_and_errors():
    table = tx.constant(RNG.normal(size=(5, 2)).astype(np.float32))
    ids = _sparse(tx, *IDS, np.int64)
    with tx.GradientTape() as tape:
        tape.watch(table)
        y = tx.reduce_sum(tx.nn.embedding_lookup_sparse(table, ids, None, combiner="sum"))
    g = tx.convert_to_tensor(tape.gradient(y, table)).numpy()
    np.testing.assert_allclose(g[:, 0], np.bincount(IDS[1], minlength=5))
    with pytest.raises(ValueError, match="combiner must be one of"):
        tx.nn.embedding_lookup_sparse(table, ids, None, combiner="max")
    with pytest.raises(ValueError, match="Missing embedding_weights"):
        tx.nn.safe_embedding_lookup_sparse([], ids)


# -- isotonic_regression ---------------------------------------------------------------------------

def _pava_reference(row):
    """Non-increasing least-squares fit by the textbook pool-adjacent-violators algorithm."""
    blocks = []
    for v in row:
        blocks.append([float(v), 1])
        while len(blocks) > 1 and blocks[-1][0] / blocks[-1][1] > blocks[-2][0] / blocks[-2][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    fit, seg = [], []
    for k, (s, c) in enumerate(blocks):
        fit += [s / c] * c
        seg += [k] * c
    return np.array(fit), np.array(seg)


@eager
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8])
@pytest.mark.parametrize("decreasing", [True, False])
def test_isotonic_regression_equals_tensorflow(dtype, decreasing):
    tf = _tf()
    x = (RNG.normal(size=(6, 25)) * 5).astype(dtype)
    x[0, :5] = x[0, 0]  # ties are not merged
    got = tx.nn.isotonic_regression(x, decreasing=decreasing)
    want = tf.nn.isotonic_regression(x, decreasing=decreasing)
    for g, w in zip(got, want):
        _same(g, w)
    sign = 1 if decreasing else -1
    for row, fit, seg in zip(x, got[0].numpy(), got[1].numpy()):
        ref_fit, ref_seg = _pava_reference(sign * row.astype(np.float64))
        np.testing.assert_allclose(fit, sign * ref_fit, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(seg, ref_seg)


@eager
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_isotonic_regression_axes(axis):
    tf = _tf()
    x = RNG.normal(size=(3, 4, 6))
    for g, w in zip(tx.nn.isotonic_regression(x, axis=axis, decreasing=False),
                    tf.nn.isotonic_regression(x, axis=axis, decreasing=False)):
        _same(g, w)


@eager
def test_isotonic_regression_gradient_is_the_block_mean():
    tf = _tf()
    xv = RNG.normal(size=(3, 8)).astype(np.float32)
    dy = RNG.normal(size=(3, 8)).astype(np.float32)
    x, tfx = tx.constant(xv), tf.constant(xv)
    with tx.GradientTape() as tape:
        tape.watch(x)
        y, _ = tx.nn.isotonic_regression(x)
    with tf.GradientTape() as ttape:
        ttape.watch(tfx)
        ty, _ = tf.nn.isotonic_regression(tfx)
    np.testing.assert_allclose(tape.gradient(y, x, output_gradients=tx.constant(dy)).numpy(),
                               ttape.gradient(ty, tfx, output_gradients=tf.constant(dy)).numpy(), rtol=1e-6)


def test_isotonic_regression_in_a_graph():
    x = tx.placeholder(tx.float32, [None, 4])
    out, seg = tx.nn.isotonic_regression(x)
    (g,) = tx.gradients(tx.reduce_sum(out * tx.constant([1.0, 2.0, 3.0, 4.0])), [x])
    with tx.Session() as sess:
        o, s, gv = sess.run([out, seg, g], {x: [[3.0, 1.0, 1.0, 2.0], [4.0, 3.0, 2.0, 1.0]]})
    np.testing.assert_allclose(o, [[3.0, 4 / 3, 4 / 3, 4 / 3], [4.0, 3.0, 2.0, 1.0]], rtol=1e-6)
    assert s.tolist() == [[0, 1, 1, 1], [0, 1, 2, 3]]
    np.testing.assert_allclose(gv, [[1.0, 3.0, 3.0, 3.0], [1.0, 2.0, 3.0, 4.0]], rtol=1e-6)


@eager
def test_isotonic_regression_errors():
    with pytest.raises(ValueError, match="at least one dimension"):
        tx.nn.isotonic_regression(1.0)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        tx.nn.isotonic_regression([[1.0]], axis=2)
    with pytest.raises(TypeError, match="floating point or int8/16/32/64"):
        tx.nn.isotonic_regression(np.array([[1, 2]], np.uint8))


def test_sampled_losses_in_a_graph_train_the_weights():
    weights, b, labels, x, num_sampled, classes, _ = _sampled_case(2, False)
    w = tx.constant(weights)
    xs = tx.placeholder(tx.float32, [None, 5])
    loss = tx.reduce_mean(tx.nn.sampled_softmax_loss(w, tx.constant(b), labels, xs, num_sampled, classes,
                                                     num_true=2, seed=7))
    nce = tx.reduce_mean(tx.nn.nce_loss(w, tx.constant(b), labels, xs, num_sampled, classes, num_true=2))
    gw, gx = tx.gradients(loss + nce, [w, xs])
    with tx.Session() as sess:
        lv, gwv, gxv = sess.run([loss, tx.convert_to_tensor(gw), gx], {xs: x})
    assert np.isfinite(lv) and lv > 0
    assert gwv.shape == (12, 5) and gxv.shape == (4, 5) and np.abs(gxv).sum() > 0
    # Only the true and sampled classes' rows of the weights get a gradient.
    assert 0 < np.count_nonzero(np.abs(gwv).sum(1)) <= 4 * 2 + num_sampled
