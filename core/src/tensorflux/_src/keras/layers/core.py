"""Core layers: Dense, EinsumDense, Embedding, Activation, Dropout, Lambda, Identity, Masking,
ActivityRegularization."""

import base64
import marshal
import types

import numpy as np

from tensorflux._src import math_ops, nn_ops, reduce_ops
from tensorflux._src.keras import saving
from tensorflux._src.einsum_ops import einsum
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import activations, constraints, initializers, regularizers, serialization
from tensorflux._src.keras.input_spec import InputSpec
from tensorflux._src.keras.layer import Layer, revive_dtype

# Keys Keras 3 writes into weight-layer configs at defaults tx.keras implements.
KERAS_WEIGHT_DEFAULTS = {"quantization_config": None, "lora_rank": None, "lora_alpha": None,
                         "lora_enabled": False, "quantization_mode": None}


def ser(kind, obj):
    """A config value for an initializer/regularizer/constraint/activation (None stays None)."""
    if obj is None:
        return None
    return {"initializers": initializers.serialize, "regularizers": regularizers.serialize,
            "constraints": constraints.serialize, "activations": activations.serialize}[kind](obj)


def set_weight_options(layer, **values):
    """Sets the layer's initializers, regularizers and constraints (attributes named as their
    config keys, e.g. ``kernel_initializer``) from Keras identifiers."""
    for key, value in values.items():
        getter = initializers.get if key.endswith("initializer") else \
            regularizers.get if key.endswith("regularizer") else constraints.get
        setattr(layer, key, getter(value))


def weight_options(layer, config_keys):
    """The serialized initializers, regularizers and constraints named by ``config_keys``
    (attribute names equal to the config keys)."""
    out = {}
    for key in config_keys:
        kind = "initializers" if key.endswith("initializer") else \
            "regularizers" if key.endswith("regularizer") else "constraints"
        out[key] = ser(kind, getattr(layer, key))
    return out


def base_config(layer, config):
    """The layer's base config joined with ``config`` (and the activity regularizer when set)."""
    out = Layer.get_config(layer)
    if layer.activity_regularizer is not None:
        out["activity_regularizer"] = ser("regularizers", layer.activity_regularizer)
    out.update(config)
    return out


@serialization.register("layers")
class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` on the last axis.

    >>> layer = tx.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")
    >>> layer(tx.constant([[1.0, 2.0, 3.0]])).numpy()
    array([[6., 6.]], dtype=float32)
    """

    _KERAS_DEFAULTS = KERAS_WEIGHT_DEFAULTS

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError("Received an invalid value for `units`, expected a positive integer. Received: "
                             "units=%r" % (units,))
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                           kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                           kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(name="kernel", shape=(input_dim, self.units),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})
        self.built = True

    def call(self, inputs):
        kernel = self._cast(self.kernel)
        if inputs.shape.rank == 2:
            y = math_ops.matmul(inputs, kernel)
        else:
            y = gen_ops.reshape(math_ops.matmul(gen_ops.reshape(inputs, [-1, self.kernel.shape[0]]), kernel),
                                gen_ops.concat_v2([gen_ops.shape(inputs)[:-1], [self.units]], 0))
            if hasattr(y, "set_shape") and inputs.shape.rank is not None:
                y.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            y = nn_ops.bias_add(y, self._cast(self.bias))
        return self.activation(y)

    def get_config(self):
        return base_config(self, dict(units=self.units, activation=ser("activations", self.activation),
                                      use_bias=self.use_bias, **weight_options(self, (
                                          "kernel_initializer", "bias_initializer", "kernel_regularizer",
                                          "bias_regularizer", "kernel_constraint", "bias_constraint"))))


@serialization.register("layers")
class EinsumDense(Layer):
    """A dense layer written as an einsum ``equation`` ("ab,bc->ac"), with a kernel of the shape
    the equation implies for ``output_shape`` and a bias over the axes named by ``bias_axes``."""

    _KERAS_DEFAULTS = KERAS_WEIGHT_DEFAULTS

    def __init__(self, equation, output_shape, activation=None, bias_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
        self.activation = activations.get(activation)
        self.bias_axes = bias_axes
        set_weight_options(self, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                           kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                           kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)

    def build(self, input_shape):
        kernel_shape, bias_shape, self.full_output_shape = _einsum_shapes(self.equation, input_shape,
                                                                          self.partial_output_shape, self.bias_axes)
        self.kernel = self.add_weight(name="kernel", shape=kernel_shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = self.add_weight(name="bias", shape=bias_shape, initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if bias_shape is not None else None
        self.built = True

    def call(self, inputs):
        y = einsum(self.equation, inputs, self._cast(self.kernel))
        if self.bias is not None:
            y = y + self._cast(self.bias)
        return self.activation(y)

    def get_config(self):
        return base_config(self, dict(
            output_shape=list(self.partial_output_shape), equation=self.equation,
            activation=ser("activations", self.activation), bias_axes=self.bias_axes,
            **weight_options(self, ("kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
                                    "kernel_constraint", "bias_constraint"))))


def _einsum_shapes(equation, input_shape, output_shape, bias_axes):
    """(kernel shape, bias shape or None, full output shape) of an EinsumDense (Keras's rules)."""
    lhs, out = equation.split("->")
    inp, weight = lhs.split(",")
    input_shape = tuple(input_shape)
    dims = {c: input_shape[i] for i, c in enumerate(inp)}
    n_free = len(out) - len(output_shape)
    full = list(output_shape)
    for c, size in zip(out[n_free:], output_shape):
        dims.setdefault(c, size)
    full = [dims.get(c) for c in out]
    for i, c in enumerate(out[n_free:]):
        dims[c] = output_shape[i]
        full[n_free + i] = output_shape[i]
    missing = [c for c in weight if dims.get(c) is None]
    if missing:
        raise ValueError("EinsumDense %s: kernel dimensions %s are unknown for input shape %s"
                         % (equation, missing, input_shape))
    kernel_shape = tuple(dims[c] for c in weight)
    bias_shape = None
    if bias_axes:
        first = min(out.index(c) for c in bias_axes)
        bias_shape = tuple(dims[c] if c in bias_axes else 1 for c in out[first:])
    return kernel_shape, bias_shape, tuple(full)


@serialization.register("layers")
class Embedding(Layer):
    """Looks up rows of an ``(input_dim, output_dim)`` table for integer ids; with ``mask_zero`` id 0
    is padding and produces a mask.

    >>> layer = tx.keras.layers.Embedding(3, 2, embeddings_initializer="ones")
    >>> layer(tx.constant([[0, 2]])).shape
    TensorShape([1, 2, 2])
    """

    _KERAS_DEFAULTS = dict(KERAS_WEIGHT_DEFAULTS, input_length=(None,), sparse=False)

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, weights=None, **kwargs):
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        set_weight_options(self, embeddings_initializer=embeddings_initializer,
                           embeddings_regularizer=embeddings_regularizer, embeddings_constraint=embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.autocast = False
        self._initial_weights = weights

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(name="embeddings", shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, inputs):
        if not inputs.dtype.is_integer:
            inputs = math_ops.cast(inputs, "int32")
        return gen_ops.gather_v2(self._cast(self.embeddings), inputs, 0)

    def compute_mask(self, inputs, previous_mask=None):
        if not self.mask_zero:
            return None
        return gen_ops.not_equal(inputs, math_ops.cast(0, inputs.dtype))

    def get_config(self):
        return base_config(self, dict(input_dim=self.input_dim, output_dim=self.output_dim, mask_zero=self.mask_zero,
                                      **weight_options(self, ("embeddings_initializer", "embeddings_regularizer",
                                                              "embeddings_constraint"))))


@serialization.register("layers")
class Activation(Layer):
    """Applies an activation function (a Keras name or a callable)."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.supports_masking = True

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return base_config(self, {"activation": ser("activations", self.activation)})


@serialization.register("layers")
class Identity(Layer):
    """Returns its input."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs


@serialization.register("layers")
class Dropout(Layer):
    """While training, zeroes each input element with probability ``rate`` and scales the rest by
    1 / (1 - rate); the identity at inference."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError("Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             "Received: rate=%r" % (rate,))
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        noise_shape = None
        if self.noise_shape is not None:
            dyn = gen_ops.shape(inputs)
            noise_shape = gen_ops.pack([dyn[i] if d is None else math_ops.cast(d, "int32")
                                        for i, d in enumerate(self.noise_shape)], axis=0)
        return nn_ops.dropout(inputs, rate=self.rate, noise_shape=noise_shape, seed=self.seed)

    def get_config(self):
        return base_config(self, {"rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape})


@serialization.register("layers")
class ActivityRegularization(Layer):
    """Adds l1 * sum(|x|) + l2 * sum(x^2) of its input to the losses; returns the input."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def get_config(self):
        config = Layer.get_config(self)
        config.update(l1=self.l1, l2=self.l2)
        return config


@serialization.register("layers")
class Masking(Layer):
    """Masks timesteps whose features all equal ``mask_value`` (they become zeros, and the mask
    tells recurrent layers to skip them)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def compute_mask(self, inputs, previous_mask=None):
        return reduce_ops.reduce_any(gen_ops.not_equal(inputs, math_ops.cast(self.mask_value, inputs.dtype)), axis=-1)

    def call(self, inputs):
        keep = self.compute_mask(inputs)
        return inputs * math_ops.cast(gen_ops.expand_dims(keep, -1), inputs.dtype)

    def get_config(self):
        return base_config(self, {"mask_value": self.mask_value})


@serialization.register("layers")
class Lambda(Layer):
    """Wraps a function of tensors as a layer. Saving stores its bytecode, which loads only with
    ``load_model(..., safe_mode=False)`` (as in Keras)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self._output_shape = output_shape
        self.mask = mask
        self.arguments = arguments or {}
        self.supports_masking = mask is not None

    def call(self, inputs, mask=None, training=None):
        return self.function(inputs, **self.arguments)

    def compute_mask(self, inputs, previous_mask=None):
        if callable(self.mask):
            return self.mask(inputs, previous_mask)
        return self.mask

    def get_config(self):
        fn = self.function
        if getattr(fn, "_registered_name", None):
            function = fn._registered_name
        else:
            code = marshal.dumps(fn.__code__)
            function = {"class_name": "__lambda__", "config": {
                "code": base64.b64encode(code).decode("ascii"), "defaults": fn.__defaults__,
                "closure": [c.cell_contents for c in fn.__closure__] if fn.__closure__ else None}}
        if self.mask is not None:
            raise NotImplementedError("Lambda layer %s: saving a `mask` is not supported" % self.name)
        config = base_config(self, {"function": function, "arguments": self.arguments})
        if self._output_shape is not None:
            config["output_shape"] = self._output_shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        fn = config.pop("function")
        if isinstance(fn, dict) and fn.get("class_name") == "__lambda__":
            if saving.safe_mode():
                raise ValueError("Requested the deserialization of a Lambda layer whose function is Python bytecode, "
                                 "which can run arbitrary code. Pass `safe_mode=False` to `load_model` if you trust "
                                 "the file.")
            inner = fn["config"]
            code = marshal.loads(base64.b64decode(inner["code"]))
            closure = tuple(types.CellType(c) for c in inner["closure"]) if inner.get("closure") else None
            defaults = tuple(inner["defaults"]) if inner.get("defaults") else None
            fn = types.FunctionType(code, _lambda_globals(), code.co_name, defaults, closure)
        elif isinstance(fn, str):
            fn = serialization.lookup("functions", fn, fn, custom_objects)
        config.pop("module", None)
        config.pop("function_type", None)
        config.pop("output_shape_type", None)
        config.pop("output_shape_module", None)
        config.pop("mask_type", None)
        return cls(fn, **revive_dtype(config))


def _lambda_globals():
    # Imported here: the tensorflux package imports this module.
    import tensorflux as tx
    return {"tx": tx, "tf": tx, "np": np, "keras": tx.keras, "ops": tx, "__builtins__": __builtins__}


