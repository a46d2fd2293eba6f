"""The generator of Python op wrappers, shared by tools/gen_python_ops.py (the checked-in wrappers
of the engine's built-in ops) and tx.load_op_library (wrappers of a plugin's ops, made when it is
loaded): one function per OpDef, named in snake_case (MatMul -> mat_mul), taking the OpDef's inputs,
then the attrs without defaults that inputs cannot determine, then the attrs with defaults as
keyword arguments, then ``name=None``. Type attrs set by inputs are inferred by the engine."""

import keyword
import math
import struct

from tensorflux._src import dtypes as _dtypes
from tensorflux._src import lib as _lib

# Attr kind codes and input kinds, as the binding defines them (core/src/pywrap/attr_kinds.h).
KINDS = {k: v for k, v in _lib.c.ATTR_KINDS.items() if k not in ("list", "proto")}
LIST = _lib.c.ATTR_KINDS["list"]
SINGLE, NUMBER_LIST, TYPE_LIST = (_lib.c.INPUT_KINDS[k] for k in ("single", "number_list", "type_list"))

# Python names of OpDef arguments that TensorFlow renames in its ApiDefs (its Python and Go
# wrappers say `axis`, the OpDef says `reduction_indices`). The engine registry has no ApiDefs
# yet; when it does, this table moves there so the Go generator shares it.
ARG_RENAMES = {(op, "reduction_indices"): "axis"
               for op in ("All", "Any", "EuclideanNorm", "Max", "Mean", "Min", "Prod", "Sum")}
ARG_RENAMES.update({("Split", "split_dim"): "axis", ("SplitV", "split_dim"): "axis", ("ExpandDims", "dim"): "axis"})
ARG_RENAMES[("Where", "input")] = "condition"
ARG_RENAMES[("Squeeze", "squeeze_dims")] = "axis"

# DataType enum value -> tensorflux dtype name (the table lives in tensorflux/_src/dtypes.py).
DTYPE_NAMES = {d.as_datatype_enum: d.name for d in _dtypes._ALL}


def snake_case(op_name):
    """MatMul -> mat_mul, AddV2 -> add_v2, Conv2D -> conv2d: an underscore goes before an
    upper-case letter that follows a lower-case one or precedes one; a Python keyword gets a
    trailing underscore."""
    out = []
    for i, ch in enumerate(op_name):
        if ch.isupper() and i > 0:
            prev_lower = op_name[i - 1].islower()
            next_lower = i + 1 < len(op_name) and op_name[i + 1].islower()
            if prev_lower or next_lower:
                out.append("_")
        out.append(ch.lower())
    name = "".join(out)
    return name + "_" if keyword.iskeyword(name) else name  # If -> if_, While -> while_


def py_name(name, op_name=""):
    name = ARG_RENAMES.get((op_name, name), name)
    return name + "_" if keyword.iskeyword(name) or name == "name" else name


def attr_kind(attr_type):
    if attr_type.startswith("list(") and attr_type.endswith(")"):
        return KINDS[attr_type[5:-1]] | LIST
    return KINDS[attr_type]


def render_value(v, kind):
    """A Python literal for one AttrValue, or None when the engine's default should be used."""
    field = v.WhichOneof("value")
    if field is None:
        return None
    if field == "list":
        elem = kind & ~LIST
        lst = v.list
        items = {0: lst.s, 1: lst.i, 2: lst.f, 3: lst.b, 4: lst.type, 5: lst.shape}.get(elem)
        if items is None:
            return None
        return "[%s]" % ", ".join(render_scalar(x, elem) for x in items)
    if field == "s":
        return render_scalar(v.s, 0)
    if field == "i":
        return render_scalar(v.i, 1)
    if field == "f":
        return render_scalar(v.f, 2)
    if field == "b":
        return render_scalar(v.b, 3)
    if field == "type":
        return render_scalar(v.type, 4)
    if field == "shape":
        return render_scalar(v.shape, 5)
    return None  # tensors and functions: left to the engine's default


def render_scalar(x, kind):
    if kind == 0:
        return repr(x.decode("utf-8") if isinstance(x, bytes) else x)
    if kind == 1:
        return repr(int(x))
    if kind == 2:
        if math.isinf(x) or math.isnan(x):
            return "float(%r)" % str(x)
        # The shortest decimal that reads back as the same float32 (0.2, not 0.20000000298023224).
        for digits in range(1, 18):
            text = "%.*g" % (digits, x)
            if struct.unpack("f", struct.pack("f", float(text)))[0] == x:
                return repr(float(text))
        return repr(float(x))
    if kind == 3:
        return repr(bool(x))
    if kind == 4:
        return "_dtypes.%s" % DTYPE_NAMES[x]
    if kind == 5:
        if x.unknown_rank:
            return "None"
        return "[%s]" % ", ".join("None" if d.size < 0 else str(d.size) for d in x.dim)
    raise ValueError(kind)


def py_tuple(items):
    items = list(items)
    return "(%s,)" % items[0] if len(items) == 1 else "(%s)" % ", ".join(items)


def inferred_attrs(op):
    names = set()
    for arg in op.input_arg:
        for a in (arg.type_attr, arg.number_attr, arg.type_list_attr):
            if a:
                names.add(a)
    return names


def describe_input(arg):
    if arg.number_attr:
        t = arg.type_attr or DTYPE_NAMES.get(arg.type, "?")
        return "A list of `%s` Tensors of type %s." % (arg.number_attr, t)
    if arg.type_list_attr:
        return "A list of Tensors with types `%s`." % arg.type_list_attr
    return "A `Tensor` of type %s." % (("`%s`" % arg.type_attr) if arg.type_attr else DTYPE_NAMES.get(arg.type, "?"))


def generate_op(op):
    fname = snake_case(op.name)
    const = "_" + fname.upper()
    inferred = inferred_attrs(op)
    attr_defs = {a.name: a for a in op.attr}
    required = [a for a in op.attr if a.name not in inferred and not a.HasField("default_value")]
    optional = [a for a in op.attr if a.name not in inferred and a.HasField("default_value")]

    inputs = []
    for arg in op.input_arg:
        kind = NUMBER_LIST if arg.number_attr else TYPE_LIST if arg.type_list_attr else SINGLE
        type_attr = arg.type_list_attr if kind == TYPE_LIST else arg.type_attr
        fixed = 0 if (arg.type_attr or arg.type_list_attr) else arg.type
        inputs.append((arg.name, type_attr, fixed, kind))
    type_defaults = {}
    for a in sorted(inferred):
        d = attr_defs.get(a)
        if d is not None and d.type == "type" and d.default_value.WhichOneof("value") == "type":
            type_defaults[a] = d.default_value.type
    attrs = [(a.name, attr_kind(a.type)) for a in required + optional]
    outputs = [(arg.name, bool(arg.number_attr or arg.type_list_attr)) for arg in op.output_arg]

    lines = []
    output_class = None
    if len(outputs) > 1:
        output_class = "_%sOutput" % op.name
        lines.append("%s = _collections.namedtuple(%r, %r)" % (output_class, op.name, [n for n, _ in outputs]))
    sig_args = [repr(op.name)]
    if inputs:
        sig_args.append("inputs=%s" % py_tuple(repr(i) for i in inputs))
    if attrs:
        sig_args.append("attrs=%s" % py_tuple(repr(a) for a in attrs))
    if outputs:
        sig_args.append("outputs=%s" % py_tuple(repr(o) for o in outputs))
    if type_defaults:
        sig_args.append("type_defaults=%r" % type_defaults)
    if output_class:
        sig_args.append("output_class=%s" % output_class)
    lines.append("%s = _OpSig(%s)" % (const, ",\n    ".join(sig_args)))
    lines.append("")
    lines.append("")

    params = [py_name(a.name, op.name) for a in op.input_arg] + [py_name(a.name, op.name) for a in required]
    for a in optional:
        default = render_value(a.default_value, attr_kind(a.type))
        params.append("%s=%s" % (py_name(a.name, op.name), default if default is not None else "None"))
    params.append("name=None")
    lines.append("def %s(%s):" % (fname, ", ".join(params)))

    doc = [op.summary.strip() or ("The %s op." % op.name), ""]
    doc.append("Args:")
    for arg in op.input_arg:
        doc.append("  %s: %s" % (py_name(arg.name, op.name), describe_input(arg)))
    for a in required + optional:
        text = "An attr of type `%s`" % a.type
        default = render_value(a.default_value, attr_kind(a.type)) if a.HasField("default_value") else None
        if default is not None:
            text += ", defaults to `%s`" % default
        if a.allowed_values.WhichOneof("value") == "list":
            lst = a.allowed_values.list
            allowed = [DTYPE_NAMES.get(t, str(t)) for t in lst.type] or [s.decode() for s in lst.s]
            if allowed:
                text += ", one of %s" % ", ".join(allowed)
        doc.append("  %s: %s." % (py_name(a.name, op.name), text))
    doc.append("  name: A name for the operation (optional).")
    doc.append("")
    if not outputs:
        doc.append("Returns: the created `Operation`.")
    elif len(outputs) == 1:
        doc.append("Returns: %s" % ("a list of `Tensor`s." if outputs[0][1] else "a `Tensor`."))
    else:
        doc.append("Returns: a namedtuple (%s) of `Tensor`s." % ", ".join(n for n, _ in outputs))
    lines.append('    r"""' + doc[0])
    lines.extend(("    " + d) if d else "" for d in doc[1:])
    lines.append('    """')
    in_tuple = py_tuple(py_name(a.name, op.name) for a in op.input_arg)
    attr_tuple = py_tuple(py_name(a.name, op.name) for a in required + optional)
    lines.append("    return _apply_op(%s, name, %s, %s)" % (const, in_tuple, attr_tuple))
    return fname, "\n".join(lines)


def generate(op_list, banner, docstring):
    """The Python source of a module with one wrapper per op of ``op_list`` (an OpList proto),
    opening with ``banner`` (a comment line) and ``docstring``, and ending with OP_WRAPPERS, a
    dict from op name to wrapper name."""
    names, bodies = {}, []
    for op in sorted(op_list.op, key=lambda o: o.name):
        fname, code = generate_op(op)
        names[op.name] = fname
        bodies.extend([code, "", ""])
    body = "\n".join(bodies)
    imports = []
    if "_collections." in body:
        imports += ["import collections as _collections", ""]
    if "_dtypes." in body:
        imports.append("from tensorflux._src import dtypes as _dtypes")
    imports += ["from tensorflux._src.op_def_library import OpSig as _OpSig",
                "from tensorflux._src.op_def_library import apply_op as _apply_op"]
    parts = [banner, '"""%s"""' % docstring, ""]
    parts += imports + ["", "", body]
    parts.append("# Op type -> wrapper name.")
    parts.append("OP_WRAPPERS = {")
    for op_name, fname in names.items():
        parts.append("    %r: %r," % (op_name, fname))
    parts.append("}")
    return "\n".join(parts) + "\n"
