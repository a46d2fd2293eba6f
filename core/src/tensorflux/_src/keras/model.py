"""`Model`: a Layer with the training API (Trainer), saving and summary. ``Model(inputs, outputs)``
makes a functional model; subclasses define ``call`` (and may still pass inputs/outputs, as
Keras's "functional subclassing")."""

import json

from tensorflux._src.keras import serialization
from tensorflux._src.keras.layer import Layer, _to_tuples
from tensorflux._src.keras.trainer import Trainer
from tensorflux._src.keras.keras_tensor import KerasTensor, trace_output_spec


def _functional_init_arguments(args, kwargs):
    """Whether constructor arguments are a functional model's (Keras 3's rule)."""
    return len(args) == 2 or (len(args) == 1 and "outputs" in kwargs) or ("inputs" in kwargs and "outputs" in kwargs)


def _functional_class_for(cls):
    """``cls`` with Functional among its bases (a subclass of Model given inputs and outputs)."""
    # Imported here: keras.functional imports this module.
    from tensorflux._src.keras.functional import Functional
    if issubclass(cls, Functional):
        return cls
    cached = cls.__dict__.get("_functional_variant")
    if cached is None:
        cached = type(cls.__name__, (cls, Functional), {"__module__": cls.__module__})
        cls._functional_variant = cached
    return cached


class Model(Trainer, Layer):
    """A model: layers with training (compile/fit/evaluate/predict), saving and a summary.

    >>> class TwoLayers(tx.keras.Model):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = tx.keras.layers.Dense(4, activation="relu")
    ...         self.out = tx.keras.layers.Dense(1)
    ...     def call(self, x):
    ...         return self.out(self.hidden(x))
    >>> model = TwoLayers()
    >>> model(np.ones((2, 3), np.float32)).shape
    TensorShape([2, 1])
    >>> len(model.trainable_weights)
    4
    """

    def __new__(cls, *args, **kwargs):
        # Imported here: keras.sequential imports this module.
        from tensorflux._src.keras.sequential import Sequential
        if _functional_init_arguments(args, kwargs) and not issubclass(cls, Sequential):
            # Imported here: keras.functional imports this module.
            from tensorflux._src.keras.functional import Functional
            target = Functional if cls is Model else _functional_class_for(cls)
            return Layer.__new__(target, *args, **kwargs)
        return Layer.__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        if _functional_init_arguments(args, kwargs):
            # Functional subclassing: a subclass passing inputs and outputs becomes functional.
            # Imported here: keras.functional imports this module.
            from tensorflux._src.keras.functional import Functional
            if not isinstance(self, Functional):
                self.__class__ = _functional_class_for(type(self))
            Functional.__init__(self, *args, **kwargs)
            return
        self._init_trainer()
        Layer.__init__(self, **kwargs)

    def call(self, *args, **kwargs):
        raise NotImplementedError("Model %s has no `call()`: subclasses of Model define call(inputs), or use "
                                  "tx.keras.Model(inputs, outputs) / Sequential." % type(self).__name__)

    @property
    def layers(self):
        """The model's layers (for a subclassed model: the layers set as its attributes)."""
        return self._layers

    def get_layer(self, name=None, index=None):
        """The layer called ``name``, or at ``index`` in `layers`."""
        if index is not None and name is not None:
            raise ValueError("Provide only a layer name or a layer index, not both.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError("Was asked to retrieve layer at index %d but model only has %d layers."
                                 % (index, len(self.layers)))
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError("No such layer: %s. Existing layers are: %s." % (name, [lyr.name for lyr in self.layers]))

    def build(self, input_shape=None):
        """Builds a subclassed model by calling it on placeholders of ``input_shape``."""
        if self.built:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument to build model %s." % self.name)
        shapes = _to_tuples(input_shape)
        inputs = [KerasTensor(s, self.compute_dtype) for s in shapes] if isinstance(shapes, list) else \
            KerasTensor(shapes, self.compute_dtype)
        self.built = True
        trace_output_spec(self, (inputs,), {})

    def _maybe_build(self, args, kwargs, names):
        if type(self).build is Model.build:  # sublayers build themselves during the call
            self.built = True
            return
        super()._maybe_build(args, kwargs, names)

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        """Prints Keras's table of the model's layers (name and type, output shape, parameter
        count) and the totals."""
        # Imported here: keras.summary imports this module (through keras.functional).
        from tensorflux._src.keras.summary import print_summary
        print_summary(self, line_length=line_length, print_fn=print_fn, show_trainable=show_trainable)

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Writes the model to a ``.keras`` file: the architecture as Keras 3 JSON config, the
        weights (and optimizer state) as safetensors, in one zip written atomically."""
        # Imported here: keras.saving imports this module (through keras.functional).
        from tensorflux._src.keras import saving
        saving.save_model(self, filepath, overwrite=overwrite)

    def save_weights(self, filepath, overwrite=True):
        """Writes the weights to a safetensors file (keys as Keras's weight paths)."""
        # Imported here: keras.saving imports this module (through keras.functional).
        from tensorflux._src.keras import saving
        saving.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Loads weights written by `save_weights` (or a Keras ``.weights.h5`` / ``.keras`` file);
        a missing, extra or misshapen weight is a ValueError naming it (nothing is assigned)."""
        # Imported here: keras.saving imports this module (through keras.functional).
        from tensorflux._src.keras import saving
        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def to_json(self, **kwargs):
        """The model's Keras 3 config as a JSON string."""
        # Imported here: keras.saving imports this module (through keras.functional).
        from tensorflux._src.keras.saving import model_config
        return json.dumps(model_config(self, with_compile=False), **kwargs)

    def get_compile_config(self):
        if not getattr(self, "compiled", False) or self._compile_config is None:
            return None
        # Imported here: keras.saving imports this module (through keras.functional).
        from tensorflux._src.keras.saving import compile_config
        return compile_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # Imported here: keras.functional imports this module.
        from tensorflux._src.keras.functional import Functional, functional_graph_from_config
        if "layers" in config and "input_layers" in config and "output_layers" in config:
            inputs, outputs, name, trainable = functional_graph_from_config(config, custom_objects)
            target = Functional if cls in (Model, Functional) else _functional_class_for(cls)
            obj = Layer.__new__(target)
            Functional.__init__(obj, inputs, outputs, name=name, trainable=trainable)
            return obj
        return super().from_config(config)


serialization.register("layers")(Model)
serialization.register("models")(Model)
