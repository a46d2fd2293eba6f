"""Eager execution from Python: values at once, NumPy/DLPack interop, scalars, printing, the kernel
cache, devices, variables, and the errors of mixing modes."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorflux as tx
from tensorflux._src import lib

pytestmark = pytest.mark.eager


def test_executing_eagerly_by_default_and_not_in_a_graph():
    assert tx.executing_eagerly()
    with tx.Graph().as_default():
        assert not tx.executing_eagerly()
        assert isinstance(tx.constant(1.0), tx.Tensor)
    assert tx.executing_eagerly()


def test_ops_run_at_once():
    a = tx.constant([1.0, 2.0, 3.0, 4.0])
    b = tx.constant([10.0, 20.0, 30.0, 40.0])
    c = a + b
    np.testing.assert_array_equal(c.numpy(), [11, 22, 33, 44])
    assert c.dtype == tx.float32 and c.shape == tx.TensorShape([4]) and c.ndim == 1
    m = tx.matmul(tx.reshape(a, [2, 2]), tx.reshape(b, [2, 2]), transpose_b=True)
    np.testing.assert_allclose(m.numpy(), np.reshape([1, 2, 3, 4], [2, 2]) @ np.reshape([10, 20, 30, 40], [2, 2]).T)
    assert float(tx.reduce_sum(a)) == 10.0
    np.testing.assert_allclose(tx.nn.softmax(a).numpy().sum(), 1.0, rtol=1e-6)


def test_python_and_numpy_operands_follow_tensorflow_dtype_rules():
    a = tx.constant([1.0, 2.0])
    assert (a * 2).dtype == tx.float32  # the scalar takes the tensor's dtype
    assert (2 * a).numpy().tolist() == [2.0, 4.0]
    i = tx.constant([1, 2])
    assert i.dtype == tx.int32 and (i + 1).dtype == tx.int32
    assert tx.constant(np.arange(3, dtype=np.int64)).dtype == tx.int64
    assert (np.float32(3) * a).numpy().tolist() == [3.0, 6.0]
    with pytest.raises(TypeError):
        i + 1.5  # a float into an int32 op, as in TensorFlow


def test_multiple_and_list_outputs():
    x = tx.constant([[1.0, 2.0], [3.0, 4.0]])
    top = tx.math.top_k(tx.constant([3.0, 1.0, 2.0]), 2)
    assert top.values.numpy().tolist() == [3.0, 2.0] and top.indices.numpy().tolist() == [0, 2]
    parts = tx.unstack(x)
    assert len(parts) == 2 and parts[1].numpy().tolist() == [3.0, 4.0]
    halves = tx.split(x, 2, axis=1)
    assert [h.shape.as_list() for h in halves] == [[2, 1], [2, 1]]


def test_numpy_shares_memory_and_is_read_only():
    a = tx.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    n1, n2 = a.numpy(), a.numpy()
    assert np.shares_memory(n1, n2)
    assert not n1.flags.writeable
    with pytest.raises(ValueError):
        n1[0, 0] = 5
    np.testing.assert_array_equal(np.asarray(a), n1)
    assert np.array(a, dtype=np.float64).dtype == np.float64
    del a
    assert n1.sum() == 15  # the array keeps the value alive


def test_scalar_conversion_and_printing():
    s = tx.constant(3.5)
    assert float(s) == 3.5 and int(s) == 3 and bool(s)
    assert int(tx.constant(7)) == 7 and [0, 1, 2, 3][tx.constant(2)] == 2
    assert "3.5" in repr(s) and "shape=()" in repr(s) and "float32" in repr(s)
    assert str(tx.constant([1, 2])) == "tx.Tensor([1 2], shape=(2,), dtype=int32)"
    assert f"{s:.2f}" == "3.50"
    v = tx.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="single element"):
        float(v)
    with pytest.raises(TypeError, match="integer"):
        [1, 2][tx.constant(1.0)]
    assert len(v) == 2 and [float(t) for t in v] == [1.0, 2.0]
    with pytest.raises(TypeError):
        len(s)


def test_equality_is_elementwise_and_tensors_are_unhashable():
    a = tx.constant([1, 2, 3])
    assert (a == tx.constant([1, 0, 3])).numpy().tolist() == [True, False, True]
    with pytest.raises(TypeError):
        hash(a)
    d = {a.ref(): "a"}
    assert d[a.ref()] == "a" and a.ref().deref() is a


def test_indexing():
    x = tx.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_array_equal(x[1].numpy(), [4, 5, 6, 7])
    np.testing.assert_array_equal(x[:, ::2].numpy(), np.arange(12).reshape(3, 4)[:, ::2])
    np.testing.assert_array_equal(x[tx.constant(2)].numpy(), [8, 9, 10, 11])


def test_dlpack_interop_with_numpy_torch_and_jax():
    a = tx.constant(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(np.from_dlpack(a), [0, 1, 2, 3])
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(torch.from_dlpack(a).numpy(), [0, 1, 2, 3])
    back = tx.constant(torch.arange(3, dtype=torch.float32).numpy())
    assert back.numpy().tolist() == [0.0, 1.0, 2.0]


def test_experimental_dlpack_module():
    a = tx.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    back = tx.experimental.dlpack.from_dlpack(tx.experimental.dlpack.to_dlpack(a))
    np.testing.assert_array_equal(back.numpy(), a.numpy())
    assert tx.experimental.dlpack.from_dlpack(np.arange(3, dtype=np.int64)).dtype == tx.int64
    torch = pytest.importorskip("torch")
    t = tx.experimental.dlpack.from_dlpack(torch.arange(4, dtype=torch.float64))
    assert t.dtype == tx.float64 and t.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    jnp = pytest.importorskip("jax.numpy")
    j = jnp.asarray(np.asarray(tx.constant([1.0, 2.0])))
    assert tx.experimental.dlpack.from_dlpack(j).numpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError):
        tx.experimental.dlpack.to_dlpack(np.ones(2))


def test_kernel_cache_reuses_kernels_per_signature():
    lib.c.eager_clear_caches()
    a = tx.constant([1.0, 2.0])
    a * a  # noqa: B018 - warm: the signature's kernel is now cached
    n = lib.c.eager_num_cached_kernels()
    for _ in range(10):
        a * a  # noqa: B018
    assert lib.c.eager_num_cached_kernels() == n
    tx.constant([1, 2]) * tx.constant([3, 4])  # another dtype: another kernel
    assert lib.c.eager_num_cached_kernels() == n + 1
    for v in range(5):
        tx.constant(float(v))  # constants never fill the cache
    assert lib.c.eager_num_cached_kernels() == n + 1


def test_errors_name_the_op_and_the_context_stays_usable():
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"Incompatible shapes.*\[Op:AddV2\]"):
        tx.constant([1.0, 2.0]) + tx.constant([1.0, 2.0, 3.0])
    with pytest.raises(tx.errors.InvalidArgumentError, match="AddV2"):
        tx.math.add(tx.constant([1.0]), tx.constant([1]))
    with pytest.raises(tx.errors.InvalidArgumentError, match=r"\[Op:MatMul\]"):
        tx.matmul(tx.ones([2, 3]), tx.ones([2, 3]))
    assert (tx.constant(2.0) * 3.0).numpy() == 6.0


def test_mixing_graph_and_eager_tensors_is_an_error():
    e = tx.constant([1.0])
    g = tx.Graph()
    with g.as_default():
        t = tx.constant([2.0])
        with pytest.raises(TypeError, match="EagerTensor"):
            tx.math.add(t, e)
    with pytest.raises(TypeError, match="graph tensor"):
        tx.math.add(e, t)
    with pytest.raises(RuntimeError, match="eager execution"):
        tx.placeholder(tx.float32)
    with g.as_default():
        assert tx.Session().run(t + 1.0).tolist() == [3.0]


def test_variables_in_eager_mode():
    v = tx.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.dtype == tx.float32 and v.shape == tx.TensorShape([2])
    np.testing.assert_array_equal(v.numpy(), [1, 2])
    np.testing.assert_array_equal((v * 2).numpy(), [2, 4])
    np.testing.assert_array_equal(tx.math.add(v, 1.0).numpy(), [2, 3])
    v.assign_add([1.0, 1.0])
    v.assign_sub(tx.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.read_value().numpy(), [1.5, 2.5])
    assert v.assign([0.0, 0.0], read_value=False) is None
    assert "numpy=array([0., 0.]" in repr(v)
    with pytest.raises(ValueError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="int32"):
        v.assign(tx.constant([1, 2]))  # an int32 tensor into a float32 variable
    np.testing.assert_array_equal(v.numpy(), [0, 0])  # nothing overwritten
    w = tx.Variable(tx.initializers.glorot_uniform(seed=1)([3, 2]))
    assert w.shape == tx.TensorShape([3, 2])
    assert tx.global_variables() == []  # eager variables live with their Python objects


def test_control_dependencies_and_name_scope_are_harmless_in_eager_mode():
    a = tx.constant(1.0)
    with tx.control_dependencies([a]), tx.name_scope("scope"):
        assert float(a + 1.0) == 2.0


def test_devices_and_placement_policy_in_a_fresh_process():
    code = textwrap.dedent("""
        import tensorflux as tx
        from tensorflux._src import context
        context.configure(num_cpu_devices=2, placement_policy=context.DEVICE_PLACEMENT_EXPLICIT)
        print(len(context.list_devices()))
        with tx.device("/cpu:1"):
            a = tx.constant([1.0, 2.0]) + 1.0
        print(a.device.endswith("CPU:1"))
        b = tx.constant([1.0, 2.0])
        try:
            a + b
        except tx.errors.InvalidArgumentError as e:
            print("conflicting devices" in str(e))
        with tx.device("/cpu:1"):
            print(float(tx.reduce_sum(a)))
        with tx.device("/gpu:0"):  # soft placement (the default): runs where its inputs are
            print((a + a).device.endswith("CPU:1"))
        context.set_soft_device_placement(False)
        try:
            with tx.device("/gpu:0"):
                a + a
        except tx.errors.InvalidArgumentError as e:
            print("GPU:0" in str(e) or "gpu:0" in str(e))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["2", "True", "True", "5.0", "True", "True"]
