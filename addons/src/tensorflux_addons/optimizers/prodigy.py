"""Prodigy, Mishchenko & Defazio 2024, "Prodigy: An Expeditiously Adaptive Parameter-Free Learner"
(arXiv:2306.06101), Algorithm 4 (Adam form), with the bias correction of the authors' code: Adam
whose step size d (``estim_lr``) is estimated on line from the distance travelled:

    r_k  = beta_3 r_{k-1} + (d_k / d_0) d_k lr_k <g_k, x_0 - x_k>          (sums over all variables)
    s_k  = beta_3 s_{k-1} + (d_k / d_0) d_k lr_k g_k
    d_{k+1} = max(d_k, r_k / ||s_k||_1)
    m_k = beta_1 m_{k-1} + (1 - beta_1) d_k g_k,   v_k = beta_2 v_{k-1} + (1 - beta_2) d_k^2 g_k^2
    x_{k+1} = x_k - d_k lr_k bc_k (m_k / (sqrt(v_k) + d_k eps) + weight_decay x_k)

with bc_k = sqrt(1 - beta_2^k) / (1 - beta_1^k) and beta_3 = sqrt(beta_2) by default. The global
quantities (d, r) live in a scalar slot of every variable (all equal).
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer

from tensorflux_addons.optimizers._base import check_hyper, check_unit_interval, copy_of, scalar, t_of, zeros
from tensorflux_addons.optimizers._hyper import check_scalar, resolve


def scale_by_prodigy(learning_rate=1.0, beta_1=0.9, beta_2=0.999, beta_3=None, epsilon=1e-8, estim_lr0=1e-6,
                     estim_lr_coef=1.0, weight_decay=0.0):
    """The whole Prodigy step (it includes the learning rate multiplier ``learning_rate``)."""
    beta_3 = beta_2 ** 0.5 if beta_3 is None else beta_3

    def update(updates, slot_vars, params, step):
        dt = updates[0].dtype
        t = t_of(step, dt)
        sched = resolve("learning_rate", learning_rate, step, dt)
        d = slot_vars[0]["d"].value()
        r_old = slot_vars[0]["r"].value()
        bc = tx.sqrt(1.0 - tx.pow(tx.cast(beta_2, dt), t)) / (1.0 - tx.pow(tx.cast(beta_1, dt), t))
        dlr = d * sched * bc
        reads, news = [], []
        numerator, denominator = [], []
        for g, s, p in zip(updates, slot_vars, params):
            x, x0, m, v, sk = p.value(), s["x0"].value(), s["m"].value(), s["v"].value(), s["s"].value()
            reads += [x, x0, m, v, sk]
            dg = g * d
            numerator.append(tx.reduce_sum(g * (x0 - x)))
            m_new = m * beta_1 + dg * (1.0 - beta_1)
            v_new = v * beta_2 + dg * dg * (1.0 - beta_2)
            s_new = sk * beta_3 + dg * (dlr / estim_lr0)
            denominator.append(tx.reduce_sum(tx.abs(s_new)))
            news.append((x, m_new, v_new, s_new))
        r = r_old * beta_3 + (d / estim_lr0) * dlr * tx.add_n(numerator)
        d_new = tx.maximum(d, estim_lr_coef * r / tx.add_n(denominator))
        out, ops = [], []
        with tx.control_dependencies(reads + [d, r_old]):
            for (x, m_new, v_new, s_new), s in zip(news, slot_vars):
                out.append(-(x * (weight_decay * dlr)) - dlr * m_new / (tx.sqrt(v_new) + d * epsilon))
                ops += [s["m"].assign(m_new, read_value=False), s["v"].assign(v_new, read_value=False),
                        s["s"].assign(s_new, read_value=False), s["d"].assign(d_new, read_value=False),
                        s["r"].assign(r, read_value=False)]
        if not tx.executing_eagerly():
            with tx.control_dependencies(ops):
                out = [tx.identity(u) for u in out]
        return out, ops
    return GradientTransformation("scale_by_prodigy", {"m": zeros, "v": zeros, "s": zeros, "x0": copy_of,
                                                       "d": scalar(estim_lr0), "r": scalar(0.0)}, update)


def Prodigy(learning_rate=1.0, beta_1=0.9, beta_2=0.999, beta_3=None, epsilon=1e-8, estim_lr0=1e-6,  # noqa: N802
            estim_lr_coef=1.0, weight_decay=0.0, name="Prodigy"):
    """The Prodigy optimizer: Adam with its step size estimated on line (``learning_rate`` is a
    multiplier of the estimate, 1.0 by default, or a schedule of multipliers).

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> opt = txa.optimizers.Prodigy()
    >>> for _ in range(30):
    ...     _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> float(opt.get_slot(w, "d").numpy()) > 1e4 * 1e-6   # the step size estimate grew from 1e-6
    True
    """
    check_scalar("learning_rate", learning_rate)
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, estim_lr0=estim_lr0, estim_lr_coef=estim_lr_coef,
                weight_decay=weight_decay)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return Optimizer(scale_by_prodigy(learning_rate, beta_1, beta_2, beta_3, epsilon, estim_lr0, estim_lr_coef,
                                      weight_decay), name=name)
