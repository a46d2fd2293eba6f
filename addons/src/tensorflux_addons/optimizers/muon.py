"""Muon, K. Jordan et al. 2024, "Muon: An optimizer for hidden layers in neural networks"
(kellerjordan.github.io/posts/muon), as analysed in Liu et al. 2025, "Muon is Scalable for LLM
Training" (arXiv:2502.16982). For each 2-D weight W of shape (fan_in, fan_out):

    m_t = beta m_{t-1} + (1 - beta) g_t
    n_t = beta m_hat_t + (1 - beta) g_hat_t            (Nesterov; hats: bias correction, as optax)
    X_0 = n_t / (||n_t||_F + eps),   X_{k+1} = a X_k + (b A_k + c A_k^2) X_k,   A_k = X_k X_k^T
          (5 Newton-Schulz steps, (a, b, c) = (3.4445, -4.7750, 2.0315), on the wide orientation)
    W_t = W_{t-1} - lr * (sqrt(max(1, fan_out / fan_in)) * X_5 + weight_decay * W_{t-1})

X_5 approximates the orthogonal factor U V^T of n_t = U S V^T. Other variables (biases, norms,
convolution kernels) are updated by AdamW with Nesterov momentum, as in optax.contrib.muon.
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer, chain

from tensorflux_addons.optimizers._base import (bias_correction, check_hyper, check_unit_interval,
                                                learning_rate as _lr, per_variable, t_of, zeros)

NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)


def newton_schulz(x, steps=5, coefficients=NS_COEFFICIENTS, eps=1e-8):
    """The orthogonal factor U V^T of the 2-D tensor ``x`` = U S V^T, approximately (quintic
    Newton-Schulz iteration on x / ||x||_F; singular values end near 1, within about [0.7, 1.2])."""
    a, b, c = coefficients
    rows, cols = x.shape.as_list()
    if rows > cols:
        return tx.transpose(newton_schulz(tx.transpose(x), steps, coefficients, eps))
    x = x / (tx.norm(x) + eps)
    for _ in range(steps):
        g = tx.matmul(x, x, transpose_b=True)
        x = x * a + tx.matmul(g * b + tx.matmul(g, g) * c, x)
    return x


def _second_moment(var):
    return zeros(var) if var.shape.rank != 2 else tx.zeros([1], var.dtype)


def scale_by_muon(beta=0.95, ns_steps=5, eps=1e-8, adam_beta_1=0.9, adam_beta_2=0.999):
    """Muon's direction for 2-D variables, Nesterov Adam's for the others (slots m and v; v is
    a placeholder of shape [1] for matrices)."""
    def fn(g, s, p, step):
        t = t_of(step, g.dtype)
        matrix = p.shape.rank == 2  # the variable's static shape (a gradient's may be unknown)
        b1 = beta if matrix else adam_beta_1
        m = s["m"] * b1 + g * (1.0 - b1)
        nesterov = bias_correction(m, b1, t + 1.0) * b1 + bias_correction(g, b1, t) * (1.0 - b1)
        if matrix:
            fan_in, fan_out = p.shape.as_list()
            orthogonalized = newton_schulz(tx.reshape(nesterov, [fan_in, fan_out]), ns_steps, eps=eps)
            return orthogonalized * max(1.0, fan_out / fan_in) ** 0.5, {"m": m}
        v = s["v"] * adam_beta_2 + tx.square(g) * (1.0 - adam_beta_2)
        return nesterov / (tx.sqrt(bias_correction(v, adam_beta_2, t)) + eps), {"m": m, "v": v}
    return per_variable("scale_by_muon", {"m": zeros, "v": _second_moment}, fn)


def _add_weight_decay(weight_decay, adam_weight_decay):
    def fn(u, s, p, step):
        wd = weight_decay if p.shape.rank == 2 else adam_weight_decay
        return (u + p * wd if wd else u), {}
    return per_variable("muon_weight_decay", {}, fn)


def muon(learning_rate=0.02, beta=0.95, ns_steps=5, eps=1e-8, weight_decay=0.0, adam_beta_1=0.9,
         adam_beta_2=0.999, adam_weight_decay=0.0):
    """Muon as a chain of transformations."""
    check_hyper(beta=beta, eps=eps, weight_decay=weight_decay, adam_beta_1=adam_beta_1, adam_beta_2=adam_beta_2,
                adam_weight_decay=adam_weight_decay)
    check_unit_interval(beta=beta, adam_beta_1=adam_beta_1, adam_beta_2=adam_beta_2)
    return chain(scale_by_muon(beta, ns_steps, eps, adam_beta_1, adam_beta_2),
                 _add_weight_decay(weight_decay, adam_weight_decay) if weight_decay or adam_weight_decay else None,
                 _lr(learning_rate))


def Muon(learning_rate=0.02, beta=0.95, ns_steps=5, eps=1e-8, weight_decay=0.0, adam_beta_1=0.9,  # noqa: N802
         adam_beta_2=0.999, adam_weight_decay=0.0, name="Muon"):
    """The Muon optimizer: momentum orthogonalised by Newton-Schulz for 2-D weights, Nesterov
    AdamW for the rest.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([[3.0, 0.0], [0.0, 1.0]])
    >>> _ = txa.optimizers.Muon(learning_rate=0.1).minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 1)   # both directions move by about lr, whatever their gradient's size
    array([[2.9, 0. ],
           [0. , 0.9]], dtype=float32)
    """
    return Optimizer(muon(learning_rate, beta, ns_steps, eps, weight_decay, adam_beta_1, adam_beta_2,
                          adam_weight_decay), name=name)
