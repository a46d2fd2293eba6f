"""What the MCMC kernels share: chain states packed into one [chains, D] matrix, the target's log
density and its gradient, and safe accept/reject arithmetic.

Note [Packed chain states]: a chain state is a tensor or a list of tensors, each with the chains
as leading dimensions (``[chains, ...]``). The kernels work on one matrix ``[chains, D]`` (every
part's event flattened and concatenated), so leapfrog steps, momenta and U-turn checks are a few
matrix ops whatever the state's structure, and ``target_log_prob_fn`` always sees the state in the
caller's structure. The number of leading chain dimensions is fixed by the log density's shape:
``target_log_prob_fn(*parts)`` returns one value per chain.
"""

import numpy as np

import tensorflux as tx


class StateLayout:
    """How a list of state parts maps to columns of the packed ``[chains, D]`` matrix."""

    def __init__(self, parts, batch_ndims):
        self.batch_ndims = batch_ndims
        self.event_shapes = []
        for p in parts:
            s = p.shape.as_list()
            if any(d is None for d in s):
                raise ValueError("MCMC states need static shapes; got a part of shape %s" % (p.shape,))
            self.event_shapes.append(s[batch_ndims:])
        self.batch_shape = parts[0].shape.as_list()[:batch_ndims]
        self.sizes = [int(np.prod(s, dtype=np.int64)) for s in self.event_shapes]
        self.dim = sum(self.sizes)

    def pack(self, parts):
        flat = [tx.reshape(p, self.batch_shape + [n]) for p, n in zip(parts, self.sizes)]
        return flat[0] if len(flat) == 1 else tx.concat(flat, axis=-1)

    def unpack(self, x):
        pieces = [x] if len(self.sizes) == 1 else tx.split(x, self.sizes, axis=-1)
        return [tx.reshape(p, self.batch_shape + s) for p, s in zip(pieces, self.event_shapes)]


def as_parts(state):
    """(list of tensors, was_list) for a state given as a tensor or a list/tuple of tensors."""
    if isinstance(state, (list, tuple)):
        return [tx.convert_to_tensor(s) for s in state], True
    return [tx.convert_to_tensor(state)], False


def value_and_gradient(target_log_prob_fn, layout, x):
    """(log density per chain, its gradient as a [chains..., D] matrix) at packed state ``x``;
    NaN log densities become -inf (a rejected proposal, never a NaN chain)."""
    with tx.GradientTape() as tape:
        tape.watch(x)
        lp = target_log_prob_fn(*layout.unpack(x))
    grad = tape.gradient(lp, x)
    if grad is None:
        grad = tx.zeros_like(x)
    lp = tx.broadcast_to(lp, layout.batch_shape) if lp.shape.as_list() != layout.batch_shape else lp
    bad = tx.logical_not(tx.math.is_finite(lp))
    lp = tx.where(tx.math.is_nan(lp), tx.constant(-np.inf, lp.dtype), lp)
    grad = tx.where(tx.expand_dims(bad, -1), tx.constant(0.0, grad.dtype), grad)
    return lp, grad


def batch_ndims_of(target_log_prob_fn, parts):
    """The number of leading chain dimensions: the rank of the log density at the initial state."""
    lp = target_log_prob_fn(*parts)
    rank = tx.convert_to_tensor(lp).shape.rank
    if rank is None:
        raise ValueError("target_log_prob_fn must return a tensor of static rank (one value per chain)")
    return rank


def safe_log_accept(log_ratio):
    """``log_ratio`` with NaN (a diverged proposal) replaced by -inf, so it is rejected."""
    return tx.where(tx.math.is_nan(log_ratio), tx.constant(-np.inf, log_ratio.dtype), log_ratio)


def shape_of(x):
    """``x``'s shape as a list when static (so ops built from it keep static shapes in loops), else
    a tensor."""
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is not None and all(d is not None for d in dims):
        return dims
    return tx.shape(x)


def expand_right(v, like):
    """``v`` ([chains...]) with trailing unit dimensions to broadcast against ``like``."""
    for _ in range(like.shape.rank - v.shape.rank):
        v = tx.expand_dims(v, -1)
    return v
