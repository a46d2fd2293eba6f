"""Eager dispatch in C (Note [C dispatch] in pywrap/eager_dispatch.cc): apply_op, which every generated
wrapper calls, and EagerTensor's +, - and *. They run the op at once where the Python code they
replace would have, and hand every other case to the graph builder or the symbolic operator, so both
paths give the same results, dtypes, types and errors."""

import threading

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import context, lib, op_def_library
from tensorflux._src.generated import gen_ops
from tensorflux._src.eager_tensor import EagerTensor

pytestmark = pytest.mark.eager

NAMES = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__")


def _values(x):
    return x.numpy() if isinstance(x, EagerTensor) else x


def _same(got, want):
    assert type(got) is type(want)
    assert got.dtype == want.dtype
    if isinstance(want, EagerTensor):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("name", NAMES)
def test_operators_are_c_objects_that_bind_like_methods(name):
    op = getattr(EagerTensor, name)
    assert type(op) is lib.c.EagerOperator and op.__name__ == name
    a = tx.constant([1.0, 2.0])
    bound = getattr(a, name)
    np.testing.assert_array_equal(bound(tx.constant([3.0, 5.0])).numpy(), op(a, tx.constant([3.0, 5.0])).numpy())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("other", [tx.constant([4.0, -2.0]), 3.0, 2, np.float32(0.5), np.array([1.5, 2.5], np.float32)],
                         ids=["tensor", "float", "int", "np-scalar", "np-array"])
def test_eager_results_equal_the_symbolic_operators(name, other):
    a = tx.constant([1.0, 2.0])
    got = getattr(a, name)(other)
    want = getattr(tx.Tensor, name)(a, other)
    _same(got, want)
    py = {"__add__": lambda x, y: x + y, "__sub__": lambda x, y: x - y, "__mul__": lambda x, y: x * y}
    base = name.replace("__r", "__")
    expected = py[base](_values(other), a.numpy()) if name.startswith("__r") else py[base](a.numpy(), _values(other))
    np.testing.assert_array_equal(got.numpy(), np.asarray(expected, np.float32))


def test_python_expressions_take_the_c_operators_both_ways():
    a = tx.constant([1, 2, 3])
    assert (a + 1).numpy().tolist() == [2, 3, 4] and (10 - a).numpy().tolist() == [9, 8, 7]
    assert (3 * a).dtype == tx.int32 and (np.int32(2) * a).numpy().tolist() == [2, 4, 6]
    assert (np.array([1, 1, 1], np.int32) - a).numpy().tolist() == [0, -1, -2]


def test_strings_concatenate_through_the_symbolic_operator():
    s = tx.constant(["a", "b"])
    assert (s + "!").numpy().tolist() == [b"a!", b"b!"]
    assert ("<" + s).numpy().tolist() == [b"<a", b"<b"]
    assert (s + s).numpy().tolist() == [b"aa", b"bb"]
    with pytest.raises((TypeError, tx.errors.InvalidArgumentError)):
        s * 2


def _outcome(fn):
    """What calling ``fn`` gives: the result's type, dtype and values, or the error's type and text."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the error itself is the outcome compared
        return type(e), str(e)
    return type(out), out.dtype, out.numpy().tolist() if isinstance(out, EagerTensor) else out.name


def _symbolic_and_c_agree(a, other):
    for name in NAMES:
        want = _outcome(lambda: getattr(tx.Tensor, name)(a, other))
        assert _outcome(lambda: getattr(a, name)(other)) == want, name


def test_inside_a_graph_eager_operands_take_the_symbolic_operator():
    a = tx.constant([1.0, 2.0])
    with tx.Graph().as_default() as g:
        t = tx.constant([3.0, 4.0])
        _symbolic_and_c_agree(a, 2.0)
        _symbolic_and_c_agree(a, t)
        with pytest.raises(TypeError, match="Attempting to capture an EagerTensor"):
            a + t
        out = t * 2.0
        assert out.graph is g and tx.Session().run(out).tolist() == [6.0, 8.0]
    assert isinstance(a + a, EagerTensor)


def test_traced_functions_capture_eager_operands():
    c = tx.constant([10.0, 20.0])

    @tx.function
    def f(x):
        return c + x, x * c, 1.0 - c

    s, p, d = f(tx.constant([1.0, 2.0]))
    assert s.numpy().tolist() == [11.0, 22.0] and p.numpy().tolist() == [10.0, 40.0]
    assert d.numpy().tolist() == [-9.0, -19.0]


def test_with_eager_disabled_eager_tensors_take_the_symbolic_operator():
    a = tx.constant([1.0, 2.0])
    tx.compat.v1.disable_eager_execution()
    try:
        _symbolic_and_c_agree(a, 2.0)
        with pytest.raises(TypeError, match="Attempting to capture an EagerTensor"):
            a * 2.0
        with tx.Graph().as_default(), context.eager_scope():  # forced eager (py_function bodies): the C path
            assert (a * 2.0).numpy().tolist() == [2.0, 4.0]
    finally:
        tx.compat.v1.enable_eager_execution()
    assert (a * 2.0).numpy().tolist() == [2.0, 4.0]


def test_the_thread_state_is_read_per_thread():
    a = tx.constant([1.0])
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def in_graph():
        with tx.Graph().as_default():
            entered.set()
            release.wait(30)
            seen["graph"] = type(tx.constant([2.0]) * 2.0)

    t = threading.Thread(target=in_graph)
    t.start()
    assert entered.wait(30)
    try:
        assert type(a + a) is EagerTensor  # this thread builds no graph
    finally:
        release.set()
        t.join()
    assert seen["graph"] is not EagerTensor


def test_device_scopes_and_tapes_see_the_c_operators():
    x = tx.constant([3.0, 4.0])
    with tx.device("/cpu:0"):
        assert (x + x).device.endswith("CPU:0")
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = x * x - x + 1.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [5.0, 7.0])


def test_errors_name_the_op_and_leave_the_context_usable():
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Incompatible shapes.*\[Op:Mul\]"):
        tx.constant([1.0, 2.0]) * tx.constant([1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        tx.constant([1]) + 1.5
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"int32.*\[Op:Sub\]"):  # as TensorFlow eager
        tx.constant([1.0]) - tx.constant([1])
    with pytest.raises(TypeError, match=r"\(self, other\)"):
        EagerTensor.__add__(tx.constant(1.0))
    with pytest.raises(TypeError, match=r"\(self, other\)"):
        EagerTensor.__mul__(tx.constant(1.0), tx.constant(1.0), other=2)
    with pytest.raises(TypeError, match="Cannot convert None"):  # not a tensor: the symbolic operator says so
        EagerTensor.__add__(None, 1.0)
    assert (tx.constant(2.0) - 3.0).numpy() == -1.0


def test_generated_wrappers_run_now_or_build_nodes_by_the_same_rule():
    assert op_def_library.apply_op is lib.c.apply_op
    x = tx.constant([1.0, -2.0])
    assert type(gen_ops.neg(x)) is EagerTensor and gen_ops.neg(x).numpy().tolist() == [-1.0, 2.0]
    with tx.Graph().as_default() as g:
        node = gen_ops.neg(tx.constant([3.0]), name="n")
        assert node.graph is g and node.op.name == "n" and node.op.type == "Neg"
        with context.eager_scope():
            assert type(gen_ops.neg(x)) is EagerTensor
    tx.compat.v1.disable_eager_execution()
    try:
        assert type(gen_ops.neg(tx.constant([3.0]))) is not EagerTensor  # the default graph
        with context.eager_scope():
            assert gen_ops.neg(x).numpy().tolist() == [-1.0, 2.0]
    finally:
        tx.compat.v1.enable_eager_execution()
    with pytest.raises(TypeError, match=r"apply_op\(sig, name, args, attr_values\)"):
        lib.c.apply_op(gen_ops._NEG, None, (x,))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[Op:Neg\]"):
        gen_ops.neg(tx.constant(["s"]))
    assert gen_ops.neg(x).numpy().tolist() == [-1.0, 2.0]


def test_a_captured_eager_tensor_types_the_python_values_beside_it_as_in_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for T in (tx, tf):
        x = T.constant(2, T.int64)
        f = T.function(lambda y: (10 * x + y, y - 3 * x, x * 4))
        got = [(int(t), t.dtype.name) for t in f(T.constant(1, T.int64))]
        assert got == [(21, "int64"), (-5, "int64"), (8, "int64")], T.__name__
    # TensorFlow types a Python value before a tensor as int32 and refuses tf.add(5, x) in a graph;
    # here a tensor anywhere among the inputs types them (for graph tensors as for captured ones).
    x = tx.constant(2, tx.int64)
    assert int(tx.function(lambda: tx.add(5, x))()) == 7
    mixed = tx.function(lambda y: tx.add(y, tx.constant(2, tx.int64)))
    with pytest.raises(TypeError, match="does not match type float32"):
        mixed(tx.constant(1.0))
