"""Convolution and pooling in ``tx.nn`` beyond the 2-D basics: 1-D and 3-D forms, the N-d
``convolution`` and ``pool`` dispatchers, transposed convolutions, atrous/depthwise/separable
convolutions, and the block rearrangements. Dilated convolution and pooling go through
SpaceToBatchND / BatchToSpaceND exactly as TensorFlow 2 does, so results (including its
padding behaviour) match."""

import numpy as np

from tensorflux._src import array_ops, constant_op
from tensorflux._src.generated import gen_ops
from tensorflux._src.nn_ops import _padding, conv2d


def _t(x, dtype=None):
    return constant_op.convert_to_tensor(x, dtype=dtype)


def _channels_last(data_format):
    return data_format is None or not data_format.startswith("NC")


def _spatial(v, n, data_format, what):
    """An int or a list of 1, n or n + 2 ints -> the n spatial values."""
    if v is None:
        return [1] * n
    if isinstance(v, (int, np.integer)):
        return [int(v)] * n
    v = [int(x) for x in v]
    if len(v) == 1:
        return v * n
    if len(v) == n:
        return v
    if len(v) == n + 2:
        return v[1:-1] if _channels_last(data_format) else v[2:]
    raise ValueError("%s must be an int or a list of 1, %d or %d ints, got %r" % (what, n, n + 2, v))


def _full(sp, data_format):
    """The n spatial values as the (n + 2)-element attr list for ``data_format``."""
    return [1] + list(sp) + [1] if _channels_last(data_format) else [1, 1] + list(sp)


def _static_rank(x, what):
    rank = x.shape.rank
    if rank is None:
        raise ValueError("%s needs an input of known rank, got shape %s" % (what, x.shape))
    return rank


# ---------------------------------------------------------------------------- block rearrangements


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    """Zero-pads the spatial dimensions (1 .. len(block_shape)) by ``paddings`` and moves
    block_shape blocks of them into the batch dimension (the SpaceToBatchND op)."""
    return gen_ops.space_to_batch_nd(_t(input), block_shape, paddings, name=name)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """space_to_batch under its op's name (TensorFlow exports both).

    >>> tx.space_to_batch_nd(tx.zeros([1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]).shape
    TensorShape([4, 2, 2, 1])
    """
    return space_to_batch(input, block_shape, paddings, name=name)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of space_to_batch: moves batch blocks back into space, then crops."""
    return gen_ops.batch_to_space_nd(_t(input), block_shape, crops, name=name)


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves each block_size x block_size spatial block into the depth dimension."""
    return gen_ops.space_to_depth(_t(input), block_size=int(block_size), data_format=data_format, name=name)


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves depth into block_size x block_size spatial blocks (the inverse of space_to_depth)."""
    return gen_ops.depth_to_space(_t(input), block_size=int(block_size), data_format=data_format, name=name)


# ---------------------------------------------------------------------------- dilation via space-to-batch


def _with_space_to_batch(x, rates, window, padding, data_format, op):
    """op(x', "VALID"-or-given padding) on the space-to-batched input and batch-to-space of the
    result, as TensorFlow's with_space_to_batch: SAME pads the dilated window's extent."""
    n = len(rates)
    if all(r == 1 for r in rates):
        return op(x, padding)
    rank = _static_rank(x, "dilated convolution/pooling")
    channels_last = _channels_last(data_format)
    start = 1 if channels_last else 2
    spatial = [x.shape[start + i] for i in range(n)]
    if any(d is None for d in spatial):
        raise ValueError("dilated convolution/pooling needs static spatial dimensions, got shape %s" % (x.shape,))
    if padding == "SAME":
        extra = [(k - 1) * r for k, r in zip(window, rates)]
        base = [[e // 2, e - e // 2] for e in extra]
    elif padding == "VALID":
        base = [[0, 0]] * n
    else:
        raise ValueError("padding must be 'SAME' or 'VALID' with dilation, got %r" % (padding,))
    pads, crops = [], []
    for d, r, (lo, hi) in zip(spatial, rates, base):
        extra_end = (r - (d + lo + hi) % r) % r
        pads.append([lo, hi + extra_end])
        crops.append([0, extra_end])
    block = list(rates)
    if not channels_last:  # the channel dimension rides along as a spatial one of block 1
        block, pads, crops = [1] + block, [[0, 0]] + pads, [[0, 0]] + crops
    del rank
    i32 = lambda v: _t(np.asarray(v, np.int32))  # noqa: E731
    y = op(gen_ops.space_to_batch_nd(x, i32(block), i32(pads)), "VALID")
    return gen_ops.batch_to_space_nd(y, i32(block), i32(crops))


# ---------------------------------------------------------------------------- convolutions


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution of ``input`` [N, W, C] (or [N, C, W] for "NCW") with ``filters``
    [K, C, O], computed as TensorFlow does: a Conv2D over a height-1 image."""
    if data_format not in ("NWC", "NCW", None):
        raise ValueError("conv1d: data_format must be 'NWC' or 'NCW', got %r" % (data_format,))
    # NCW runs as NWC between transposes (the CPU Conv2D kernel is NHWC only, as TensorFlow's).
    x = _t(input)
    if data_format == "NCW":
        x = array_ops.transpose(x, [0, 2, 1])
    s = _spatial(stride, 1, data_format, "stride")[0]
    d = _spatial(dilations, 1, data_format, "dilations")[0]
    y = conv2d(array_ops.expand_dims(x, 1), array_ops.expand_dims(_t(filters), 0), strides=[1, 1, s, 1],
               padding=padding, data_format="NHWC", dilations=[1, 1, d, 1])
    y = array_ops.squeeze(y, [1])
    return array_ops.transpose(y, [0, 2, 1], name=name) if data_format == "NCW" else array_ops.identity(y, name=name)


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """3-D convolution of ``input`` [N, D, H, W, C] (or NCDHW) with ``filters`` [KD, KH, KW, C, O]."""
    return gen_ops.conv3d(_t(input), filters, strides=_full(_spatial(strides, 3, data_format, "strides"), data_format),
                          padding=padding, data_format=data_format,
                          dilations=_full(_spatial(dilations, 3, data_format, "dilations"), data_format), name=name)


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """N-d convolution (N = 1, 2, 3 from the filter's rank). Without dilation it is conv1d,
    conv2d or conv3d; with dilation (strides must then be 1) the input is space-to-batched by
    the rates and convolved undilated, as TensorFlow does."""
    filters = _t(filters)
    input = _t(input)  # noqa: A001
    n = (filters.shape.rank or _static_rank(input, "convolution") - 1) - 2
    if n not in (1, 2, 3):
        raise ValueError("convolution: only 1, 2 or 3 spatial dimensions are supported, got %d" % n)
    formats = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}[n]
    fmt = formats[0] if _channels_last(data_format) else formats[1]
    if data_format is not None and data_format != fmt:
        raise ValueError("convolution: data_format %r does not fit %d spatial dimensions" % (data_format, n))
    strides = _spatial(strides, n, fmt, "strides")
    rates = _spatial(dilations, n, fmt, "dilations")
    padding = padding.upper() if isinstance(padding, str) else padding
    if all(r == 1 for r in rates):
        if n == 1:
            return conv1d(input, filters, strides[0], padding, data_format=fmt, name=name)
        if n == 2:
            return conv2d(input, filters, _full(strides, fmt), padding, data_format=fmt, name=name)
        return conv3d(input, filters, strides, padding, data_format=fmt, name=name)
    if any(s != 1 for s in strides):
        raise ValueError("convolution: strides > 1 not supported in conjunction with dilations > 1, got strides %r "
                         "and dilations %r" % (strides, rates))
    window = [int(filters.shape[i]) for i in range(n)]

    def op(x, pad):
        if n == 1:
            return conv1d(x, filters, 1, pad, data_format=fmt)
        if n == 2:
            return conv2d(x, filters, [1, 1, 1, 1], pad, data_format=fmt)
        return conv3d(x, filters, 1, pad, data_format=fmt)

    return array_ops.identity(_with_space_to_batch(input, rates, window, padding, fmt, op), name=name)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution with holes (dilation ``rate`` in both spatial dimensions), NHWC."""
    if int(rate) < 1:
        raise ValueError("atrous_conv2d: rate must be >= 1, got %r" % (rate,))
    return convolution(value, filters, padding=padding, dilations=[int(rate)] * 2, name=name)


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Depthwise 2-D convolution: each input channel with its own ``filter`` [KH, KW, C, M]
    slices (output depth C * M); dilations go through space-to-batch as TensorFlow."""
    fmt = "NHWC" if _channels_last(data_format) else "NCHW"
    filter = _t(filter)  # noqa: A001
    rates = _spatial(dilations, 2, fmt, "dilations")
    strides = _full(_spatial(strides, 2, fmt, "strides"), fmt)
    if any(r != 1 for r in rates) and any(s != 1 for s in strides):
        raise ValueError("depthwise_conv2d: strides > 1 not supported in conjunction with dilations > 1")
    window = [int(filter.shape[0]), int(filter.shape[1])]

    def op(x, pad):
        p, explicit = _padding(pad)
        return gen_ops.depthwise_conv2d_native(x, filter, strides=strides, padding=p, explicit_paddings=explicit,
                                               data_format=fmt)

    pad = padding.upper() if isinstance(padding, str) else padding
    return array_ops.identity(_with_space_to_batch(_t(input), rates, window, pad, fmt, op), name=name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """A depthwise convolution followed by a 1x1 convolution mixing channels
    (``pointwise_filter`` [1, 1, C * M, O])."""
    fmt = "NHWC" if _channels_last(data_format) else "NCHW"
    dw = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format=fmt, dilations=dilations)
    return conv2d(dw, pointwise_filter, [1, 1, 1, 1], "VALID", data_format=fmt, name=name)


def _sizes(output_shape):
    return _t(np.asarray(output_shape, np.int32)) if not hasattr(output_shape, "dtype") else output_shape


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose (gradient) of conv2d: ``filters`` [KH, KW, out_channels, in_channels],
    ``output_shape`` the 4-element shape of the result; padding "SAME", "VALID" or explicit pairs."""
    pad, explicit = _padding(padding)
    return gen_ops.conv2d_backprop_input(_sizes(output_shape), filters, _t(input),
                                         strides=_full(_spatial(strides, 2, data_format, "strides"), data_format),
                                         padding=pad, explicit_paddings=explicit, data_format=data_format,
                                         dilations=_full(_spatial(dilations, 2, data_format, "dilations"),
                                                         data_format), name=name)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv1d: ``filters`` [K, out_channels, in_channels], ``output_shape`` the
    3-element shape of the result."""
    if data_format not in ("NWC", "NCW"):
        raise ValueError("conv1d_transpose: data_format must be 'NWC' or 'NCW', got %r" % (data_format,))
    channels_last = data_format == "NWC"
    axis = 1 if channels_last else 2
    fmt = "NHWC" if channels_last else "NCHW"
    shape = list(np.asarray(output_shape).reshape(-1))
    shape.insert(axis, 1)
    s = _spatial(strides, 1, data_format, "strides")[0]
    d = _spatial(dilations, 1, data_format, "dilations")[0]
    y = conv2d_transpose(array_ops.expand_dims(_t(input), axis), array_ops.expand_dims(_t(filters), 0), shape,
                         _full([1, s], fmt), padding=padding, data_format=fmt, dilations=_full([1, d], fmt))
    return array_ops.squeeze(y, [axis], name=name)


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv3d: ``filters`` [KD, KH, KW, out_channels, in_channels]."""
    return gen_ops.conv3d_backprop_input_v2(_sizes(output_shape), filters, _t(input),
                                            strides=_full(_spatial(strides, 3, data_format, "strides"), data_format),
                                            padding=padding, data_format=data_format,
                                            dilations=_full(_spatial(dilations, 3, data_format, "dilations"),
                                                            data_format), name=name)


# ---------------------------------------------------------------------------- pooling


def _pool1d(fn, input, ksize, strides, padding, data_format, name):  # noqa: A002
    if data_format not in ("NWC", "NCW"):
        raise ValueError("1-D pooling: data_format must be 'NWC' or 'NCW', got %r" % (data_format,))
    # NCW runs as NWC between transposes (the CPU kernels are NHWC only, as TensorFlow's).
    x = _t(input)
    if data_format == "NCW":
        x = array_ops.transpose(x, [0, 2, 1])
    k = _spatial(ksize, 1, data_format, "ksize")[0]
    s = _spatial(strides, 1, data_format, "strides")[0]
    y = array_ops.squeeze(fn(array_ops.expand_dims(x, 1), ksize=[1, 1, k, 1], strides=[1, 1, s, 1],
                             padding=padding.upper(), data_format="NHWC"), [1])
    return array_ops.transpose(y, [0, 2, 1], name=name) if data_format == "NCW" else array_ops.identity(y, name=name)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Maximum over 1-D windows of ``input`` [N, W, C] (or NCW)."""
    return _pool1d(gen_ops.max_pool, input, ksize, strides, padding, data_format, name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Mean over 1-D windows of ``input`` [N, W, C] (or NCW); padding is not counted."""
    return _pool1d(gen_ops.avg_pool, input, ksize, strides, padding, data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Maximum over 2-D windows ("SAME", "VALID" or explicit [before, after] pairs)."""
    if data_format == "NCHW":  # the CPU MaxPool kernel is NHWC only (as TensorFlow's): transpose around it
        if not isinstance(padding, str):
            padding = [padding[i] for i in (0, 2, 3, 1)]
        y = max_pool2d(array_ops.transpose(_t(input), [0, 2, 3, 1]), _spatial(ksize, 2, data_format, "ksize"),
                       _spatial(strides, 2, data_format, "strides"), padding)
        return array_ops.transpose(y, [0, 3, 1, 2], name=name)
    pad, explicit = _padding(padding)
    return gen_ops.max_pool(_t(input), ksize=_full(_spatial(ksize, 2, data_format, "ksize"), data_format),
                            strides=_full(_spatial(strides, 2, data_format, "strides"), data_format), padding=pad,
                            explicit_paddings=explicit, data_format=data_format, name=name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Mean over 2-D windows; padded positions are not counted."""
    if data_format == "NCHW":  # the CPU AvgPool kernel is NHWC only (as TensorFlow's): transpose around it
        y = avg_pool2d(array_ops.transpose(_t(input), [0, 2, 3, 1]), _spatial(ksize, 2, data_format, "ksize"),
                       _spatial(strides, 2, data_format, "strides"), padding)
        return array_ops.transpose(y, [0, 3, 1, 2], name=name)
    return gen_ops.avg_pool(_t(input), ksize=_full(_spatial(ksize, 2, data_format, "ksize"), data_format),
                            strides=_full(_spatial(strides, 2, data_format, "strides"), data_format),
                            padding=padding.upper(), data_format=data_format, name=name)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Maximum over 3-D windows of ``input`` [N, D, H, W, C] (or NCDHW)."""
    return gen_ops.max_pool3d(_t(input), ksize=_full(_spatial(ksize, 3, data_format, "ksize"), data_format),
                              strides=_full(_spatial(strides, 3, data_format, "strides"), data_format),
                              padding=padding.upper(), data_format=data_format, name=name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Mean over 3-D windows of ``input`` [N, D, H, W, C] (or NCDHW); padding is not counted."""
    return gen_ops.avg_pool3d(_t(input), ksize=_full(_spatial(ksize, 3, data_format, "ksize"), data_format),
                              strides=_full(_spatial(strides, 3, data_format, "strides"), data_format),
                              padding=padding.upper(), data_format=data_format, name=name)


_POOL_FNS = {("MAX", 1): max_pool1d, ("MAX", 2): max_pool2d, ("MAX", 3): max_pool3d,
             ("AVG", 1): avg_pool1d, ("AVG", 2): avg_pool2d, ("AVG", 3): avg_pool3d}
_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _pool_dispatch(kind, input, ksize, strides, padding, data_format, name):  # noqa: A002
    input = _t(input)  # noqa: A001
    n = _static_rank(input, "max_pool/avg_pool") - 2
    if n not in (1, 2, 3):
        raise ValueError("pooling: input must have rank 3, 4 or 5, got %d" % (n + 2))
    fmt = _FORMATS[n][0] if _channels_last(data_format) else _FORMATS[n][1]
    return _POOL_FNS[(kind, n)](input, ksize, strides, padding, data_format=fmt, name=name)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Maximum pooling of a rank 3, 4 or 5 input (1-D, 2-D or 3-D windows by rank)."""
    return _pool_dispatch("MAX", input, ksize, strides, padding, data_format, name)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling of a rank 3, 4 or 5 input (1-D, 2-D or 3-D windows by rank)."""
    return _pool_dispatch("AVG", input, ksize, strides, padding, data_format, name)


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """N-d max or average pooling ("MAX" or "AVG") with ``window_shape``; with dilations
    (strides must then be 1, padding VALID, as in TensorFlow) the input is space-to-batched by the
    rates and pooled undilated."""
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError("pool: pooling_type must be 'MAX' or 'AVG', got %r" % (pooling_type,))
    window = [int(w) for w in window_shape]
    n = len(window)
    if n not in (1, 2, 3):
        raise ValueError("pool: window_shape must have 1, 2 or 3 elements, got %d" % n)
    input = _t(input)  # noqa: A001
    if input.shape.rank is not None and input.shape.rank != n + 2:
        raise ValueError("pool: input must have rank %d for a %d-element window_shape, got %d"
                         % (n + 2, n, input.shape.rank))
    fmt = _FORMATS[n][0] if _channels_last(data_format) else _FORMATS[n][1]
    strides = _spatial(strides, n, fmt, "strides")
    rates = _spatial(dilations, n, fmt, "dilations")
    if any(r != 1 for r in rates) and any(s != 1 for s in strides):
        raise ValueError("pool: strides > 1 not supported in conjunction with dilations > 1")
    if any(r != 1 for r in rates) and padding.upper() == "SAME":
        raise ValueError("pool: 'SAME' padding is not implemented for dilations > 1 (as in TensorFlow), got "
                         "dilations %r" % (rates,))
    fn = _POOL_FNS[(pooling_type, n)]

    def op(x, pad):
        return fn(x, window, strides, pad, data_format=fmt)

    return array_ops.identity(_with_space_to_batch(input, rates, window, padding.upper(), fmt, op), name=name)
