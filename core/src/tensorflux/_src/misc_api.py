"""Small top-level TensorFlow names over existing ops: grouping (``group``, ``tuple``), shape
checks (``ensure_shape``, ``broadcast_dynamic_shape``, ``required_space_to_batch_paddings``),
``parallel_stack``, ``timestamp``, ``guarantee_const``, ``type_spec_from_value``,
``get_current_name_scope``, ``get_logger`` and the variable-distribution enums."""

import contextlib
import enum
import logging
import time

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import errors as _errors
from tensorflux._src.array_ops import concat, identity, stack
from tensorflux._src.constant_op import convert_to_tensor, to_numpy
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import control_dependencies, get_default_graph, name_scope
from tensorflux._src.nest import flatten
from tensorflux._src.tensor_shape import TensorShape, as_shape
from tensorflux._src.check_ops import Assert
from tensorflux._src.script_ops import numpy_function
from tensorflux._src.composite import CompositeTensor, TypeSpec
from tensorflux._src.function import TensorSpec


def _tensor(x, dtype=None, name=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype, name=name)


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates from several replicas combine (TensorFlow's
    VariableAggregationV2 members and values; with one replica every choice behaves alike).

    >>> tx.VariableAggregation.SUM.value
    1
    """

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are synchronized (TensorFlow's members and values;
    with one replica there is nothing to synchronize).

    >>> tx.VariableSynchronization.ON_READ.value
    3
    """

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


def get_logger():
    """The ``logging.Logger`` named "tensorflux" that Tensorflux reports through (tf.get_logger's
    counterpart; configure it with the standard logging module).

    >>> tx.get_logger().name
    'tensorflux'
    """
    return logging.getLogger("tensorflux")


def get_current_name_scope():
    """The current name scope as a string without a trailing "/" ("" at the root).

    >>> with tx.name_scope("outer"):
    ...     with tx.name_scope("inner"):
    ...         print(tx.get_current_name_scope())
    outer/inner
    """
    return get_default_graph().get_name_scope()


def group(*inputs, name=None):
    """An operation that runs after all of ``inputs`` (tensors or operations, possibly nested);
    eagerly, where ops run at once, returns None as TensorFlow does.

    >>> with tx.Graph().as_default():
    ...     v = tx.Variable(1.0)
    ...     step = tx.group(v.assign_add(1.0), v.assign_add(2.0))
    ...     with tx.Session() as sess:
    ...         sess.run(tx.global_variables_initializer())
    ...         sess.run(step)
    ...         print(sess.run(v.read_value()))
    4.0
    """
    if _context.executing_eagerly():
        return None
    deps = [x for x in flatten(list(inputs)) if x is not None]
    with control_dependencies(deps):
        return gen_ops.no_op(name=name or "group_deps")


def tuple(tensors, control_inputs=None, name=None):  # noqa: A001 (TensorFlow's name)
    """``tensors`` as a list whose every entry is available only once all of them (and
    ``control_inputs``) are computed: a join point; eagerly the tensors themselves.

    >>> [int(t) for t in tx.tuple([tx.constant(1), tx.constant(2)])]
    [1, 2]
    """
    if _context.executing_eagerly():
        return list(tensors)
    with name_scope(name or "tuple"):
        present = [t for t in tensors if t is not None]
        gate = group(*(present + list(control_inputs or [])))
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
                continue
            with control_dependencies([gate]):
                out.append(identity(_tensor(t)))
        return out


def _shape_text(shape):
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def ensure_shape(x, shape, name=None):
    """``x`` with its static shape refined to ``shape`` after checking that they agree:
    dimensions known when the graph is built are checked then (ValueError), the rest when it runs
    (InvalidArgumentError naming both shapes); eagerly the check is immediate.

    >>> tx.ensure_shape(tx.constant([1, 2]), [None]).shape
    TensorShape([2])
    """
    x = _tensor(x)
    shape = as_shape(shape)
    if _context.executing_eagerly():
        if not shape.is_compatible_with(x.shape):
            raise _errors.InvalidArgumentError(None, None, "Shape of tensor %s is not compatible with expected "
                                               "shape %s." % (_shape_text(x.shape), _shape_text(shape)))
        return x
    if not shape.is_compatible_with(x.shape):
        raise ValueError("ensure_shape: the shape of %s, %s, is not compatible with the expected shape %s"
                         % (x.name, x.shape, shape))
    with name_scope(name or "EnsureShape"):
        static = shape.rank is None or (x.shape.rank is not None and all(
            d is not None for d, e in zip(x.shape.as_list(), shape.as_list()) if e is not None))
        if static:  # everything expected is known already, and was checked above
            out = identity(x)
        else:
            dims = gen_ops.shape(x, out_type=_dtypes.int64)
            want = [-1 if d is None else d for d in shape.as_list()]
            known = np.array([d is not None for d in shape.as_list()])
            padded = gen_ops.slice(concat([dims, np.full([shape.rank], -1, np.int64)], 0),
                                   convert_to_tensor(np.array([0], np.int64)),
                                   convert_to_tensor(np.array([shape.rank], np.int64)))
            same = gen_ops.logical_or(gen_ops.equal(padded, convert_to_tensor(np.array(want, np.int64))),
                                      convert_to_tensor(~known))
            ok = gen_ops.logical_and(gen_ops.equal(gen_ops.size(dims), np.int32(shape.rank)),
                                     gen_ops.all(same, convert_to_tensor(np.int32(0))))
            check = Assert(ok, ["Shape of tensor %s" % x.name, dims, "is not compatible with expected shape %s."
                                % _shape_text(shape)], summarize=shape.rank + 1)
            with control_dependencies([check]):
                out = identity(x)
        out.set_shape(x.shape.merge_with(shape))
        return out


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (a 1-D integer tensor) that tensors of shapes ``shape_x`` and ``shape_y``
    broadcast to; InvalidArgumentError naming both when they are incompatible.

    >>> tx.broadcast_dynamic_shape([2, 1], [4, 1, 3]).numpy()
    array([4, 2, 3], dtype=int32)
    """
    sx = _tensor(shape_x)
    sy = _tensor(shape_y, dtype=sx.dtype)
    if sx.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError("broadcast_dynamic_shape: shapes must be int32 or int64, got %s" % sx.dtype.name)
    with name_scope("BroadcastArgs") if not _context.executing_eagerly() else _nullscope():
        one = convert_to_tensor(np.array([1]), dtype=sx.dtype)
        n = gen_ops.maximum(gen_ops.size(sx), gen_ops.size(sy))
        a = concat([gen_ops.tile(one, gen_ops.expand_dims(gen_ops.sub(n, gen_ops.size(sx)), np.int32(0))), sx], 0)
        b = concat([gen_ops.tile(one, gen_ops.expand_dims(gen_ops.sub(n, gen_ops.size(sy)), np.int32(0))), sy], 0)
        ok = gen_ops.all(gen_ops.logical_or(gen_ops.equal(a, b), gen_ops.logical_or(gen_ops.equal(a, one),
                                                                                        gen_ops.equal(b, one))),
                         convert_to_tensor(np.int32(0)))
        if _context.executing_eagerly():
            if not bool(ok.numpy()):
                raise _errors.InvalidArgumentError(None, None, "Incompatible shapes: [%s] vs. [%s]"
                                                   % (",".join(map(str, sx.numpy())),
                                                      ",".join(map(str, sy.numpy()))))
            return gen_ops.select_v2(gen_ops.equal(a, one), b, a)

        check = Assert(ok, ["Incompatible shapes:", sx, "vs.", sy])
        with control_dependencies([check]):
            return gen_ops.select_v2(gen_ops.equal(a, one), b, a)


def _nullscope():
    return contextlib.nullcontext()


def parallel_stack(values, name="parallel_stack"):
    """``stack(values, axis=0)`` for graphs (TensorFlow's ParallelConcat may copy each value in
    as soon as it is ready; the result is the same); all values need fully defined, equal shapes,
    and eagerly it is a RuntimeError, as in TensorFlow.

    >>> with tx.Graph().as_default():
    ...     s = tx.parallel_stack([tx.constant([1, 2]), tx.constant([3, 4])])
    ...     print(tx.Session().run(s))
    [[1 2]
     [3 4]]
    """
    if _context.executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    with name_scope(name or "parallel_stack"):
        values = [_tensor(v) for v in values]
        if not values:
            raise ValueError("parallel_stack: values must not be empty")
        first = values[0].shape
        if not first.is_fully_defined():
            raise ValueError("parallel_stack: the values need a fully defined shape, got %s" % first)
        for i, v in enumerate(values[1:], 1):
            if not v.shape.is_compatible_with(first):
                raise ValueError("parallel_stack: values[%d] has shape %s, values[0] has %s" % (i, v.shape, first))
        return stack(values, axis=0)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) for space_to_batch: the least end padding that, added to
    ``base_paddings`` (zeros when None), makes each of ``input_shape`` divisible by its
    ``block_shape`` entry, and the crops that undo that extra padding.

    >>> p, c = tx.required_space_to_batch_paddings([5, 7], [2, 3])
    >>> p.numpy().tolist(), c.numpy().tolist()
    ([[0, 1], [0, 2]], [[0, 1], [0, 2]])
    """
    with name_scope(name or "required_space_to_batch_paddings") if not _context.executing_eagerly() \
            else _nullscope():
        input_shape = _tensor(input_shape, dtype=_dtypes.int32)
        block_shape = _tensor(block_shape, dtype=input_shape.dtype)
        if base_paddings is None:
            base_paddings = gen_ops.zeros_like(stack([input_shape, input_shape], axis=1))
        base_paddings = _tensor(base_paddings, dtype=input_shape.dtype)
        zero = convert_to_tensor(np.int32(0))
        one = convert_to_tensor(np.int32(1))
        pad_start = gen_ops.gather_v2(base_paddings, zero, one)
        orig_pad_end = gen_ops.gather_v2(base_paddings, one, one)
        full = gen_ops.add_v2(gen_ops.add_v2(input_shape, pad_start), orig_pad_end)
        extra = gen_ops.floor_mod(gen_ops.sub(block_shape, gen_ops.floor_mod(full, block_shape)), block_shape)
        paddings = stack([pad_start, gen_ops.add_v2(orig_pad_end, extra)], axis=1, name="paddings")
        crops = stack([gen_ops.zeros_like(extra), extra], axis=1, name="crops")
        return paddings, crops


def timestamp(name=None):
    """The float64 scalar seconds since the Unix epoch at which this op runs (eagerly: now; in a
    graph: each time the graph runs).

    >>> float(tx.timestamp()) > 1.6e9
    True
    """
    if _context.executing_eagerly():
        return convert_to_tensor(np.float64(time.time()))

    out = numpy_function(lambda: np.float64(time.time()), [], _dtypes.float64, stateful=True,
                         name=name or "Timestamp")
    out.set_shape([])
    return out


def guarantee_const(input, name=None):  # noqa: A002 (TensorFlow's name)
    """``input`` unchanged: the promise that it is constant for the life of the session is a hint
    TensorFlow's optimizers may use, and Tensorflux has no such optimization (identity).

    >>> float(tx.guarantee_const(tx.constant(3.0)))
    3.0
    """
    return identity(_tensor(input), name=name or "GuaranteeConst")


def type_spec_from_value(value):
    """The TypeSpec describing ``value``: its own spec for composite tensors (SparseTensor, ...),
    a TensorSpec of its shape and dtype for tensors and values convertible to one; TypeError
    otherwise.

    >>> tx.type_spec_from_value(np.ones([2, 3]))
    TensorSpec(shape=(2, 3), dtype=float64, name=None)
    """
    if isinstance(value, CompositeTensor):
        return value._type_spec
    if isinstance(value, TypeSpec):
        raise TypeError("Could not build a TypeSpec for %r: it is a TypeSpec, not a value." % (value,))
    if isinstance(value, _TENSORS):
        return TensorSpec(value.shape, value.dtype)
    if hasattr(value, "handle") and hasattr(value, "dtype") and hasattr(value, "shape"):  # a Variable
        return TensorSpec(value.shape, value.dtype)

    try:
        arr = to_numpy(value)
    except (TypeError, ValueError):
        raise TypeError("Could not build a TypeSpec for %r of unsupported type %s." % (value, type(value))) from None
    dtype = _dtypes.string if arr.dtype == object else _dtypes.as_dtype(arr.dtype)
    return TensorSpec(TensorShape(list(arr.shape)), dtype)
