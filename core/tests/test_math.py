"""tx.math and the Tensor operators: explicit dtype rules (docs/dtypes.md), TensorFlow's integer
semantics, operator overloads, and the cases the conformance table cannot cross-check."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src.generated import gen_ops


def _run(*fetches, feed=None):
    with tx.Session() as s:
        return s.run(list(fetches), feed_dict=feed)


# Dtype promotion (docs/dtypes.md).

def test_mixing_tensor_dtypes_is_a_type_error_naming_both():
    f, i = tx.constant([1.0, 2.0]), tx.constant([1, 2])
    c = tx.constant([True, False])
    before = len(tx.get_default_graph().get_operations())
    for fn in (lambda: f + i, lambda: tx.math.maximum(i, f), lambda: f < i, lambda: gen_ops.select_v2(c, f, i)):
        with pytest.raises(TypeError, match=r"(int32.*float32|float32.*int32)"):
            fn()
    with pytest.raises(TypeError, match=r"list passed to 'inputs' of 'AddN' Op have types float32 and int32"):
        tx.math.add_n([f, i])
    with pytest.raises(TypeError, match=r"Input 'x' of 'LogicalNot' Op has type float32 .* bool"):
        tx.math.logical_not(f)
    # Nothing was added to the graph by the failed calls.
    assert len(tx.get_default_graph().get_operations()) == before


def test_python_scalars_adopt_the_tensor_dtype():
    f64 = tx.constant(np.array([1.5, 2.5]))
    i64 = tx.constant(np.array([7, -7], np.int64))
    u8 = tx.constant(np.array([250], np.uint8))
    outs = [f64 + 1, 2 * f64, i64 // 2, i64 % 2, u8 + 10, 3 - i64, f64 > 2]
    assert [o.dtype for o in outs] == [tx.float64, tx.float64, tx.int64, tx.int64, tx.uint8, tx.int64, tx.bool]
    got = _run(*outs)
    np.testing.assert_array_equal(got[2], [3, -4])
    np.testing.assert_array_equal(got[3], [1, 1])
    np.testing.assert_array_equal(got[4], [4])  # uint8 wraps
    np.testing.assert_array_equal(got[5], [-4, 10])
    with pytest.raises(TypeError, match="Expected int64"):
        i64 + 0.5
    with pytest.raises(TypeError):
        u8 + 1000


def test_numpy_values_are_cast_to_the_tensor_dtype_and_only_python_values_use_defaults():
    x = tx.constant([1.0, 2.0])
    assert (x + np.array([1.0, 2.0], np.float64)).dtype == tx.float32
    assert tx.math.add(1.0, 2.0).dtype == tx.float32
    assert tx.math.multiply(2, 3).dtype == tx.int32


def test_true_division_of_integers_casts_to_float():
    a, b = tx.constant([7, -7], dtype=tx.int32), tx.constant([2, 2], dtype=tx.int32)
    q = a / b
    assert q.dtype == tx.float64
    assert (tx.constant([3], dtype=tx.int16) / 2).dtype == tx.float32
    np.testing.assert_array_equal(_run(q)[0], [3.5, -3.5])


# Integer semantics and errors.

def test_integer_division_by_zero_is_an_error_naming_the_node():
    x = tx.placeholder(tx.int32)
    for fn, name in ((tx.math.floordiv, "fdiv"), (tx.math.floormod, "fmod")):
        y = fn(x, 0, name=name)
        with pytest.raises(tx.errors.InvalidArgumentError, match="Integer division by zero") as info:
            _run(y, feed={x: np.array([1, 2], np.int32)})
        assert info.value.node_name == name


def test_integer_pow_rejects_negative_exponents():
    with pytest.raises(tx.errors.InvalidArgumentError, match="negative integer powers"):
        _run(tx.constant([2, 3]) ** tx.constant([1, -1]))
    np.testing.assert_array_equal(_run(tx.constant([2, -3]) ** 3)[0], [8, -27])


def test_round_is_bankers_and_keeps_integers():
    x = tx.constant([0.5, 1.5, 2.5, -0.5, -1.5, 2.6])
    i = tx.constant([3, -4])
    assert tx.math.round(i) is i
    np.testing.assert_array_equal(_run(tx.math.round(x))[0], [0, 2, 2, -0.0, -2, 3])


def test_erf_at_infinity_is_plus_minus_one():
    # TensorFlow's float32 kernel gives NaN here; NumPy/SciPy and float64 give +-1.
    got = _run(tx.math.erf(tx.constant([np.inf, -np.inf, 0.0])))[0]
    np.testing.assert_array_equal(got, [1, -1, 0])


# Operators.

def test_operator_overloads_match_numpy():
    xv = np.array([[-2.5, 0.0, 3.0]], np.float32)
    yv = np.array([[1.5], [-2.0]], np.float32)
    x, y = tx.constant(xv), tx.constant(yv)
    ops = {"floordiv": (x // y, xv // yv), "mod": (x % y, np.mod(xv, yv)),
           "pow": ((abs(x) + 1) ** y, (np.abs(xv) + 1) ** yv),
           "rfloordiv": (7 // y, 7 // yv), "rmod": (7 % y, np.mod(7, yv)), "rpow": (2 ** x, 2 ** xv),
           "lt": (x < y, xv < yv), "le": (x <= y, xv <= yv), "gt": (x > y, xv > yv), "ge": (x >= y, xv >= yv),
           "reflected gt": (1 < x, 1 < xv), "abs": (abs(x), np.abs(xv)), "neg": (-x, -xv)}
    got = _run(*[t for t, _ in ops.values()])
    for (name, (_, want)), g in zip(ops.items(), got):
        np.testing.assert_allclose(g, want, rtol=1e-6, err_msg=name)
        assert g.dtype == want.dtype, name


def test_logical_operators_on_bool_tensors():
    a, b = tx.constant([True, True, False, False]), tx.constant([True, False, True, False])
    got = _run(a & b, a | b, a ^ b, ~a, True & b)
    np.testing.assert_array_equal(got[0], [True, False, False, False])
    np.testing.assert_array_equal(got[1], [True, True, True, False])
    np.testing.assert_array_equal(got[2], [False, True, True, False])
    np.testing.assert_array_equal(got[3], [False, False, True, True])
    np.testing.assert_array_equal(got[4], [True, False, True, False])
    with pytest.raises(TypeError):
        tx.constant([1.0]) & tx.constant([2.0])


def test_equality_operator_keeps_identity_semantics():
    x = tx.constant([1.0])
    y = tx.identity(x)
    assert (x == x) is True and (x == y) is False and (x != y) is True
    assert {x: 1, y: 2}[y] == 2
    assert _run(tx.math.equal(x, y))[0].tolist() == [True]


# tx.math surface and composite functions.

def test_math_module_exports_tensorflow_names():
    for name in ("add", "subtract", "multiply", "divide", "floordiv", "floormod", "pow", "maximum", "minimum",
                 "squared_difference", "negative", "abs", "sign", "square", "sqrt", "rsqrt", "reciprocal", "exp",
                 "expm1", "log", "log1p", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "floor", "ceil", "round",
                 "is_nan", "is_finite", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                 "logical_and", "logical_or", "logical_not", "add_n", "reduce_sum", "reduce_mean"):
        assert callable(getattr(tx.math, name)), name
    assert set(tx.math.__all__) <= set(dir(tx.math))
    assert tx.math.exp(tx.constant(1.0)).op.type == "Exp"
    assert tx.math.floormod(tx.constant(1), 2).op.type == "FloorMod"


def test_clip_by_value_broadcasts_bounds_into_t_shape():
    t = tx.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    lo = tx.constant(np.array([1.0, 0.0, 3.0], np.float32))
    hi = tx.constant(np.array([[2.0], [4.0]], np.float32))
    got = _run(tx.clip_by_value(t, lo, hi), tx.clip_by_value(t, 1.0, 3.0))
    np.testing.assert_array_equal(got[0], [[1, 1, 3], [3, 4, 4]])
    np.testing.assert_array_equal(got[1], [[1, 1, 2], [3, 3, 3]])
    with pytest.raises(tx.errors.InvalidArgumentError, match="does not broadcast to the shape of t"):
        tx.clip_by_value(t, tx.constant(np.zeros((4, 1, 3), np.float32)), 1.0)


def test_select_v2_and_add_n():
    c = tx.constant([[True], [False]])
    got = _run(gen_ops.select_v2(c, tx.constant([1.0, 2.0]), 0.0), tx.math.add_n([tx.constant([1, 2])] * 3))
    np.testing.assert_array_equal(got[0], [[1, 2], [0, 0]])
    np.testing.assert_array_equal(got[1], [3, 6])
    with pytest.raises(ValueError):
        tx.math.add_n([])


def test_equal_with_incompatible_shape_error_false():
    z = gen_ops.not_equal(tx.constant([1, 2]), tx.constant([1, 2, 3]), incompatible_shape_error=False)
    assert z.shape.rank is None
    assert _run(z)[0] == np.array(True)
    with pytest.raises(tx.errors.InvalidArgumentError, match="[Ii]ncompatible shapes"):
        tx.math.equal(tx.constant([1, 2]), tx.constant([1, 2, 3]))


def test_large_unary_kernels_split_over_threads_match_numpy():
    x = np.linspace(-20, 20, 300001, dtype=np.float32)
    p = tx.placeholder(tx.float32, [None])
    fns = {"exp": (tx.math.exp, np.exp), "tanh": (tx.math.tanh, np.tanh), "log1p": (tx.math.log1p, np.log1p),
           "sigmoid": (tx.math.sigmoid, lambda v: 1 / (1 + np.exp(-v))), "sin": (tx.math.sin, np.sin)}
    with tx.Session(config=dict(intra_op_parallelism_threads=2)) as s:
        got = s.run([fn(p) for fn, _ in fns.values()], feed_dict={p: x})
    with np.errstate(all="ignore"):
        for (name, (_, ref)), g in zip(fns.items(), got):
            want = ref(x.astype(np.float64)).astype(np.float32)
            np.testing.assert_allclose(g, want, rtol=3e-6, atol=1e-30, equal_nan=True, err_msg=name)
