"""Float products with 2 to 6 rows and neither operand transposed run on the engine's own GEMM
(Note [Routing float products] in csrc/tensorflux/kernels/cpu/blas.cc; Note [Own GEMM]): sizes
around its tiles and its passes of 4 rows (7 to 9 rows stay on OpenBLAS), an empty sum, one column,
columns split over the pool, batched products and the transposed neighbours that stay on OpenBLAS,
against float64 NumPy."""

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager
RNG = np.random.default_rng(23)


def _check(a, b, ta=False, tb=False):
    got = tx.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy()
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    k = a.shape[0] if ta else a.shape[-1]
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(k, 1) ** 0.5)


@pytest.mark.parametrize("m", [2, 3, 4, 5, 7, 8, 9])
@pytest.mark.parametrize("k,n", [(1, 1), (7, 5), (16, 16), (33, 17), (0, 6), (300, 1), (1024, 1024), (64, 4100)])
def test_few_rows(m, k, n):
    _check(RNG.standard_normal((m, k)).astype(np.float32), RNG.standard_normal((k, n)).astype(np.float32))


@pytest.mark.parametrize("ta,tb", [(True, False), (False, True), (True, True)])
def test_transposed_neighbours(ta, tb):
    a = RNG.standard_normal((129, 4) if ta else (4, 129)).astype(np.float32)
    b = RNG.standard_normal((65, 129) if tb else (129, 65)).astype(np.float32)
    _check(a, b, ta, tb)


def test_batched_few_rows():
    a = RNG.standard_normal((3, 4, 50)).astype(np.float32)
    b = RNG.standard_normal((3, 50, 70)).astype(np.float32)
    np.testing.assert_allclose(tx.linalg.matmul(a, b).numpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


def test_nonfinite_values_propagate():
    a = np.ones((3, 4), np.float32)
    a[1, 2] = np.nan
    b = np.ones((4, 5), np.float32)
    b[0, 3] = np.inf
    got = tx.linalg.matmul(a, b).numpy()
    want = a.astype(np.float64) @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isfinite(want)], want[np.isfinite(want)])
