"""tx.config: devices, thread settings and run_functions_eagerly, against tf.config."""

import subprocess
import sys

import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager


def test_devices():
    cpus = tx.config.list_physical_devices("CPU")
    assert cpus == [tx.config.PhysicalDevice("/physical_device:CPU:0", "CPU")]
    assert tx.config.list_physical_devices() == cpus
    assert tx.config.list_physical_devices("GPU") == []
    assert tx.config.list_physical_devices("cpu") == []  # device types are case-sensitive, as TensorFlow's
    assert tx.config.get_visible_devices() == cpus
    assert tx.config.get_visible_devices("GPU") == []
    logical = tx.config.list_logical_devices()
    assert logical[0] == tx.config.LogicalDevice("/device:CPU:0", "CPU")
    assert tx.config.list_logical_devices("GPU") == []


def test_set_visible_devices():
    tx.config.set_visible_devices([], "GPU")  # no GPU: hiding none is fine, as on TensorFlow
    tx.config.set_visible_devices(tx.config.list_physical_devices("CPU"))  # unchanged: allowed after start
    with pytest.raises(ValueError, match="CPU device cannot be made invisible"):
        tx.config.set_visible_devices([])
    with pytest.raises(ValueError, match="Unrecognized device"):
        tx.config.set_visible_devices([tx.config.PhysicalDevice("/physical_device:GPU:0", "GPU")])


_SCRIPT = """
import tensorflux as tx
assert tx.config.threading.get_intra_op_parallelism_threads() == 0
tx.config.threading.set_intra_op_parallelism_threads(1)
tx.config.threading.set_inter_op_parallelism_threads(2)
assert tx.config.threading.get_intra_op_parallelism_threads() == 1
assert tx.config.threading.get_inter_op_parallelism_threads() == 2
assert float(tx.reduce_sum(tx.ones([1000])).numpy()) == 1000.0
tx.config.threading.set_intra_op_parallelism_threads(1)  # unchanged: fine
try:
    tx.config.threading.set_intra_op_parallelism_threads(2)
except RuntimeError as e:
    assert "Intra op parallelism cannot be modified after initialization" in str(e), e
else:
    raise AssertionError("no RuntimeError")
try:
    tx.config.threading.set_inter_op_parallelism_threads(-1)
except ValueError:
    pass
else:
    raise AssertionError("no ValueError")
print("ok")
"""


def test_threading_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_soft_device_placement():
    assert tx.config.get_soft_device_placement() is True
    a = tx.constant(1.0)
    with tx.device("/GPU:0"):
        assert float(tx.add(a, a)) == 2.0  # no GPU: runs on the CPU
    try:
        tx.config.set_soft_device_placement(False)
        assert tx.config.get_soft_device_placement() is False
        with pytest.raises(tx.errors.InvalidArgumentError, match="GPU"):
            with tx.device("/GPU:0"):
                tx.add(a, a)
    finally:
        tx.config.set_soft_device_placement(True)


def test_run_functions_eagerly():
    traced = []

    @tx.function
    def f(x):
        traced.append(tx.executing_eagerly())
        return x * 2

    assert not tx.config.functions_run_eagerly()
    try:
        tx.config.run_functions_eagerly(True)
        assert tx.config.functions_run_eagerly()
        assert f(tx.constant(2.0)).numpy() == 4.0
        assert traced == [True]  # the Python function ran eagerly
        assert f.experimental_get_tracing_count() == 0
    finally:
        tx.config.run_functions_eagerly(False)
    f(tx.constant(2.0))
    assert traced == [True, False] and f.experimental_get_tracing_count() == 1


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for kind in (None, "CPU", "GPU", "cpu", "TPU"):
        assert [tuple(d) for d in tx.config.list_physical_devices(kind)] == \
            [tuple(d) for d in tf.config.list_physical_devices(kind)]
        assert [tuple(d) for d in tx.config.get_visible_devices(kind)] == \
            [tuple(d) for d in tf.config.get_visible_devices(kind)]
    assert [tuple(d) for d in tx.config.list_logical_devices()] == [tuple(d) for d in tf.config.list_logical_devices()]
