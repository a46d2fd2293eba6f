"""Averages of the iterates kept next to training, for evaluation: an exponential moving average
(Polyak & Juditsky 1992, "Acceleration of Stochastic Approximation by Averaging"; the EMA form of
Keras's use_ema) and stochastic weight averaging (Izmailov et al. 2018, "Averaging Weights Leads
to Wider Optima and Better Generalization", arXiv:1803.05407, Algorithm 1):

    EMA: avg_t = decay * avg_{t-1} + (1 - decay) * theta_t                       (every step)
    SWA: avg   = (n * avg + theta_t) / (n + 1),  n += 1      (steps t >= start, every `every`)

theta_t is the variable after the wrapped optimizer's update (its weight decay included: the
wrapped optimizer runs whole). `assign_average_vars` copies the averages into the variables.
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer

from tensorflux_addons.optimizers._base import check_hyper, check_unit_interval, copy_of, inner_transformation

INNER = "inner/"


def average_iterates(transformation, decay=None, start=0, every=1):
    """``transformation`` plus a slot ``average`` of the variables after each update: an EMA with
    ``decay``, or (``decay=None``) the SWA mean of the iterates after steps start, start + every, ..."""
    def update(updates, slot_vars, params, step):
        inner = [{k[len(INNER):]: v for k, v in s.items() if k.startswith(INNER)} for s in slot_vars]
        new_updates, ops = transformation.update(updates, inner, params, step)
        for u, s, p in zip(new_updates, slot_vars, params):
            theta, avg = p.value(), s["average"].value()
            new_theta = theta + u
            if decay is not None:
                new_avg = avg * decay + new_theta * (1.0 - decay)
            else:
                since = step - start
                due = tx.logical_and(tx.greater_equal(since, tx.cast(0, step.dtype)),
                                     tx.equal(since % every, tx.cast(0, step.dtype)))
                n = tx.cast(tx.maximum(since, tx.cast(0, step.dtype)) // every, u.dtype)  # averaged so far
                new_avg = tx.where(due, avg + (new_theta - avg) / (n + 1.0), avg)
            with tx.control_dependencies([theta, avg]):
                ops.append(s["average"].assign(new_avg, read_value=False))
        return new_updates, ops
    slots = {INNER + k: init for k, init in transformation.slots.items()}
    slots["average"] = copy_of
    return GradientTransformation("average_iterates", slots, update)


class MovingAverage(Optimizer):
    """An Optimizer keeping an average of each variable it updates (slot ``average``)."""

    def average(self, var):
        """The slot Variable holding ``var``'s average (after the first step)."""
        return self.get_slot(var, "average")

    def assign_average_vars(self, var_list):
        """Copies the averages into ``var_list`` (Keras's finalize_variable_values): done at once
        eagerly (returns None), else returns the grouped assignment op."""
        ops = [v.assign(self.average(v).value(), read_value=False) for v in var_list]
        if tx.executing_eagerly():
            return None
        with tx.control_dependencies(ops):
            return tx.no_op()


def _name(prefix, optimizer, name):
    return name or prefix + ("_" + optimizer.name if isinstance(optimizer, Optimizer) else "")


def EMA(optimizer, decay=0.999, name=None):  # noqa: N802
    """``optimizer`` with an exponential moving average of the variables.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([1.0])
    >>> opt = txa.optimizers.EMA(tx.optimizers.SGD(0.5), decay=0.5)
    >>> _ = opt.apply_gradients([(tx.constant([1.0]), w)])
    >>> w.numpy(), opt.average(w).numpy()
    (array([0.5], dtype=float32), array([0.75], dtype=float32))
    """
    check_hyper(decay=decay)
    check_unit_interval(decay=decay)
    return MovingAverage(average_iterates(inner_transformation(optimizer), decay=decay),
                         name=_name("EMA", optimizer, name))


def SWA(optimizer, start=0, every=1, name=None):  # noqa: N802
    """``optimizer`` with stochastic weight averaging of the iterates from step ``start`` (0-based)
    on, one every ``every`` steps.

    >>> import tensorflux_addons as txa
    >>> w = tx.Variable([4.0])
    >>> opt = txa.optimizers.SWA(tx.optimizers.SGD(1.0))
    >>> for _ in range(2):
    ...     _ = opt.apply_gradients([(tx.constant([1.0]), w)])
    >>> w.numpy(), opt.average(w).numpy()   # the mean of the iterates 3 and 2
    (array([2.], dtype=float32), array([2.5], dtype=float32))
    """
    for label, value in (("start", start), ("every", every)):
        if int(value) != value or value < (1 if label == "every" else 0):
            raise ValueError("%s must be a %s integer, got %r" % (label, "positive" if label == "every"
                                                                   else "non-negative", value))
    return MovingAverage(average_iterates(inner_transformation(optimizer), start=int(start), every=int(every)),
                         name=_name("SWA", optimizer, name))
