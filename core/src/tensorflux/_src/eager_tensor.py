"""`EagerTensor`: a concrete value computed at once (eager mode), backed by an engine tensor
handle. It supports the Tensor API (shape, dtype, operators, indexing) plus NumPy interop
(``numpy()``, ``__array__``, DLPack) and Python scalar conversion."""

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import lib
from tensorflux._src.operation import Tensor, TensorRef, _elementwise_equality
from tensorflux._src.tensor_shape import TensorShape

_c = lib.c


class EagerTensor(_c.EagerTensorBase):
    """A tensor with a value: the result of an op run eagerly, or of ``tx.constant`` outside a graph."""

    __slots__ = ()
    # NumPy must defer to our operators (x_np + tensor -> EagerTensor.__radd__).
    # NumPy ufuncs (np.sin(t)) convert the tensor through __array__ and return NumPy arrays, as in
    # TensorFlow; binary operators with an ndarray still defer to ours (a Tensor comes back).
    __array_priority__ = 100

    @property
    def dtype(self):
        """The element `DType`."""
        return _dtypes._BY_ENUM[self._dtype_enum]

    @property
    def shape(self):
        """The `TensorShape` (always fully defined)."""
        return TensorShape(self._shape_tuple())

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return len(self._shape_tuple())

    @property
    def device(self):
        """The full name of the device holding the value."""
        return self._device_name

    def numpy(self):
        """The value as a NumPy array (read-only, sharing the tensor's memory; a NumPy scalar for
        rank 0)."""
        return self._numpy()

    def __array__(self, dtype=None, copy=None):
        a = self._numpy()
        a = np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype)
        return a.copy() if copy else a

    # Tensors are immutable: copies are the tensor itself; pickling stores the value and dtype.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return _from_pickle, (np.array(self._numpy()), self._dtype_enum)

    def __dlpack__(self, stream=None, **kwargs):
        return np.array(self._numpy(), copy=True).__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU

    def __len__(self):
        shape = self._shape_tuple()
        if not shape:
            raise TypeError("Scalar tensor has no `len()`")
        return shape[0]

    def __iter__(self):
        shape = self._shape_tuple()
        if not shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        for i in range(shape[0]):
            yield self[i]

    def _scalar(self, kind):
        if self._num_elements != 1:
            raise ValueError("Only tensors with a single element can be converted to Python %s, this one has shape "
                             "%s." % (kind, self.shape))
        return np.asarray(self._numpy()).reshape(()).item()

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __index__(self):
        if not self.dtype.is_integer:
            raise TypeError("Only integer tensors can be used as an index, not %s." % self.dtype.name)
        return int(self._scalar("int"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __format__(self, spec):
        return format(self._numpy(), spec) if self.ndim == 0 else object.__format__(self, spec)

    def __repr__(self):
        return "<tx.Tensor: shape=%s, dtype=%s, numpy=%s>" % (self._shape_tuple(), self.dtype.name,
                                                              _np_repr(self._numpy()))

    def __str__(self):
        return "tx.Tensor(%s, shape=%s, dtype=%s)" % (np.array2string(np.asarray(self._numpy())),
                                                      self._shape_tuple(), self.dtype.name)

    # Indexing (``t[...]``): array_ops installs __getitem__, as for Tensor (Note [Import layering]).

    # Eager tensors compare element-wise (TensorFlow 2); they are not hashable, use ref().
    __hash__ = None

    def __eq__(self, other):
        return _elementwise_equality("equal", self, other)

    def __ne__(self, other):
        return _elementwise_equality("not_equal", self, other)

    def ref(self):
        """A hashable reference to this tensor (identity-based), for dict keys and sets."""
        return TensorRef(self)

    experimental_ref = ref

    def _graph_only(self, what):
        raise AttributeError("Tensor.%s is undefined when eager execution is enabled." % what)

    op = property(lambda self: self._graph_only("op"))
    graph = property(lambda self: self._graph_only("graph"))
    name = property(lambda self: self._graph_only("name"))


def _np_repr(a):
    if isinstance(a, bytes):  # a scalar string's value, as TensorFlow shows it
        return repr(a)
    return repr(a) if isinstance(a, np.ndarray) else repr(np.asarray(a))


def _from_pickle(arr, dtype_enum):
    """An EagerTensor rebuilt by pickle from its value and dtype enum."""
    return from_numpy(arr, _dtypes._BY_ENUM[dtype_enum])


def from_numpy(arr, dtype):
    """A new EagerTensor holding a copy of NumPy array ``arr`` as `DType` ``dtype``."""
    _context.ensure_initialized()
    return _c.eager_from_numpy(arr, dtype.as_datatype_enum)


def copy_to_device(tensor, device):
    """``tensor`` on ``device`` (host memory is shared between the eager CPU devices)."""
    return _c.eager_copy_to_device(tensor, device)


_c.eager_register_tensor_type(EagerTensor)
TENSOR_TYPES = (Tensor, EagerTensor)  # what the public API accepts as a tensor, in either mode
