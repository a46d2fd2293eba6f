"""Shampoo, Gupta, Koren & Singer 2018, "Shampoo: Preconditioned Stochastic Tensor Optimization"
(arXiv:1802.09568), Algorithm 1 for matrices, block-diagonal as in Anil et al. 2020, "Scalable
Second Order Optimization for Deep Learning" (arXiv:2002.09018), with the inverse roots recomputed
every ``update_every`` steps (their Section 3; the stale roots are used in between):

    L_0 = eps I,  R_0 = eps I
    L_t = L_{t-1} + G_t G_t^T,          R_t = R_{t-1} + G_t^T G_t            (per block)
    P_t = L_t^{-1/4}, Q_t = R_t^{-1/4}   when t = 1, 1 + k, 1 + 2k, ... (else P_{t-1}, Q_{t-1})
    W_t = W_{t-1} - lr * P_t G_t Q_t

A variable is viewed as a matrix (a vector of n as n x 1; higher ranks fold their leading axes
into rows), cut into blocks of at most ``block_size`` x ``block_size``, each with its own L and R
(the blocks' statistics are stacked in one slot, padded with zero rows; padding does not change
the real blocks' updates). Inverse roots come from an eigendecomposition (eigenvalues floored at
eps).
"""

import math

import tensorflux as tx
from tensorflux.optimizers import Optimizer, chain, trace

from tensorflux_addons.optimizers._base import check_hyper, learning_rate as _lr, per_variable


def matrix_view(shape):
    """(rows, cols) of the matrix a variable of ``shape`` is treated as."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], 1
    return math.prod(shape[:-1]), shape[-1]


def blocking(shape, block_size):
    """(row blocks, col blocks, block rows, block cols) of a variable of ``shape``."""
    rows, cols = matrix_view(shape)
    br, bc = min(block_size, rows), min(block_size, cols)
    return -(-rows // br), -(-cols // bc), br, bc


def inverse_pth_root(a, p, eps):
    """a^(-1/p) of the batch of symmetric positive semi-definite matrices ``a`` (eigenvalues below
    ``eps`` count as ``eps``)."""
    e, v = tx.linalg.eigh(a)
    e = tx.pow(tx.maximum(e, tx.cast(eps, a.dtype)), tx.cast(-1.0 / p, a.dtype))
    return tx.matmul(v * tx.expand_dims(e, -2), v, transpose_b=True)


def _static_shape(var):
    dims = var.shape.as_list()
    if any(d is None for d in dims):
        raise ValueError("Shampoo needs variables of a static shape, got %s with shape %s" % (var.name, dims))
    return dims


def _statistics(side, block_size, eps):
    def init(var):
        nr, nc, br, bc = blocking(_static_shape(var), block_size)
        n = br if side == "l" else bc
        return tx.tile(tx.reshape(tx.eye(n, dtype=var.dtype) * eps, [1, 1, n, n]), [nr, nc, 1, 1])
    return init


def _to_blocks(g, shape, block_size):
    rows, cols = matrix_view(shape)
    nr, nc, br, bc = blocking(shape, block_size)
    m = tx.pad(tx.reshape(g, [rows, cols]), [[0, nr * br - rows], [0, nc * bc - cols]])
    return tx.transpose(tx.reshape(m, [nr, br, nc, bc]), [0, 2, 1, 3])


def _from_blocks(blocks, shape, block_size):
    rows, cols = matrix_view(shape)
    nr, nc, br, bc = blocking(shape, block_size)
    m = tx.reshape(tx.transpose(blocks, [0, 2, 1, 3]), [nr * br, nc * bc])
    return tx.reshape(m[:rows, :cols], shape)


def scale_by_shampoo(block_size=128, update_every=1, epsilon=1e-4):
    """Shampoo's preconditioned direction P G Q per block (slots l, r and their roots pl, pr)."""
    def fn(g, s, p, step):
        shape = p.shape.as_list()  # the variable's static shape (a gradient's may be unknown)
        blocks = _to_blocks(g, shape, block_size)
        left = s["l"] + tx.matmul(blocks, blocks, transpose_b=True)
        right = s["r"] + tx.matmul(blocks, blocks, transpose_a=True)

        def roots():
            return inverse_pth_root(left, 4, epsilon), inverse_pth_root(right, 4, epsilon)
        if update_every == 1:
            pl, pr = roots()
        else:
            due = tx.equal(step % update_every, tx.cast(0, step.dtype))
            pl, pr = tx.cond(due, roots, lambda: (tx.identity(s["pl"]), tx.identity(s["pr"])))
        out = _from_blocks(tx.matmul(tx.matmul(pl, blocks), pr), shape, block_size)
        return out, {"l": left, "r": right, "pl": pl, "pr": pr}
    return per_variable("scale_by_shampoo", {"l": _statistics("l", block_size, epsilon),
                                             "r": _statistics("r", block_size, epsilon),
                                             "pl": _statistics("l", block_size, 0.0),
                                             "pr": _statistics("r", block_size, 0.0)}, fn)


def shampoo(learning_rate=0.01, block_size=128, update_every=1, epsilon=1e-4, momentum=0.0):
    """Shampoo as a chain of transformations (``momentum`` > 0 adds heavy-ball momentum)."""
    check_hyper(epsilon=epsilon, momentum=momentum)
    if int(block_size) != block_size or block_size < 1 or int(update_every) != update_every or update_every < 1:
        raise ValueError("block_size and update_every must be positive integers, got %r and %r"
                         % (block_size, update_every))
    return chain(scale_by_shampoo(int(block_size), int(update_every), epsilon), trace(momentum) if momentum else None,
                 _lr(learning_rate))


def Shampoo(learning_rate=0.01, block_size=128, update_every=1, epsilon=1e-4, momentum=0.0,  # noqa: N802
            name="Shampoo"):
    """The Shampoo optimizer: each (block of a) weight matrix preconditioned on both sides by the
    inverse fourth roots of its accumulated gradient covariances.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([[3.0, 0.0], [0.0, 1.0]])
    >>> _ = txa.optimizers.Shampoo(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 3)   # the first step is lr * U V^T (G = U S V^T): here lr * I
    array([[2.9, 0. ],
           [0. , 0.9]], dtype=float32)
    """
    return Optimizer(shampoo(learning_rate, block_size, update_every, epsilon, momentum), name=name)
