"""An op's default for a type attr is only a preferred dtype when it converts Python and NumPy
inputs (TensorFlow's preferred_dtype): integers too large for the default int32 make an int64
input instead of wrapping around. The shapes here hold no elements, so nothing large is allocated."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")

BIG = 2**32 + 3

# (name, build(module, to_input)): to_input turns the integer list into the argument given
CASES = [
    ("reshape", lambda m, v: m.reshape(m.zeros([0]), v([BIG, 0]))),
    ("tile", lambda m, v: m.tile(m.zeros([1, 0]), v([BIG, 1]))),
    ("pad", lambda m, v: m.pad(m.zeros([0, 1]), v([[0, 0], [0, BIG]]))),
    ("broadcast_to", lambda m, v: m.broadcast_to(m.zeros([1, 0]), v([BIG, 0]))),
    ("fill", lambda m, v: m.fill(v([0, BIG]), 1.0)),
    ("zeros", lambda m, v: m.zeros(v([BIG, 0]))),
]


@pytest.mark.parametrize("name, build", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", ["eager", "function"])
def test_large_python_ints_take_int64_as_in_tensorflow(name, build, mode):
    want = build(tf, list).shape.as_list()
    assert max(want) >= BIG
    run = (lambda f: f()) if mode == "eager" else (lambda f: tx.function(f)())
    assert run(lambda: build(tx, list)).shape.as_list() == want


@pytest.mark.parametrize("name, build", CASES, ids=[c[0] for c in CASES])
def test_large_numpy_ints_are_not_wrapped_either(name, build):
    # TensorFlow casts an int64 array to the default int32, wrapping 2**32 + 3 to 3; here it keeps
    # its dtype, as the same values given as a list do.
    assert max(build(tx, np.array).shape.as_list()) >= BIG


def test_values_that_fit_keep_the_default_dtype():
    f = tx.function(lambda: tx.tile(tx.zeros([1]), [3]))
    graph = f.get_concrete_function().graph
    tile = next(op for op in graph.get_operations() if op.type == "Tile")
    assert tile.inputs[1].dtype == tx.int32
    big = tx.function(lambda: tx.tile(tx.zeros([0]), [BIG])).get_concrete_function().graph
    tile = next(op for op in big.get_operations() if op.type == "Tile")
    assert tile.inputs[1].dtype == tx.int64


def test_an_axis_too_large_is_the_ops_error_as_in_tensorflow():
    with pytest.raises(tf.errors.InvalidArgumentError, match="4294967299"):
        tf.reduce_sum(tf.ones([2]), axis=[BIG])
    with pytest.raises(tx.errors.InvalidArgumentError, match="Invalid reduction dimension 4294967299"):
        tx.reduce_sum(tx.ones([2]), axis=[BIG])


def test_an_inferred_dtype_still_refuses_values_that_do_not_fit():
    with pytest.raises(TypeError, match="out of bounds for int32"):
        tx.range(tx.constant(0), BIG)  # Tidx is int32, from the first input
