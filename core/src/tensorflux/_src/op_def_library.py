"""What the generated op wrappers call: input conversion, attr conversion and op creation.

A wrapper passes its op's signature (`OpSig`, generated from the OpDef), the input values in
OpDef order and the values of its attr parameters. Type attrs are inferred by the engine;
Python only uses them to pick the dtype of inputs given as Python or NumPy values.
"""

import numbers

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import graph as _graph
from tensorflux._src import lib
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.operation import Tensor, TensorLike
from tensorflux._src.tensor_shape import engine_dims

_graph_stack = _graph._default_graph_stack

# Attr kind codes and input argument kinds, defined by the binding (src/pywrap/attr_kinds.h).
STRING, INT, FLOAT, BOOL, TYPE, SHAPE, TENSOR, FUNC, LIST = (
    lib.c.ATTR_KINDS[k] for k in ("string", "int", "float", "bool", "type", "shape", "tensor", "func", "list"))
SINGLE, NUMBER_LIST, TYPE_LIST = (lib.c.INPUT_KINDS[k] for k in ("single", "number_list", "type_list"))


class OpSig:
    """The parts of an OpDef a wrapper needs.

    inputs: (arg name, type attr or "", fixed DataType enum or 0, SINGLE/NUMBER_LIST/TYPE_LIST)
    attrs: (attr name, kind) of the wrapper's attr parameters, in parameter order
    outputs: (arg name, is_list) of the output args
    type_defaults: {type attr: default DataType enum} used to convert Python inputs
    output_class: a namedtuple class for ops with several output args, else None
    """

    __slots__ = ("op_type", "inputs", "attrs", "outputs", "type_defaults", "output_class", "_spec")

    def __init__(self, op_type, inputs=(), attrs=(), outputs=(), type_defaults=None, output_class=None):
        self.op_type = op_type
        self.inputs = inputs
        self.attrs = attrs
        self.outputs = outputs
        self.type_defaults = type_defaults or {}
        self.output_class = output_class
        self._spec = None  # compiled for eager_execute on first eager use


def _graph_for(values):
    """The graph of the Tensors among ``values`` (all must agree), else the default graph; a
    control-flow body being traced takes every op (it captures tensors of enclosing graphs)."""
    stack = _graph_stack.stack
    if stack and getattr(stack[-1], "_captures_outer", False):
        return stack[-1]
    g = first = None
    for v in values:
        items = v if isinstance(v, (list, tuple)) else (v,)
        for t in items:
            if isinstance(t, Tensor):
                if g is None:
                    g, first = t._op._graph, t
                elif t._op._graph is not g:
                    raise ValueError("Tensor %s must be from the same graph as Tensor %s." % (t.name, first.name))
    return g if g is not None else _graph.get_default_graph()


def eager_spec(sig):
    """The compiled form of ``sig`` that eager_execute takes (made once per op type)."""
    spec = sig._spec
    if spec is None:
        _context.ensure_initialized()
        spec = sig._spec = lib.c.eager_make_spec(sig)
    return spec


def _apply_graph_op(sig, name, args, attr_values):
    g = _graph_for(args)
    # Attrs first: a bad attr value then leaves the graph untouched.
    attrs = [(attr_name, kind, convert_attr(attr_name, kind, value))
             for (attr_name, kind), value in zip(sig.attrs, attr_values) if value is not None]
    for (attr_name, kind), value in zip(sig.attrs, attr_values):
        if kind & ~LIST == FUNC and value is not None:
            for f in value if kind & LIST else (value,):
                if hasattr(f, "add_to_graph"):
                    f.add_to_graph(g)  # a function object: its definition goes into the graph's library
    inferred = {}
    inferred_from = {}
    convert = False

    def infer(type_attr, dtype, arg_name):
        # No implicit promotion (docs/dtypes.md): Tensors sharing a type attr must agree.
        if type_attr not in inferred:
            inferred[type_attr], inferred_from[type_attr] = dtype, arg_name
        elif inferred[type_attr] != dtype and inferred_from[type_attr] == arg_name:
            raise TypeError("Tensors in list passed to '%s' of '%s' Op have types %s and %s that don't all match."
                            % (arg_name, sig.op_type, inferred[type_attr].name, dtype.name))
        elif inferred[type_attr] != dtype:
            raise TypeError("Input '%s' of '%s' Op has type %s that does not match type %s of argument '%s'."
                            % (arg_name, sig.op_type, dtype.name, inferred[type_attr].name,
                               inferred_from[type_attr]))

    for i, ((arg_name, type_attr, fixed, kind), value) in enumerate(zip(sig.inputs, args)):
        if kind == SINGLE:
            if value.__class__ is not Tensor and isinstance(value, TensorLike):  # a Variable: its value
                value = value._as_graph_element()
                args = list(args)
                args[i] = value
            if isinstance(value, Tensor):
                if type_attr:
                    infer(type_attr, value._dtype, arg_name)
                elif fixed and value._dtype.as_datatype_enum != fixed:
                    raise TypeError("Input '%s' of '%s' Op has type %s that does not match expected type of %s."
                                    % (arg_name, sig.op_type, value._dtype.name, _dtypes._BY_ENUM[fixed].name))
            else:
                if type_attr and isinstance(value, EagerTensor):  # captured below; its dtype types Python values
                    infer(type_attr, value.dtype, arg_name)
                convert = True
        else:
            if not isinstance(value, (list, tuple)):
                raise TypeError("Expected a list for input %r of %s, not %r." % (arg_name, sig.op_type, value))
            if any(isinstance(t, TensorLike) for t in value):
                value = [t._as_graph_element() if isinstance(t, TensorLike) else t for t in value]
                args = list(args)
                args[i] = value
            for t in value:
                if isinstance(t, Tensor):
                    if kind == NUMBER_LIST and type_attr:
                        infer(type_attr, t._dtype, arg_name)
                else:
                    convert = True

    if name is not None and name.endswith("/"):
        op_name = name[:-1]  # an exact scope name, used as is
        scope_cm = g.name_scope(name) if convert else None
    elif convert:
        scope_cm = g.name_scope(name or sig.op_type)
        op_name = None
    else:
        scope_cm = None
        op_name = g.unique_name(name or sig.op_type)

    if scope_cm is not None:
        with scope_cm as scope:
            inputs = _convert_inputs(sig, args, inferred, g)
        if op_name is None:
            op_name = scope[:-1]
    else:
        inputs = [list(a) if type(a) is not Tensor and isinstance(a, (list, tuple)) else a for a in args]

    op = g._create_op(sig.op_type, op_name, inputs, attrs)
    return _outputs(sig, op)


# apply_op(sig, name, args, attr_values), which every generated wrapper calls, is C (Note [C
# dispatch] in pywrap/eager_dispatch.cc): it runs ``sig.op_type`` at once in eager mode (returning
# EagerTensors, or None for an op without outputs) and otherwise calls _apply_graph_op, which
# creates an operation and returns its output(s): a Tensor, a list or a namedtuple of them, or the
# Operation when the op has no outputs.
lib.c.eager_dispatch_state(_graph_stack, vars(_context), _context._tls, eager_spec, _apply_graph_op)
apply_op = lib.c.apply_op


def _convert_inputs(sig, args, inferred, g):
    # Imported here: constant_op imports this module.
    from tensorflux._src.constant_op import constant_in_graph, convert_to_tensor, needs_conversion_op

    inputs = []
    for (arg_name, type_attr, fixed, kind), value in zip(sig.inputs, args):
        dtype = _dtypes._BY_ENUM[fixed] if fixed else inferred.get(type_attr)
        preferred = dtype is None and type_attr in sig.type_defaults  # only where the values fit it
        if preferred:
            dtype = _dtypes._BY_ENUM[sig.type_defaults[type_attr]]
        if kind == SINGLE:
            if not isinstance(value, (Tensor, EagerTensor)) and needs_conversion_op(value):
                value = convert_to_tensor(value, dtype=dtype)  # Pack, or a registered conversion
            if isinstance(value, EagerTensor):
                value = g._capture_eager(value, arg_name, sig.op_type)
            elif not isinstance(value, Tensor):
                value = constant_in_graph(g, value, dtype, arg_name, "%s of %s" % (arg_name, sig.op_type), preferred)
            if type_attr and type_attr not in inferred:
                inferred[type_attr] = value._dtype
            inputs.append(value)
        else:
            items = []
            for i, t in enumerate(value):
                if not isinstance(t, (Tensor, EagerTensor)) and needs_conversion_op(t):
                    t = convert_to_tensor(t, dtype=dtype if kind == NUMBER_LIST else None)
                if isinstance(t, EagerTensor):
                    t = g._capture_eager(t, arg_name, sig.op_type)
                elif not isinstance(t, Tensor):
                    t = constant_in_graph(g, t, dtype if kind == NUMBER_LIST else None, "%s_%d" % (arg_name, i),
                                          for_input="%s of %s" % (arg_name, sig.op_type))
                items.append(t)
            inputs.append(items)
    return inputs


def _outputs(sig, op):
    outs = sig.outputs
    if not outs:
        return op
    if len(outs) == 1:
        return list(op._outputs) if outs[0][1] else op._outputs[0]
    groups, i = [], 0
    for arg, is_list in outs:
        if is_list:
            n = lib.c.op_output_list_length(op._h, arg)
            groups.append(op._outputs[i:i + n])
            i += n
        else:
            groups.append(op._outputs[i])
            i += 1
    return sig.output_class(*groups) if sig.output_class else tuple(groups)


def _bool(name, v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    raise TypeError("Expected bool for argument %r not %r." % (name, v))


def _int(name, v):
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    raise TypeError("Expected int for argument %r not %r." % (name, v))


def _float(name, v):
    if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)):
        return float(v)
    raise TypeError("Expected float for argument %r not %r." % (name, v))


def _string(name, v):
    if isinstance(v, (str, bytes)):
        return v
    raise TypeError("Expected string for argument %r not %r." % (name, v))


def _type(name, v):
    try:
        return _dtypes.as_dtype(v).as_datatype_enum
    except TypeError:
        raise TypeError("Expected DataType for argument %r not %r." % (name, v)) from None


def _shape(name, v):
    try:
        return engine_dims(v)
    except (TypeError, ValueError) as e:
        raise TypeError("Expected a shape for argument %r not %r (%s)." % (name, v, e)) from None


def _tensor(name, v):
    arr = np.asarray(v)
    return (_dtypes.as_dtype(arr.dtype).as_datatype_enum, arr)


def _func(name, v):
    if isinstance(v, (str, bytes)):
        return v
    if hasattr(v, "add_to_graph") and hasattr(v, "name"):  # a function object (e.g. functions.Function)
        if hasattr(v, "add_to_context") and _context.executing_eagerly():
            v.add_to_context()  # eager call ops find it in the context's library
        return v.name
    raise TypeError("Expected a function name or function for argument %r not %r." % (name, v))


_CONVERTERS = {STRING: _string, INT: _int, FLOAT: _float, BOOL: _bool, TYPE: _type, SHAPE: _shape, TENSOR: _tensor,
               FUNC: _func}


def convert_attr(name, kind, value):
    """``value`` converted for the binding, or TypeError naming the attr."""
    if kind & LIST:
        if not isinstance(value, (list, tuple)):
            raise TypeError("Expected list for attr %r not %r." % (name, value))
        conv = _CONVERTERS[kind & ~LIST]
        return [conv(name, v) for v in value]
    return _CONVERTERS[kind](name, value)
