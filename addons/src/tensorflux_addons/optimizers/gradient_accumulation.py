"""Gradient accumulation (optax.MultiSteps): the wrapped optimizer takes one step on the mean of
every ``every_k`` consecutive gradients; in between, the variables and its state do not change:

    a_i     = a_{i-1} + (g_i - a_{i-1}) / (i mod k + 1)          (running mean, reset after use)
    step i with i mod k = k - 1:  theta <- theta + inner_update(a_i, inner_step = i div k)
    other steps:                  theta unchanged

Equivalent to training with k-times larger batches (for mean losses), in the memory of one.
The wrapped transformation still runs every step (its result is kept only on the k-th), which
is the price of staying a plain transformation usable in graph mode, tx.function and Keras.
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer

from tensorflux_addons.optimizers._base import commit_all, inner_transformation, prefixed_slots, run_deferred, zeros

INNER = "inner/"


def accumulate_gradients(transformation, every_k):
    """``transformation`` applied to the mean of every ``every_k`` updates (slot ``acc`` plus the
    wrapped transformation's slots under ``inner/``)."""
    if int(every_k) != every_k or every_k < 1:
        raise ValueError("every_k must be a positive integer, got %r" % (every_k,))
    k = int(every_k)

    def update(updates, slot_vars, params, step):
        mini = step % k
        emit = tx.equal(mini, tx.cast(k - 1, step.dtype))
        means, ops = [], []
        for u, s in zip(updates, slot_vars):
            acc = s["acc"].value()
            means.append(acc + (u - acc) / (tx.cast(mini, u.dtype) + 1.0))
        inner_updates, deferred = run_deferred(transformation, INNER, means, slot_vars, params, step // k)
        out = []
        for mean, u, s in zip(means, inner_updates, slot_vars):
            ops.append(s["acc"].assign(tx.where(emit, tx.zeros_like(mean), mean), read_value=False))
            out.append(tx.where(emit, u, tx.zeros_like(u)))
        ops.extend(commit_all(deferred, emit))
        if not tx.executing_eagerly():
            with tx.control_dependencies(ops):
                out = [tx.identity(u) for u in out]
        return out, ops
    return GradientTransformation("accumulate_gradients", dict(prefixed_slots(INNER, transformation), acc=zeros),
                                  update)


def GradientAccumulation(optimizer, every_k, name=None):  # noqa: N802
    """``optimizer`` (an Optimizer or a transformation) stepping once per ``every_k`` calls of
    apply_gradients, on the mean of their gradients.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0])
    >>> opt = txa.optimizers.GradientAccumulation(tx.optimizers.SGD(0.1), every_k=2)
    >>> for g in ([1.0], [3.0]):
    ...     opt.apply_gradients([(tx.constant(g), w)])
    ...     print(w.numpy())
    [1.]
    [0.8]
    """
    inner = inner_transformation(optimizer)
    return Optimizer(accumulate_gradients(inner, every_k),
                     name=name or "GradientAccumulation" + ("_" + optimizer.name if isinstance(optimizer, Optimizer)
                                                             else ""))
