"""Dtypes against TensorFlow on the same inputs (skipped when TensorFlow is not installed): DType
objects, Cast bit for bit, integer operators, TensorFlow graphs with 16-bit constants, and a
mixed-precision training step."""

import ml_dtypes
import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.eager

BF16 = ml_dtypes.bfloat16
NAMES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
         "uint64", "bool", "complex64", "complex128", "string", "resource", "variant", "qint8", "quint8", "qint16",
         "quint16", "qint32")


def _outcome(fn):
    """fn()'s value, or the exception class it raised."""
    try:
        return fn()
    except (TypeError, ValueError, KeyError) as e:
        return type(e)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_objects_match_tensorflow(name):
    ours, theirs = tx.dtypes.as_dtype(name), tf.dtypes.as_dtype(name)
    for attr in ("name", "size", "is_floating", "is_integer", "is_unsigned", "is_complex", "is_bool", "is_quantized",
                 "is_numeric", "as_datatype_enum", "is_numpy_compatible"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.real_dtype.name == theirs.real_dtype.name
    for attr in ("min", "max", "limits"):
        a, b = _outcome(lambda: getattr(ours, attr)), _outcome(lambda: getattr(theirs, attr))
        if isinstance(a, type) or isinstance(b, type):
            # Both raise; TensorFlow's `limits` of resource/variant fails with an internal KeyError.
            assert a is b or (b is KeyError and isinstance(a, type)), (attr, a, b)
        else:
            assert a == b and type(a) is type(b), (attr, a, b)
    if theirs.is_numpy_compatible and not theirs.is_quantized and name != "string":
        assert ours.as_numpy_dtype == theirs.as_numpy_dtype
    assert str(ours) == str(theirs)


def test_module_names_match_tensorflow():
    ours = set(tx.dtypes.__all__)
    theirs = {n for n in dir(tf.dtypes) if not n.startswith("_") and n != "experimental"}
    assert theirs - ours == {"complex"}  # building complex tensors belongs to the complex kernels' work
    assert tx.half.name == tf.half.name and tx.double.name == tf.double.name


def _bits(x):
    return np.asarray(x).view(np.uint16)


def test_cast_to_16bit_matches_tensorflow_bit_for_bit():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32),
                        np.array([0x7f800001, 0xffc00001, 0x7fbfffff, 0x00000001, 0x477ff000, 0x3f808000],
                                 np.uint32)]).view(np.float32)
    np.testing.assert_array_equal(_bits(tx.cast(x, tx.float16).numpy()), _bits(tf.cast(x, tf.float16).numpy()))
    ours = tx.cast(x, tx.bfloat16).numpy()
    theirs = tf.cast(x, tf.bfloat16).numpy()
    nan = np.isnan(x)
    # TensorFlow's vectorized path drops the sign of some NaNs (ml_dtypes keeps it, and so do we).
    np.testing.assert_array_equal(_bits(ours)[~nan], _bits(theirs)[~nan])
    assert np.isnan(ours[nan].astype(np.float32)).all() and np.isnan(theirs[nan].astype(np.float32)).all()
    trunc_ours = tx.raw_ops.Cast(x=x[~nan], DstT=tx.bfloat16, Truncate=True).numpy()
    trunc_theirs = tf.raw_ops.Cast(x=x[~nan], DstT=tf.bfloat16, Truncate=True).numpy()
    np.testing.assert_array_equal(_bits(trunc_ours), _bits(trunc_theirs))


@pytest.mark.parametrize("src", ["float64", "int64", "int32", "uint32", "uint8", "int8"])
@pytest.mark.parametrize("dst", ["float16", "bfloat16"])
def test_cast_wide_sources_to_16bit_match_tensorflow(src, dst):
    rng = np.random.default_rng(1)
    if src == "float64":
        x = np.concatenate([rng.normal(0, 1e3, 2000), [1 + 2**-11 + 2**-40, 65519.99, 65520.0, np.inf, -0.0]])
    else:
        info = np.iinfo(src)
        x = rng.integers(info.min, info.max, 2000, endpoint=True, dtype=np.dtype(src))
    x = x.astype(src)
    np.testing.assert_array_equal(_bits(tx.cast(x, tx.as_dtype(dst)).numpy()),
                                  _bits(tf.cast(x, tf.as_dtype(dst)).numpy()))


@pytest.mark.parametrize("src", ["float16", "bfloat16"])
@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
                                 "float64"])
def test_cast_from_16bit_matches_tensorflow(src, dst):
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(tx.as_dtype(src).as_numpy_dtype)
    values = values[~np.isnan(values.astype(np.float32))]
    if src == "bfloat16":  # TensorFlow flushes float32 subnormals to zero in its kernels (FTZ/DAZ); we keep them
        values = values[(np.abs(values.astype(np.float32)) >= np.finfo(np.float32).tiny) | (values == 0)]
    if dst not in ("bool", "float64"):
        info = np.iinfo(dst)
        f = values.astype(np.float64)
        values = values[(f >= info.min) & (f < info.max + 1)]  # out-of-range float -> int is the hardware's answer
    np.testing.assert_array_equal(tx.cast(values, tx.as_dtype(dst)).numpy(), tf.cast(values, tf.as_dtype(dst)).numpy())


@pytest.mark.parametrize("np_type", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_integer_operators_match_tensorflow(np_type):
    info = np.iinfo(np_type)
    rng = np.random.default_rng(info.bits)
    x = rng.integers(info.min, info.max, 32, endpoint=True, dtype=np_type)
    y = rng.integers(1, min(info.max, 100), 32, endpoint=True, dtype=np_type)
    s = rng.integers(0, info.bits + 4, 32).astype(np_type)
    pairs = [(lambda m, a, b: a & b), (lambda m, a, b: a | b), (lambda m, a, b: a ^ b), (lambda m, a, b: ~a),
             (lambda m, a, b: a + b), (lambda m, a, b: a - b), (lambda m, a, b: a * b), (lambda m, a, b: a // b),
             (lambda m, a, b: a % b), (lambda m, a, b: m.truncatediv(a, b)), (lambda m, a, b: m.maximum(a, b)),
             (lambda m, a, b: m.reduce_sum(a)), (lambda m, a, b: m.reduce_max(a)), (lambda m, a, b: m.argmin(a))]
    for fn in pairs:
        ours = fn(tx, tx.constant(x), tx.constant(y)).numpy()
        theirs = fn(tf, tf.constant(x), tf.constant(y)).numpy()
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(tx.bitwise.left_shift(x, s).numpy(), tf.bitwise.left_shift(x, s).numpy())
    np.testing.assert_array_equal(tx.bitwise.right_shift(x, s).numpy(), tf.bitwise.right_shift(x, s).numpy())
    np.testing.assert_array_equal(tx.raw_ops.PopulationCount(x=x).numpy(), tf.raw_ops.PopulationCount(x=x).numpy())


def test_tensorflow_graph_with_16bit_constants_runs_here():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float16, [3], name="x")
        h = tf.constant(np.array([1.5, -2.0, 65504], np.float16), name="h")
        b = tf.constant(np.array([3.0, 0.5, -1e30], np.float32).astype(BF16), name="b")
        tf.identity(tf.cast(x * h, tf.bfloat16) + b, name="out")
    feed = np.array([2.0, 0.25, 1.0], np.float16)
    with tf.compat.v1.Session(graph=g) as s:
        theirs = s.run("out:0", {"x:0": feed})
    ours_graph = tx.Graph()
    with ours_graph.as_default():
        tx.import_graph_def(tx.GraphDef.FromString(g.as_graph_def().SerializeToString()), name="")
        with tx.Session(graph=ours_graph) as sess:
            ours = sess.run("out:0", feed_dict={"x:0": feed})
    assert ours.dtype == theirs.dtype == np.dtype(BF16)
    np.testing.assert_array_equal(_bits(ours), _bits(theirs))


def test_mixed_precision_step_matches_tensorflow():
    """Forward and backward of a small conv net in float16 and bfloat16 (float32 master weights)."""
    rng = np.random.default_rng(9)
    images = rng.uniform(-1, 1, (4, 8, 8, 3)).astype(np.float32)
    labels = np.eye(5, dtype=np.float32)[[0, 3, 1, 4]]
    weights = [rng.normal(0, 0.3, (3, 3, 3, 6)).astype(np.float32), np.ones(6, np.float32),
               np.zeros(6, np.float32), rng.normal(0, 0.3, (96, 5)).astype(np.float32), np.full(5, 0.1, np.float32)]

    def step(m, compute, variables):
        w, gamma, beta, dense, bias = variables
        with m.GradientTape() as tape:
            x = m.cast(images, compute)
            y = m.nn.conv2d(x, m.cast(w, compute), strides=1, padding="SAME")
            y = m.raw_ops.FusedBatchNormV3(x=y, scale=gamma, offset=beta, mean=m.zeros([0]), variance=m.zeros([0]),
                                           is_training=True)[0]
            y = m.nn.max_pool2d(m.nn.relu(y), 2, 2, "VALID")
            logits = m.nn.bias_add(m.matmul(m.reshape(y, [4, -1]), m.cast(dense, compute)), m.cast(bias, compute))
            xent = m.nn.softmax_cross_entropy_with_logits(m.cast(labels, compute), logits)
            loss = m.cast(m.reduce_mean(xent), m.float32)
        return [loss] + tape.gradient(loss, variables)

    for ours_dt, tf_dt, tol in ((tx.float16, tf.float16, 1e-2), (tx.bfloat16, tf.bfloat16, 6e-2)):
        ours = step(tx, ours_dt, [tx.Variable(w) for w in weights])
        theirs = step(tf, tf_dt, [tf.Variable(w) for w in weights])
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol * np.abs(b.numpy()).max())


def test_kernel_list_is_tensorflows_wire_format():
    """TX_GetAllRegisteredKernels' bytes parse as TensorFlow's KernelList, naming our 16-bit kernels."""
    from tensorflow.core.framework import kernel_def_pb2

    from tensorflux._src import kernels, lib

    theirs = kernel_def_pb2.KernelList.FromString(lib.c.get_registered_kernels("MatMul"))
    ours = kernels.get_registered_kernels_for_op("MatMul")
    assert len(theirs.kernel) == len(ours.kernel) > 0
    types = {c.allowed_values.list.type[0] for k in theirs.kernel for c in k.constraint if c.name == "T"}
    assert {tf.float16.as_datatype_enum, tf.bfloat16.as_datatype_enum, tf.float32.as_datatype_enum} <= types
    assert all(k.op == "MatMul" and k.device_type == "CPU" for k in theirs.kernel)
    assert len(kernels.get_all_registered_kernels().kernel) > 1000
    assert not kernels.get_registered_kernels_for_op("NoSuchOp").kernel


def test_cast_between_float32_and_bfloat16_at_odd_sizes_matches_tensorflow():
    """The one-pass vectorized conversions (Note [bfloat16 conversion]): every bfloat16 widened, and
    lengths that leave each vector tail, against ml_dtypes and TensorFlow bit for bit (subnormals
    only against ml_dtypes: TensorFlow's kernels flush them)."""
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(BF16)
    wide = tx.cast(every, tx.float32).numpy()
    np.testing.assert_array_equal(wide.view(np.uint32), every.astype(np.float32).view(np.uint32))
    normal = (np.abs(wide) >= np.finfo(np.float32).tiny) | (wide == 0)
    np.testing.assert_array_equal(wide[normal], tf.cast(every[normal], tf.float32).numpy())
    rng = np.random.default_rng(5)
    for n in (1, 7, 15, 16, 17, 31, 33, 1000, 4097):
        x = rng.standard_normal(n).astype(np.float32) * np.float32(2.0) ** rng.integers(-130, 120, n)
        ours = _bits(tx.cast(x, tx.bfloat16).numpy())
        np.testing.assert_array_equal(ours, _bits(x.astype(BF16)))
        kept = np.abs(x) >= np.finfo(np.float32).tiny  # TensorFlow flushes some subnormal inputs to zero
        np.testing.assert_array_equal(ours[kept], _bits(tf.cast(x, tf.bfloat16).numpy())[kept])
