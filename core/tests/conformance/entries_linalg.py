"""Conformance entries: the LAPACK-backed linear-algebra ops, the band/diagonal ops, Cross and Einsum."""

import numpy as np

from conformance.gen import FLOATS, rand
from conformance.harness import ErrorSample, OpEntry, Sample


def well_conditioned(shape, dt=np.float64, seed=0):
    """Random matrices plus n on the diagonal (invertible, moderate condition number)."""
    a = rand(shape, dt, -1, 1, seed)
    return (a + shape[-1] * np.eye(shape[-1])).astype(dt)


def spd(shape, dt=np.float64, seed=0):
    """Symmetric positive-definite matrices A A^T + n I."""
    a = rand(shape, np.float64, -1, 1, seed)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)


def symmetric(shape, dt=np.float64, seed=0):
    a = rand(shape, np.float64, -2, 2, seed)
    return ((a + np.swapaxes(a, -1, -2)) / 2).astype(dt)


def _tol(dt):
    return (2e-4, 2e-4) if np.dtype(dt) == np.float32 else (1e-9, 1e-9)


def _per_dtype(make, shapes, attrs=({},)):
    out = []
    for dt in FLOATS:
        rtol, atol = _tol(dt)
        for i, shape in enumerate(shapes):
            for at in attrs:
                inputs = make(shape, dt, i)
                out.append(Sample(inputs, dict(at), rtol=rtol, atol=atol, note=f"{np.dtype(dt).name} {shape} {at}"))
    return out


SQUARE_SHAPES = [(3, 3), (2, 4, 4), (2, 1, 2, 2), (0, 3, 3), (1, 1)]

# --- solvers and inverses -------------------------------------------------------------------------


def _solve_ref(matrix, rhs, adjoint=False):
    m = np.swapaxes(matrix, -1, -2) if adjoint else matrix
    return np.linalg.solve(m, rhs) if matrix.size else np.zeros(rhs.shape, rhs.dtype)


def _solve_samples():
    def make(shape, dt, i):
        return {"matrix": well_conditioned(shape, dt, i), "rhs": rand(shape[:-1] + (2,), dt, seed=i + 7)}
    return _per_dtype(make, SQUARE_SHAPES, ({}, {"adjoint": True}))


def _inv_ref(input, adjoint=False):  # noqa: A002
    m = np.swapaxes(input, -1, -2) if adjoint else input
    return np.linalg.inv(m) if input.size else input.copy()


def _inverse_samples():
    return _per_dtype(lambda s, dt, i: {"input": well_conditioned(s, dt, i)}, SQUARE_SHAPES, ({}, {"adjoint": True}))


def _det_samples():
    samples = _per_dtype(lambda s, dt, i: {"input": well_conditioned(s, dt, i) * 0.5}, SQUARE_SHAPES)
    samples.append(Sample({"input": np.ones((3, 3), np.float64)}, note="singular: det 0"))
    samples.append(Sample({"input": -np.eye(3, dtype=np.float64) * 2}, note="negative determinant"))
    return samples


def _slogdet_ref(input):  # noqa: A002
    sign, logdet = np.linalg.slogdet(input)
    return sign.astype(input.dtype), logdet.astype(input.dtype)


def _tri_ref(matrix, rhs, lower=True, adjoint=False):
    tri = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        tri = np.swapaxes(tri, -1, -2)
    batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    tri = np.broadcast_to(tri, batch + matrix.shape[-2:])
    rhs = np.broadcast_to(rhs, batch + rhs.shape[-2:])
    return np.linalg.solve(tri, rhs) if tri.size and rhs.size else np.zeros(batch + rhs.shape[-2:], rhs.dtype)


def _tri_samples():
    out = []
    for dt in FLOATS:
        rtol, atol = _tol(dt)
        for lower in (True, False):
            for adj in (False, True):
                out.append(Sample({"matrix": well_conditioned((2, 4, 4), dt, 1), "rhs": rand((2, 4, 3), dt, seed=2)},
                                  {"lower": lower, "adjoint": adj}, rtol=rtol, atol=atol,
                                  note=f"{np.dtype(dt).name} lower={lower} adjoint={adj}"))
        out.append(Sample({"matrix": well_conditioned((3, 3), dt, 3), "rhs": rand((2, 3, 1), dt, seed=4)},
                          rtol=rtol, atol=atol, note=f"{np.dtype(dt).name} broadcast matrix batch"))
        out.append(Sample({"matrix": well_conditioned((2, 1, 3, 3), dt, 3), "rhs": rand((4, 3, 2), dt, seed=4)},
                          rtol=rtol, atol=atol, note=f"{np.dtype(dt).name} broadcast both batches"))
    return out


# --- decompositions -------------------------------------------------------------------------------


def _lu_samples():
    out = _per_dtype(lambda s, dt, i: {"input": well_conditioned(s, dt, i)}, SQUARE_SHAPES)
    out.append(Sample({"input": np.array([[0.0, 1.0, 2.0], [3.0, 1.0, 0.0], [1.0, 5.0, 1.0]])},
                      {"output_idx_type": np.int64}, note="pivoting, int64 p"))
    return out


def _lu_check(outputs, sample):
    a = sample.inputs["input"]
    packed, p = outputs
    tol = 2e-4 if a.dtype == np.float32 else 1e-9
    n = a.shape[-1]
    lower = np.tril(packed, -1) + np.eye(n)
    upper = np.triu(packed)
    permuted = np.take_along_axis(a, p[..., :, None].astype(np.int64), axis=-2)
    np.testing.assert_allclose(lower @ upper, permuted, rtol=tol, atol=tol)
    assert p.dtype == np.dtype(sample.attrs.get("output_idx_type", np.int32))
    np.testing.assert_array_equal(np.sort(p, axis=-1), np.broadcast_to(np.arange(n), p.shape))


def _chol_samples():
    # Float32 only here: the kernel reads the lower triangle while the gradient is TensorFlow's
    # symmetric one, so finite differences per entry cannot check it (test_linalg.py does).
    samples = [Sample({"input": spd(s, np.float32, i)}, rtol=2e-4, atol=2e-4, note=f"float32 {s}")
               for i, s in enumerate(SQUARE_SHAPES)]
    upper_garbage = spd((4, 4), np.float32, 9) + np.triu(np.full((4, 4), 7.0, np.float32), 1)
    samples.append(Sample({"input": upper_garbage}, rtol=2e-4, atol=2e-4, note="upper triangle ignored",
                          cross_check=True))
    return samples


def _chol_ref(input):  # noqa: A002
    sym = np.tril(input) + np.swapaxes(np.tril(input, -1), -1, -2)
    return np.linalg.cholesky(sym).astype(input.dtype) if input.size else input.copy()


def _qr_samples():
    shapes = [(4, 3), (3, 3), (3, 5), (2, 5, 2), (0, 3, 2)]
    return _per_dtype(lambda s, dt, i: {"input": rand(s, dt, seed=i)}, shapes, ({}, {"full_matrices": True}))


def _qr_ref(input, full_matrices=False):  # noqa: A002
    mode = "complete" if full_matrices else "reduced"
    q, r = np.linalg.qr(input, mode=mode)
    return q.astype(input.dtype), r.astype(input.dtype)


def _svd_samples():
    shapes = [(4, 3), (3, 3), (2, 5), (2, 4, 3), (0, 3, 2), (3, 0)]
    return _per_dtype(lambda s, dt, i: {"input": rand(s, dt, seed=i)}, shapes,
                      ({}, {"full_matrices": True}, {"compute_uv": False}))


def _svd_check(outputs, sample):
    a = sample.inputs["input"]
    s, u, v = outputs
    tol = 2e-4 if a.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=tol, atol=tol)
    if not sample.attrs.get("compute_uv", True):
        assert u.shape == (0,) and v.shape == (0,)
        return
    p = min(a.shape[-2:])
    full = sample.attrs.get("full_matrices", False)
    assert u.shape == a.shape[:-1] + (a.shape[-2] if full else p,)
    assert v.shape == a.shape[:-2] + (a.shape[-1], a.shape[-1] if full else p)
    recon = (u[..., :, :p] * s[..., None, :]) @ np.swapaxes(v[..., :, :p], -1, -2)
    np.testing.assert_allclose(recon, a, rtol=tol * 10, atol=tol * 10)
    eye_u = np.swapaxes(u, -1, -2) @ u
    np.testing.assert_allclose(eye_u, np.broadcast_to(np.eye(u.shape[-1]), eye_u.shape), atol=tol * 10)


def _eig_samples():
    shapes = [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)]
    return _per_dtype(lambda s, dt, i: {"input": symmetric(s, dt, i)}, shapes, ({}, {"compute_v": False}))


def _eig_check(outputs, sample):
    a = sample.inputs["input"]
    e, v = outputs
    tol = 2e-4 if a.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(e, np.linalg.eigvalsh(a, UPLO="L"), rtol=tol, atol=tol)
    if not sample.attrs.get("compute_v", True):
        assert v.shape == (0,)
        return
    np.testing.assert_allclose(a @ v, v * e[..., None, :], rtol=tol * 10, atol=tol * 10)


def _lstsq_samples():
    out = []
    for dt in FLOATS:
        rtol, atol = (2e-3, 2e-3) if dt == np.float32 else (1e-8, 1e-8)
        for shape in [(5, 3), (3, 5), (2, 4, 4), (2, 6, 2)]:
            for l2 in (0.0, 0.5):
                out.append(Sample({"matrix": rand(shape, dt, seed=1), "rhs": rand(shape[:-1] + (2,), dt, seed=2),
                                   "l2_regularizer": np.float64(l2)}, rtol=rtol, atol=atol,
                                  note=f"{np.dtype(dt).name} {shape} l2={l2}"))
        out.append(Sample({"matrix": rand((5, 3), dt, seed=1), "rhs": rand((5, 2), dt, seed=2),
                           "l2_regularizer": np.float64(0.0)}, {"fast": False}, rtol=rtol, atol=atol,
                          note=f"{np.dtype(dt).name} fast=False"))
    return out


def _lstsq_ref(matrix, rhs, l2_regularizer, fast=True):
    a, b, lam = matrix.astype(np.float64), rhs.astype(np.float64), float(l2_regularizer)
    if not fast:
        return np.stack([np.linalg.lstsq(x, y, rcond=None)[0] for x, y in
                         zip(a.reshape((-1,) + a.shape[-2:]), b.reshape((-1,) + b.shape[-2:]))]).reshape(
                             a.shape[:-2] + (a.shape[-1], b.shape[-1])).astype(matrix.dtype)
    at = np.swapaxes(a, -1, -2)
    if a.shape[-2] >= a.shape[-1]:
        x = np.linalg.solve(at @ a + lam * np.eye(a.shape[-1]), at @ b)
    else:
        x = at @ np.linalg.solve(a @ at + lam * np.eye(a.shape[-2]), b)
    return x.astype(matrix.dtype)


# --- band, diagonals, cross -----------------------------------------------------------------------


def _band_ref(input, num_lower, num_upper):  # noqa: A002
    m, n = input.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((num_lower < 0) | (i - j <= num_lower)) & ((num_upper < 0) | (j - i <= num_upper))
    return np.where(keep, input, np.zeros_like(input))


def _band_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.bool_):
        x = rand((2, 4, 5), dt, seed=1)
        for lo, up in ((-1, 0), (0, -1), (1, 2), (0, 0), (-1, -1)):
            out.append(Sample({"input": x, "num_lower": np.int64(lo), "num_upper": np.int64(up)},
                              note=f"{np.dtype(dt).name} ({lo}, {up})"))
    out.append(Sample({"input": rand((3, 3)), "num_lower": np.int32(1), "num_upper": np.int32(0)}, note="int32 idx"))
    return out


def _diag_index(k):
    k = np.atleast_1d(k)
    return int(k[0]), int(k[-1])


def _aligned_offset(d, max_len, length, align):
    sup, sub = align.split("_")
    left = (sup == "LEFT") if d >= 0 else (sub == "LEFT")
    return 0 if left else max_len - length


def _diag_part_ref(input, k, padding_value, align="RIGHT_LEFT"):  # noqa: A002
    k0, k1 = _diag_index(k)
    m, n = input.shape[-2:]
    max_len = max(0, min(m + min(k1, 0), n - max(k0, 0)))
    out = np.full(input.shape[:-2] + (k1 - k0 + 1, max_len), padding_value, input.dtype)
    for d in range(k1, k0 - 1, -1):
        diag = np.diagonal(input, offset=d, axis1=-2, axis2=-1)
        off = _aligned_offset(d, max_len, diag.shape[-1], align)
        out[..., k1 - d, off:off + diag.shape[-1]] = diag
    return out[..., 0, :] if k0 == k1 else out


def _set_diag_ref(input, diagonal, k, align="RIGHT_LEFT"):  # noqa: A002
    k0, k1 = _diag_index(k)
    out = input.copy()
    if k0 == k1:
        diagonal = diagonal[..., None, :]
    max_len = diagonal.shape[-1]
    m, n = input.shape[-2:]
    for d in range(k1, k0 - 1, -1):
        length = max(0, min(m + min(d, 0), n - max(d, 0)))
        off = _aligned_offset(d, max_len, length, align)
        for t in range(length):
            out[..., t + max(-d, 0), t + max(d, 0)] = diagonal[..., k1 - d, off + t]
    return out


def _diag_ref(diagonal, k, num_rows, num_cols, padding_value, align="RIGHT_LEFT"):
    k0, k1 = _diag_index(k)
    max_len = diagonal.shape[-1]
    min_rows, min_cols = max_len - min(k1, 0), max_len + max(k0, 0)
    rows, cols = int(num_rows), int(num_cols)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    batch = diagonal.shape[:-1] if k0 == k1 else diagonal.shape[:-2]
    base = np.full(batch + (rows, cols), padding_value, diagonal.dtype)
    return _set_diag_ref(base, diagonal, k, align)


ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diag_part_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32):
        x = rand((2, 4, 5), dt, seed=2)
        for k in (0, 1, -2, [-1, 2], [-3, 0]):
            for align in (ALIGNS if isinstance(k, list) else ALIGNS[:1]):
                out.append(Sample({"input": x, "k": np.array(k, np.int32), "padding_value": np.array(9, dt)},
                                  {"align": align}, note=f"{np.dtype(dt).name} k={k} {align}"))
    return out


def _diag_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32):
        out.append(Sample({"diagonal": rand((2, 3), dt, seed=1), "k": np.int32(0), "num_rows": np.int32(-1),
                           "num_cols": np.int32(-1), "padding_value": np.array(0, dt)},
                          note=f"{np.dtype(dt).name} main"))
        out.append(Sample({"diagonal": rand((3,), dt, seed=1), "k": np.int32(1), "num_rows": np.int32(-1),
                           "num_cols": np.int32(-1), "padding_value": np.array(5, dt)}, note="superdiagonal, padding"))
        out.append(Sample({"diagonal": rand((3,), dt, seed=1), "k": np.int32(-1), "num_rows": np.int32(5),
                           "num_cols": np.int32(-1), "padding_value": np.array(0, dt)}, note="num_rows given"))
        for align in ALIGNS:
            out.append(Sample({"diagonal": rand((2, 3, 3), dt, seed=3), "k": np.array([-1, 1], np.int32),
                               "num_rows": np.int32(-1), "num_cols": np.int32(-1), "padding_value": np.array(0, dt)},
                              {"align": align}, note=f"band {align}"))
    return out


def _set_diag_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32):
        x = rand((2, 4, 5), dt, seed=4)
        out.append(Sample({"input": x, "diagonal": rand((2, 4), dt, seed=5), "k": np.int32(0)}, note="main"))
        out.append(Sample({"input": x, "diagonal": rand((2, 3), dt, seed=5), "k": np.int32(2)}, note="k=2"))
        for align in ALIGNS:
            out.append(Sample({"input": x, "diagonal": rand((2, 3, 4), dt, seed=6), "k": np.array([-1, 1], np.int32)},
                              {"align": align}, note=f"band {align}"))
    return out


def _cross_samples():
    return [Sample({"a": rand((4, 3), dt, seed=1), "b": rand((4, 3), dt, seed=2)}, note=np.dtype(dt).name)
            for dt in (np.float32, np.float64, np.int32, np.int64)] + [
        Sample({"a": rand((2, 2, 3), np.float64, seed=3), "b": rand((2, 2, 3), np.float64, seed=4)}, note="batch"),
        Sample({"a": rand((3,), np.float64, seed=3), "b": rand((3,), np.float64, seed=4)}, note="one vector")]


# --- Einsum ---------------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("ji,jk->ik", [(3, 2), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("bij,bkj->bki", [(2, 2, 3), (2, 4, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii->", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("ijk->kj", [(2, 3, 4)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
    ("ab,bc->ca", [(2, 3), (3, 2)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("ij,jk->ikj", [(2, 3), (3, 4)]),
    ("aij,ajk->", [(2, 2, 3), (2, 3, 2)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("i,->i", [(3,), ()]),
    ("...,...->...", [(2, 1), (3,)]),
    ("ij->ii", [(3, 3)]),
    ("bxi,byi->bxy", [(0, 2, 3), (0, 4, 3)]),
]


def _einsum_samples():
    out = []
    for eq, shapes in EINSUM_CASES:
        for dt in (np.float32, np.float64):
            rtol, atol = _tol(dt)
            out.append(Sample({"inputs": [rand(s, dt, seed=i) for i, s in enumerate(shapes)]}, {"equation": eq},
                              rtol=rtol * 10, atol=atol * 10, note=f"{np.dtype(dt).name} {eq}"))
    out.append(Sample({"inputs": [rand((2, 3), np.int32, seed=1), rand((3, 4), np.int32, seed=2)]},
                      {"equation": "ij,jk->ik"}, note="int32"))
    return out


def _einsum_ref(inputs, equation):
    lhs, out = equation.split("->")
    letters = out.replace("...", "")
    if len(set(letters)) != len(letters):  # repeated output labels: values on the diagonal
        uniq = "".join(dict.fromkeys(out))
        vals = np.einsum(lhs + "->" + uniq, *inputs)
        res = np.zeros([vals.shape[uniq.index(c)] for c in out], vals.dtype)
        idx = np.indices(vals.shape)
        res[tuple(idx[uniq.index(c)] for c in out)] = vals
        return res.astype(inputs[0].dtype)
    return np.asarray(np.einsum(equation, *inputs)).astype(inputs[0].dtype)


def _einsum_errors():
    two = [rand((2, 3)), rand((3, 4))]
    return [
        ErrorSample({"inputs": two}, {"equation": "ij,jk"}, match=r"exactly one '->'"),
        ErrorSample({"inputs": [rand((2, 3)), rand((4, 4))]}, {"equation": "ij,jk->ik"}, match=r"Expected dimension 3"),
        ErrorSample({"inputs": [rand((2, 3, 4))]}, {"equation": "ij->ji"}, match=r"rank 2"),
        ErrorSample({"inputs": [rand((5, 2, 3))]}, {"equation": "...ij->ij"}, match=r"no ellipsis"),
        ErrorSample({"inputs": two}, {"equation": "ij,jk->iz"}, match=r"does not appear"),
        ErrorSample({"inputs": two}, {"equation": "i1,jk->ik"}, match=r"not a letter"),
        ErrorSample({"inputs": [rand((2,))] * 3}, {"equation": "i,i,i->i"}, match=r"1 or 2 input"),
    ]


# --- gradient samples (float64) -------------------------------------------------------------------


def _grad_samples():
    wc = lambda s, seed=0: well_conditioned(s, np.float64, seed)  # noqa: E731
    r = lambda s, seed=0: rand(s, np.float64, -1, 1, seed)  # noqa: E731
    return {
        "MatrixSolve": [Sample({"matrix": wc((2, 3, 3)), "rhs": r((2, 3, 2), 1)}),
                        Sample({"matrix": wc((3, 3)), "rhs": r((3, 1), 1)}, {"adjoint": True})],
        "MatrixInverse": [Sample({"input": wc((2, 3, 3))}), Sample({"input": wc((3, 3))}, {"adjoint": True})],
        "MatrixDeterminant": [Sample({"input": wc((2, 3, 3)) * 0.5})],
        "LogMatrixDeterminant": [Sample({"input": wc((2, 3, 3)) * np.array([1, -1])[:, None, None]})],
        "MatrixTriangularSolve": [
            Sample({"matrix": wc((2, 3, 3)), "rhs": r((2, 3, 2), 1)}, {"lower": True}),
            Sample({"matrix": wc((3, 3)), "rhs": r((2, 3, 2), 1)}, {"lower": False, "adjoint": True}),
        ],
        "Lu": [Sample({"input": wc((2, 3, 3))}), Sample({"input": r((4, 4)) + np.diag([0.1, 4, 0.2, 3])})],
        "Qr": [Sample({"input": r((4, 3))}), Sample({"input": r((2, 3, 3), 1)}), Sample({"input": r((3, 5), 2)})],
        "Svd": [Sample({"input": r((4, 3))}), Sample({"input": r((3, 3), 1)}), Sample({"input": r((2, 2, 4), 2)}),
                Sample({"input": r((3, 4), 3)}, {"compute_uv": False})],
        "SelfAdjointEigV2": [Sample({"input": symmetric((3, 3))}),
                             Sample({"input": symmetric((2, 4, 4), seed=1)}, {"compute_v": False})],
        "MatrixSolveLs": [Sample({"matrix": r((5, 3)), "rhs": r((5, 2), 1), "l2_regularizer": np.float64(0.1)}),
                          Sample({"matrix": r((3, 5)), "rhs": r((3, 2), 1), "l2_regularizer": np.float64(0.1)})],
        # Equations whose gradient needs no static shapes (the runtime check feeds unknown shapes);
        # broadcasting and summed-label gradients are checked in test_linalg.py.
        "Einsum": [Sample({"inputs": [r(s, i) for i, s in enumerate(shapes)]}, {"equation": eq}, note=eq)
                   for eq, shapes in EINSUM_CASES if eq in ("bij,bkj->bki", "ii->i", "ij,jk->ikj", "ab,bc->ca")],
    }


ENTRIES = [
    OpEntry("MatrixSolve", _solve_samples(), ref=_solve_ref,
            errors=[ErrorSample({"matrix": np.ones((3, 3), np.float32), "rhs": rand((3, 1))},
                                match=r"Input matrix is not invertible\.", when="both"),
                    ErrorSample({"matrix": rand((3, 2)), "rhs": rand((3, 1))}, match=r"square"),
                    ErrorSample({"matrix": rand((2, 3, 3)), "rhs": rand((3, 3, 1))}, match=r"[Bb]atch|outer dim")]),
    OpEntry("MatrixInverse", _inverse_samples(), ref=_inv_ref,
            errors=[ErrorSample({"input": np.ones((2, 3, 3), np.float64)}, match=r"not invertible", when="both"),
                    ErrorSample({"input": rand((3, 2))}, match=r"square"),
                    ErrorSample({"input": rand((3,))}, match=r"rank")]),
    OpEntry("MatrixDeterminant", _det_samples(), ref=lambda input: np.linalg.det(input).astype(input.dtype),
            rtol=1e-4, atol=1e-4, errors=[ErrorSample({"input": rand((2, 3))}, match=r"square")]),
    OpEntry("LogMatrixDeterminant", _det_samples(), ref=_slogdet_ref, rtol=1e-4, atol=1e-4,
            errors=[ErrorSample({"input": rand((2, 4, 3))}, match=r"square")]),
    OpEntry("MatrixTriangularSolve", _tri_samples(), ref=_tri_ref,
            errors=[ErrorSample({"matrix": rand((3, 3)), "rhs": rand((4, 1))}, match=r"rhs|[Ii]ncompatible"),
                    ErrorSample({"matrix": rand((2, 3, 3)), "rhs": rand((3, 3, 1))}, match=r"batch")]),
    OpEntry("Cholesky", _chol_samples(), ref=_chol_ref,
            errors=[ErrorSample({"input": -np.eye(3, dtype=np.float32)},
                                match=r"Cholesky decomposition was not successful\. The input might not be valid\.",
                                when="both"),
                    ErrorSample({"input": rand((2, 3))}, match=r"square")],
            grad_checked_by="test_linalg.py::test_cholesky_gradient_finite_differences"),
    OpEntry("Lu", _lu_samples(), check=_lu_check, grad_needs_static_shapes=True,
            errors=[ErrorSample({"input": np.ones((3, 3), np.float64)}, match=r"not invertible", when="both"),
                    ErrorSample({"input": rand((3, 2))}, match=r"square")]),
    OpEntry("Qr", _qr_samples(), ref=_qr_ref, grad_needs_static_shapes=True,
            errors=[ErrorSample({"input": rand((3,))}, match=r"rank")]),
    OpEntry("Svd", _svd_samples(), check=_svd_check, cross_check=False, grad_needs_static_shapes=True,
            errors=[ErrorSample({"input": rand((3,))}, match=r"rank")]),
    OpEntry("SelfAdjointEigV2", _eig_samples(), check=_eig_check, cross_check=False,
            errors=[ErrorSample({"input": rand((2, 3))}, match=r"square")]),
    OpEntry("MatrixSolveLs", _lstsq_samples(), ref=_lstsq_ref, grad_inputs=["matrix", "rhs"],
            grad_needs_static_shapes=True,
            errors=[ErrorSample({"matrix": rand((3, 2)), "rhs": rand((4, 1)), "l2_regularizer": np.float64(0)},
                                match=r"rhs|incompatible"),
                    ErrorSample({"matrix": np.ones((3, 2), np.float32), "rhs": rand((3, 1)),
                                 "l2_regularizer": np.float64(0)}, match=r"rank deficient", when="both")]),
    OpEntry("MatrixBandPart", _band_samples(), ref=_band_ref,
            errors=[ErrorSample({"input": rand((3,)), "num_lower": np.int64(0), "num_upper": np.int64(0)},
                                match=r"rank|2-dim"),
                    ErrorSample({"input": rand((2, 3)), "num_lower": np.int64(5), "num_upper": np.int64(0)},
                                match=r"num_lower", when="runtime")]),
    OpEntry("MatrixDiagPartV3", _diag_part_samples(), ref=_diag_part_ref, grad_inputs=["input"],
            errors=[ErrorSample({"input": rand((3, 3)), "k": np.array([2, 1], np.int32),
                                 "padding_value": np.float32(0)}, match=r"lower_diag_index must not be larger"),
                    ErrorSample({"input": rand((3, 3)), "k": np.int32(5), "padding_value": np.float32(0)},
                                match=r"out of bound")]),
    OpEntry("MatrixDiagV3", _diag_samples(), ref=_diag_ref, grad_inputs=["diagonal"],
            errors=[ErrorSample({"diagonal": rand((2, 3)), "k": np.array([-1, 1], np.int32), "num_rows": np.int32(-1),
                                 "num_cols": np.int32(-1), "padding_value": np.float32(0)},
                                match=r"number of diagonals")]),
    OpEntry("MatrixSetDiagV3", _set_diag_samples(), ref=_set_diag_ref,
            errors=[ErrorSample({"input": rand((3, 3)), "diagonal": rand((2,)), "k": np.int32(0)},
                                match=r"diagonal must have shape", when="runtime")]),
    OpEntry("Cross", _cross_samples(), ref=lambda a, b: np.cross(a, b).astype(a.dtype),
            errors=[ErrorSample({"a": rand((4, 2)), "b": rand((4, 2))}, match=r"3"),
                    ErrorSample({"a": rand((4, 3)), "b": rand((5, 3))}, match=r"same shape")]),
    OpEntry("Einsum", _einsum_samples(), ref=_einsum_ref, errors=_einsum_errors()),
]

_GRAD_SAMPLES = _grad_samples()
for _entry in ENTRIES:
    _entry.grad_samples = _GRAD_SAMPLES.get(_entry.op, ())
