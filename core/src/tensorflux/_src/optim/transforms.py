"""Gradient transformations, the building blocks of every optimizer (the design Optax made
standard, in graph mode).

A `GradientTransformation` declares its slot variables (per trained variable, e.g. Adam's "m"
and "v") and maps a list of updates to new updates, given its slots, the trained variables and
the step. `chain` composes transformations left to right; an optimizer is a chain whose final
updates are added to the variables. Slot updates are returned as ops that run in the same step.

Writing a new transformation takes a few lines:

    def scale_by_sign():
        def update(updates, slots, params, step):
            return [tx.sign(u) for u in updates], []
        return GradientTransformation("scale_by_sign", {}, update)
"""

from tensorflux._src import math_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.constant_op import constant


class GradientTransformation:
    """``slots``: {slot name: init(var) -> initial value}; ``update(updates, slots, params, step)``
    -> (new updates, [ops]) where ``slots[i][name]`` is the slot Variable of ``params[i]`` and
    ``step`` is the 0-based step number (int64 tensor) being applied."""

    def __init__(self, name, slots, update):
        self.name = name
        self.slots = dict(slots)
        self.update = update

    def __repr__(self):
        return "<GradientTransformation %s slots=%s>" % (self.name, sorted(self.slots))


def _zeros_like(var):
    """Zeros of the variable's shape (from its static shape, so the slot needs no variable read)."""
    return _fill_like(var, 0)


def _fill_like(var, value):
    dims = var.shape.as_list() if var.shape.rank is not None else None
    if dims is not None and all(d is not None for d in dims):
        return gen_ops.fill(constant(dims, dtype="int64"), math_ops.cast(value, var.dtype))
    return gen_ops.fill(gen_ops.shape(var.initial_value), math_ops.cast(value, var.dtype))


def _f(step, dtype):
    return math_ops.cast(step, dtype)


def chain(*transforms):
    """Applies ``transforms`` in order; slot names are prefixed "<index>_<name>/" to stay distinct.

    >>> opt = tx.optimizers.Optimizer(tx.optimizers.chain(
    ...     tx.optimizers.clip_by_global_norm(1.0), tx.optimizers.scale_by_learning_rate(0.5)))
    >>> w = tx.Variable([3.0, 4.0])
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> w.numpy()
    array([2.7, 3.6], dtype=float32)
    """
    transforms = [t for t in transforms if t is not None]
    slots = {}
    for i, t in enumerate(transforms):
        for name, init in t.slots.items():
            slots["%d_%s/%s" % (i, t.name, name)] = init

    def update(updates, slot_vars, params, step):
        ops = []
        for i, t in enumerate(transforms):
            prefix = "%d_%s/" % (i, t.name)
            mine = [{k[len(prefix):]: v for k, v in s.items() if k.startswith(prefix)} for s in slot_vars]
            updates, new_ops = t.update(updates, mine, params, step)
            ops.extend(new_ops)
        return updates, ops

    return GradientTransformation("chain", slots, update)


def scale(factor):
    """Multiplies updates by a constant ``factor``.

    >>> w = tx.Variable([1.0])
    >>> opt = tx.optimizers.Optimizer(tx.optimizers.scale(-0.5))
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * w), var_list=[w])
    >>> w.numpy()
    array([0.], dtype=float32)
    """
    def update(updates, slots, params, step):
        return [u * math_ops.cast(factor, u.dtype) for u in updates], []
    return GradientTransformation("scale", {}, update)


def scale_by_schedule(schedule):
    """Multiplies updates by ``schedule(step)`` (a tensor or Python number)."""
    def update(updates, slots, params, step):
        s = schedule(step)
        return [u * math_ops.cast(s, u.dtype) for u in updates], []
    return GradientTransformation("scale_by_schedule", {}, update)


def scale_by_learning_rate(learning_rate):
    """Multiplies updates by -learning_rate (a number or a schedule), so they descend."""
    if callable(learning_rate):
        return scale_by_schedule(lambda step: -learning_rate(step))
    return scale(-learning_rate)


def _assign(var, value):
    return var.assign(value, read_value=False)


def trace(decay, nesterov=False):
    """Momentum: t = decay * t + u; updates become t (or u + decay * t with nesterov).

    >>> w = tx.Variable([0.0])
    >>> opt = tx.optimizers.Optimizer(tx.optimizers.chain(tx.optimizers.trace(0.5), tx.optimizers.scale(-1.0)))
    >>> for _ in range(2):
    ...     _ = opt.minimize(lambda: tx.reduce_sum(w), var_list=[w])
    ...
    >>> w.numpy()
    array([-2.5], dtype=float32)
    """
    def update(updates, slots, params, step):
        out, ops = [], []
        for u, s in zip(updates, slots):
            t = s["trace"].value() * math_ops.cast(decay, u.dtype) + u
            ops.append(_assign(s["trace"], t))
            out.append(u + t * math_ops.cast(decay, u.dtype) if nesterov else t)
        return out, ops
    return GradientTransformation("trace", {"trace": _zeros_like}, update)


def scale_by_adam(b1=0.9, b2=0.999, eps=1e-7):
    """Adam's direction: m and v are the moving averages of u and u^2;
    updates = m * sqrt(1 - b2^t) / (1 - b1^t) / (sqrt(v) + eps) with t = step + 1 (TensorFlow's
    form, which the fused ResourceApplyAdam kernel computes)."""
    def update(updates, slots, params, step):
        out, ops = [], []
        for u, s in zip(updates, slots):
            dt = u.dtype
            t = _f(step, dt) + 1.0
            m = s["m"].value() * b1 + u * (1.0 - b1)
            v = s["v"].value() * b2 + gen_ops.square(u) * (1.0 - b2)
            ops += [_assign(s["m"], m), _assign(s["v"], v)]
            correction = gen_ops.sqrt(1.0 - gen_ops.pow(math_ops.cast(b2, dt), t)) / (
                1.0 - gen_ops.pow(math_ops.cast(b1, dt), t))
            out.append(m * correction / (gen_ops.sqrt(v) + eps))
        return out, ops
    return GradientTransformation("scale_by_adam", {"m": _zeros_like, "v": _zeros_like}, update)


def scale_by_rms(decay=0.9, eps=1e-7):
    """RMSprop's direction: nu = decay * nu + (1 - decay) u^2; updates = u / sqrt(nu + eps)."""
    def update(updates, slots, params, step):
        out, ops = [], []
        for u, s in zip(updates, slots):
            nu = s["nu"].value() * decay + gen_ops.square(u) * (1.0 - decay)
            ops.append(_assign(s["nu"], nu))
            out.append(u * gen_ops.rsqrt(nu + eps))
        return out, ops
    return GradientTransformation("scale_by_rms", {"nu": _zeros_like}, update)


def scale_by_rss(initial_accumulator_value=0.1, eps=1e-7):
    """Adagrad's direction: acc += u^2; updates = u / (sqrt(acc) + eps)."""
    def init(var):
        return _fill_like(var, initial_accumulator_value)

    def update(updates, slots, params, step):
        out, ops = [], []
        for u, s in zip(updates, slots):
            acc = s["acc"].value() + gen_ops.square(u)
            ops.append(_assign(s["acc"], acc))
            out.append(u / (gen_ops.sqrt(acc) + eps))
        return out, ops
    return GradientTransformation("scale_by_rss", {"acc": init}, update)


def add_decayed_weights(weight_decay, mask=None):
    """Adds ``weight_decay * param`` to each update (decoupled weight decay, as in AdamW);
    ``mask(var) -> bool`` picks the variables it applies to."""
    def update(updates, slots, params, step):
        out = []
        for u, p in zip(updates, params):
            if mask is not None and not mask(p):
                out.append(u)
            else:
                out.append(u + p.value() * math_ops.cast(weight_decay, u.dtype))
        return out, []
    return GradientTransformation("add_decayed_weights", {}, update)


def clip_by_global_norm(max_norm):
    """Rescales all updates together so their global L2 norm is at most ``max_norm``.

    >>> w = tx.Variable([0.0, 0.0])
    >>> clip = tx.optimizers.clip_by_global_norm(1.0)
    >>> opt = tx.optimizers.Optimizer(tx.optimizers.chain(clip, tx.optimizers.scale(-1.0)))
    >>> _ = opt.minimize(lambda: tx.reduce_sum(w * tx.constant([3.0, 4.0])), var_list=[w])
    >>> np.round(w.numpy(), 4)
    array([-0.6, -0.8], dtype=float32)
    """
    def update(updates, slots, params, step):
        if not updates:
            return updates, []
        sq = [math_ops.reduce_sum(gen_ops.square(math_ops.cast(u, "float32"))) for u in updates]
        norm = gen_ops.sqrt(gen_ops.add_n(sq) if len(sq) > 1 else sq[0])
        factor = math_ops.cast(max_norm, "float32") / gen_ops.maximum(norm, math_ops.cast(max_norm, "float32"))
        return [u * math_ops.cast(factor, u.dtype) for u in updates], []
    return GradientTransformation("clip_by_global_norm", {}, update)


def clip(max_delta):
    """Clips every update element to [-max_delta, max_delta]."""
    def update(updates, slots, params, step):
        return [math_ops.clip_by_value(u, -max_delta, max_delta) for u in updates], []
    return GradientTransformation("clip", {}, update)

