"""tx.register_tensor_conversion_function against tf.register_tensor_conversion_function: values
of a registered type go into ops, priorities and NotImplemented decide which function converts,
and the same errors for bad registrations and bad conversions."""
import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager  # graph-mode cases build their own tx.Graph


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def _meters_class(lib):
    class Meters:
        def __init__(self, v):
            self.v = v

    lib.register_tensor_conversion_function(
        Meters, lambda m, dtype=None, name=None, as_ref=False: lib.constant(m.v, dtype=dtype))
    return Meters


def test_registered_type_goes_into_ops_eagerly_and_in_functions(tf):
    for lib in (tx, tf):
        M = _meters_class(lib)
        eager = (lib.constant([1.0, 2.0]) * M(3.0)).numpy()
        traced = lib.function(lambda x: lib.reduce_sum(x + M(0.5)))(lib.constant([1.0, 2.0])).numpy()
        as_int = lib.convert_to_tensor(M(4), dtype=lib.int64)
        if lib is tx:
            ours = (eager, traced, as_int.numpy(), as_int.dtype.name)
        else:
            theirs = (eager, traced, as_int.numpy(), as_int.dtype.name)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]


def test_conversion_in_a_graph():
    M = _meters_class(tx)
    g = tx.Graph()
    with g.as_default():
        t = tx.convert_to_tensor(M([1.0, 2.0]))
        with tx.Session() as s:
            np.testing.assert_array_equal(s.run(t * 2.0), [2.0, 4.0])


def test_priority_and_not_implemented(tf):
    for lib in (tx, tf):
        class P:
            pass

        lib.register_tensor_conversion_function(P, lambda v, dtype=None, name=None, as_ref=False: lib.constant(1),
                                                priority=80)
        lib.register_tensor_conversion_function(P, lambda v, dtype=None, name=None, as_ref=False: NotImplemented,
                                                priority=1)
        lib.register_tensor_conversion_function(P, lambda v, dtype=None, name=None, as_ref=False: lib.constant(7),
                                                priority=50)
        assert int(lib.convert_to_tensor(P())) == 7


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return type(e)
    return None


@pytest.mark.parametrize("case", ["numeric_type", "ndarray", "not_a_type", "not_callable", "non_tensor_result",
                                  "wrong_dtype", "all_decline"])
def test_errors_match_tensorflow(tf, case):
    def run(lib):
        class C:
            pass

        if case == "numeric_type":
            return _error(lambda: lib.register_tensor_conversion_function(float, lambda *a, **k: None))
        if case == "ndarray":
            return _error(lambda: lib.register_tensor_conversion_function(np.ndarray, lambda *a, **k: None))
        if case == "not_a_type":
            return _error(lambda: lib.register_tensor_conversion_function("C", lambda *a, **k: None))
        if case == "not_callable":
            return _error(lambda: lib.register_tensor_conversion_function(C, 3))
        result = {"non_tensor_result": 3.0, "wrong_dtype": None, "all_decline": NotImplemented}[case]
        lib.register_tensor_conversion_function(
            C, lambda v, dtype=None, name=None, as_ref=False: lib.constant(1.5) if result is None else result)
        return _error(lambda: lib.convert_to_tensor(C(), dtype=lib.float64 if case == "wrong_dtype" else None))

    ours, theirs = run(tx), run(tf)
    assert theirs is not None and ours is theirs


def test_error_messages_name_the_type():
    class Declines:
        pass

    tx.register_tensor_conversion_function(Declines, lambda v, dtype=None, name=None, as_ref=False: NotImplemented)
    with pytest.raises(ValueError, match="unsupported type .*Declines"):
        tx.convert_to_tensor(Declines())
    with pytest.raises(TypeError, match="Python numeric types"):
        tx.register_tensor_conversion_function(int, lambda *a, **k: None)
