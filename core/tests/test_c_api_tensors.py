"""tx.experimental.c_api: eager tensors to and from the C API's TX_Tensor, for native code loaded
beside Python (the tensorflux-data engine hands its elements over this way)."""

import ctypes
import os

import numpy as np
import pytest

import tensorflux as tx
from tensorflux.experimental import c_api

pytestmark = pytest.mark.eager


@pytest.fixture(scope="module")
def lib():
    lib = ctypes.CDLL(os.path.join(tx.sysconfig.get_lib(), "libtensorflux.so"))
    lib.TX_AllocateTensor.restype = ctypes.c_void_p
    lib.TX_AllocateTensor.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.c_size_t]
    lib.TX_TensorData.restype = ctypes.c_void_p
    lib.TX_TensorData.argtypes = [ctypes.c_void_p]
    lib.TX_NumDims.argtypes = [ctypes.c_void_p]
    lib.TX_DeleteTensor.argtypes = [ctypes.c_void_p]
    return lib


@pytest.mark.parametrize("value", [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([True, False]),
                                   np.int64(-7), np.array([b"a", b"", b"xyz" * 20], object)])
def test_a_tensor_round_trips_through_its_c_form(value):
    t = tx.constant(value)
    back = c_api.from_c_tensor(c_api.to_c_tensor(t))
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_a_tensor_made_in_c_becomes_an_eager_tensor_without_a_copy(lib):
    dims = (ctypes.c_int64 * 2)(2, 2)
    address = lib.TX_AllocateTensor(tx.float64.as_datatype_enum, dims, 2, 32)
    ctypes.memmove(lib.TX_TensorData(address), np.array([1.0, 2.0, 3.0, 4.0]).tobytes(), 32)
    t = c_api.from_c_tensor(address)
    assert t.shape == (2, 2) and t.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert (t * 2).numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_the_c_form_is_the_callers_to_read_and_delete(lib):
    address = c_api.to_c_tensor(tx.constant([[1, 2, 3]], tx.int32))
    assert lib.TX_NumDims(address) == 2
    assert np.frombuffer(ctypes.string_at(lib.TX_TensorData(address), 12), np.int32).tolist() == [1, 2, 3]
    lib.TX_DeleteTensor(address)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="must not be 0"):
        c_api.from_c_tensor(0)
    with pytest.raises(TypeError, match="eager tensor"):
        c_api.to_c_tensor(np.ones(2))
