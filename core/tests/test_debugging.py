"""tx.debugging assertions: eager messages as TensorFlow's, Assert ops in graphs and tx.function."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def _message(fn, *args, **kwargs):
    with pytest.raises(tx.errors.InvalidArgumentError) as info:
        fn(*args, **kwargs)
    return info.value.message


def test_binary_asserts_pass_and_fail_eagerly():
    a, b = tx.constant([1, 2]), tx.constant([1, 3])
    assert tx.debugging.assert_equal(a, a) is None
    assert _message(tx.debugging.assert_equal, a, b) == (
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[1]]\nCorresponding x values:\n"
        "[2]\nCorresponding y values:\n[3]\nFirst 2 elements of x:\n[1 2]\nFirst 2 elements of y:\n[1 3]")
    assert _message(tx.debugging.assert_equal, a, b, message="msg").startswith("msg\nCondition x == y")
    assert _message(tx.debugging.assert_less, tx.constant(5.0), 3.0) == (
        "Condition x < y did not hold.\nFirst 1 elements of x:\n[5.]\nFirst 1 elements of y:\n[3.]")
    assert _message(tx.debugging.assert_equal, tx.constant([1, 2, 3, 4, 5]), 0) == (
        "Condition x == y did not hold.\nFirst 3 elements of x:\n[1 2 3]\nFirst 1 elements of y:\n[0]")
    tx.debugging.assert_less_equal(a, b)
    tx.debugging.assert_greater_equal(b, a)
    tx.debugging.assert_none_equal(tx.constant([1, 2]), tx.constant([3, 4]))
    tx.debugging.assert_greater(tx.constant([2.0]), 1.0)
    with pytest.raises(tx.errors.InvalidArgumentError):
        tx.debugging.assert_greater(a, b)


def test_sign_asserts():
    x = tx.constant([1, -2])
    assert _message(tx.debugging.assert_positive, x) == (
        "\nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n['1', '-2']")
    assert "Condition x < 0" in _message(tx.debugging.assert_negative, x)
    assert "Condition x >= 0" in _message(tx.debugging.assert_non_negative, x)
    assert "Condition x <= 0" in _message(tx.debugging.assert_non_positive, x)
    tx.debugging.assert_positive(tx.constant([1.0, 2.0]))
    tx.debugging.assert_non_negative(tx.constant([0, 3]))
    tx.debugging.assert_negative(tx.constant([-1.0]))
    tx.debugging.assert_non_positive(tx.constant([0.0, -3.0]))


def test_assert_near():
    tx.debugging.assert_near(tx.constant([1.0, 2.0]), tx.constant([1.0, 2.0000005]))
    msg = _message(tx.debugging.assert_near, tx.constant([1.0, 2.0]), tx.constant([1.0, 2.1]))
    assert "x and y not equal to tolerance" in msg
    tx.debugging.assert_near(tx.constant([1.0]), tx.constant([1.05]), atol=0.1)


def test_static_checks():
    x = tx.constant([1.0, 2.0])
    with pytest.raises(ValueError, match=r"must have rank 2.  Received rank 1, shape \(2,\)"):
        tx.debugging.assert_rank(x, 2)
    with pytest.raises(ValueError, match="must have rank at least 2"):
        tx.debugging.assert_rank_at_least(x, 2)
    assert tx.debugging.assert_rank(x, 1) is None and tx.debugging.assert_rank_at_least(x, 0) is None
    with pytest.raises(TypeError, match="must be of type tx.int32; got tx.float32"):
        tx.debugging.assert_type(x, tx.int32)
    tx.debugging.assert_type(x, tx.float32)
    with pytest.raises(TypeError, match='Expected "x" to be integer type'):
        tx.debugging.assert_integer(x)
    tx.debugging.assert_integer(tx.constant([1]))
    assert tx.debugging.is_numeric_tensor(x) and not tx.debugging.is_numeric_tensor(tx.constant([True]))
    assert not tx.debugging.is_numeric_tensor(np.zeros(2))


def test_assert_shapes():
    tx.debugging.assert_shapes([(tx.zeros([2, 3]), ("N", "D")), (tx.zeros([2]), ("N",)), (tx.zeros([4, 2, 3]),
                                                                                          ("...", "N", "D"))])
    with pytest.raises(ValueError, match=r"dimension 0 must have size 2.  Received size 3"):
        tx.debugging.assert_shapes([(tx.zeros([2, 3]), ("N", "D")), (tx.zeros([3]), ("N",))])
    with pytest.raises(ValueError, match="Specified shape must have rank 2"):
        tx.debugging.assert_shapes([(tx.zeros([2]), ("N", "D"))])
    with pytest.raises(ValueError, match="must have size 4"):
        tx.debugging.assert_shapes([(tx.zeros([3, 5]), (3, 4))])


def test_assert_all_finite_and_check_numerics():
    np.testing.assert_array_equal(tx.debugging.assert_all_finite(tx.constant([1.0]), "ok").numpy(), [1.0])
    with pytest.raises(tx.errors.InvalidArgumentError, match="bad"):
        tx.debugging.assert_all_finite(tx.constant([1.0, np.inf]), "bad")


def test_graph_mode_assert_op_fails_at_run_time():
    with tx.Graph().as_default() as g:
        x = tx.placeholder(tx.int32, [2])
        op = tx.debugging.assert_equal(x, tx.constant([1, 2]))
        assert isinstance(op, tx.Operation) and op.type == "Assert"
        with tx.control_dependencies([op]):
            y = tx.identity(x)
        pos = tx.debugging.assert_positive(x)
        with tx.Session(graph=g) as sess:
            np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [1, 2])
            with pytest.raises(tx.errors.InvalidArgumentError, match=r"assertion failed: \[1 3\] \[1 2\]"):
                sess.run(y, {x: [1, 3]})
            with pytest.raises(tx.errors.InvalidArgumentError, match="assertion failed"):
                sess.run(pos, {x: [0, 1]})
            sess.run(pos, {x: [5, 1]})
        dyn = tx.placeholder(tx.float32, None)
        r = tx.debugging.assert_rank(dyn, 2)
        with tx.Session(graph=g) as sess:
            sess.run(r, {dyn: np.zeros((2, 2))})
            with pytest.raises(tx.errors.InvalidArgumentError):
                sess.run(r, {dyn: np.zeros(3)})


def test_inside_function_assert_runs_when_unused():
    @tx.function
    def f(x):
        tx.debugging.assert_less(x, 10.0)
        return x * 2

    assert f(tx.constant(3.0)).numpy() == 6.0
    with pytest.raises(tx.errors.InvalidArgumentError, match="assertion failed"):
        f(tx.constant(30.0))


def test_top_level_aliases():
    assert tx.assert_equal is tx.debugging.assert_equal and tx.assert_rank is tx.debugging.assert_rank
    assert tx.Assert is tx.debugging.Assert and tx.assert_less is tx.debugging.assert_less
    assert tx.Assert(tx.constant(True), ["never"]) is None
    with pytest.raises(tx.errors.InvalidArgumentError, match="Summarized data"):
        tx.Assert(tx.constant(False), ["shown", tx.constant([1, 2])])


def test_messages_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    cases = [
        ("assert_equal", ([1, 2], [1, 3]), {}),
        ("assert_equal", ([[1, 2], [3, 4]], [[1, 2], [3, 5]]), {"summarize": 1}),
        ("assert_none_equal", ([1, 2], [1, 3]), {}),
        ("assert_less", ([1, 2], [1, 3]), {"message": "custom"}),
        ("assert_greater_equal", ([1, 2], [1, 3]), {}),
        ("assert_positive", ([1, -2],), {}),
        ("assert_non_negative", ([1.5, -2.5],), {}),
    ]
    for name, args, kwargs in cases:
        with pytest.raises(tf.errors.InvalidArgumentError) as theirs:
            getattr(tf.debugging, name)(*[tf.constant(a) for a in args], **kwargs)
        with pytest.raises(tx.errors.InvalidArgumentError) as ours:
            getattr(tx.debugging, name)(*[tx.constant(a) for a in args], **kwargs)
        assert ours.value.message == theirs.value.message, name
