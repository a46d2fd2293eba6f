"""SGDW and AdamW with decoupled weight decay, Loshchilov & Hutter 2019, "Decoupled Weight Decay
Regularization" (arXiv:1711.05101), Algorithm 1 (SGDW) and Algorithm 2 (AdamW):

    SGDW:  m_t = momentum * m_{t-1} + lr_t * g_t
           theta_t = theta_{t-1} - m_t - eta_t * weight_decay * theta_{t-1}
    AdamW: theta_t = theta_{t-1} - lr_t * m_hat_t / (sqrt(v_hat_t) + eps) - eta_t * weight_decay * theta_{t-1}

The decay is decoupled from the gradient step and follows its own schedule multiplier eta_t:
``decay_schedule(step)`` when given (the paper's eta_t, e.g. a warm-restart schedule), else the
learning rate lr_t (the convention of torch.optim.AdamW and optax.adamw, which equals the paper
with eta_t = lr_t and the decay rate expressed relative to the learning rate).
``learning_rate`` and ``weight_decay`` are numbers, scalar tensors or schedules ``step -> value``.
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer, chain, trace

from tensorflux_addons.optimizers._base import (check_hyper, check_unit_interval, learning_rate as _lr,
                                                scale_by_adam_moments)
from tensorflux_addons.optimizers._hyper import check_scalar, resolve


def decoupled_weight_decay(learning_rate, weight_decay, decay_schedule=None, mask=None):
    """Subtracts eta_t * weight_decay_t * theta from each update (the last link of a chain, after
    the -lr step): eta_t is ``decay_schedule(step)``, else the learning rate at ``step``.
    ``mask(var) -> bool`` picks the variables that decay."""
    check_scalar("weight_decay", weight_decay)
    if decay_schedule is not None and not callable(decay_schedule):
        raise TypeError("decay_schedule must be a callable step -> multiplier, got %r" % (decay_schedule,))

    def update(updates, slots, params, step):
        out = []
        for u, p in zip(updates, params):
            if mask is not None and not mask(p):
                out.append(u)
                continue
            dt = u.dtype
            eta = resolve("decay_schedule", decay_schedule or learning_rate, step, dt)
            out.append(u - eta * resolve("weight_decay", weight_decay, step, dt) * p.value())
        return out, []
    return GradientTransformation("decoupled_weight_decay", {}, update)


def sgdw(learning_rate=0.01, weight_decay=1e-4, momentum=0.9, nesterov=False, decay_schedule=None, mask=None):
    """SGDW as a chain: momentum on lr_t * g (the paper's m_t), then the decoupled decay."""
    check_hyper(momentum=momentum)
    check_unit_interval(momentum=momentum)
    return chain(_lr(learning_rate), trace(momentum, nesterov) if momentum else None,
                 decoupled_weight_decay(learning_rate, weight_decay, decay_schedule, mask))


def SGDW(learning_rate=0.01, weight_decay=1e-4, momentum=0.9, nesterov=False, decay_schedule=None,  # noqa: N802
         mask=None, name="SGDW"):
    """SGD with momentum and decoupled weight decay (Loshchilov & Hutter's SGDW).

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> opt = txa.optimizers.SGDW(learning_rate=0.1, weight_decay=0.5, momentum=0.0)
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w), var_list=[w])
    >>> w.numpy()   # w - 0.1 * 1 - 0.1 * 0.5 * w
    array([ 0.85, -2.  ], dtype=float32)
    """
    return Optimizer(sgdw(learning_rate, weight_decay, momentum, nesterov, decay_schedule, mask), name=name)


def adamw(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-8, weight_decay=1e-4, decay_schedule=None,
          mask=None):
    """AdamW as a chain: Adam's moments, -lr_t, then the decoupled decay."""
    check_hyper(beta_1=beta_1, beta_2=beta_2, epsilon=epsilon)
    check_unit_interval(beta_1=beta_1, beta_2=beta_2)
    return chain(scale_by_adam_moments(beta_1, beta_2, epsilon), _lr(learning_rate),
                 decoupled_weight_decay(learning_rate, weight_decay, decay_schedule, mask))


def AdamW(learning_rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-8, weight_decay=1e-4,  # noqa: N802
          decay_schedule=None, mask=None, fused=True, name="AdamW"):
    """Adam with decoupled weight decay whose strength follows a schedule (Loshchilov & Hutter).
    ``fused`` runs two core kernels per variable (Note [Fused AdamW]), else the op-by-op chain
    `adamw`; both keep the slots ``m`` and ``v``.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0, -2.0])
    >>> opt = txa.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5, decay_schedule=lambda step: 1.0)
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> np.round(w.numpy(), 4)   # w - 0.1 * sign(g) - 1.0 * 0.5 * w
    array([ 0.4, -0.9], dtype=float32)
    """
    transformation = adamw(learning_rate, beta_1, beta_2, epsilon, weight_decay, decay_schedule, mask)
    if not fused:
        return Optimizer(transformation, name=name)
    slot_m, slot_v = "0_scale_by_adam_moments/m", "0_scale_by_adam_moments/v"

    def apply(var, grad, slots, step):
        dt = var.dtype
        t = tx.cast(step, dt) + 1.0
        b1, b2 = tx.cast(beta_1, dt), tx.cast(beta_2, dt)
        b1_power, b2_power = tx.pow(b1, t), tx.pow(b2, t)
        decays = []
        if mask is None or mask(var):
            eta = resolve("decay_schedule", decay_schedule or learning_rate, step, dt)
            alpha = eta * resolve("weight_decay", weight_decay, step, dt)
            decays.append(tx.raw_ops.ResourceApplyGradientDescent(var=var.handle, alpha=alpha, delta=var.value()))
        with tx.control_dependencies(decays):
            return tx.raw_ops.ResourceApplyAdam(
                var=var.handle, m=slots[slot_m].handle, v=slots[slot_v].handle, beta1_power=b1_power,
                beta2_power=b2_power, lr=resolve("learning_rate", learning_rate, step, dt), beta1=b1, beta2=b2,
                epsilon=tx.cast(epsilon, dt) * tx.sqrt(1.0 - b2_power), grad=grad)
    return Optimizer(transformation, name=name, fused=apply)


# Note [Fused AdamW]
# The fused AdamW runs, per variable, ResourceApplyGradientDescent(var, eta * weight_decay, var)
# (the decoupled decay, from the variable's value before the step), then ResourceApplyAdam. Adam's
# step does not read the variable, so decaying first equals the chain's single update. The kernel
# computes TensorFlow's form lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon'); with
# epsilon' = epsilon * sqrt(1 - b2^t) that is the paper's (and optax's)
# lr * m_hat / (sqrt(v_hat) + epsilon).
