"""`Sequential`: a stack of layers, each called on the previous one's output. Once its input shape
is known (an `Input` first, a layer's ``input_shape=``, `build`, or the first call) it builds a
functional graph of the stack, which gives every layer its output shape (summary) and makes the
config Keras 3's."""

from tensorflux._src.keras import serialization
from tensorflux._src.keras.functional import Functional, deserialize_layer, serialize_layer
from tensorflux._src.keras.keras_tensor import InputLayer, KerasTensor
from tensorflux._src.keras.layer import Layer, _shape_tuple, _to_tuples
from tensorflux._src.keras.model import Model
from tensorflux._src.nest import flatten


@serialization.register("layers")
class Sequential(Model):
    """Layers applied in order.

    >>> model = tx.keras.Sequential([tx.keras.Input((4,)), tx.keras.layers.Dense(3), tx.keras.layers.Dense(1)])
    >>> [layer.name.split("_")[0] for layer in model.layers]
    ['dense', 'dense']
    >>> model.output_shape
    (None, 1)
    """

    def __init__(self, layers=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._stack = []
        self._input_layer = None
        self._graph = None
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    def add(self, layer, rebuild=True):
        """Appends ``layer`` (an `Input` KerasTensor or InputLayer sets the input shape)."""
        if isinstance(layer, KerasTensor):
            layer = layer._keras_history[0]
        if isinstance(layer, InputLayer):
            if self._input_layer is not None or self._stack:
                raise ValueError("Sequential model '%s' can only have one Input, placed first." % self.name)
            self._input_layer = layer
        elif not isinstance(layer, Layer):
            raise ValueError("Only instances of `tx.keras.layers.Layer` can be added to a Sequential model. "
                             "Received: %r (of type %s)" % (layer, type(layer).__name__))
        else:
            if any(layer is other for other in self._stack):
                raise ValueError("Layer %s is already in Sequential model '%s'" % (layer.name, self.name))
            self._stack.append(layer)
        self.built = False
        self._graph = None
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild=True):
        """Removes and returns the last layer."""
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        self.built = False
        self._graph = None
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _input_batch_shape(self):
        if self._input_layer is not None:
            return self._input_layer.batch_shape
        if self._stack and self._stack[0]._batch_input_shape is not None:
            return self._stack[0]._batch_input_shape
        return None

    def _maybe_rebuild(self):
        shape = self._input_batch_shape()
        if shape is not None and self._stack:
            self.build(shape)

    @property
    def layers(self):
        return list(self._stack)

    @property
    def _layers(self):
        return list(self._stack)

    def build(self, input_shape=None, dtype=None):
        """Builds every layer for inputs of ``input_shape`` (the batch dimension included; of
        ``dtype``, float32 by default) through a functional graph of the stack."""
        if input_shape is None:
            input_shape = self._input_batch_shape()
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument to build Sequential model %s." % self.name)
        if self._graph is not None:
            return
        shape = _to_tuples(input_shape)
        if isinstance(shape, list):
            raise ValueError("Sequential model %s takes one input, got shapes %s" % (self.name, shape))
        if self._input_layer is None:
            self._input_layer = InputLayer(batch_shape=(None,) + tuple(shape[1:]), dtype=dtype)
        x = self._input_layer.output
        for layer in self._stack:
            x = layer(x)
        self._graph = Functional(self._input_layer.output, x, name=self.name + "_graph")
        self._output_shapes = x.shape if not isinstance(x, (list, tuple)) else [t.shape for t in x]
        self.built = True

    def call(self, inputs, training=None, mask=None):
        x = inputs
        for layer in self._stack:
            x = layer(x)
        return x

    def _maybe_build(self, args, kwargs, names):
        if not self.built:
            first = flatten(args[0] if args else kwargs.get("inputs"))[0]
            dtype = first.dtype.name if hasattr(first.dtype, "name") else first.dtype
            self.build((None,) + tuple(_shape_tuple(first)[1:]), dtype=dtype)

    @property
    def inputs(self):
        return self._graph.inputs if self._graph is not None else []

    @property
    def outputs(self):
        return self._graph.outputs if self._graph is not None else []

    @property
    def input_shape(self):
        if self._graph is None:
            raise AttributeError("Sequential model %s is not built: it has no input_shape yet" % self.name)
        return self._graph.input_shape

    @property
    def output_shape(self):
        if self._graph is None:
            raise AttributeError("Sequential model %s is not built: it has no output_shape yet" % self.name)
        return self._graph.output_shape

    @property
    def input_names(self):
        return self._graph.input_names if self._graph is not None else []

    @property
    def output_names(self):
        return [self._stack[-1].name] if self._stack else []

    def get_config(self):
        layers = []
        if self._input_layer is not None:
            layers.append(serialize_layer(self._input_layer))
        layers.extend(serialize_layer(layer) for layer in self._stack)
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": serialization.serialize(self.dtype_policy, "dtype_policies"), "layers": layers}
        if self._graph is not None:
            config["build_input_shape"] = list(self._graph.inputs[0].shape)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for entry in config["layers"]:
            model.add(deserialize_layer(entry, custom_objects), rebuild=False)
        if model._input_layer is None and config.get("build_input_shape"):
            model.build(config["build_input_shape"])
        else:
            model._maybe_rebuild()
        return model

    def get_build_config(self):
        if self._graph is None:
            return None
        return {"input_shape": list(self._graph.inputs[0].shape)}
