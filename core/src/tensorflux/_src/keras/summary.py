"""`Model.summary()`: Keras 3's table of layers (name and type, output shape, parameter count, and
for functional models the layers each one is connected to), then the parameter totals."""

import numpy as np

from tensorflux._src.keras.functional import Functional
from tensorflux._src.keras.keras_tensor import InputLayer


def _shape_str(shape):
    if shape is None:
        return "?"
    if isinstance(shape, list):
        return "[" + ", ".join(_shape_str(s) for s in shape) + "]"
    dims = ", ".join("None" if d is None else str(d) for d in shape)
    return "(" + dims + ("," if len(shape) == 1 else "") + ")"


def _count(weights):
    return int(sum(int(np.prod(w.shape.as_list())) for w in weights))


def _size(n, weights):
    nbytes = sum(int(np.prod(w.shape.as_list())) * w.dtype.size for w in weights)
    for unit in ("B", "KB", "MB", "GB"):
        if nbytes < 1024 or unit == "GB":
            return "%s (%.2f %s)" % ("{:,}".format(n), nbytes, unit)
        nbytes /= 1024.0


def _rows(model):
    functional = isinstance(model, Functional)
    own = {id(n) for n in getattr(model, "_nodes", [])}
    rows = []
    for layer in model.layers:
        shape = layer._output_shapes
        if isinstance(layer, InputLayer):
            shape = layer.batch_shape
        params = "{:,}".format(_count(layer.weights)) if layer.built else "0 (unbuilt)"
        row = ["%s (%s)" % (layer.name, type(layer).__name__), _shape_str(shape), params]
        if functional:
            connected = []
            for node in layer._inbound_nodes:
                if id(node) not in own:
                    continue
                for t in node.input_tensors:
                    src, index, tensor_index = t._keras_history
                    connected.append("%s[%d][%d]" % (src.name, index, tensor_index))
            row.append(", ".join(connected) or "-")
        rows.append(row)
    return rows, functional


def print_summary(model, line_length=None, print_fn=None, show_trainable=False):
    print_fn = print_fn or print
    rows, functional = _rows(model)
    headers = ["Layer (type)", "Output Shape", "Param #"] + (["Connected to"] if functional else [])
    widths = [max([len(h)] + [len(r[i]) for r in rows]) + 2 for i, h in enumerate(headers)]
    widths[0] = max(widths[0], 33)
    widths[1] = max(widths[1], 24)
    widths[2] = max(widths[2], 15)
    if line_length:
        extra = line_length - sum(widths) - len(widths) - 1
        if extra > 0:
            widths[0] += extra

    def line(left, fill, mid, right):
        return left + mid.join(fill * w for w in widths) + right

    def cells(values, sep):
        out = []
        for i, (v, w) in enumerate(zip(values, widths)):
            out.append(" " + (v.rjust(w - 2) if i == 2 else v.ljust(w - 2)) + " ")
        return sep + sep.join(out) + sep

    print_fn('Model: "%s"' % model.name)
    print_fn(line("\u250f", "\u2501", "\u2533", "\u2513"))
    print_fn(cells(headers, "\u2503"))
    print_fn(line("\u2521", "\u2501", "\u2547", "\u2529"))
    for i, r in enumerate(rows):
        print_fn(cells(r, "\u2502"))
        if i + 1 < len(rows):
            print_fn(line("\u251c", "\u2500", "\u253c", "\u2524"))
    print_fn(line("\u2514", "\u2500", "\u2534", "\u2518"))
    weights = model.weights
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    print_fn(" Total params: %s" % _size(_count(weights), weights))
    print_fn(" Trainable params: %s" % _size(_count(trainable), trainable))
    print_fn(" Non-trainable params: %s" % _size(_count(non_trainable), non_trainable))
    opt = getattr(model, "optimizer", None)
    if opt is not None and getattr(opt, "_iterations", None) is not None:
        opt_vars = opt.variables()
        print_fn(" Optimizer params: %s" % _size(_count(opt_vars), opt_vars))
