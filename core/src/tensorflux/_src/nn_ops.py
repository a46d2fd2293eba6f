"""Neural-network ops (``tx.nn``): relu, softmax, bias_add."""

from tensorflux._src.generated import gen_ops
from tensorflux._src.operation import Tensor


def relu(features, name=None):
    """max(features, 0) element-wise."""
    return gen_ops.relu(features, name=name)


def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) over the last axis (``axis`` may only name the last one)."""
    if axis is not None and axis != -1:
        rank = logits.shape.rank if isinstance(logits, Tensor) else None
        if rank is None or axis != rank - 1:
            raise NotImplementedError("softmax over an axis other than the last one (axis=%r) is not supported yet"
                                      % (axis,))
    return gen_ops.softmax(logits, name=name)


def bias_add(value, bias, data_format=None, name=None):
    """``value`` plus the 1-D ``bias`` along its channel dimension (last for "N...C" formats,
    the second for "NC..." formats)."""
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        data_format = "NHWC"
    elif data_format.startswith("NC"):
        data_format = "NCHW"
    else:
        raise ValueError("data_format must be of the form N...C or NC..., not %r" % data_format)
    return gen_ops.bias_add(value, bias, data_format=data_format, name=name)
