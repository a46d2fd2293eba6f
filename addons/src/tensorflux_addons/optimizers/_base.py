"""Building blocks shared by the add-on's optimizers: slot initialisers, a transformation written
per variable, bias correction, Adam's moments in the paper's (and optax's) form, the layer-wise
trust ratio of LARS/LAMB, and hyper-parameter checks (Note [Reads before writes])."""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer, scale_by_learning_rate

from tensorflux_addons.optimizers._hyper import check_scalar

# Note [Reads before writes]
# In graph mode the update of a variable and the reads of its slots are separate ops with no data
# dependency between a slot's read and its new value's assignment when the new value does not use
# the old one (Shampoo's preconditioners), nor between a parameter's read feeding only a slot and
# the optimizer's final assign_add. `per_variable` therefore reads every slot and the parameter
# once, assigns the new slot values only after all reads, and releases the update only after those
# assignments: one step sees one consistent state, in graph mode, in tx.function and eagerly.


def zeros(var):
    """Zeros of ``var``'s shape and dtype (a slot initialiser)."""
    return tx.zeros(var.shape, var.dtype)


def filled(value):
    """A slot initialiser filling ``var``'s shape with ``value``."""
    return lambda var: tx.fill(var.shape.as_list(), tx.cast(value, var.dtype))


def scalar(value):
    """A slot initialiser: a scalar ``value`` of ``var``'s dtype (per-variable statistics)."""
    return lambda var: tx.cast(value, var.dtype)


def copy_of(var):
    """A slot initialiser copying ``var``: its current value eagerly, its initial value in a graph
    (where the slot's initialiser may run before the variable's)."""
    return tx.identity(var.value() if tx.executing_eagerly() else var.initial_value)


def per_variable(name, slots, fn):
    """A GradientTransformation from ``fn(update, state, param, step) -> (update, new_state)``,
    applied to each variable: ``state`` holds the values of its slots, ``param`` the variable's
    value, and ``new_state`` the slot values to store (a subset of the slots)."""
    def update(updates, slot_vars, params, step):
        out, ops = [], []
        for u, s, p in zip(updates, slot_vars, params):
            state = {k: v.value() for k, v in s.items()}
            value = p.value()
            new_u, new_state = fn(u, state, value, step)
            with tx.control_dependencies(list(state.values()) + [value]):
                assigns = [s[k].assign(v, read_value=False) for k, v in new_state.items()]
            if assigns and not tx.executing_eagerly():
                with tx.control_dependencies(assigns):
                    new_u = tx.identity(new_u)
            ops.extend(assigns)
            out.append(new_u)
        return out, ops
    return GradientTransformation(name, slots, update)


def t_of(step, dtype):
    """The 1-based step count t of the 0-based ``step``, as ``dtype``."""
    return tx.cast(step, dtype) + 1.0


def bias_correction(moment, decay, t):
    """moment / (1 - decay^t)."""
    return moment / (1.0 - tx.pow(tx.cast(decay, moment.dtype), t))


def scale_by_adam_moments(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0):
    """Adam's direction as in the paper (Kingma & Ba 2015, Algorithm 1) and optax:
    m_hat / (sqrt(v_hat + eps_root) + eps) with bias-corrected moments m_hat and v_hat."""
    def fn(g, s, p, step):
        t = t_of(step, g.dtype)
        m = s["m"] * b1 + g * (1.0 - b1)
        v = s["v"] * b2 + tx.square(g) * (1.0 - b2)
        return bias_correction(m, b1, t) / (tx.sqrt(bias_correction(v, b2, t) + eps_root) + eps), {"m": m, "v": v}
    return per_variable("scale_by_adam_moments", {"m": zeros, "v": zeros}, fn)


def scale_by_trust_ratio(min_norm=0.0, trust_coefficient=1.0, eps=0.0):
    """The layer-wise trust ratio of LARS and LAMB: updates u become
    u * trust_coefficient * max(||param||, min_norm) / (||u|| + eps), or u where either norm is 0."""
    def fn(u, s, p, step):
        p_norm = tx.maximum(tx.norm(p), tx.cast(min_norm, p.dtype))
        u_norm = tx.norm(u)
        ratio = trust_coefficient * p_norm / (u_norm + eps)
        zero = tx.cast(0.0, p.dtype)
        safe = tx.where(tx.logical_or(tx.equal(p_norm, zero), tx.equal(u_norm, zero)), tx.ones_like(ratio), ratio)
        return u * safe, {}
    return per_variable("scale_by_trust_ratio", {}, fn)


def learning_rate(value):
    """scale_by_learning_rate of a checked number, scalar tensor or schedule (whose values are
    checked when called): ValueError for a non-scalar learning rate."""
    check_scalar("learning_rate", value)
    if callable(value):
        schedule = value
        value = lambda step: check_scalar("learning_rate (the schedule's value)", schedule(step))  # noqa: E731
    return scale_by_learning_rate(value)


def check_hyper(**values):
    """Checks scalar hyper-parameters that may not be schedules (ValueError/TypeError naming them)."""
    for name, value in values.items():
        check_scalar(name, value)
        if callable(value):
            raise TypeError("%s must be a number, not a schedule" % name)


def check_unit_interval(**values):
    """ValueError unless each value lies in [0, 1] (decay rates)."""
    for name, value in values.items():
        if not 0.0 <= float(value) <= 1.0:
            raise ValueError("%s must lie in [0, 1], got %r" % (name, value))


def inner_transformation(optimizer):
    """The transformation of an Optimizer (its op-by-op chain: exactly what its fused kernel
    computes), or ``optimizer`` itself if it is a GradientTransformation."""
    if isinstance(optimizer, Optimizer):
        return optimizer.transformation
    if isinstance(optimizer, GradientTransformation):
        return optimizer
    raise TypeError("expected a tx.optimizers.Optimizer or GradientTransformation, got %r" % (optimizer,))


class DeferredSlot:
    """A stand-in for a slot Variable handed to a wrapped transformation: ``value()`` reads the slot
    once, ``assign`` records the new value instead of writing it; `commit` then writes
    ``where(condition, new, old)`` (the wrapped state advances only on the steps a wrapper picks)."""

    def __init__(self, var):
        self.var = var
        self.old = var.value()
        self.new = None
        self.dtype, self.shape = var.dtype, var.shape

    def value(self):
        return self.old

    def read_value(self):
        return self.old

    def assign(self, value, read_value=False):
        self.new = tx.convert_to_tensor(value, dtype=self.dtype)
        return self.new

    def commit(self, condition):
        """The assignment of the recorded value where ``condition`` holds (None if none recorded)."""
        if self.new is None:
            return None
        with tx.control_dependencies([self.old]):
            return self.var.assign(tx.where(condition, self.new, self.old), read_value=False)


def run_deferred(transformation, prefix, updates, slot_vars, params, step):
    """Runs ``transformation`` on its slots (those named ``prefix`` + name in ``slot_vars``) through
    DeferredSlot stand-ins; returns (updates, stand-ins) for the caller to commit."""
    deferred = [{k[len(prefix):]: DeferredSlot(v) for k, v in s.items() if k.startswith(prefix)} for s in slot_vars]
    out, _ = transformation.update(updates, deferred, params, step)
    return out, [d for s in deferred for d in s.values()]


def commit_all(deferred, condition):
    """The assignments of every DeferredSlot in ``deferred`` under ``condition``."""
    return [op for op in (d.commit(condition) for d in deferred) if op is not None]


def prefixed_slots(prefix, transformation):
    """``transformation``'s slot initialisers under ``prefix``."""
    return {prefix + k: init for k, init in transformation.slots.items()}
