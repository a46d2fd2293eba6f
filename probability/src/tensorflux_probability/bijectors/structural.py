"""Bijectors that move entries around (zero log-det-Jacobian) or apply others block-wise:
Reshape, Transpose, Permute, Blockwise."""

import numpy as np

import tensorflux as tx

from tensorflux_probability.bijectors.bijector import Bijector


class _VolumePreserving(Bijector):
    def _forward_log_det_jacobian(self, x):
        return tx.zeros([], x.dtype)

    def _inverse_log_det_jacobian(self, y):
        return tx.zeros([], y.dtype)


class Reshape(_VolumePreserving):
    """Reshapes the rightmost ``event_shape_in`` dimensions to ``event_shape_out`` (one -1 allowed).

    >>> txp.bijectors.Reshape([2, 2], [4]).forward(tx.range(4.0)).shape
    TensorShape([2, 2])
    """

    def __init__(self, event_shape_out, event_shape_in=(-1,), validate_args=False, name="reshape"):
        self._out = [int(d) for d in event_shape_out]
        self._in = [int(d) for d in event_shape_in]
        super().__init__(len(self._in), len(self._out), is_constant_jacobian=True, validate_args=validate_args,
                         parameters=dict(locals()), name=name)

    def _reshape(self, x, src, dst):
        shape = x.shape.as_list()
        if x.shape.rank is None or x.shape.rank < len(src):
            raise ValueError("%s: input of shape %s has fewer than %d event dimensions"
                             % (self.name, x.shape, len(src)))
        event = shape[len(shape) - len(src):] if src else []
        for have, want in zip(event, src):
            if want != -1 and have is not None and have != want:
                raise ValueError("%s: event shape %s does not match %s" % (self.name, event, src))
        batch = tx.shape(x)[:x.shape.rank - len(src)]
        return tx.reshape(x, tx.concat([batch, tx.constant(dst, tx.int32)], 0))

    def _forward(self, x):
        return self._reshape(x, self._in, self._out)

    def _inverse(self, y):
        return self._reshape(y, self._out, self._in)

    @staticmethod
    def _map_shape(s, src, dst):
        if s.rank is None:
            return s
        dims = s.as_list()
        event = dims[len(dims) - len(src):]
        size = int(np.prod([d for d in event])) if all(d is not None for d in event) else None
        out = list(dst)
        if -1 in out:
            known = int(np.prod([d for d in out if d != -1]))
            out[out.index(-1)] = None if size is None else size // known
        return tx.TensorShape(dims[:len(dims) - len(src)] + out)

    def _forward_event_shape(self, s):
        return self._map_shape(s, self._in, self._out)

    def _inverse_event_shape(self, s):
        return self._map_shape(s, self._out, self._in)


class Transpose(_VolumePreserving):
    """Permutes the rightmost ``len(perm)`` dimensions by ``perm``.

    >>> txp.bijectors.Transpose(perm=[1, 0]).forward(tx.zeros([2, 3])).shape
    TensorShape([3, 2])
    """

    def __init__(self, perm, validate_args=False, name="transpose"):
        self._perm = [int(p) for p in perm]
        if sorted(self._perm) != list(range(len(self._perm))):
            raise ValueError("perm %s is not a permutation of 0..%d" % (self._perm, len(self._perm) - 1))
        super().__init__(len(self._perm), is_constant_jacobian=True, validate_args=validate_args,
                         parameters=dict(locals()), name=name)

    def _apply(self, x, perm):
        rank = x.shape.rank
        if rank is None or rank < len(perm):
            raise ValueError("%s: input of rank %s is less than %d" % (self.name, rank, len(perm)))
        lead = rank - len(perm)
        return tx.transpose(x, list(range(lead)) + [lead + p for p in perm])

    def _forward(self, x):
        return self._apply(x, self._perm)

    def _inverse(self, y):
        return self._apply(y, list(np.argsort(self._perm)))

    def _forward_event_shape(self, s):
        if s.rank is None:
            return s
        d = s.as_list()
        lead = len(d) - len(self._perm)
        return tx.TensorShape(d[:lead] + [d[lead + p] for p in self._perm])

    def _inverse_event_shape(self, s):
        if s.rank is None:
            return s
        d = s.as_list()
        lead = len(d) - len(self._perm)
        inv = list(np.argsort(self._perm))
        return tx.TensorShape(d[:lead] + [d[lead + p] for p in inv])


class Permute(_VolumePreserving):
    """Reorders the entries of axis ``axis`` (a negative axis of the event): y = x[..., permutation].

    >>> txp.bijectors.Permute([2, 0, 1]).forward([10.0, 20.0, 30.0]).numpy()
    array([30., 10., 20.], dtype=float32)
    """

    def __init__(self, permutation, axis=-1, validate_args=False, name="permute"):
        self._perm = np.asarray(permutation, np.int32)
        if sorted(self._perm.tolist()) != list(range(len(self._perm))):
            raise ValueError("permutation %s is not a permutation of 0..%d"
                             % (self._perm.tolist(), len(self._perm) - 1))
        if axis >= 0:
            raise ValueError("axis must be negative (an event axis), got %d" % axis)
        self._axis = int(axis)
        super().__init__(-self._axis, is_constant_jacobian=True, validate_args=validate_args,
                         parameters=dict(locals()), name=name)

    permutation = property(lambda self: self._perm)

    def _forward(self, x):
        return tx.gather(x, tx.constant(self._perm), axis=x.shape.rank + self._axis)

    def _inverse(self, y):
        return tx.gather(y, tx.constant(np.argsort(self._perm).astype(np.int32)), axis=y.shape.rank + self._axis)


class Blockwise(Bijector):
    """Splits the last axis into blocks of ``block_sizes`` and applies one bijector (of scalar or
    vector events) to each.

    >>> b = txp.bijectors.Blockwise([txp.bijectors.Exp(), txp.bijectors.Identity()], block_sizes=[1, 2])
    >>> b.forward([0.0, 1.0, 2.0]).numpy()
    array([1., 1., 2.], dtype=float32)
    """

    def __init__(self, bijectors, block_sizes=None, validate_args=False, name=None):
        self._bijectors = list(bijectors)
        for b in self._bijectors:
            if b.forward_min_event_ndims > 1 or b.inverse_min_event_ndims > 1:
                raise ValueError("Blockwise takes bijectors of scalar or vector events; %s has rank %d"
                                 % (b.name, b.forward_min_event_ndims))
        self._sizes = [int(s) for s in (block_sizes or [1] * len(self._bijectors))]
        if len(self._sizes) != len(self._bijectors):
            raise ValueError("block_sizes has %d entries for %d bijectors" % (len(self._sizes), len(self._bijectors)))
        super().__init__(1, validate_args=validate_args, parameters=dict(locals()),
                         name=name or "blockwise_of_" + "_and_".join(b.name for b in self._bijectors))

    def _split(self, x):
        if x.shape.as_list()[-1] is not None and x.shape.as_list()[-1] != sum(self._sizes):
            raise ValueError("%s: last dimension %d is not the sum of block_sizes %s"
                             % (self.name, x.shape.as_list()[-1], self._sizes))
        return tx.split(x, self._sizes, axis=-1)

    def _forward(self, x):
        return tx.concat([b.forward(p) for b, p in zip(self._bijectors, self._split(x))], axis=-1)

    def _inverse(self, y):
        return tx.concat([b.inverse(p) for b, p in zip(self._bijectors, self._split(y))], axis=-1)

    def _forward_log_det_jacobian(self, x):
        return tx.add_n([b.forward_log_det_jacobian(p, event_ndims=1) for b, p in zip(self._bijectors, self._split(x))])

    def _inverse_log_det_jacobian(self, y):
        return tx.add_n([b.inverse_log_det_jacobian(p, event_ndims=1) for b, p in zip(self._bijectors, self._split(y))])
