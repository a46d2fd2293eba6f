"""Learning-rate schedules: callables step -> learning rate (float32 tensors), usable wherever
an optimizer takes a learning rate (``step`` is the optimizer's 0-based int64 step)."""

import math

from tensorflux._src import math_ops
from tensorflux._src.generated import gen_ops


def _step(step):
    return math_ops.cast(step, "float32")


def exponential_decay(initial_learning_rate, decay_steps, decay_rate, staircase=False):
    """lr * decay_rate ^ (step / decay_steps) (the exponent floored with ``staircase``).

    >>> lr = tx.optimizers.schedules.exponential_decay(0.1, decay_steps=10, decay_rate=0.5)
    >>> [round(float(lr(step)), 4) for step in (0, 10, 20)]
    [0.1, 0.05, 0.025]
    """
    if decay_steps <= 0:
        raise ValueError("exponential_decay: decay_steps must be positive, got %r" % (decay_steps,))

    def schedule(step):
        p = _step(step) / float(decay_steps)
        if staircase:
            p = gen_ops.floor(p)
        return initial_learning_rate * gen_ops.pow(math_ops.cast(decay_rate, "float32"), p)
    return schedule


def cosine_decay(initial_learning_rate, decay_steps, alpha=0.0, warmup_steps=0, warmup_target=None):
    """Linear warmup from ``initial_learning_rate`` to ``warmup_target`` over ``warmup_steps``
    (none by default), then cosine decay of the peak to ``alpha * peak`` over ``decay_steps``.

    >>> lr = tx.optimizers.schedules.cosine_decay(1.0, decay_steps=100)
    >>> [round(float(lr(step)), 4) for step in (0, 50, 100)]
    [1.0, 0.5, 0.0]
    """
    if decay_steps <= 0:
        raise ValueError("cosine_decay: decay_steps must be positive, got %r" % (decay_steps,))
    peak = initial_learning_rate if warmup_target is None else warmup_target

    def schedule(step):
        s = _step(step)
        done = gen_ops.minimum(gen_ops.maximum(s - float(warmup_steps), 0.0), float(decay_steps)) / float(decay_steps)
        cosine = 0.5 * (1.0 + gen_ops.cos(math.pi * done))
        decayed = peak * ((1.0 - alpha) * cosine + alpha)
        if not warmup_steps:
            return decayed
        warm = initial_learning_rate + (peak - initial_learning_rate) * s / float(warmup_steps)
        return gen_ops.select_v2(gen_ops.less(s, float(warmup_steps)), warm, decayed)
    return schedule


def piecewise_constant(boundaries, values):
    """values[i] while boundaries[i-1] <= step < boundaries[i] (len(values) = len(boundaries) + 1).

    >>> lr = tx.optimizers.schedules.piecewise_constant([100, 200], [1.0, 0.5, 0.1])
    >>> [round(float(lr(step)), 4) for step in (0, 150, 250)]
    [1.0, 0.5, 0.1]
    """
    if len(values) != len(boundaries) + 1:
        raise ValueError("piecewise_constant: need len(values) == len(boundaries) + 1, got %d and %d"
                         % (len(values), len(boundaries)))
    if list(boundaries) != sorted(boundaries):
        raise ValueError("piecewise_constant: boundaries must be increasing, got %r" % (boundaries,))

    def schedule(step):
        s = math_ops.cast(step, "int64")
        lr = math_ops.cast(values[-1], "float32")
        for b, v in reversed(list(zip(boundaries, values[:-1]))):
            lr = gen_ops.select_v2(gen_ops.less(s, math_ops.cast(b, "int64")), math_ops.cast(v, "float32"), lr)
        return lr
    return schedule


def polynomial_decay(initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0):
    """(lr - end) * (1 - min(step, decay_steps) / decay_steps) ^ power + end.

    >>> lr = tx.optimizers.schedules.polynomial_decay(1.0, decay_steps=10, end_learning_rate=0.0)
    >>> [round(float(lr(step)), 4) for step in (0, 5, 10, 20)]
    [1.0, 0.5, 0.0, 0.0]
    """
    if decay_steps <= 0:
        raise ValueError("polynomial_decay: decay_steps must be positive, got %r" % (decay_steps,))

    def schedule(step):
        frac = 1.0 - gen_ops.minimum(_step(step), float(decay_steps)) / float(decay_steps)
        return (initial_learning_rate - end_learning_rate) * gen_ops.pow(frac, float(power)) + end_learning_rate
    return schedule
