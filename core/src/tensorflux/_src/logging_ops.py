"""``tx.print``: prints tensors and Python values when the op runs (eagerly at once; in a graph or a
tx.function when the run reaches it), with TensorFlow 2's tf.print formatting.

The op is a stateful PyFunc host callback, so the text goes to the Python stream given (which
pytest and notebooks capture), inside tx.function it runs even when nothing uses its result, in
program order with other stateful ops, and in a graph it is returned so it can be run or used in
``tx.control_dependencies``. The engine's StringFormat op formats tensors the same way.
"""

import sys

import numpy as np

from tensorflux._src import nest as _nest
from tensorflux._src.eager_tensor import TENSOR_TYPES
from tensorflux._src.variables import Variable
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.script_ops import numpy_function_op

__all__ = ["print_v2", "format_tensor"]


def _format_float(v, digits, more_digits):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    s = "%.*g" % (digits, v)
    same = (lambda a, b: a == b) if digits > 6 else (lambda a, b: np.float32(a) == np.float32(b))
    if not same(float(s), v):
        s = "%.*g" % (more_digits, v)
    return s


_C_ESCAPES = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}


def _c_escape(data):
    """``data`` (bytes) with C escapes, as TensorFlow shows strings in tensors (absl::CEscape)."""
    return "".join(_C_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else "\\%03o" % b) for b in data)


def _element_formatter(dtype):
    """A function formatting one element of an array of ``dtype`` as TensorFlow does."""
    kind = dtype.kind
    if kind in "OS":  # strings: quoted, with C escapes
        return lambda v: '"%s"' % _c_escape(v if isinstance(v, bytes) else str(v).encode())
    if kind == "b":
        return lambda v: "1" if v else "0"
    if kind in "iu":
        return lambda v: str(int(v))
    if kind == "c":
        return lambda v: "?"
    if dtype == np.float64:
        return lambda v: _format_float(float(v), 15, 17)
    if kind == "f" or dtype.name == "bfloat16":
        return lambda v: _format_float(float(np.float32(v)), 6, 9)
    return lambda v: str(v)


def format_tensor(array, summarize=3):
    """The text tf.print shows for a tensor holding ``array``: ``[1 2 3]``, nested brackets per
    dimension, and ``...`` replacing all but the first and last ``summarize`` entries of a longer
    dimension (every entry when ``summarize`` is negative)."""
    a = np.asarray(array)
    fmt = _element_formatter(a.dtype)
    flat = a.reshape(-1)
    total = flat.size
    ends = total if summarize is None or summarize < 0 else min(summarize, total)
    shape = a.shape
    ndim = len(shape)
    out = []

    def spacing(dim):
        if dim == ndim - 1:
            out.append(" ")
        else:
            out.append("\n" * (ndim - dim - 1) + " " * (dim + 1))

    def dim_text(dim, index):
        if dim == ndim:
            out.append(fmt(flat[index]))
            return
        out.append("[")
        count = shape[dim]
        start_of_end = max(ends, count - ends)
        stride = int(np.prod(shape[dim + 1:], dtype=np.int64))
        for i in range(count):
            if i < ends or i >= start_of_end:
                if i > 0:
                    spacing(dim)
                dim_text(dim + 1, index + stride * i)
            elif i == ends:
                spacing(dim)
                out.append("...")
        out.append("]")

    dim_text(0, 0)
    return "".join(out)


def _format_structure(value, tensor_text):
    """``value`` as tf.print shows a nested argument: Python's repr, with tensors formatted."""
    if isinstance(value, _Slot):
        return tensor_text(value.index)
    if isinstance(value, dict):
        return "{" + ", ".join("%r: %s" % (k, _format_structure(value[k], tensor_text)) for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_format_structure(v, tensor_text) for v in value) + "]"
    if isinstance(value, tuple):
        items = [_format_structure(v, tensor_text) for v in value]
        if hasattr(type(value), "_fields"):
            return "%s(%s)" % (type(value).__name__,
                               ", ".join("%s=%s" % (f, s) for f, s in zip(type(value)._fields, items)))
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    return repr(value)


class _Slot:
    """Stands for the ``index``-th tensor argument in a structure being formatted."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _is_tensor(x):
    return isinstance(x, TENSOR_TYPES + (Variable,))


def _open_stream(output_stream):
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError("output_stream must be a stream (sys.stdout, sys.stderr, a file object) or a "
                             "'file://<path>' string, got %r" % output_stream)
        path = output_stream[len("file://"):]
        return lambda text: _append(path, text)
    if not hasattr(output_stream, "write"):
        raise ValueError("output_stream must have a write method, got %r" % (output_stream,))
    # sys.stdout / sys.stderr (as bound when this module loaded, e.g. the default argument) mean the
    # process's current ones when the op runs, so redirections (pytest's capsys) see the text.
    if output_stream is _STDERR:
        return lambda text: _write_flush(sys.stderr, text)
    if output_stream is _STDOUT:
        return lambda text: _write_flush(sys.stdout, text)
    return lambda text: _write_flush(output_stream, text)


_STDERR, _STDOUT = sys.stderr, sys.stdout


def _write_flush(stream, text):
    stream.write(text)
    flush = getattr(stream, "flush", None)
    if flush is not None:
        flush()


def _append(path, text):
    with open(path, "a") as f:
        f.write(text)


def print_v2(*inputs, output_stream=sys.stderr, sep=" ", end="\n", summarize=3, name=None):
    """Prints ``inputs`` (tensors, Python values and nested structures of them) separated by
    ``sep`` and followed by ``end`` to ``output_stream`` (a stream with ``write``, or
    ``"file://<path>"`` to append to a file), showing the first and last ``summarize`` entries of
    each tensor dimension (all when negative). Eagerly it prints at once and returns None; in a
    graph it returns the printing operation."""
    write = _open_stream(output_stream)
    tensors = []

    def slot(x):
        if _is_tensor(x):
            tensors.append(convert_to_tensor(x))
            return _Slot(len(tensors) - 1)
        return x

    templates = [_nest.map_structure(slot, x) if _nest.is_nested(x) else slot(x) for x in inputs]

    def emit(*arrays):
        def text(i):
            return format_tensor(arrays[i], summarize)

        def top_level(i):  # a scalar string prints as its text, as in TensorFlow
            if isinstance(arrays[i], bytes):
                return arrays[i].decode("utf-8", "backslashreplace")
            return text(i)

        parts = []
        for t in templates:
            if isinstance(t, str):
                parts.append(t)
            elif isinstance(t, _Slot):
                parts.append(top_level(t.index))
            else:
                parts.append(_format_structure(t, text))
        write(sep.join(parts) + end)

    _, op = numpy_function_op(emit, tensors, [], stateful=True, name=name or "PrintV2")
    return op
