"""Norms, normalization, pseudo-inverse, rank and the matrix exponential, composed from ops as
TensorFlow's Python implementations are."""

from __future__ import annotations

import numbers

import numpy as np

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import linalg_ops
from tensorflux._src.array_ops import cast, reshape, squeeze, transpose
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.math_ops import matmul, reduce_sum
from tensorflux._src.reduce_ops import reduce_max
from tensorflux._src.while_loop import while_loop

_VECTOR_NORMS = ("euclidean", 1, 2, np.inf)
_MATRIX_NORMS = ("euclidean", "fro", 1, 2, np.inf)


def _const(x, dtype):
    return convert_to_tensor(np.asarray(x, dtype.as_numpy_dtype))


def _is_ord(ord, options):  # noqa: A002 - TensorFlow's argument name
    return any(ord == o and type(ord) is not bool for o in options)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector norms (``axis`` None or an int; ord 'euclidean', 1, 2, inf or any p > 0) and matrix
    norms (``axis`` a pair; ord 'fro'/'euclidean', 1, 2, inf), as ``tf.norm``."""
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        axis = tuple(int(a) for a in axis)
        if axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, got %s" % (axis,))
        if not _is_ord(ord, _MATRIX_NORMS):
            raise ValueError("'ord' must be a supported matrix norm in %s, got %s" % (_MATRIX_NORMS, ord))
    else:
        if not (axis is None or isinstance(axis, numbers.Integral)):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, got %s" % (axis,))
        positive_p = isinstance(ord, numbers.Real) and not isinstance(ord, bool) and ord > 0
        if not (positive_p or _is_ord(ord, _VECTOR_NORMS)):
            raise ValueError("'ord' must be a supported vector norm, got %s" % (ord,))
        if axis is not None:
            axis = (int(axis),)
    x = convert_to_tensor(tensor)
    if is_matrix and _is_ord(ord, (2,)):
        rank = x.shape.rank
        if rank is None:
            raise ValueError("norm(ord=2) over an axis pair needs the tensor's static rank")
        pos = [a % rank for a in axis]
        perm = [i for i in range(rank) if i not in pos] + pos
        s = linalg_ops.svd(transpose(x, perm), compute_uv=False)
        result = reduce_max(s, axis=-1)
        if keepdims:
            for a in sorted(pos):
                result = gen_ops.expand_dims(result, _const(a, _dtypes.int32))
        return gen_ops.identity(result, name=name) if name else result
    ax = None if axis is None else list(axis)
    if _is_ord(ord, ("fro", "euclidean", 2)):
        result = gen_ops.sqrt(reduce_sum(gen_ops.mul(x, x), axis=ax, keepdims=True))
    else:
        result = gen_ops.abs(x)
        if _is_ord(ord, (1,)):
            result = reduce_sum(result, axis=None if ax is None else ax[0], keepdims=True)
            if is_matrix:
                result = reduce_max(result, axis=ax[-1], keepdims=True)
        elif _is_ord(ord, (np.inf,)):
            if is_matrix:
                result = reduce_sum(result, axis=ax[1], keepdims=True)
            result = reduce_max(result, axis=None if ax is None else ax[0], keepdims=True)
        else:
            p = _const(ord, x.dtype)
            result = gen_ops.pow(reduce_sum(gen_ops.pow(result, p), axis=ax, keepdims=True), _const(1.0 / ord, x.dtype))
    if not keepdims:
        result = squeeze(result, axis=ax)
    return gen_ops.identity(result, name=name) if name else result


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """``(tensor / norm, norm)`` with the norm kept in the reduced dims."""
    n = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return gen_ops.real_div(tensor, n, name=name), n


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))`` (TensorFlow's ``l2_normalize``)."""
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    ax = None if axis is None else (list(axis) if isinstance(axis, (list, tuple)) else axis)
    sq = reduce_sum(gen_ops.square(x), axis=ax, keepdims=True)
    inv = gen_ops.rsqrt(gen_ops.maximum(sq, _const(epsilon, x.dtype)))
    return gen_ops.mul(x, inv, name=name)


def global_norm(t_list, name=None):
    """sqrt(sum of the squared L2 norms of every tensor in ``t_list``); None entries are skipped."""
    ts = [convert_to_tensor(t) for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm needs at least one tensor")
    sums = [reduce_sum(gen_ops.square(t)) for t in ts]
    total = sums[0] if len(sums) == 1 else gen_ops.add_n(sums)
    return gen_ops.sqrt(total, name=name)


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse from the SVD; singular values at most ``rcond * max(s)``
    (default rcond: 10 * max(M, N) * eps) count as zero."""
    a = convert_to_tensor(a)
    m, n = a.shape.as_list()[-2:]
    if rcond is None:
        if m is None or n is None:
            raise ValueError("pinv needs static matrix dims when rcond is None")
        rcond = 10.0 * max(m, n) * np.finfo(a.dtype.as_numpy_dtype).eps
    s, u, v = linalg_ops.svd(a, full_matrices=False, compute_uv=True)
    cutoff = gen_ops.mul(_const(rcond, a.dtype), reduce_max(s, axis=-1, keepdims=True))
    inf = gen_ops.fill(gen_ops.shape(s), _const(np.inf, a.dtype))
    s = gen_ops.select_v2(gen_ops.greater(s, cutoff), s, inf)
    scaled_v = gen_ops.real_div(v, gen_ops.expand_dims(s, _const(-2, _dtypes.int32)))
    return matmul(scaled_v, u, adjoint_b=True, name=name)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above ``tol`` (default: max(s) * max(M, N) * eps)."""
    a = convert_to_tensor(a)
    s = linalg_ops.svd(a, compute_uv=False)
    if tol is None:
        m, n = a.shape.as_list()[-2:]
        if m is None or n is None:
            raise ValueError("matrix_rank needs static matrix dims when tol is None")
        eps = np.finfo(a.dtype.as_numpy_dtype).eps
        tol = gen_ops.mul(reduce_max(s, axis=-1, keepdims=True), _const(max(m, n) * eps, a.dtype))
    else:
        tol = convert_to_tensor(tol, dtype=a.dtype)
    return reduce_sum(cast(gen_ops.greater(s, tol), _dtypes.int32), axis=-1, name=name)  # int32, as TensorFlow


# Pade coefficients b_0.. of degrees 3, 5, 7, 9, 13 (Higham 2005), as TensorFlow uses.
_PADE = {
    3: (120.0, 60.0, 12.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
         10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0),
}


def _pade(m, ident, degree):
    """(U, V) of the degree-`degree` Pade approximant of exp(m)."""
    b = [_const(x, m.dtype) for x in _PADE[degree]]
    mul, add = gen_ops.mul, gen_ops.add_v2
    m2 = matmul(m, m)
    if degree == 13:
        m4 = matmul(m2, m2)
        m6 = matmul(m4, m2)
        inner = add(m6, add(mul(b[11], m4), mul(b[9], m2)))
        tmp_u = add(matmul(m6, inner), add(add(mul(b[7], m6), mul(b[5], m4)), add(mul(b[3], m2), mul(b[1], ident))))
        tmp_v = add(add(mul(b[12], m6), mul(b[10], m4)), mul(b[8], m2))
        v = add(matmul(m6, tmp_v), add(add(mul(b[6], m6), mul(b[4], m4)), add(mul(b[2], m2), mul(b[0], ident))))
        return matmul(m, tmp_u), v
    powers = [ident, m2]
    while len(powers) < (degree + 1) // 2:
        powers.append(matmul(powers[-1], m2))
    # tmp = m^(degree-1) + b[degree-2] m^(degree-3) + ... ; U = m tmp; V = sum b[2k] m^(2k)
    k_top = (degree - 1) // 2
    tmp = matmul(powers[-1], m2) if k_top == len(powers) else powers[k_top]
    for k in range(k_top - 1, -1, -1):
        tmp = add(tmp, mul(b[2 * k + 1], powers[k]))
    top = matmul(powers[-1], m2) if k_top == len(powers) else powers[k_top]
    v = mul(b[degree - 1], top)
    for k in range(k_top - 1, -1, -1):
        v = add(v, mul(b[2 * k], powers[k]))
    return matmul(m, tmp), v


def expm(input, name=None):  # noqa: A002
    """exp of each square matrix by scaling and squaring with Pade approximants (TensorFlow's method)."""
    x = convert_to_tensor(input)
    dims = x.shape.as_list()
    if None in dims or len(dims) < 2 or dims[-1] != dims[-2]:
        raise ValueError("expm needs a static shape [..., N, N], got %s" % x.shape)
    n = dims[-1]
    if n == 0:
        return x
    batch = dims[:-2]
    x = reshape(x, [-1, n, n])
    l1 = reduce_max(reduce_sum(gen_ops.abs(x), axis=1), axis=-1, keepdims=True)
    l1 = gen_ops.expand_dims(l1, _const(-1, _dtypes.int32))
    ident = linalg_ops.eye(n, batch_shape=[int(np.prod(batch, dtype=np.int64))], dtype=x.dtype)
    two = _const(2.0, x.dtype)
    if x.dtype in (_dtypes.float16, _dtypes.float32):
        maxnorm, degrees, conds = 3.925724783138660, (3, 5, 7), (4.258730016922831e-001, 1.880152677804762e+000)
    else:
        maxnorm, degrees = 5.371920351148152, (3, 5, 7, 9, 13)
        conds = (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e+000)
    squarings = gen_ops.maximum(
        gen_ops.floor(gen_ops.real_div(gen_ops.log(gen_ops.real_div(l1, _const(maxnorm, x.dtype))), gen_ops.log(two))),
        _const(0.0, x.dtype))
    uvs = [_pade(x, ident, d) for d in degrees[:-1]]
    uvs.append(_pade(gen_ops.real_div(x, gen_ops.pow(two, squarings)), ident, degrees[-1]))

    def pick(which):
        out = uvs[-1][which]
        for c, uv in zip(reversed(conds), reversed(uvs[:-1])):
            out = gen_ops.select_v2(gen_ops.less(l1, _const(c, x.dtype)), uv[which], out)
        return out

    u, v = pick(0), pick(1)
    result = linalg_ops.solve(gen_ops.sub(v, u), gen_ops.add_v2(u, v))
    max_squarings = reduce_max(squarings)

    def body(i, r):
        return gen_ops.add_v2(i, _const(1.0, x.dtype)), gen_ops.select_v2(gen_ops.less(i, squarings), matmul(r, r), r)

    _, result = while_loop(lambda i, r: gen_ops.less(i, max_squarings), body, [_const(0.0, x.dtype), result])
    return reshape(result, batch + [n, n], name=name)
