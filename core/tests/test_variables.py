"""tx.Variable in graph mode: initialization, reads, updates, operators, collections, gradients
and the error paths."""

import numpy as np
import pytest

import tensorflux as tx


@pytest.fixture(autouse=True)
def _graph():
    with tx.Graph().as_default():
        yield


def test_initialize_read_update():
    v = tx.Variable([1.0, 2.0], name="v")
    assert v.name == "v:0" and v.dtype == tx.float32 and v.shape.as_list() == [2]
    inc = v.assign_add([1.0, 1.0])
    with tx.Session() as s:
        s.run(v.initializer)
        np.testing.assert_array_equal(s.run(v), [1.0, 2.0])
        np.testing.assert_array_equal(s.run(inc), [2.0, 3.0])
        np.testing.assert_array_equal(s.run(v.assign_sub([0.5, 0.5])), [1.5, 2.5])
        np.testing.assert_array_equal(s.run(v.assign([7.0, 8.0])), [7.0, 8.0])
        assert s.run(v.is_initialized())



def test_eval_uses_the_given_or_default_session():
    v = tx.Variable([1.0, 2.0], name="v")
    with tx.Session() as s:
        s.run(v.initializer)
        np.testing.assert_array_equal(v.eval(), [1.0, 2.0])
        np.testing.assert_array_equal(v.eval(session=s), [1.0, 2.0])
    with pytest.raises(ValueError, match="no session was given and no default session"):
        v.eval()


def test_variable_acts_as_a_tensor():
    v = tx.Variable(np.arange(6.0).reshape(2, 3), name="m")
    w = tx.Variable(tx.initializers.ones()([3, 1], dtype=tx.float64), name="w")
    y = tx.matmul(v, w) * 2.0 + v[:, :1] - (-v[:, 1:2])
    with tx.Session() as s:
        s.run(tx.global_variables_initializer())
        np.testing.assert_allclose(s.run(y), np.array([[7.0], [31.0]]))


def test_collections_and_initializers():
    a = tx.Variable(1.0, name="a")
    b = tx.Variable(2.0, trainable=False, name="b")
    assert tx.global_variables() == [a, b]
    assert tx.trainable_variables() == [a]
    init = tx.variables_initializer([b])
    with tx.Session() as s:
        s.run(init)
        assert s.run(b) == 2.0
        with pytest.raises(tx.errors.FailedPreconditionError, match="a"):
            s.run(a)


def test_callable_initial_value_and_seeded_initializers_reproduce():
    v1 = tx.Variable(lambda: tx.initializers.glorot_uniform(seed=7)([4, 5]), name="g1")
    v2 = tx.Variable(tx.initializers.glorot_uniform(seed=7)([4, 5]), name="g2")
    with tx.Session() as s:
        s.run(tx.global_variables_initializer())
        a, b = s.run([v1, v2])
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).max() <= np.sqrt(6 / 9)


def test_gradients_with_respect_to_variables():
    w = tx.Variable([[1.0], [2.0]], name="w")
    x = tx.constant([[3.0, 4.0]])
    loss = tx.reduce_sum(tx.matmul(x, w) * tx.matmul(x, w.read_value()))
    (gw,) = tx.gradients(loss, [w])
    with tx.Session() as s:
        s.run(w.initializer)
        np.testing.assert_allclose(s.run(gw), 2 * 11.0 * np.array([[3.0], [4.0]]))


def test_bad_assignments():
    v = tx.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="dtype|float32"):
        v.assign(tx.constant([1, 2]))
    with pytest.raises(ValueError, match="incompatible"):
        tx.Variable([1.0, 2.0], shape=[3])
    with pytest.raises(ValueError, match="initial_value"):
        tx.Variable()
    ph = tx.placeholder(tx.float32, None)
    op = v.assign(ph)
    with tx.Session() as s:
        s.run(v.initializer)
        with pytest.raises(tx.errors.InvalidArgumentError):
            s.run(op, {ph: np.ones(3, np.float32)})
        np.testing.assert_array_equal(s.run(v), [1.0, 2.0])  # nothing overwritten
