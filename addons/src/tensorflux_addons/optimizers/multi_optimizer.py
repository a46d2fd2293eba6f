"""Different optimizers (or learning rates) for different groups of variables, in one optimizer
(tensorflow-addons' MultiOptimizer, optax.multi_transform): each variable belongs to the first
group whose selector takes it, and is updated by that group's transformation only; all groups
share one step counter, so one apply_gradients (or Keras's fit) steps them together.
"""

import tensorflux as tx
from tensorflux.optimizers import GradientTransformation, Optimizer

from tensorflux_addons.optimizers._base import inner_transformation


def _selector(spec):
    if callable(spec) and not isinstance(spec, tx.Variable):
        return spec
    members = [spec] if isinstance(spec, tx.Variable) else list(spec)
    ids = {id(v) for v in members}
    return lambda var: id(var) in ids


def multi_transform(groups):
    """One transformation from ``groups``: [(transformation or Optimizer, selector)], a selector
    being a Variable, a list of Variables or a predicate ``var -> bool``. Group i's slots are named
    ``<i>/<slot>``; variables outside group i get empty placeholders of shape [0] for them."""
    if not groups:
        raise ValueError("multi_transform needs at least one (optimizer, variables) group")
    parts = [(inner_transformation(t), _selector(sel)) for t, sel in groups]

    def group_of(var):
        for i, (_, select) in enumerate(parts):
            if select(var):
                return i
        raise ValueError("variable %s is in none of the %d groups of the MultiOptimizer" % (var.name, len(parts)))

    def slot_init(i, init):
        def make(var):
            return init(var) if group_of(var) == i else tx.zeros([0], var.dtype)
        return make

    slots = {"%d/%s" % (i, k): slot_init(i, init) for i, (t, _) in enumerate(parts) for k, init in t.slots.items()}

    def update(updates, slot_vars, params, step):
        out, ops = list(updates), []
        for i, (t, _) in enumerate(parts):
            members = [j for j, p in enumerate(params) if group_of(p) == i]
            if not members:
                continue
            prefix = "%d/" % i
            mine = [{k[len(prefix):]: v for k, v in slot_vars[j].items() if k.startswith(prefix)} for j in members]
            new, new_ops = t.update([updates[j] for j in members], mine, [params[j] for j in members], step)
            for j, u in zip(members, new):
                out[j] = u
            ops.extend(new_ops)
        return out, ops
    return GradientTransformation("multi_transform", slots, update)


def MultiOptimizer(groups, name="MultiOptimizer"):  # noqa: N802
    """An Optimizer updating each group of variables with its own optimizer: ``groups`` is a list
    of (Optimizer or transformation, variables or predicate) pairs (see `multi_transform`).

    >>> import tensorflux_addons as txa
    >>> w, b = tx.Variable([1.0]), tx.Variable([1.0])
    >>> opt = txa.optimizers.MultiOptimizer([(tx.optimizers.SGD(0.1), [w]), (tx.optimizers.SGD(0.5), [b])])
    >>> _ = opt.apply_gradients([(tx.constant([1.0]), w), (tx.constant([1.0]), b)])
    >>> w.numpy(), b.numpy()
    (array([0.9], dtype=float32), array([0.5], dtype=float32))
    """
    return Optimizer(multi_transform(groups), name=name)
