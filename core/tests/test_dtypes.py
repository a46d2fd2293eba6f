"""Dtypes: DType objects, 16-bit float conversions bit for bit against NumPy/ml_dtypes, integer
semantics of the narrow and unsigned types, the missing-kernel error, and 16-bit tensors through
feeds, fetches, constants and checkpoints (test_dtypes_tf.py has the TensorFlow comparisons)."""

import json
import struct

import ml_dtypes
import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager

BF16 = ml_dtypes.bfloat16
ALL_NAMES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
             "uint32", "uint64", "bool", "complex64", "complex128", "string", "resource", "variant", "qint8",
             "quint8", "qint16", "quint16", "qint32")


def _float32_patterns(n=200_000, seed=0):
    """Random float32 bit patterns plus every class of edge value (NaNs with payloads, subnormals,
    half-way cases of both 16-bit formats, the overflow thresholds)."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fbfffff, 0xffffffff,
                      0x00000001, 0x80000001, 0x007fffff, 0x33000000, 0x33000001, 0x32ffffff, 0x387fc000,
                      0x38800000, 0x477fe000, 0x477fefff, 0x477ff000, 0x3f808000, 0x3f818000, 0x3f80ffff,
                      0x7f7f8000, 0x7f7fffff, 0x00008000, 0x00018000], np.uint32)
    # Values just around every float16 and bfloat16 rounding boundary near 1.
    ties = (np.arange(0x3f800000, 0x3f800000 + (1 << 16), 0x1000, dtype=np.uint64)).astype(np.uint32)
    return np.concatenate([edges, ties, bits]).view(np.float32)


def _tx_cast(values, dtype, **attrs):
    return tx.raw_ops.Cast(x=tx.constant(values), DstT=dtype, **attrs).numpy()


# --- DType objects ---

def test_aliases_and_module():
    assert tx.half is tx.float16 and tx.double is tx.float64
    assert tx.dtypes.half is tx.float16 and tx.dtypes.bfloat16 is tx.bfloat16
    assert tx.dtypes.as_dtype("half") is tx.float16 and tx.dtypes.as_dtype("double") is tx.float64
    assert tx.dtypes.as_dtype(np.float16) is tx.float16 and tx.dtypes.as_dtype(BF16) is tx.bfloat16
    assert tx.dtypes.as_dtype(np.dtype("uint32")) is tx.uint32 and tx.dtypes.as_dtype(23) is tx.uint64
    assert tx.dtypes.DType is tx.DType
    assert tx.dtypes.qint8 in tx.dtypes.QUANTIZED_DTYPES and tx.float16 not in tx.dtypes.QUANTIZED_DTYPES
    with pytest.raises(TypeError, match="Cannot convert"):
        tx.dtypes.as_dtype("float17")


@pytest.mark.parametrize("name", ALL_NAMES)
def test_dtype_properties(name):
    d = tx.dtypes.as_dtype(name)
    assert d.name == name and d.base_dtype is d
    floating, integer = name in ("float16", "bfloat16", "float32", "float64"), name[:3] in ("int", "uin")
    assert (d.is_floating, d.is_integer, d.is_unsigned) == (floating, integer, name.startswith("uint"))
    assert d.is_numeric == (floating or integer or name.startswith(("complex", "qint", "quint")))
    if floating or integer:
        info = (ml_dtypes.finfo(BF16) if name == "bfloat16" else
                np.finfo(d.as_numpy_dtype) if floating else np.iinfo(d.as_numpy_dtype))
        assert d.min == info.min and d.max == info.max
        assert np.dtype(d.as_numpy_dtype).itemsize == d.size
    else:
        with pytest.raises(TypeError, match="Cannot find minimum value of"):
            d.min


def test_real_dtype_and_limits():
    assert tx.complex64.real_dtype is tx.float32 and tx.float16.real_dtype is tx.float16
    assert tx.int8.limits == (0, 127) and tx.uint16.limits == (0, 65535) and tx.float32.limits == (0, 1)
    with pytest.raises(ValueError, match="does not have defined limits"):
        tx.float16.limits
    assert isinstance(tx.int64.max, int) and tx.uint64.max == 2**64 - 1
    assert tx.bfloat16.max == ml_dtypes.finfo(BF16).max and tx.float16.max == np.float16(65504)


def test_saturate_cast():
    x = tx.constant([300.0, -5.0, 7.9, np.nan, 1e10])
    np.testing.assert_array_equal(tx.dtypes.saturate_cast(x[:3], tx.uint8).numpy(), [255, 0, 7])
    np.testing.assert_array_equal(tx.dtypes.saturate_cast(tx.constant([-1, 70000]), tx.uint16).numpy(), [0, 65535])
    h = tx.dtypes.saturate_cast(x, tx.float16).numpy()
    assert h.dtype == np.float16 and h[0] == 300 and np.isnan(h[3]) and h[4] == 65504
    i = tx.dtypes.saturate_cast(tx.constant([1e20, -1e20]), tx.int32).numpy()
    assert i.tolist() == [2147483520, -2147483648]  # float32's largest below 2**31, int32 min


# --- 16-bit float conversions ---

def test_float32_to_bfloat16_bit_exact():
    x = _float32_patterns()
    got = _tx_cast(x, tx.bfloat16).view(np.uint16)
    with np.errstate(all="ignore"):
        want = x.astype(BF16).view(np.uint16)
    np.testing.assert_array_equal(got, want)


def test_float32_to_bfloat16_truncating():
    x = _float32_patterns(n=50_000, seed=1)
    got = _tx_cast(x, tx.bfloat16, Truncate=True).view(np.uint16)
    bits = x.view(np.uint32)
    nan = np.isnan(x)
    want = np.where(nan, ((bits >> 16) & 0x8000) | 0x7fc0, bits >> 16).astype(np.uint16)
    np.testing.assert_array_equal(got, want)


def test_float32_to_float16_matches_numpy_rounding():
    x = _float32_patterns()
    got = _tx_cast(x, tx.float16).view(np.uint16)
    with np.errstate(all="ignore"):
        want = x.astype(np.float16).view(np.uint16)
    nan = np.isnan(x)
    np.testing.assert_array_equal(got[~nan], want[~nan])
    # NaNs: quiet, sign kept, top payload bits kept (F16C's rule; NumPy keeps signalling NaNs).
    payload = (x[nan].view(np.uint32) >> 13) & 0x3ff
    sign = (x[nan].view(np.uint32) >> 16) & 0x8000
    np.testing.assert_array_equal(got[nan], (sign | 0x7e00 | payload).astype(np.uint16))


@pytest.mark.parametrize("dtype,np_type", [(tx.float16, np.float16), (tx.bfloat16, BF16)])
def test_every_16bit_value_widens_exactly(dtype, np_type):
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    values = bits.view(np_type)
    got = _tx_cast(values, tx.float32)
    want = values.astype(np.float32)
    finite = ~np.isnan(want)
    np.testing.assert_array_equal(got[finite].view(np.uint32), want[finite].view(np.uint32))
    assert np.isnan(got[~finite]).all()
    np.testing.assert_array_equal(_tx_cast(values, tx.float64)[finite], want[finite].astype(np.float64))
    # And back: every value survives the round trip through float32 and float64, bit for bit.
    np.testing.assert_array_equal(_tx_cast(got, dtype).view(np.uint16)[finite], bits[finite])


@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"])
@pytest.mark.parametrize("src,np_type", [(tx.float16, np.float16), (tx.bfloat16, BF16)])
def test_16bit_to_integers_follow_float_rules(src, np_type, dst):
    """A 16-bit value converts to an integer as its exact float32 value does (Note [Cast semantics])."""
    values = np.array([0, 0.5, -0.5, 1.5, -1.5, 2.75, -7.9, 100.3, 127, 255, -128, 300.7, 1000, -1000],
                      np.float32).astype(np_type)
    got = _tx_cast(values, tx.as_dtype(dst))
    want = _tx_cast(values.astype(np.float32), tx.as_dtype(dst))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("src", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                                 np.float64])
def test_wide_sources_convert_to_16bit_through_float32(src):
    info = np.iinfo(src) if np.dtype(src).kind in "iu" else None
    values = (np.array([0, 1, -1, 7, 2049, 2051, 65504, 65520, 70000, 2**24 + 1, 2**31 - 1])
              if info is None else np.linspace(info.min, info.max, 41).round())
    values = np.unique(np.clip(values, info.min, info.max) if info is not None else values).astype(src)
    via_float = values.astype(np.float32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_tx_cast(values, tx.float16).view(np.uint16),
                                      via_float.astype(np.float16).view(np.uint16))
        np.testing.assert_array_equal(_tx_cast(values, tx.bfloat16).view(np.uint16),
                                      via_float.astype(BF16).view(np.uint16))


def test_between_the_16bit_types_and_bool():
    h = np.array([65504, 6e-8, -0.0, np.inf, np.nan, 1e-4], np.float16)
    np.testing.assert_array_equal(_tx_cast(h, tx.bfloat16).view(np.uint16),
                                  h.astype(np.float32).astype(BF16).view(np.uint16))
    b = np.array([1e10, -1e-10, 3.0, 65536], np.float32).astype(BF16)
    np.testing.assert_array_equal(_tx_cast(b, tx.float16).view(np.uint16),
                                  b.astype(np.float32).astype(np.float16).view(np.uint16))
    assert _tx_cast(np.array([0, -0.0, np.nan, 2], np.float16), tx.bool).tolist() == [False, False, True, True]
    assert _tx_cast(np.array([True, False]), tx.bfloat16).astype(np.float32).tolist() == [1.0, 0.0]


# --- 16-bit arithmetic: one rounding per output ---

@pytest.mark.parametrize("np_type", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_elementwise_rounds_once_from_float32(np_type):
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, 5000).astype(np_type)
    y = rng.uniform(0.5, 4, 5000).astype(np_type)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    for got, want in [(tx.constant(x) + tx.constant(y), xf + yf), (tx.constant(x) / tx.constant(y), xf / yf),
                      (tx.math.squared_difference(x, y), np.square(xf - yf)), (tx.sqrt(tx.constant(y)), np.sqrt(yf)),
                      (tx.maximum(x, y), np.maximum(xf, yf))]:
        np.testing.assert_array_equal(got.numpy().view(np.uint16), want.astype(np_type).view(np.uint16))


@pytest.mark.parametrize("np_type", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_reductions_accumulate_in_float32(np_type):
    x = np.full(20000, 0.1, np.float32).astype(np_type)
    total = float(tx.reduce_sum(tx.constant(x)))
    exact = float(x.astype(np.float64).sum())
    assert abs(total - exact) <= exact * 2 ** -7
    mean = float(tx.reduce_mean(tx.constant(x)))
    assert mean == float(np.array(x.astype(np.float64).mean(), np.float32).astype(np_type))
    assert int(tx.argmax(tx.constant(np.array([1, 3, 3, 2], np.float32).astype(np_type)))) == 1


@pytest.mark.parametrize("np_type", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_matmul_is_float32_gemm_rounded_once(np_type):
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (37, 300)).astype(np_type)
    b = rng.uniform(-1, 1, (300, 29)).astype(np_type)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32).astype(np_type).astype(np.float64)
    got = tx.matmul(a, b).numpy().astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=2 ** -7, atol=1e-3)
    batched = tx.linalg.matmul(np.stack([a, a]), np.stack([b, b]), transpose_b=False).numpy()
    np.testing.assert_array_equal(batched[1].view(np.uint16), tx.matmul(a, b).numpy().view(np.uint16))


# --- Integer types ---

@pytest.mark.parametrize("np_type", [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64])
def test_narrow_integers_wrap_like_numpy(np_type):
    info = np.iinfo(np_type)
    x = np.array([info.min, info.max, 0, 1, info.max // 2], np_type)
    y = np.array([1, 1, info.max, info.max, 3], np_type)
    with np.errstate(all="ignore"):
        for got, want in [(tx.constant(x) + tx.constant(y), x + y), (tx.constant(x) - tx.constant(y), x - y),
                          (tx.constant(x) * tx.constant(y), x * y), (tx.constant(x) // tx.constant(y), x // y),
                          (tx.constant(x) % tx.constant(y), x % y), (tx.maximum(x, y), np.maximum(x, y))]:
            assert got.dtype == tx.as_dtype(np_type)
            np.testing.assert_array_equal(got.numpy(), want)
    if info.min < 0:
        np.testing.assert_array_equal(tx.abs(tx.constant(x)).numpy(), np.abs(x))  # |MIN| wraps to MIN
        np.testing.assert_array_equal(tx.negative(tx.constant(x)).numpy(), -x)
    np.testing.assert_array_equal(tx.reduce_sum(tx.constant(x)).numpy(), x.sum(dtype=np_type))


@pytest.mark.parametrize("fn", [tx.math.floordiv, tx.math.floormod, tx.truncatediv, tx.truncatemod])
@pytest.mark.parametrize("np_type", [np.int8, np.uint16, np.int32, np.uint64])
def test_integer_division_by_zero_is_an_error(fn, np_type):
    if fn is tx.truncatemod and np_type not in (np.int32,):
        pytest.skip("TruncateMod has int32/int64 kernels only (as TensorFlow)")
    with pytest.raises(tx.errors.InvalidArgumentError, match="Integer division by zero"):
        fn(tx.constant(np.array([7, 1], np_type)), tx.constant(np.array([1, 0], np_type)))
    assert fn(tx.constant(np.array([7], np_type)), tx.constant(np.array([2], np_type))).numpy().size == 1


def test_truncating_division():
    x, y = np.array([-7, 7, -128, 5], np.int8), np.array([2, -2, -1, 3], np.int8)
    assert tx.truncatediv(x, y).numpy().tolist() == [-3, -3, -128, 1]
    assert tx.truncatemod(np.array([-7, 7], np.int32), np.array([2, -2], np.int32)).numpy().tolist() == [-1, 1]
    np.testing.assert_array_equal(tx.truncatemod(np.array([-7.5, 7.5], np.float32), np.float32(2)).numpy(),
                                  [-1.5, 1.5])
    h = tx.truncatediv(np.array([-7.5, 7.5], np.float16), np.array([2, -2], np.float16)).numpy()
    assert h.dtype == np.float16 and h.tolist() == [-3.0, -3.0]


@pytest.mark.parametrize("np_type", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_bitwise_and_shifts(np_type):
    info = np.iinfo(np_type)
    bits = info.bits
    rng = np.random.default_rng(bits)
    x = rng.integers(info.min, info.max, 64, dtype=np_type, endpoint=True)
    y = rng.integers(info.min, info.max, 64, dtype=np_type, endpoint=True)
    s = rng.integers(0 if info.min == 0 else -3, bits + 5, 64).astype(np_type)
    np.testing.assert_array_equal((tx.constant(x) & tx.constant(y)).numpy(), x & y)
    np.testing.assert_array_equal((tx.constant(x) | tx.constant(y)).numpy(), x | y)
    np.testing.assert_array_equal((tx.constant(x) ^ tx.constant(y)).numpy(), x ^ y)
    np.testing.assert_array_equal((~tx.constant(x)).numpy(), ~x)
    clamped = np.clip(s.astype(np.int64), 0, bits - 1).astype(np_type)
    np.testing.assert_array_equal(tx.bitwise.left_shift(x, s).numpy(), np.left_shift(x, clamped))
    np.testing.assert_array_equal(tx.bitwise.right_shift(x, s).numpy(), np.right_shift(x, clamped))
    counts = tx.raw_ops.PopulationCount(x=tx.constant(x)).numpy()
    assert counts.dtype == np.uint8
    np.testing.assert_array_equal(counts, [bin(int(v) & (2**bits - 1)).count("1") for v in x])


def test_bool_operators_stay_logical():
    a, b = tx.constant([True, False, True]), tx.constant([True, True, False])
    assert (a & b).numpy().tolist() == [True, False, False] and (~a).numpy().tolist() == [False, True, False]
    assert (a ^ b).numpy().tolist() == [False, True, True] and (a | b).dtype == tx.bool


# --- The missing-kernel error ---

def test_missing_kernel_names_op_device_and_dtype_eagerly():
    x = tx.constant(np.array([0.5], np.float16))
    with pytest.raises(tx.errors.NotFoundError, match=r"^Erfinv has no CPU kernel for half \[Op:Erfinv\]$"):
        tx.raw_ops.Erfinv(x=x)
    assert float(tx.raw_ops.Erfinv(x=tx.constant([0.5]))) == pytest.approx(0.4769362762)


def test_missing_kernel_in_a_graph_names_the_node():
    g = tx.Graph()
    with g.as_default():
        x = tx.compat.v1.placeholder(tx.bfloat16, [2])
        y = tx.raw_ops.Rint(x=x, name="my_rint")
        ok = tx.cast(x, tx.float32) * 2
        with tx.Session(graph=g) as sess:
            feed = {x: np.array([1.5, 2.5], BF16)}
            with pytest.raises(tx.errors.NotFoundError) as info:
                sess.run(y, feed_dict=feed)
            assert info.value.message.endswith("[my_rint] Rint has no CPU kernel for bfloat16")
            assert sess.run(ok, feed_dict=feed).tolist() == [3.0, 5.0]  # the session stays usable


# --- 16-bit tensors through the front end ---

@pytest.mark.parametrize("np_type", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_feed_fetch_constants_and_variables(np_type):
    values = np.array([[1.0, -2.5], [65504.0, 1e-3]], np.float32).astype(np_type)
    dtype = tx.as_dtype(np_type)
    eager = tx.constant(values)
    assert eager.dtype == dtype and eager.numpy().dtype == np.dtype(np_type)
    np.testing.assert_array_equal(eager.numpy().view(np.uint16), values.view(np.uint16))
    assert tx.constant(1.5, dtype).numpy().dtype == np.dtype(np_type)
    v = tx.Variable(values)
    v.assign_add(tx.ones_like(values))
    np.testing.assert_array_equal(v.numpy().astype(np.float32),
                                  (values.astype(np.float32) + 1).astype(np_type).astype(np.float32))
    g = tx.Graph()
    with g.as_default():
        ph = tx.compat.v1.placeholder(dtype, [2, 2])
        c = tx.constant(values)  # a Const node: TensorProto bytes through the graph
        out = ph * c
        with tx.Session(graph=g) as sess:
            got = sess.run(out, feed_dict={ph: values})
        graph_def = g.as_graph_def()
    assert got.dtype == np.dtype(np_type)
    np.testing.assert_array_equal(got.astype(np.float32), (values.astype(np.float32) ** 2).astype(np_type)
                                  .astype(np.float32))
    const = next(n for n in graph_def.node if n.op == "Const" and n.attr["dtype"].type == dtype.as_datatype_enum)
    assert list(const.attr["value"].tensor.half_val) == values.view(np.uint16).ravel().tolist() or \
        const.attr["value"].tensor.tensor_content == values.tobytes()


def test_checkpoint_keeps_16bit_variables(tmp_path):
    h = tx.Variable(np.array([1.5, -3.25, 65504], np.float16))
    b = tx.Variable(np.array([1e30, -7.0], np.float32).astype(BF16))
    path = tx.train.Checkpoint(h=h, b=b).save(str(tmp_path / "ckpt"))
    files = sorted(tmp_path.glob("*.safetensors"))
    header = files[-1].read_bytes()
    n = struct.unpack("<Q", header[:8])[0]
    dtypes = {v["dtype"] for k, v in json.loads(header[8:8 + n]).items() if k != "__metadata__"}
    assert {"F16", "BF16"} <= dtypes
    h.assign(tx.zeros_like(h))
    b.assign(tx.zeros_like(b))
    tx.train.Checkpoint(h=h, b=b).restore(path)
    assert h.numpy().tolist() == [1.5, -3.25, 65504.0]
    np.testing.assert_array_equal(b.numpy().view(np.uint16), np.array([1e30, -7.0], np.float32).astype(BF16)
                                  .view(np.uint16))


def test_mixed_precision_training_step_matches_float32():
    """A float16 forward/backward step (float32 master weights, as Keras' mixed precision) stays
    within float16 rounding of the float32 step."""
    rng = np.random.default_rng(7)
    images = rng.uniform(-1, 1, (4, 8, 8, 3)).astype(np.float32)
    labels = np.eye(5, dtype=np.float32)[[0, 3, 1, 4]]
    w = tx.Variable(rng.normal(0, 0.3, (3, 3, 3, 6)).astype(np.float32))
    bias = tx.Variable(np.zeros(6, np.float32))
    dense = tx.Variable(rng.normal(0, 0.3, (96, 5)).astype(np.float32))

    def step(compute):
        with tx.GradientTape() as tape:
            x = tx.cast(images, compute)
            y = tx.nn.conv2d(x, tx.cast(w, compute), strides=1, padding="SAME")
            y = tx.nn.relu(tx.nn.bias_add(y, tx.cast(bias, compute)))
            y = tx.nn.max_pool2d(y, 2, 2, "VALID")
            logits = tx.matmul(tx.reshape(y, [4, -1]), tx.cast(dense, compute))
            loss = tx.reduce_mean(tx.nn.softmax_cross_entropy_with_logits(tx.cast(labels, compute), logits))
            loss32 = tx.cast(loss, tx.float32)
        return [loss32] + tape.gradient(loss32, [w, bias, dense])

    full = [t.numpy() for t in step(tx.float32)]
    for dtype, tol in ((tx.float16, 1e-2), (tx.bfloat16, 6e-2)):
        low = [t.numpy() for t in step(dtype)]
        for a, b in zip(low, full):
            assert a.dtype == np.float32
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol * np.abs(b).max())
