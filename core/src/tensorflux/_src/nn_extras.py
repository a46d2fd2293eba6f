"""Small ``tx.nn`` composites TensorFlow users reach for: ``crelu``, ``log_poisson_loss``,
``sufficient_statistics``, ``compute_average_loss`` and ``scale_regularization_loss`` (the
last two as outside any distribution strategy: one replica), ``conv_transpose`` and the
depthwise convolution backprops."""

import math

import numpy as np

from tensorflux._src.array_ops import cast, concat
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import TENSOR_TYPES as _TENSORS
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.math_ops import reduce_sum
from tensorflux._src.nn_conv_ops import conv1d_transpose, conv2d_transpose, conv3d_transpose
from tensorflux._src.shape_ops import shape as _shape


def _tensor(x, dtype=None):
    return x if isinstance(x, _TENSORS) else convert_to_tensor(x, dtype=dtype)


def crelu(features, axis=-1, name=None):
    """Concatenated ReLU: relu(x) and relu(-x) joined along ``axis`` (which doubles in size).

    >>> tx.nn.crelu(tx.constant([1.0, -2.0])).numpy()
    array([1., 0., 0., 2.], dtype=float32)
    """
    with name_scope(name or "CRelu"):
        x = _tensor(features)
        return concat([gen_ops.relu(x), gen_ops.relu(gen_ops.neg(x))], axis)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """The negative log-likelihood of ``targets`` under Poisson(exp(log_input)), element-wise,
    without the constant log(targets!) unless ``compute_full_loss`` (then by Stirling's
    approximation, added where targets > 1).

    >>> float(tx.nn.log_poisson_loss(tx.constant(2.0), tx.constant(0.0)))
    1.0
    """
    with name_scope(name or "log_poisson_loss"):
        log_input = _tensor(log_input)
        targets = _tensor(targets, dtype=log_input.dtype)
        if targets.shape.is_fully_defined() and log_input.shape.is_fully_defined() and \
                targets.shape != log_input.shape:
            raise ValueError("log_input and targets must have the same shape (%s vs %s)"
                             % (log_input.shape, targets.shape))
        result = gen_ops.sub(gen_ops.exp(log_input), gen_ops.mul(log_input, targets))
        if not compute_full_loss:
            return result
        dt = targets.dtype
        stirling = gen_ops.add_v2(gen_ops.sub(gen_ops.mul(targets, gen_ops.log(targets)), targets),
                                  gen_ops.mul(convert_to_tensor(0.5, dtype=dt),
                                              gen_ops.log(gen_ops.mul(convert_to_tensor(2 * math.pi, dtype=dt),
                                                                      targets))))
        zeros = gen_ops.zeros_like(targets)
        small = gen_ops.logical_and(gen_ops.greater_equal(targets, zeros),
                                    gen_ops.less_equal(targets, gen_ops.ones_like(targets)))
        return gen_ops.add_v2(result, gen_ops.select_v2(small, zeros, stirling))


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """(count, sum of x - shift, sum of squares of x - shift, shift) over ``axes``: the inputs
    of ``tx.nn.normalize_moments``; ``shift`` None means no shift (and is returned as None).

    >>> c, s, ss, _ = tx.nn.sufficient_statistics(tx.constant([[1.0, 2.0], [3.0, 4.0]]), axes=[0])
    >>> float(c), s.numpy().tolist(), ss.numpy().tolist()
    (2.0, [4.0, 6.0], [10.0, 20.0])
    """
    with name_scope(name or "sufficient_statistics"):
        x = _tensor(x)
        axes = [int(a) for a in (axes if isinstance(axes, (list, tuple)) else [axes])]
        dims = _shape(x)
        counts = cast(gen_ops.prod(gen_ops.gather_v2(dims, convert_to_tensor(np.array(axes, np.int32)),
                                                     convert_to_tensor(np.int32(0))), convert_to_tensor(np.int32(0))),
                      x.dtype)
        if shift is not None:
            shift = _tensor(shift, dtype=x.dtype)
            d = gen_ops.sub(x, shift)
        else:
            d = x
        return (counts, reduce_sum(d, axes, keepdims=keepdims), reduce_sum(gen_ops.square(d), axes, keepdims=keepdims),
                shift)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size, the batch size defaulting to
    the loss's first dimension (one replica: there are no distribution strategies here).

    >>> float(tx.nn.compute_average_loss(tx.constant([1.0, 2.0, 3.0, 6.0])))
    3.0
    """
    with name_scope("average_loss"):
        loss = _tensor(per_example_loss)
        if not loss.dtype.is_floating:
            raise TypeError("compute_average_loss: per_example_loss must be floating point, got %s" % loss.dtype.name)
        if loss.shape.rank == 0:
            raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1.")
        if sample_weight is not None:
            loss = gen_ops.mul(loss, _tensor(sample_weight, dtype=loss.dtype))
        total = reduce_sum(loss)
        if global_batch_size is None:
            batch = cast(gen_ops.strided_slice(_shape(loss), convert_to_tensor(np.array([0], np.int32)),
                                               convert_to_tensor(np.array([1], np.int32)),
                                               convert_to_tensor(np.array([1], np.int32)), shrink_axis_mask=1),
                         loss.dtype)
        else:
            batch = cast(_tensor(global_batch_size), loss.dtype)
        return gen_ops.div_no_nan(total, batch)


def scale_regularization_loss(regularization_loss):
    """The sum of ``regularization_loss`` divided by the number of replicas (here one).

    >>> float(tx.nn.scale_regularization_loss(tx.constant([0.5, 0.25])))
    0.75
    """
    return reduce_sum(_tensor(regularization_loss))


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """The transpose of an N-D convolution, N from ``output_shape`` (3, 4 or 5 elements: 1-D,
    2-D or 3-D), with conv1d/2d/3d_transpose's rules; ``data_format`` None is channels-last.

    >>> tx.nn.conv_transpose(tx.ones([1, 2, 2, 1]), tx.ones([2, 2, 1, 1]), [1, 4, 4, 1], 2).shape
    TensorShape([1, 4, 4, 1])
    """
    n = int(np.asarray(output_shape).reshape(-1).shape[0]) - 2
    fns = {1: (conv1d_transpose, "NWC"), 2: (conv2d_transpose, "NHWC"), 3: (conv3d_transpose, "NDHWC")}
    if n not in fns:
        raise ValueError("conv_transpose: output_shape must have 3, 4 or 5 elements, got %d" % (n + 2))
    fn, default_format = fns[n]
    return fn(input, filters, output_shape, strides, padding=padding, data_format=data_format or default_format,
              dilations=dilations, name=name)


def _nhwc_list(values, data_format, what):
    """A 4-element strides/dilations list from an int, 2 spatial values or 4 values."""
    v = [int(x) for x in np.asarray(1 if values is None else values).reshape(-1)]
    if len(v) == 1:
        v = v * 2
    if len(v) == 2:
        v = [1] + v + [1] if data_format == "NHWC" else [1, 1] + v
    if len(v) != 4:
        raise ValueError("%s must have 1, 2 or 4 elements, got %d" % (what, len(v)))
    return v


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                    data_format="NHWC", dilations=None, name=None):
    """The gradient of depthwise_conv2d with respect to its input, of shape ``input_sizes``.

    >>> tx.nn.depthwise_conv2d_backprop_input([1, 3, 3, 1], tx.ones([2, 2, 1, 1]), tx.ones([1, 2, 2, 1]),
    ...                                       [1, 1, 1, 1], "VALID").shape
    TensorShape([1, 3, 3, 1])
    """
    return gen_ops.depthwise_conv2d_native_backprop_input(
        _tensor(np.asarray(input_sizes, np.int32)), filter, out_backprop,
        strides=_nhwc_list(strides, data_format, "strides"), padding=padding, data_format=data_format,
        dilations=_nhwc_list(dilations, data_format, "dilations"), name=name)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                     data_format="NHWC", dilations=None, name=None):
    """The gradient of depthwise_conv2d with respect to its filter, of shape ``filter_sizes``.

    >>> tx.nn.depthwise_conv2d_backprop_filter(tx.ones([1, 3, 3, 1]), [2, 2, 1, 1], tx.ones([1, 2, 2, 1]),
    ...                                        [1, 1, 1, 1], "VALID").numpy().ravel().tolist()
    [4.0, 4.0, 4.0, 4.0]
    """
    return gen_ops.depthwise_conv2d_native_backprop_filter(
        input, _tensor(np.asarray(filter_sizes, np.int32)), out_backprop,
        strides=_nhwc_list(strides, data_format, "strides"), padding=padding, data_format=data_format,
        dilations=_nhwc_list(dilations, data_format, "dilations"), name=name)
