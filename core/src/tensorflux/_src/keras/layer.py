"""`Layer`: the base of every tx.keras layer and model (Keras 3's Layer, on the engine's ops).

A layer is built on its first call from the input shapes (`build` creates the weights with
`add_weight`), then runs `call`. Calls on real tensors run the ops (eagerly, inside tx.function,
or in a graph); calls on `KerasTensor`s (the functional API) compute output shapes by tracing
`call` into a scratch function graph (Note [Symbolic calls]) and record a node of the layer graph.
"""

import inspect
import json
import threading

import numpy as np

from tensorflux._src import context as _context
from tensorflux._src import dtypes as _dtypes
from tensorflux._src import graph as _graph
from tensorflux._src import math_ops
from tensorflux._src.constant_op import convert_to_tensor
from tensorflux._src.eager_tensor import EagerTensor
from tensorflux._src.keras import dtype_policy, initializers, masking, naming, regularizers, serialization
from tensorflux._src.keras import constraints as _constraints
from tensorflux._src.keras.input_spec import assert_input_compatibility
from tensorflux._src.module import Module
from tensorflux._src.nest import flatten, map_structure, pack_sequence_as
from tensorflux._src.operation import Tensor
from tensorflux._src.variables import Variable

# Attributes that hold bookkeeping, never sublayers or weights.
_UNTRACKED = frozenset(("_inbound_nodes", "_keras_init_args", "_own_trainable", "_own_non_trainable",
                        "_losses", "_regularized", "_constraints", "_build_shapes_dict", "_call_params",
                        "_functional", "_tx_function_cache", "_output_shapes", "input_spec"))


class _CallContext(threading.local):
    def __init__(self):
        self.depth = 0
        self.training = None


_ctx = _CallContext()


def _is_tensor(x):
    return isinstance(x, (EagerTensor, Tensor))


def _is_keras_tensor(x):
    # Imported here: keras.keras_tensor imports this module.
    from tensorflux._src.keras.keras_tensor import KerasTensor
    return isinstance(x, KerasTensor)


def _shape_tuple(x):
    shape = x.shape
    if isinstance(shape, tuple):
        return shape
    return tuple(shape.as_list()) if shape.rank is not None else None


def _call_params(cls):
    """(parameter names of cls.call, whether it takes training, whether it takes mask)."""
    cached = cls.__dict__.get("_call_params_cache")
    if cached is None:
        try:
            params = inspect.signature(cls.call).parameters
        except (TypeError, ValueError):
            params = {}
        names = [n for n in params if n != "self"]
        var_kw = any(p.kind == p.VAR_KEYWORD for p in params.values())
        cached = (names, "training" in params or var_kw, "mask" in params)
        cls._call_params_cache = cached
    return cached


def _json_safe(value):
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


class Layer(Module):
    """Base class of layers: override `build(input_shape)` (create weights with `add_weight`),
    `call(inputs, ...)` (the computation; optional ``training``/``mask`` arguments) and
    `get_config()` (constructor arguments, for saving).

    >>> class Scale(tx.keras.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
    ...     def call(self, x):
    ...         return x * self.w
    >>> layer = Scale()
    >>> layer(tx.constant([[1.0, 2.0]])).numpy()
    array([[1., 2.]], dtype=float32)
    >>> [w.shape for w in layer.weights]
    [TensorShape([2])]
    """

    # Keras config keys whose Keras default is what this class implements (Note [Keras configs]).
    _KERAS_DEFAULTS = {}

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        object.__setattr__(obj, "_keras_init_args", (args, kwargs))
        return obj

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None, autocast=True, name=None,
                 input_shape=None, batch_input_shape=None, input_dim=None, batch_size=None, **kwargs):
        kwargs.pop("input_length", None)  # a Keras 2 Embedding argument that Keras 3 ignores too
        if kwargs:
            raise TypeError("Unrecognized keyword argument(s) passed to %s: %s" % (type(self).__name__, kwargs))
        if name is None:
            name = naming.uniquify(naming.to_snake_case(type(self).__name__))
        elif not isinstance(name, str) or not name:
            raise ValueError("layer name must be a non-empty string, got %r" % (name,))
        self._name = name
        self._scope_name = name + "/"
        self._trainable = bool(trainable)
        self._dtype_policy = dtype_policy.get(dtype)
        self.autocast = autocast
        self.built = False
        self._own_trainable, self._own_non_trainable = [], []
        self._losses = []
        self._regularized = []     # (variable, regularizer)
        self._constraints = {}     # id(variable) -> (variable, constraint)
        self._inbound_nodes = []
        self._output_shapes = None  # output shapes of the last symbolic call (summary)
        self._build_shapes_dict = None
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.supports_masking = getattr(self, "supports_masking", False)
        self.input_spec = getattr(self, "input_spec", None)
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        self._batch_input_shape = tuple(batch_input_shape) if batch_input_shape is not None else None

    # ------------------------------------------------------------------ identity and dtype
    @property
    def name(self):
        return self._name

    @property
    def path(self):
        return self._name

    @property
    def dtype_policy(self):
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, policy):
        self._dtype_policy = dtype_policy.get(policy)

    @property
    def dtype(self):
        """The dtype of the layer's weights (Keras: the policy's variable dtype)."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self):
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self):
        return self._dtype_policy.variable_dtype

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        """Freezes (False) or unfreezes the layer and every layer inside it, as Keras."""
        value = bool(value)
        self._trainable = value
        for layer in self._layers:
            layer.trainable = value

    # ------------------------------------------------------------------ tracking
    @property
    def _layers(self):
        """Direct sublayers, in the order their attributes were first set."""
        out, seen = [], {id(self)}
        for key, value in self.__dict__.items():
            if key not in _UNTRACKED:
                _collect_layers(value, out, seen)
        return out

    def _flatten_layers(self, include_self=True):
        out, seen, stack = [], set(), [self] if include_self else list(reversed(self._layers))
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            out.append(layer)
            stack.extend(reversed(layer._layers))
        return out

    def _own_weights(self):
        """[(variable, owner trainable)] of this layer's own weights: add_weight's, then Variables
        set as attributes."""
        own = self._own_trainable + self._own_non_trainable
        known = {id(v) for v in own}
        for key, value in self.__dict__.items():
            if key not in _UNTRACKED:
                for v in _variables_in(value):
                    if id(v) not in known:
                        known.add(id(v))
                        (self._own_trainable if v.trainable else self._own_non_trainable).append(v)
                        own.append(v)
        return own

    def _weight_owners(self):
        """[(variable, owning layer)] in Keras's order: own weights, then each sublayer's."""
        out, seen = [], set()
        for layer in self._walk_for_weights():
            for v in layer._own_weights():
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append((v, layer))
        return out

    def _walk_for_weights(self):
        out, seen = [], set()

        def visit(layer):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            out.append(layer)
            for sub in layer._layers:
                visit(sub)
        visit(self)
        return out

    @property
    def weights(self):
        """Every weight: the layer's own (trainable ones first), then its sublayers'."""
        return [v for v, _ in self._weight_owners()]

    @property
    def trainable_weights(self):
        return [v for v, owner in self._weight_owners() if v.trainable and owner.trainable]

    @property
    def non_trainable_weights(self):
        return [v for v, owner in self._weight_owners() if not (v.trainable and owner.trainable)]

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def _checkpoint_variables(self):
        """{Keras weight path: Variable} (what tx.train.Checkpoint saves for a layer or model)."""
        # Imported here: keras.weight_paths imports this module.
        from tensorflux._src.keras.weight_paths import layer_weight_paths
        return layer_weight_paths(self)

    def count_params(self):
        """The number of scalars in the layer's weights (ValueError before it is built)."""
        if not self.built:
            raise ValueError("You tried to call `count_params` on layer '%s', but the layer isn't built. You can "
                             "build it manually via: `layer.build(input_shape)`." % self.name)
        return int(sum(np.prod(v.shape.as_list()) for v in self.weights))

    def get_weights(self):
        """The weights' values as NumPy arrays, in `weights` order."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights):
        """Assigns NumPy arrays to `weights`, in order; ValueError naming the layer and the weight
        when the count or a shape differs (nothing is assigned then)."""
        params = self.weights
        weights = list(weights)
        if len(params) != len(weights):
            raise ValueError("You called `set_weights(weights)` on layer '%s' with a weight list of length %d, but "
                             "the layer was expecting %d weights." % (self.name, len(weights), len(params)))
        values = []
        for v, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(v.shape.as_list()) != tuple(w.shape):
                raise ValueError("Layer %s weight shape %s is not compatible with provided weight shape %s (weight "
                                 "%s)." % (self.name, tuple(v.shape.as_list()), tuple(w.shape), v.name))
            values.append(w.astype(v.dtype.as_numpy_dtype, copy=False))
        with _context.init_scope():
            for v, w in zip(params, values):
                v.assign(w, read_value=False)

    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True, autocast=True, regularizer=None,
                   constraint=None, aggregation="none", overwrite_with_gradient=False, name=None, **kwargs):
        """Creates a weight Variable of ``shape`` initialized by ``initializer`` (a Keras name, an
        initializer or a callable ``(shape, dtype)``; default glorot_uniform for floats, zeros
        otherwise) and tracks it, with its ``regularizer`` (its penalty joins `losses`) and
        ``constraint`` (applied after each optimizer step)."""
        if isinstance(shape, str) and name is None:  # Keras 2's add_weight(name, shape, ...)
            name, shape = shape, kwargs.pop("shape", None)
        if kwargs:
            raise TypeError("add_weight got unexpected arguments %s" % sorted(kwargs))
        shape = () if shape is None else tuple(int(d) for d in shape)
        dtype = _dtypes.as_dtype(dtype or self.variable_dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        name = name or "variable"
        with _weight_scope():
            value = init(shape, dtype=dtype)
            if _context.executing_eagerly():
                var = Variable(value, trainable=trainable, name="%s/%s" % (self.name, name), dtype=dtype)
            else:
                with _graph.get_default_graph().name_scope(self.name):
                    var = Variable(value, trainable=trainable, name=name, dtype=dtype)
        (self._own_trainable if trainable else self._own_non_trainable).append(var)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._regularized.append((var, regularizer))
        constraint = _constraints.get(constraint)
        if constraint is not None:
            self._constraints[id(var)] = (var, constraint)
        return var

    # ------------------------------------------------------------------ losses
    def add_loss(self, loss):
        """Adds a scalar loss (or a list of them) computed in `call`; it joins `losses` until the
        next outermost call, and the model's training loss."""
        for x in flatten(loss):
            self._losses.append(x if _is_tensor(x) else convert_to_tensor(x, dtype=_dtypes.float32))

    def _clear_losses(self):
        for layer in self._flatten_layers():
            layer._losses = []

    @property
    def losses(self):
        """The losses added during the last call (by this layer and its sublayers) followed by
        the weight regularization penalties of the trainable weights."""
        out = []
        layers = self._flatten_layers()
        for layer in layers:
            out.extend(layer._losses)
        trainable = {id(v) for v in self.trainable_weights}
        for layer in layers:
            for var, reg in layer._regularized:
                if id(var) in trainable:
                    out.append(reg(var.value()))
        return out

    def _weight_constraints(self):
        """[(variable, constraint)] of every constrained weight in this layer and its sublayers."""
        out = []
        for layer in self._flatten_layers():
            out.extend(layer._constraints.values())
        return out

    # ------------------------------------------------------------------ building and calling
    def build(self, input_shape=None):
        """Creates the layer's weights for inputs of ``input_shape`` (a tuple, or a list of them);
        the default creates none."""
        self.built = True

    def build_from_config(self, config):
        shapes = (config or {}).get("input_shape")
        if shapes is not None and not self.built:
            with _weight_scope():
                self.build(_to_tuples(shapes))
            self.built = True

    def get_build_config(self):
        if self._build_shapes_dict is None:
            return None
        if len(self._build_shapes_dict) == 1:
            return {"input_shape": _to_lists(next(iter(self._build_shapes_dict.values())))}
        return {"shapes_dict": {k: _to_lists(v) for k, v in self._build_shapes_dict.items()}}

    def call(self, *args, **kwargs):
        raise NotImplementedError("Layer %s does not have a `call()` method implemented." % type(self).__name__)

    def __call__(self, *args, **kwargs):
        if any(_is_keras_tensor(x) for x in flatten([list(args), kwargs])):
            # Imported here: keras.keras_tensor imports this module.
            from tensorflux._src.keras import keras_tensor
            return keras_tensor.symbolic_call(self, args, kwargs)
        outermost = _ctx.depth == 0
        if outermost:
            self._clear_losses()
        saved_training = _ctx.training
        _ctx.depth += 1
        try:
            return self._call_impl(args, kwargs)
        finally:
            _ctx.depth -= 1
            _ctx.training = saved_training

    def _call_impl(self, args, kwargs):
        names, takes_training, takes_mask = _call_params(type(self))
        args = list(args)
        if args:
            args[0] = self._convert_inputs(args[0])
            for i in range(1, len(args)):  # other tensor arguments given as arrays (a query's value, ...)
                if isinstance(args[i], np.ndarray):
                    args[i] = self._convert_inputs(args[i])
        elif names and names[0] in kwargs:
            kwargs[names[0]] = self._convert_inputs(kwargs[names[0]])
        first = args[0] if args else kwargs.get(names[0]) if names else None
        if not self.built:
            self._maybe_build(args, kwargs, names)
        assert_input_compatibility(self.input_spec, first, self.name)
        # training: the argument, else the enclosing call's, else call()'s default.
        training = kwargs.get("training")
        if training is None:
            training = _ctx.training
        if training is not None:
            _ctx.training = training
            if takes_training:
                kwargs["training"] = training
        elif "training" in kwargs and not takes_training:
            kwargs.pop("training")
        previous_mask = None
        if first is not None:
            masks = [masking.get_mask(x) for x in flatten(first)]
            if any(m is not None for m in masks):
                previous_mask = masks[0] if len(masks) == 1 and not isinstance(first, (list, tuple)) else \
                    pack_sequence_as(first, masks)
        if takes_mask and kwargs.get("mask") is None and previous_mask is not None:
            kwargs["mask"] = previous_mask
        if _context.executing_eagerly():
            outputs = self.call(*args, **kwargs)
        else:
            with _graph.get_default_graph().name_scope(self.name):
                outputs = self.call(*args, **kwargs)
        if self.activity_regularizer is not None:
            for out in flatten(outputs):
                if _is_tensor(out):
                    self.add_loss(self.activity_regularizer(out))
        if self.supports_masking:
            self._set_mask_metadata(first, outputs, kwargs.get("mask", previous_mask))
        return outputs

    def _set_mask_metadata(self, inputs, outputs, previous_mask):
        out_masks = self.compute_mask(inputs, previous_mask)
        if out_masks is None:
            return
        flat_out = flatten(outputs)
        flat_masks = flatten(out_masks) if isinstance(out_masks, (list, tuple)) else [out_masks] * len(flat_out)
        for t, m in zip(flat_out, flat_masks):
            if _is_tensor(t):
                masking.set_mask(t, m)

    def compute_mask(self, inputs, previous_mask=None):
        """The mask of the outputs given the inputs' (default: passed through when the layer
        supports masking)."""
        return previous_mask if self.supports_masking else None

    def _convert_inputs(self, x):
        """Arrays and numbers become tensors; floating inputs are cast to the compute dtype."""
        compute = _dtypes.as_dtype(self.compute_dtype)

        def convert(v):
            if v is None or _is_keras_tensor(v):
                return v
            if isinstance(v, Variable):
                v = v.value()
            elif not _is_tensor(v):
                arr = np.asarray(v)
                if arr.dtype == np.float64 and compute != _dtypes.float64:
                    arr = arr.astype(compute.as_numpy_dtype)
                v = convert_to_tensor(arr)
            if self.autocast and v.dtype.is_floating and v.dtype != compute:
                mask = masking.get_mask(v)
                v = math_ops.cast(v, compute)
                masking.set_mask(v, mask)
            return v
        return map_structure(convert, x)

    def _maybe_build(self, args, kwargs, names):
        shapes = {}
        values = dict(zip(names, args))
        values.update({k: v for k, v in kwargs.items() if k in names})
        for n in names:
            v = values.get(n)
            if v is None or n in ("training", "mask"):
                continue
            leaves = flatten(v)
            if leaves and all(_is_tensor(t) or _is_keras_tensor(t) for t in leaves):
                shapes[n + "_shape"] = map_structure(_shape_tuple, v)
        self._build_shapes_dict = shapes
        with _weight_scope():
            if len(shapes) <= 1 or type(self).build is Layer.build:
                self.build(next(iter(shapes.values())) if shapes else None)
            else:
                params = inspect.signature(self.build).parameters
                if all(k in params for k in shapes):
                    self.build(**shapes)
                else:
                    self.build(next(iter(shapes.values())))
        self.built = True

    def compute_output_spec(self, *args, **kwargs):
        """The shapes and dtypes of the outputs for KerasTensor inputs (Note [Symbolic calls])."""
        # Imported here: keras.keras_tensor imports this module.
        from tensorflux._src.keras import keras_tensor
        return keras_tensor.trace_output_spec(self, args, kwargs)

    def compute_output_shape(self, input_shape):
        """The output shape (a tuple, or a list of them) for inputs of ``input_shape``."""
        # Imported here: keras.keras_tensor imports this module.
        from tensorflux._src.keras.keras_tensor import KerasTensor
        shapes = _to_tuples(input_shape)
        if isinstance(shapes, list):
            inputs = [KerasTensor(s, self.compute_dtype) for s in shapes]
        else:
            inputs = KerasTensor(shapes, self.compute_dtype)
        out = self.compute_output_spec(inputs)
        return map_structure(lambda t: t.shape, out)

    # ------------------------------------------------------------------ config
    def get_config(self):
        """The layer's constructor arguments (JSON-serializable): name, trainable, dtype, and for a
        subclass that does not override get_config, the arguments its constructor was given
        (NotImplementedError when they are not JSON-serializable)."""
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": serialization.serialize(self._dtype_policy, "dtype_policies")}
        config["dtype"]["module"] = "keras"
        cls = type(self)
        if cls.get_config is not Layer.get_config or cls.__init__ is Layer.__init__:
            return config
        args, kwargs = self._keras_init_args
        try:
            bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        except TypeError:
            bound = None
        extra = {}
        if bound is not None:
            for k, v in bound.arguments.items():
                if k in ("self", "args"):
                    continue
                if k == "kwargs":
                    extra.update({kk: vv for kk, vv in v.items() if kk not in config})
                elif k not in config:
                    extra[k] = v
        if bound is None or not _json_safe(extra):
            raise NotImplementedError(
                "Layer %s was created by passing non-serializable argument values in `__init__()`, and therefore "
                "the layer must override `get_config()` in order to be serializable. Please implement "
                "`get_config()`. Arguments: %s" % (cls.__name__, sorted(extra) if bound is not None else args))
        config.update(extra)
        return config

    @classmethod
    def from_config(cls, config):
        """A layer from its config (``cls(**config)``, Keras-only keys at Keras's defaults dropped)."""
        config = revive_dtype(dict(config))
        serialization.drop_keras_defaults(cls.__name__, config, cls._KERAS_DEFAULTS)
        return cls(**config)

    def __repr__(self):
        return "<%s name=%s, built=%s>" % (type(self).__name__, self.name, self.built)

    def _cast(self, x):
        """``x`` (a weight or tensor) in the compute dtype."""
        compute = _dtypes.as_dtype(self.compute_dtype)
        if isinstance(x, Variable):
            x = x.value()
        return x if x.dtype == compute else math_ops.cast(x, compute)


def revive_dtype(config):
    """``config`` with a serialized dtype policy (Keras's dict) made a DTypePolicy again."""
    if isinstance(config.get("dtype"), dict):
        config["dtype"] = dtype_policy.get(config["dtype"])
    return config


def to_tensor(x):
    """``x`` as a tensor: tensors as they are, a Variable's value, arrays and numbers converted
    (float64 arrays stay float64)."""
    if _is_tensor(x):
        return x
    if isinstance(x, Variable):
        return x.value()
    return convert_to_tensor(np.asarray(x))


def _collect_layers(value, out, seen, depth=0):
    if isinstance(value, Layer):
        if id(value) not in seen:
            seen.add(id(value))
            out.append(value)
    elif depth < 4 and isinstance(value, (list, tuple)):
        for v in value:
            _collect_layers(v, out, seen, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for v in value.values():
            _collect_layers(v, out, seen, depth + 1)


def _variables_in(value, depth=0):
    if isinstance(value, Variable):
        return [value]
    if depth < 3 and isinstance(value, (list, tuple)):
        return [v for x in value for v in _variables_in(x, depth + 1)]
    if depth < 3 and isinstance(value, dict):
        return [v for x in value.values() for v in _variables_in(x, depth + 1)]
    return []


class _weight_scope:  # noqa: N801
    """Where weights are created: outside any function being traced (eager variables), else in
    the current graph."""

    def __enter__(self):
        self._cm = _context.init_scope() if _context.inside_function() else None
        if self._cm is not None:
            self._cm.__enter__()

    def __exit__(self, *exc):
        if self._cm is not None:
            return self._cm.__exit__(*exc)


def _to_tuples(shape):
    """A shape (list/tuple of ints and None) as a tuple, or a list of shapes as a list of tuples."""
    if shape is None:
        return None
    if isinstance(shape, dict):
        return {k: _to_tuples(v) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and all(isinstance(s, (list, tuple)) or s is None for s in shape) \
            and any(isinstance(s, (list, tuple)) for s in shape):
        return [_to_tuples(s) for s in shape]
    return tuple(None if d is None else int(d) for d in shape)


def _to_lists(shape):
    if isinstance(shape, (list, tuple)) and any(isinstance(s, (list, tuple)) for s in shape):
        return [_to_lists(s) for s in shape]
    return list(shape) if shape is not None else None
