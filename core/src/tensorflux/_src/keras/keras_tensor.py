"""The functional API's symbolic values: `KerasTensor` (a shape and dtype with the layer call that
made it), `Node` (one call of a layer on KerasTensors), `InputLayer` and `Input`.

Note [Symbolic calls]
Calling a layer on KerasTensors builds it (eager weights) from their shapes, then finds the output
shapes and dtypes by running the layer's real `call` on placeholders in a scratch function graph
that is thrown away: the engine's shape inference does the work, so every layer (custom ones
included) gets output shapes without a hand-written `compute_output_shape`. Losses added during
that trace are discarded. The call is recorded as a `Node`; a functional model replays the nodes
on real tensors.
"""

from tensorflux._src import dtypes as _dtypes
from tensorflux._src.keras import naming, serialization
from tensorflux._src.keras.layer import Layer, _ctx, _call_params
from tensorflux._src.nest import flatten, map_structure, pack_sequence_as
from tensorflux._src.tensor_shape import TensorShape
from tensorflux._src.keras.layers.ops_layers import OPS
from tensorflux._src.keras.input_spec import assert_input_compatibility
from tensorflux._src.array_ops import placeholder
from tensorflux._src.func_graph import FuncGraph


class KerasTensor:
    """A symbolic tensor of the functional API: ``shape`` (a tuple, None for unknown sizes),
    ``dtype`` (a name) and the layer call that produced it (``_keras_history``)."""

    def __init__(self, shape, dtype="float32", name=None, record_history=None):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = _dtypes.as_dtype(dtype).name
        self.name = name
        self._keras_history = record_history  # (layer, node index, tensor index)

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return "<KerasTensor shape=%s, dtype=%s, name=%s>" % (self.shape, self.dtype, self.name)

    def __bool__(self):
        raise TypeError("A KerasTensor is symbolic: it has no truth value (it only has a shape and a dtype). Use "
                        "layers to compute with it.")

    def __array__(self, *args, **kwargs):
        raise TypeError("A KerasTensor is symbolic: it cannot become a NumPy array. Call the model on data instead.")

    def _apply(self, op, *others):
        return OPS[op]()(self, *others)

    def __add__(self, other):
        return self._apply("Add", other)

    def __radd__(self, other):
        return OPS_r("Add", other, self)

    def __sub__(self, other):
        return self._apply("Subtract", other)

    def __rsub__(self, other):
        return OPS_r("Subtract", other, self)

    def __mul__(self, other):
        return self._apply("Multiply", other)

    def __rmul__(self, other):
        return OPS_r("Multiply", other, self)

    def __truediv__(self, other):
        return self._apply("TrueDivide", other)

    def __rtruediv__(self, other):
        return OPS_r("TrueDivide", other, self)

    def __matmul__(self, other):
        return self._apply("Matmul", other)

    def __neg__(self):
        return self._apply("Negative")

    def __getitem__(self, key):
        return self._apply("GetItem", key)


def OPS_r(op, left, right):  # noqa: N802 - ``left (op) right`` with ``right`` the KerasTensor
    return OPS[op]()(left, right)


class Node:
    """One call of ``layer`` on KerasTensors: its arguments (KerasTensors where tensors go) and
    the KerasTensors it produced."""

    def __init__(self, layer, call_args, call_kwargs, outputs):
        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.input_tensors = [x for x in flatten([list(call_args), call_kwargs]) if isinstance(x, KerasTensor)]
        self.output_tensors = flatten(outputs)
        index = len(layer._inbound_nodes)
        layer._inbound_nodes.append(self)
        for i, t in enumerate(self.output_tensors):
            t._keras_history = (layer, index, i)

    @property
    def parent_nodes(self):
        out = []
        for t in self.input_tensors:
            layer, index, _ = t._keras_history
            out.append(layer._inbound_nodes[index])
        return out


@serialization.register("layers")
class InputLayer(Layer):
    """The layer behind `Input`: it has no weights; its one node outputs the model's input."""

    _KERAS_DEFAULTS = {"sparse": False, "ragged": False, "optional": False}

    def __init__(self, shape=None, batch_size=None, dtype=None, batch_shape=None, input_tensor=None, name=None,
                 **kwargs):
        if batch_shape is None:
            if shape is None:
                raise ValueError("You must pass a `shape` argument to InputLayer/Input.")
            batch_shape = (batch_size,) + tuple(shape)
        super().__init__(name=name or naming.uniquify("input_layer"), **kwargs)
        self._batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        self._input_dtype = _dtypes.as_dtype(dtype.name if hasattr(dtype, "name") and not isinstance(dtype, str)
                                             else dtype or "float32").name
        self.built = True
        out = KerasTensor(self._batch_shape, self._input_dtype, name=self.name)
        Node(self, (), {}, out)
        self.output = out

    @property
    def batch_shape(self):
        return self._batch_shape

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": list(self._batch_shape), "dtype": self._input_dtype, "sparse": False,
                "ragged": False, "name": self.name, "optional": False}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if "batch_input_shape" in config:  # Keras 2
            config["batch_shape"] = config.pop("batch_input_shape")
        return super().from_config(config)


def Input(shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, name=None, tensor=None,  # noqa: N802
          optional=False):
    """A KerasTensor standing for a model input of ``shape`` (without the batch dimension).

    >>> x = tx.keras.Input(shape=(784,))
    >>> x.shape, x.dtype
    ((None, 784), 'float32')
    """
    if sparse:
        raise NotImplementedError("tx.keras has no sparse inputs")
    if tensor is not None:
        raise NotImplementedError("tx.keras.Input(tensor=...) is not supported")
    if optional:
        raise NotImplementedError("tx.keras.Input(optional=True) is not supported")
    return InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, batch_shape=batch_shape, name=name).output


def symbolic_call(layer, args, kwargs):
    """Calls ``layer`` on KerasTensors: builds it, checks the inputs, computes the output
    KerasTensors and records the call as a Node (Note [Symbolic calls])."""
    names, _, _ = _call_params(type(layer))
    first = args[0] if args else kwargs.get(names[0]) if names else None
    if not layer.built:
        layer._maybe_build(list(args), kwargs, names)
    assert_input_compatibility(layer.input_spec, first, layer.name)
    spec = layer.compute_output_spec(*args, **kwargs)
    outputs = map_structure(lambda s: KerasTensor(s.shape, s.dtype, name=layer.name), spec)
    layer._output_shapes = map_structure(lambda t: t.shape, outputs)
    Node(layer, tuple(args), dict(kwargs), outputs)
    return outputs


class _Spec:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def trace_output_spec(layer, args, kwargs):
    """Runs ``layer``'s call on placeholders shaped like the KerasTensors in a scratch function
    graph; returns the outputs' (shape, dtype) in their structure (Note [Symbolic calls])."""
    leaves = flatten([list(args), kwargs])
    g = FuncGraph("keras_output_spec_%s" % layer.name)
    saved = [(lyr, list(lyr._losses)) for lyr in layer._flatten_layers()]
    saved_depth, saved_training = _ctx.depth, _ctx.training
    try:
        with g.as_default():
            replaced = [placeholder(x.dtype, TensorShape(list(x.shape))) if isinstance(x, KerasTensor) else x
                        for x in leaves]
            call_args, call_kwargs = pack_sequence_as([list(args), kwargs], replaced)
            _ctx.depth += 1
            out = layer._call_impl(tuple(call_args), call_kwargs)
    finally:
        _ctx.depth, _ctx.training = saved_depth, saved_training
        for lyr, losses in saved:
            lyr._losses = losses

    def spec(t):
        if t is None:
            return None
        shape = t.shape
        dims = tuple(shape.as_list()) if shape.rank is not None else None
        if dims is None:
            raise ValueError("layer %s: the rank of its output is unknown; override compute_output_shape" % layer.name)
        return _Spec(dims, t.dtype.name)
    return map_structure(spec, out)
