"""Conditional gradient (Frank-Wolfe), Frank & Wolfe 1956; Jaggi 2013, "Revisiting Frank-Wolfe:
Projection-Free Sparse Convex Optimization" (ICML 2013), Algorithm 1, per variable, for the
constraint ||theta|| <= radius:

    s_t     = argmin_{||s|| <= radius} <s, g_t>
            = -radius * g_t / (||g_t||_F + eps)           (Frobenius ball)
            = -radius * u_1 v_1^T                         (nuclear-norm ball; g_t's top singular pair)
    theta_t = (1 - gamma_t) * theta_{t-1} + gamma_t * s_t

``learning_rate`` is the step size gamma_t (a number or a schedule such as 2 / (t + 2), the
classic choice). tensorflow-addons' ConditionalGradient states the same update with its
``learning_rate`` standing for 1 - gamma and ``lambda_`` for the radius.
"""

import tensorflux as tx
from tensorflux.optimizers import Optimizer

from tensorflux_addons.optimizers._base import check_hyper, per_variable
from tensorflux_addons.optimizers._hyper import check_scalar, resolve


def _vertex(g, radius, ord, eps):  # noqa: A002 (numpy's name)
    if ord == "fro":
        return g * (-radius) / (tx.norm(g) + eps)
    if g.shape.rank != 2:
        raise ValueError("ConditionalGradient(ord='nuclear') needs 2-D variables, got shape %s" % g.shape.as_list())
    _, u, v = tx.linalg.svd(g)
    return tx.matmul(u[:, :1], v[:, :1], transpose_b=True) * (-radius)


def conditional_gradient(learning_rate=0.01, radius=0.01, ord="fro", epsilon=1e-7):  # noqa: A002
    """The Frank-Wolfe step as a transformation (its final update is theta_t - theta_{t-1})."""
    check_scalar("learning_rate", learning_rate)
    check_hyper(radius=radius, epsilon=epsilon)
    if ord not in ("fro", "nuclear"):
        raise ValueError("ord must be 'fro' or 'nuclear', got %r" % (ord,))

    def fn(g, s, p, step):
        gamma = resolve("learning_rate", learning_rate, step, g.dtype)
        g = tx.reshape(g, p.shape.as_list())  # the variable's static shape (a gradient's may be unknown)
        return (_vertex(g, radius, ord, epsilon) - p) * gamma, {}
    return per_variable("conditional_gradient", {}, fn)


def ConditionalGradient(learning_rate=0.01, radius=0.01, ord="fro", epsilon=1e-7,  # noqa: N802, A002
                        name="ConditionalGradient"):
    """The conditional gradient (Frank-Wolfe) optimizer: each variable moves towards the vertex of
    its norm ball that minimises the linearised loss; iterates stay inside the ball.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([3.0, 4.0])
    >>> opt = txa.optimizers.ConditionalGradient(learning_rate=0.5, radius=1.0)
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # halfway to the vertex -(1, 1) / sqrt(2)
    array([1.1464, 1.6464], dtype=float32)
    """
    return Optimizer(conditional_gradient(learning_rate, radius, ord, epsilon), name=name)
