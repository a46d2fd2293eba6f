"""Products with one row or one column run on gemv (Note [Matrix-vector products] in
csrc/tensorflux/kernels/cpu/blas.cc): every transpose combination, both float dtypes, an empty sum,
sizes large enough for the thread split, and the batched and convolution paths that share it, all
against float64 NumPy."""

import itertools

import numpy as np
import pytest

import tensorflux as tx

pytestmark = pytest.mark.eager
RNG = np.random.default_rng(11)
SHAPES = [(1, 7, 5), (5, 7, 1), (1, 1, 1), (1, 0, 4), (3, 0, 1), (1, 300, 3000), (2000, 600, 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("ta,tb", list(itertools.product((False, True), repeat=2)))
def test_matrix_vector_products(dtype, m, k, n, ta, tb):
    a = RNG.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = RNG.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    got = tx.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy()
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert got.dtype == dtype and got.shape == (m, n)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(k, 1) ** 0.5)


@pytest.mark.parametrize("m,n", [(1, 32), (32, 1)])
def test_batched_matrix_vector_products(m, n):
    a = RNG.standard_normal((3, m, 64)).astype(np.float32)
    b = RNG.standard_normal((3, 64, n)).astype(np.float32)
    np.testing.assert_allclose(tx.linalg.matmul(a, b).numpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_convolution_with_one_output_channel():
    x = RNG.standard_normal((2, 9, 9, 3)).astype(np.float32)
    w = RNG.standard_normal((1, 1, 3, 1)).astype(np.float32)
    got = tx.nn.conv2d(x, w, 1, "VALID").numpy()
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.reshape(3, 1).astype(np.float64), rtol=1e-5, atol=1e-5)
