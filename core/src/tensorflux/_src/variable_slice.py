"""Indexing a `Variable`: ``v[0]`` is the slice's value (read when indexed, as in TensorFlow), and
``v[0].assign(x)`` writes ``x`` into that slice of the variable."""

import numpy as np

from tensorflux._src import array_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import TensorLike


class VariableSlice(TensorLike):
    """The value of ``variable[spec]`` (a tensor everywhere one is expected: operators, ops,
    ``numpy()``), which also assigns into that slice of the variable."""

    __array_priority__ = 100

    def __init__(self, variable, spec, value):
        self._variable = variable
        self._spec = spec
        self._value = value

    def __getattr__(self, name):
        return getattr(self._value, name)

    def _as_graph_element(self):
        return self._value

    def _as_eager_tensor(self):
        return self._value

    def _as_tensor(self):
        return self._value

    def __array__(self, dtype=None, copy=None):
        return self._value.__array__(dtype, copy)

    def __repr__(self):
        return repr(self._value)

    def __str__(self):
        return str(self._value)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Writes ``value`` (broadcast to the slice's shape) into the variable's slice; returns the
        variable's new value (or the assign op with ``read_value=False`` in graph mode)."""
        return self._update(lambda old, new: new, value, read_value, name)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta`` to the variable's slice."""
        return self._update(gen_ops.add_v2, delta, read_value, name)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta`` from the variable's slice."""
        return self._update(gen_ops.sub, delta, read_value, name)

    def _update(self, combine, value, read_value, name):
        var = self._variable
        if not isinstance(self._spec, (tuple, int, slice)) and self._spec is not Ellipsis:
            if not (hasattr(self._spec, "dtype") and self._spec.shape.rank == 0):
                raise TypeError("Assigning to a slice of %s needs basic indexing (ints, slices, ..., newaxis), not %r"
                                % (var.name, self._spec))
        full = var.read_value()
        begin, end, strides, masks = array_ops.strided_slice_spec(self._spec)
        current = gen_ops.strided_slice(full, begin, end, strides, **masks)
        update = combine(current, convert_to_tensor(value, dtype=var.dtype))
        update = gen_ops.broadcast_to(update, gen_ops.shape(current))
        shape = gen_ops.shape(full)
        placed = gen_ops.strided_slice_grad(shape, begin, end, strides, update, **masks)
        ones = gen_ops.fill(gen_ops.shape(current), np.int32(1))
        hit = gen_ops.strided_slice_grad(shape, begin, end, strides, ones, **masks)
        new = gen_ops.select_v2(gen_ops.greater(hit, np.int32(0)), placed, full)
        return var.assign(new, read_value=read_value, name=name)

