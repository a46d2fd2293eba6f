"""`tx.TensorArray` with TensorFlow 2 semantics (docs/tensor_array.md).

Executing eagerly a TensorArray is a Python list of eager tensors (as TensorFlow's
``_EagerTensorArray``): writes change it and return it. While a graph is built (graph mode,
``tx.function``, AutoGraph) it is a TensorList: its ``flow`` is the scalar variant tensor the
engine's TensorList ops read and write (``_GraphTensorArray``), each write returns a new
TensorArray with a new flow, and ``tx.while_loop`` / ``tx.cond`` carry TensorArrays as their
flows. Reading and writing elements of a TensorArray carried by a loop changes the list in place
in the engine (Note [TensorList in place] in kernels/cpu/tensor_list.h), so an n-step loop that
writes each step costs O(n).
"""

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import errors as _errors
from tensorflux._src.array_ops import concat as _concat
from tensorflux._src.array_ops import split as _split
from tensorflux._src.array_ops import stack as _stack
from tensorflux._src.array_ops import unstack as _unstack
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.shape_ops import zeros
from tensorflux._src.tensor_shape import TensorShape, as_shape

__all__ = ["TensorArray"]


def _element_shape_tensor(shape):
    """A TensorShape as TensorList ops take it: -1 for an unknown rank, else the dims with -1."""
    if shape.rank is None:
        return convert_to_tensor(-1, dtype=_dtypes.int32)
    return convert_to_tensor(np.array([-1 if d is None else d for d in shape.as_list()], np.int32))


def _to_tensor(value, dtype):
    """``value`` as a tensor, of ``dtype`` when it converts to it (TensorFlow's preferred dtype)."""
    if hasattr(value, "dtype") and hasattr(value, "shape") and not isinstance(value, np.ndarray):
        return value
    try:
        return convert_to_tensor(value, dtype=dtype)
    except (TypeError, ValueError):
        return convert_to_tensor(value)


def _check_dtype(value, dtype):
    if value.dtype != dtype:
        raise _errors.InvalidArgumentError(None, None, "TensorArray dtype is %s but Op is trying to write dtype %s "
                                           % (dtype.name, value.dtype.name))


def _index(index):
    """A Python int for an eager index (a Python int, NumPy integer or scalar eager tensor)."""
    return int(index.numpy()) if hasattr(index, "numpy") else int(index)


class _EagerTensorArray:
    """The eager implementation: a Python list of tensors (None for elements not written)."""

    def __init__(self, dtype, size, dynamic_size, clear_after_read, infer_shape, element_shape, handle, flow):
        if handle is not None or flow is not None:
            raise ValueError("TensorArray handles and flows are not supported when executing eagerly.")
        self._dtype = dtype
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = element_shape
        n = _index(size) if size is not None else 0
        self._tensor_array = [None] * n
        self._previously_read = set()

    @property
    def flow(self):
        return convert_to_tensor(0, dtype=_dtypes.int32)

    @property
    def element_shape(self):
        return self._element_shape

    def _zeros_or_fail(self, index):
        t = self._tensor_array[index]
        if t is not None:
            return t
        if not self._element_shape.is_fully_defined():
            raise _errors.InvalidArgumentError(
                None, None, "Could not read from TensorArray index %d. Furthermore, the element shape is not fully "
                "defined: %s. It is possible you are working with a resizeable TensorArray and stop_gradients is not "
                "allowing the gradients to be written. If you set the full element_shape property on TensorArray, "
                "the proper gradients will be computed." % (index, self._element_shape))
        return zeros(self._element_shape.as_list(), dtype=self._dtype)

    def read(self, index):
        index = _index(index)
        if index < 0:
            raise _errors.OutOfRangeError(None, None,
                                          "Reading from negative indices (index %d) is not allowed." % index)
        if index >= len(self._tensor_array):
            raise _errors.OutOfRangeError(None, None, "Tried to read from index %d but array size is: %d "
                                          % (index, len(self._tensor_array)))
        if self._tensor_array[index] is None and index in self._previously_read:
            raise _errors.InvalidArgumentError(
                None, None, "Could not read index %d twice because it was cleared after a previous read (perhaps try "
                "setting clear_after_read = false?)" % index)
        value = self._zeros_or_fail(index)
        if self._clear_after_read:
            self._tensor_array[index] = None
            self._previously_read.add(index)
        return value

    def write(self, index, value):
        index = _index(index)
        if index < 0:
            raise _errors.OutOfRangeError(None, None, "Writing to negative indices (index %d) is not allowed." % index)
        size = len(self._tensor_array)
        if index >= size:
            if not self._dynamic_size:
                raise _errors.OutOfRangeError(None, None, "Tried to write to index %d but array is not resizeable and "
                                              "size is: %d " % (index, size))
            self._tensor_array.extend([None] * (index - size + 1))
        value = _to_tensor(value, self._dtype)
        _check_dtype(value, self._dtype)
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensor_array[index] = value
        return self

    def stack(self):
        if self._tensor_array:
            return _stack([self._zeros_or_fail(i) for i in range(len(self._tensor_array))])
        if self._element_shape.is_fully_defined():
            return zeros([0] + self._element_shape.as_list(), dtype=self._dtype)
        raise ValueError("Cannot stack an empty TensorArray whose element shape %s is not fully defined."
                         % self._element_shape)

    def gather(self, indices):
        idx = indices.numpy() if hasattr(indices, "numpy") else np.asarray(indices)
        return _stack([self._zeros_or_fail(int(i)) for i in np.reshape(idx, [-1])])

    def concat(self):
        return _concat([self._zeros_or_fail(i) for i in range(len(self._tensor_array))], 0)

    def unstack(self, value):
        value = _to_tensor(value, self._dtype)
        _check_dtype(value, self._dtype)
        tensors = _unstack(value)
        if len(tensors) > len(self._tensor_array) and not self._dynamic_size:
            raise ValueError("Cannot unstack %d tensors into a TensorArray of static size %d "
                             % (len(tensors), len(self._tensor_array)))
        if self._infer_shape and tensors:
            self._element_shape = self._element_shape.merge_with(tensors[0].shape)
        self._tensor_array = list(tensors)
        return self

    def scatter(self, indices, value):
        idx = indices.numpy() if hasattr(indices, "numpy") else np.asarray(indices)
        value = _to_tensor(value, self._dtype)
        for i, v in zip(np.reshape(idx, [-1]), _unstack(value)):
            self.write(int(i), v)
        return self

    def split(self, value, lengths):
        value = _to_tensor(value, self._dtype)
        _check_dtype(value, self._dtype)
        lengths = [int(v) for v in np.reshape(lengths.numpy() if hasattr(lengths, "numpy") else lengths, [-1])]
        if not self._dynamic_size and len(lengths) != len(self._tensor_array):
            raise ValueError("TensorArray's size is not equal to the size of lengths (%d vs. %d), and the TensorArray "
                             "is not marked as dynamically resizeable." % (len(self._tensor_array), len(lengths)))
        self._tensor_array = list(_split(value, lengths, 0))
        return self

    def size(self):
        return convert_to_tensor(len(self._tensor_array), dtype=_dtypes.int32)

    def close(self):
        del self._tensor_array[:]


class _GraphTensorArray:
    """The graph implementation over the engine's TensorList ops; `flow` is the list."""

    def __init__(self, dtype, size, dynamic_size, infer_shape, element_shape, flow, name):
        if (flow is None) == (size is None):
            raise ValueError("Exactly one of flow and size must be provided.")
        if flow is not None and flow.dtype != _dtypes.variant:
            raise TypeError("Expected `flow` to be a variant tensor, but received `%s` instead." % flow.dtype.name)
        self._dtype = dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        # One holder shared by every TensorArray made from this one by writes (TensorFlow's rule), so
        # a shape learnt from one write is known to all of them.
        self._element_shape = [element_shape]
        self._size = size
        if flow is None:
            with name_scope(name or "TensorArrayV2"):
                flow = gen_ops.tensor_list_reserve(_element_shape_tensor(element_shape),
                                                   convert_to_tensor(size, dtype=_dtypes.int32), element_dtype=dtype)
        self._flow = flow

    @property
    def flow(self):
        return self._flow

    @property
    def element_shape(self):
        return self._element_shape[0]

    def _with_flow(self, flow):
        other = _GraphTensorArray.__new__(_GraphTensorArray)
        other.__dict__.update(self.__dict__)
        other._flow = flow
        return other

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError("Inconsistent shapes: saw %s but expected %s " % (shape, self.element_shape))
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def read(self, index):
        value = gen_ops.tensor_list_get_item(self._flow, index, _element_shape_tensor(self.element_shape),
                                             element_dtype=self._dtype)
        return value

    def write(self, index, value):
        value = _to_tensor(value, self._dtype)
        _check_dtype(value, self._dtype)
        self._check_element_shape(value.shape)
        flow = gen_ops.tensor_list_set_item(self._flow, index, value,
                                            resize_if_index_out_of_bounds=self._dynamic_size)
        return self._with_flow(flow)

    def _static_size(self):
        if self._dynamic_size or self._size is None:
            return -1
        try:
            return _index(self._size) if not hasattr(self._size, "_op") else -1
        except (TypeError, ValueError):
            return -1

    def stack(self):
        return gen_ops.tensor_list_stack(self._flow, _element_shape_tensor(self.element_shape),
                                         element_dtype=self._dtype, num_elements=self._static_size())

    def gather(self, indices):
        return gen_ops.tensor_list_gather(self._flow, indices, _element_shape_tensor(self.element_shape),
                                          element_dtype=self._dtype)

    def concat(self):
        shape = self.element_shape
        if shape.rank is not None and shape.rank >= 1:
            shape = TensorShape([None] + shape.as_list()[1:])
        value, _ = gen_ops.tensor_list_concat_v2(self._flow, _element_shape_tensor(shape),
                                                 convert_to_tensor(np.zeros([0], np.int64)), element_dtype=self._dtype)
        return value

    def unstack(self, value):
        value = _to_tensor(value, self._dtype)
        _check_dtype(value, self._dtype)
        rows = TensorShape(value.shape.as_list()[1:]) if value.shape.rank is not None else TensorShape(None)
        self._check_element_shape(rows)
        return self._with_flow(gen_ops.tensor_list_from_tensor(value, _element_shape_tensor(rows)))

    def scatter(self, indices, value):
        value = _to_tensor(value, self._dtype)
        _check_dtype(value, self._dtype)
        if value.shape.rank is not None:
            self._check_element_shape(TensorShape(value.shape.as_list()[1:]))
        return self._with_flow(gen_ops.tensor_list_scatter_into_existing_list(self._flow, value, indices))

    def split(self, value, lengths):
        value = _to_tensor(value, self._dtype)
        _check_dtype(value, self._dtype)
        lengths = gen_ops.cast(convert_to_tensor(lengths), DstT=_dtypes.int64)
        return self._with_flow(gen_ops.tensor_list_split(value, _element_shape_tensor(self.element_shape), lengths))

    def size(self):
        if self._static_size() >= 0:
            return convert_to_tensor(self._static_size(), dtype=_dtypes.int32)
        return gen_ops.tensor_list_length(self._flow)

    def close(self):
        return gen_ops.no_op()


class TensorArray:
    """A list of tensors of one dtype that loops and functions can write and read, with
    TensorFlow 2's ``tf.TensorArray`` semantics: eagerly a Python list of tensors, in graphs the
    engine's TensorList (``flow``).

    ``size`` elements to start with (more may be written with ``dynamic_size=True``);
    ``element_shape`` is checked on writes and learnt from them when ``infer_shape``;
    ``clear_after_read`` (eager) forgets an element once read. ``write``/``unstack``/``scatter``/
    ``split`` return the TensorArray to use next (write ``ta = ta.write(i, x)``); ``read``,
    ``stack``, ``gather``, ``concat`` and ``size`` read it. Unwritten elements read as zeros of a
    fully defined element shape. Gradients flow through reads and writes.

    >>> ta = tx.TensorArray(tx.float32, size=3)
    >>> for i in range(3):
    ...     ta = ta.write(i, float(i) * 2.0)
    >>> ta.stack().numpy().tolist()
    [0.0, 2.0, 4.0]
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        del colocate_with_first_write_call  # placement follows the engine's rules
        self._dtype = _dtypes.as_dtype(dtype)
        if self._dtype == _dtypes.variant or self._dtype == _dtypes.resource:
            raise TypeError("TensorArray cannot hold %s elements" % self._dtype.name)
        shape = as_shape(element_shape) if element_shape is not None else TensorShape(None)
        if size is None and flow is None and not dynamic_size:
            raise ValueError("Size must be provided if dynamic_size is False.")
        if _context.executing_eagerly():
            self._implementation = _EagerTensorArray(self._dtype, size if size is not None else 0, dynamic_size,
                                                     clear_after_read, infer_shape, shape, handle, flow)
        else:
            if handle is not None:
                raise ValueError("TensorArray handles are TensorFlow 1 objects; pass `flow` (a TensorList) instead.")
            if size is None and flow is None:
                size = 0
            self._implementation = _GraphTensorArray(self._dtype, size, dynamic_size, infer_shape, shape, flow,
                                                     name or tensor_array_name)

    @classmethod
    def _wrap(cls, implementation, dtype):
        ta = cls.__new__(cls)
        ta._dtype = dtype
        ta._implementation = implementation
        return ta

    def _scoped(self, name, default, method, *args):
        """Calls ``method``; in graphs under the name scope TensorFlow uses for it."""
        if isinstance(self._implementation, _GraphTensorArray):
            with name_scope(name or default):
                return method(*args)
        return method(*args)

    def _result(self, implementation):
        return self if implementation is self._implementation else TensorArray._wrap(implementation, self._dtype)

    @property
    def dtype(self):
        """The element dtype."""
        return self._dtype

    @property
    def flow(self):
        """The TensorList (a scalar variant tensor) in graphs; a placeholder int32 scalar eagerly."""
        return self._implementation.flow

    @property
    def element_shape(self):
        """The TensorShape every element has (as far as known)."""
        return self._implementation.element_shape

    @property
    def dynamic_size(self):
        """Whether writes past the end grow the array."""
        return self._implementation._dynamic_size

    @property
    def handle(self):
        """The flow (TensorFlow 2 TensorArrays have no separate handle)."""
        return self.flow

    def identity(self):
        """This TensorArray (a new one over an Identity of the flow in graphs)."""
        if isinstance(self._implementation, _GraphTensorArray):
            return self._result(self._implementation._with_flow(gen_ops.identity(self.flow)))
        return self

    def read(self, index, name=None):
        """Element ``index`` (zeros of the element shape when never written)."""
        return self._scoped(name, "TensorArrayV2Read", self._implementation.read, index)

    def write(self, index, value, name=None):
        """The TensorArray with ``value`` at ``index``; use the returned TensorArray."""
        return self._result(self._scoped(name, "TensorArrayV2Write", self._implementation.write, index, value))

    def stack(self, name=None):
        """The elements stacked along a new first dimension."""
        return self._scoped(name, "TensorArrayV2Stack", self._implementation.stack)

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        return self._scoped(name, "TensorArrayV2Gather", self._implementation.gather, indices)

    def concat(self, name=None):
        """The elements concatenated along their first dimension."""
        return self._scoped(name, "TensorArrayV2Concat", self._implementation.concat)

    def unstack(self, value, name=None):
        """The TensorArray holding ``value[i]`` at i."""
        return self._result(self._scoped(name, "TensorArrayUnstack", self._implementation.unstack, value))

    def scatter(self, indices, value, name=None):
        """The TensorArray with ``value[k]`` written at ``indices[k]``."""
        return self._result(self._scoped(name, "TensorArrayScatter", self._implementation.scatter, indices, value))

    def split(self, value, lengths, name=None):
        """The TensorArray holding the pieces of ``value`` along its first dimension, of ``lengths``."""
        return self._result(self._scoped(name, "TensorArraySplit", self._implementation.split, value, lengths))

    def size(self, name=None):
        """The number of elements, an int32 scalar."""
        return self._scoped(name, "TensorArraySize", self._implementation.size)

    def close(self, name=None):
        """Releases the elements (eagerly); a no-op op in graphs."""
        return self._implementation.close()

    def _tensor_array_flow(self, what):
        """The flow that carries this TensorArray through graph control flow and function boundaries."""
        if not isinstance(self._implementation, _GraphTensorArray):
            raise TypeError("%s: an eager TensorArray cannot enter a graph; create it inside the tx.function or "
                            "graph" % what)
        return self._implementation.flow

    def __repr__(self):
        return "<tx.TensorArray dtype=%s element_shape=%s>" % (self._dtype.name, self.element_shape)


def with_flow(ta, flow):
    """A graph TensorArray like ``ta`` (dtype, element shape, dynamic size) over ``flow``."""
    impl = ta._implementation
    if not isinstance(impl, _GraphTensorArray):
        raise TypeError("with_flow needs a graph TensorArray")
    return TensorArray._wrap(impl._with_flow(flow), ta.dtype)
