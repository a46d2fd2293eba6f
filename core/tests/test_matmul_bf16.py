"""bfloat16 MatMul and BatchMatMulV2 (Note [16-bit GEMM] in csrc/tensorflux/kernels/cpu/matmul.cc;
on CPUs with AVX512_BF16 they run on Bgemm, Note [bf16 GEMM]): float32 sums rounded once to
bfloat16, so within half a bfloat16 ulp (plus float32 summation error) of float64 NumPy on the same
bfloat16 values, and within one bfloat16 ulp of TensorFlow's tf.matmul. Shapes cover one row,
sizes around the 14 x 32 tile, odd K, every transpose, broadcast batches and an empty sum."""

import ml_dtypes
import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager
BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(31)

SHAPES = [(1, 1, 1), (1, 300, 7), (2, 33, 1024), (13, 257, 33), (14, 31, 32), (15, 64, 65), (64, 129, 300),
          (100, 1001, 40), (200, 128, 96),
          # Bgemm's few-row (m <= 8) and narrow (n <= 16) kernels (Note [bf16 GEMM])
          (8, 515, 300), (5, 64, 1030), (128, 512, 10), (300, 17, 16), (9, 1001, 3)]


def _bf16(shape):
    return RNG.standard_normal(shape).astype(np.float32).astype(BF16)


def _operands(m, k, n, ta, tb, batch=()):
    a = _bf16((*batch, k, m) if ta else (*batch, m, k))
    b = _bf16((*batch, n, k) if tb else (*batch, k, n))
    return a, b


def _reference(a, b, ta, tb):
    """float64 op(a) @ op(b) of the bfloat16 values and the sum of the magnitudes of the products."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    a64 = np.swapaxes(a64, -1, -2) if ta else a64
    b64 = np.swapaxes(b64, -1, -2) if tb else b64
    return a64 @ b64, np.abs(a64) @ np.abs(b64)


def _check_numpy(got, a, b, ta, tb):
    want, mag = _reference(a, b, ta, tb)
    k = a.shape[-2] if ta else a.shape[-1]
    assert got.dtype == BF16 and got.shape == want.shape
    # Half a bfloat16 ulp (at most 2^-8 of the value) of the rounding, and float32 sums' error.
    tol = 2.0**-8 * np.abs(want) + (k + 4) * 2.0**-23 * mag
    assert np.all(np.abs(got.astype(np.float64) - want) <= tol)


def _ulp(x):
    """One bfloat16 ulp at |x| (x float64; 0 where x is 0)."""
    _, e = np.frexp(x)
    return np.where(x == 0, 0.0, np.ldexp(1.0, e - 8))


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_matmul_bf16_matches_float64(m, k, n, ta, tb):
    a, b = _operands(m, k, n, ta, tb)
    got = tx.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy()
    _check_numpy(got, a, b, ta, tb)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)])
@pytest.mark.parametrize("m,k,n", [(1, 65, 9), (14, 33, 32), (40, 70, 50)])
def test_batch_matmul_bf16_matches_float64(m, k, n, ta, tb):
    a, b = _operands(m, k, n, ta, tb, batch=(3, 2))
    got = tx.linalg.matmul(a, b, adjoint_a=ta, adjoint_b=tb).numpy()
    _check_numpy(got, a, b, ta, tb)
    # Broadcast batch dims: one matrix of a against 4 of b.
    a1, b4 = _operands(m, k, n, ta, tb, batch=(1,))[0], _operands(m, k, n, ta, tb, batch=(4,))[1]
    got = tx.linalg.matmul(a1, b4, adjoint_a=ta, adjoint_b=tb).numpy()
    _check_numpy(got, np.broadcast_to(a1, (4, *a1.shape[1:])), b4, ta, tb)


def test_matmul_bf16_empty_sum_is_zero():
    got = tx.linalg.matmul(np.zeros((3, 0), BF16), np.zeros((0, 5), BF16)).numpy()
    assert got.dtype == BF16 and np.all(got.astype(np.float32) == 0) and got.shape == (3, 5)


def _check_tensorflow(ours, theirs, a, b, ta, tb):
    """ours within one bfloat16 ulp of TensorFlow's result, where cancellation leaves float32 sums
    (each summed in its own order) no further apart than that."""
    _, mag = _reference(a, b, ta, tb)
    k = a.shape[-2] if ta else a.shape[-1]
    diff, ulp = np.abs(ours - theirs), _ulp(np.maximum(np.abs(ours), np.abs(theirs)))
    bad = diff > ulp + 2 * (k + 4) * 2.0**-23 * mag
    assert not bad.any(), (ours[bad][:4], theirs[bad][:4], mag[bad][:4])
    # Beyond one ulp only where float32 summation error could reach it.
    assert np.mean(diff <= ulp) > 0.999


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", [(1, 300, 7), (13, 257, 33), (64, 129, 300), (100, 1001, 40)])
def test_matmul_bf16_matches_tensorflow(m, k, n, ta, tb):
    tf = pytest.importorskip("tensorflow")
    a, b = _operands(m, k, n, ta, tb)
    ours = tx.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy().astype(np.float64)
    theirs = tf.matmul(tf.constant(a), tf.constant(b), transpose_a=ta, transpose_b=tb).numpy().astype(np.float64)
    _check_tensorflow(ours, theirs, a, b, ta, tb)
    # Batched, through BatchMatMulV2 on both sides.
    a, b = _operands(m, k, n, ta, tb, batch=(2,))
    ours = tx.linalg.matmul(a, b, adjoint_a=ta, adjoint_b=tb).numpy().astype(np.float64)
    theirs = tf.linalg.matmul(tf.constant(a), tf.constant(b), adjoint_a=ta, adjoint_b=tb).numpy().astype(np.float64)
    _check_tensorflow(ours, theirs, a, b, ta, tb)
