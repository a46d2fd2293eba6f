"""tx.load_op_library and the plugin ABI from Python: the test plugin's ops (csrc/tests/plugin/
test_plugin.c) in graph mode, eagerly, in tx.function, under GradientTape and tx.gradients, and
every refused load, with the process and session usable afterwards."""

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import lib
from tensorflux.proto import op_def_pb2

from plugin_util import build_plugin

PLUGIN_OPS = {"PluginAccumulate", "PluginBytesIdentity", "PluginFaulty", "PluginRepeat", "PluginScaledSquare"}


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory):
    return build_plugin("test_plugin.c", tmp_path_factory.mktemp("plugin"))


@pytest.fixture(scope="module")
def ops(plugin_path):
    return tx.load_op_library(plugin_path)


def test_load_returns_a_module_of_generated_wrappers(ops, plugin_path):
    assert {op.name for op in ops.OP_LIST.op} == PLUGIN_OPS
    assert ops.OP_WRAPPERS["PluginScaledSquare"] == "plugin_scaled_square"
    assert ops.plugin_scaled_square.__doc__.startswith("Returns scale * x * x elementwise.")
    assert ops.plugin_bytes_identity.__doc__.startswith("Returns x itself.")  # the OpDef given as bytes
    registered = {op.name for op in op_def_pb2.OpList.FromString(lib.c.get_all_op_list()).op}
    assert PLUGIN_OPS <= registered
    assert tx.load_op_library(plugin_path) is ops  # loading again: the same module, no second init


@pytest.mark.eager
def test_eager_values_and_attr_defaults(ops):
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(ops.plugin_scaled_square(x).numpy(), x * x)
    np.testing.assert_array_equal(ops.plugin_scaled_square(x, scale=0.5).numpy(), 0.5 * x * x)
    xd = np.linspace(-3, 3, 100_000)  # large enough to split over the intra-op pool
    np.testing.assert_allclose(ops.plugin_scaled_square(xd, scale=2.0).numpy(), 2 * xd * xd, rtol=1e-15)
    np.testing.assert_array_equal(ops.plugin_repeat([1, 2], 3).numpy(), [1, 2, 1, 2, 1, 2])
    assert ops.plugin_repeat(np.array([1.5], np.float64), 2).dtype == tx.float64
    np.testing.assert_array_equal(ops.plugin_bytes_identity(x).numpy(), x)
    with pytest.raises(tx.errors.InvalidArgumentError, match="attr 'T' of DT_INT32 is not in the list of allowed"):
        ops.plugin_scaled_square(np.array([1, 2], np.int32))  # T is {float, double}


def test_graph_mode_static_shapes_and_session(ops):
    x = tx.placeholder(tx.float32, [None, 4])
    y = ops.plugin_scaled_square(x, scale=3.0)
    assert y.shape.as_list() == [None, 4]
    r = ops.plugin_repeat(tx.constant([1.0, 2.0]), tx.constant(3))
    assert r.shape.as_list() == [6]  # the shape function read the constant count
    feed = np.arange(8, dtype=np.float32).reshape(2, 4)
    with tx.Session() as s:
        got, rep = s.run([y, r], {x: feed})
    np.testing.assert_array_equal(got, 3 * feed * feed)
    np.testing.assert_array_equal(rep, [1, 2, 1, 2, 1, 2])


def test_graph_gradients_match_the_derivative(ops):
    x = tx.constant([0.5, -1.0, 2.0], tx.float64)
    y = ops.plugin_scaled_square(x, scale=1.5)
    w = tx.constant(np.arange(6.0))
    r = ops.plugin_repeat(x, 2)
    dx, dr = tx.gradients(tx.reduce_sum(y), x)[0], tx.gradients(tx.reduce_sum(r * w), x)[0]
    with tx.Session() as s:
        gx, gr = s.run([dx, dr])
    np.testing.assert_allclose(gx, 3.0 * np.array([0.5, -1.0, 2.0]))
    np.testing.assert_allclose(gr, [0 + 3, 1 + 4, 2 + 5])


@pytest.mark.eager
def test_gradient_tape_first_and_second_order_and_finite_differences(ops):
    x = tx.constant([0.3, -1.2, 2.5], tx.float64)
    with tx.GradientTape() as outer:
        outer.watch(x)
        with tx.GradientTape() as inner:
            inner.watch(x)
            y = tx.reduce_sum(ops.plugin_scaled_square(x, scale=2.0))
        g = inner.gradient(y, x)
    h = outer.gradient(g, x)
    np.testing.assert_allclose(g.numpy(), 4 * x.numpy())
    np.testing.assert_allclose(h.numpy(), [4.0, 4.0, 4.0])  # the gradient's ops are differentiable too
    eps = 1e-6
    f = lambda v: np.sum(ops.plugin_scaled_square(v, scale=2.0).numpy())  # noqa: E731
    fd = [(f(x.numpy() + eps * e) - f(x.numpy() - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(g.numpy(), fd, rtol=1e-6)


@pytest.mark.eager
def test_tx_function_traces_plugin_ops_and_their_gradients(ops):
    @tx.function
    def f(x):
        with tx.GradientTape() as tape:
            tape.watch(x)
            y = tx.reduce_sum(ops.plugin_scaled_square(ops.plugin_repeat(x, 2), scale=0.5))
        return y, tape.gradient(y, x)

    x = tx.constant([1.0, 2.0, -4.0])
    y, g = f(x)
    np.testing.assert_allclose(y.numpy(), 2 * 0.5 * np.sum(x.numpy() ** 2))
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())  # two copies of each element, d(0.5 x^2) = x


@pytest.mark.eager
def test_variable_update_in_place_eager_and_graph(ops):
    v = tx.Variable([1.0, 2.0])
    ops.plugin_accumulate(v.handle, tx.constant([10.0, 20.0]))
    ops.plugin_accumulate(v.handle, tx.constant([10.0, 20.0]))
    np.testing.assert_array_equal(v.numpy(), [21.0, 42.0])
    with tx.Graph().as_default():
        w = tx.Variable(tx.constant([1.0], tx.float64))
        acc = ops.plugin_accumulate(w.handle, tx.constant([0.5], tx.float64))
        with tx.Session() as s:
            with pytest.raises(tx.errors.FailedPreconditionError, match="Error while reading resource variable"):
                s.run(acc)  # not initialized yet
            s.run(tx.global_variables_initializer())
            s.run(acc)
            s.run(acc)
            np.testing.assert_array_equal(s.run(w.value()), [2.0])


@pytest.mark.eager
def test_kernel_errors_eager_leave_the_context_usable(ops):
    x = tx.constant([1.0, 2.0, 3.0])
    with pytest.raises(tx.errors.OutOfRangeError, match="PluginFaulty was asked to fail"):
        ops.plugin_faulty(x, mode="status")
    with pytest.raises(tx.errors.InternalError,
                       match=r"produced output 0 of shape \[4\], but the op's shape function gives \[3\]"):
        ops.plugin_faulty(x, mode="wrong_shape")
    with pytest.raises(tx.errors.InternalError, match="set no value for output 0"):
        ops.plugin_faulty(x, mode="no_output")
    with pytest.raises(tx.errors.InvalidArgumentError, match="PluginFaulty was asked to fail shape inference"):
        ops.plugin_faulty(x, mode="shape_error")
    with pytest.raises(tx.errors.InvalidArgumentError, match="PluginRepeat needs count >= 0"):
        ops.plugin_repeat(x, -1)
    np.testing.assert_array_equal(ops.plugin_faulty(x).numpy(), [1.0, 2.0, 3.0])


def test_kernel_and_shape_errors_in_graph_mode_name_the_node(ops):
    x = tx.constant([1.0, 2.0, 3.0])
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[bad\] PluginFaulty was asked to fail shape"):
        ops.plugin_faulty(x, mode="shape_error", name="bad")
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[rank2\] PluginRepeat needs a 1-D x, got rank 2"):
        ops.plugin_repeat(tx.ones([2, 2]), 2, name="rank2")
    wrong = ops.plugin_faulty(x, mode="wrong_shape", name="wrong")
    fine = ops.plugin_faulty(x)
    with tx.Session() as s:
        with pytest.raises(tx.errors.InternalError, match=r"\[wrong\] the PluginFaulty kernel of plugin"):
            s.run(wrong)
        np.testing.assert_array_equal(s.run(fine), [1.0, 2.0, 3.0])  # the session survives
    # Declared not differentiable: gradients stop there (no "no gradient defined" error).
    assert tx.gradients(tx.reduce_sum(ops.plugin_faulty(x)), x) == [None]


@pytest.mark.parametrize("defines,error,message", [
    (["TX_BAD_PLUGIN_NOT_A_PLUGIN"], tx.errors.InvalidArgumentError,
     "is not a Tensorflux plugin: it does not export TX_PluginAbiVersion"),
    (["TX_BAD_PLUGIN_ABI=TX_PLUGIN_MAKE_ABI_VERSION(1,1)"], tx.errors.FailedPreconditionError,
     r"needs plugin ABI 1\.1, newer than this core's 1\.0"),
    (["TX_BAD_PLUGIN_ABI=TX_PLUGIN_MAKE_ABI_VERSION(2,0)"], tx.errors.FailedPreconditionError,
     r"built for plugin ABI 2\.0, but this core serves ABI 1\.0"),
    (["TX_BAD_PLUGIN_DUPLICATE"], tx.errors.AlreadyExistsError, "op 'MatMul' is already registered"),
    (["TX_BAD_PLUGIN_FAILING_INIT"], tx.errors.InternalError, "TX_InitPlugin failed: this plugin fails on purpose"),
    (["TX_BAD_PLUGIN_KERNEL_NO_OP"], tx.errors.NotFoundError, "'NoSuchOpAnywhere', which is not registered"),
    (["TX_BAD_PLUGIN_DUPLICATE_KERNEL"], tx.errors.AlreadyExistsError, "a CPU kernel for op 'MatMul' with these"),
], ids=["not_a_plugin", "abi_minor_too_new", "abi_major_too_new", "duplicate_op", "failing_init", "kernel_no_op",
        "duplicate_kernel"])
@pytest.mark.eager
def test_refused_plugins_register_nothing(tmp_path, defines, error, message):
    path = build_plugin("bad_plugin.c", tmp_path, defines=defines)
    with pytest.raises(error, match=message):
        tx.load_op_library(path)
    registered = {op.name for op in op_def_pb2.OpList.FromString(lib.c.get_all_op_list()).op}
    assert "PluginOnlyHere" not in registered
    assert float(tx.reduce_sum(tx.constant([1.0, 2.0]))) == 3.0  # the engine is fine


def test_files_that_are_not_libraries(tmp_path):
    text = tmp_path / "notes.so"
    text.write_text("not an ELF file")
    with pytest.raises(tx.errors.InvalidArgumentError, match="not a loadable shared library"):
        tx.load_op_library(str(text))
    with pytest.raises(tx.errors.NotFoundError, match="no such file"):
        tx.load_op_library(str(tmp_path / "missing.so"))
