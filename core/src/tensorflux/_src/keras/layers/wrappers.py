"""Layer wrappers: Bidirectional (a recurrent layer run forwards and backwards) and TimeDistributed
(a layer applied to every timestep)."""

from tensorflux._src import array_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import masking, serialization
from tensorflux._src.keras.layer import Layer, revive_dtype
from tensorflux._src.nest import flatten, map_structure
from tensorflux._src.keras.functional import deserialize_layer, serialize_layer


def _copy_layer(layer, **overrides):
    entry = serialize_layer(layer)
    entry.pop("build_config", None)
    entry["config"].update(overrides)
    return deserialize_layer(entry)


class Wrapper(Layer):
    """Base class of layers wrapping another one (``self.layer``)."""

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `%s` layer with a `tx.keras.layers.Layer` instance. Received: %r"
                             % (type(self).__name__, layer))
        self.layer = layer

    def get_config(self):
        config = Layer.get_config(self)
        config["layer"] = serialize_layer(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = deserialize_layer(config.pop("layer"), custom_objects)
        revive_dtype(config)
        return cls(layer, **config)


@serialization.register("layers")
class Bidirectional(Layer):
    """Runs ``layer`` over the sequence and a copy of it (or ``backward_layer``) over the reversed
    sequence, and merges the two outputs (``merge_mode`` "concat", "sum", "mul", "ave", or None for
    a list).

    >>> bi = tx.keras.layers.Bidirectional(tx.keras.layers.LSTM(3))
    >>> bi(tx.ones([2, 5, 4])).shape
    TensorShape([2, 6])
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if merge_mode not in ("concat", "sum", "mul", "ave", None):
            raise ValueError("Invalid merge mode. Received: %r. Merge mode should be one of {'sum', 'mul', 'ave', "
                             "'concat', None}" % (merge_mode,))
        if not hasattr(layer, "go_backwards"):
            raise ValueError("Bidirectional wraps a recurrent layer (with go_backwards); got %r" % (layer,))
        self.forward_layer = _copy_layer(layer, name="forward_" + layer.name)
        if backward_layer is None:
            self.backward_layer = _copy_layer(layer, name="backward_" + layer.name,
                                              go_backwards=not layer.go_backwards)
        else:
            if backward_layer.return_sequences != layer.return_sequences or \
                    backward_layer.return_state != layer.return_state:
                raise ValueError("Forward layer and backward layer should have the same return_sequences and "
                                 "return_state")
            self.backward_layer = backward_layer
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self._initial_weights = weights

    def build(self, sequences_shape, initial_state_shape=None):
        for lyr in (self.forward_layer, self.backward_layer):
            if not lyr.built:
                lyr.build(sequences_shape)
                lyr.built = True
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, sequences, initial_state=None, mask=None, training=None):
        kwargs = {"mask": mask, "training": training}
        if initial_state is not None:
            half = len(initial_state) // 2
            fw = self.forward_layer(sequences, initial_state=initial_state[:half], **kwargs)
            bw = self.backward_layer(sequences, initial_state=initial_state[half:], **kwargs)
        else:
            fw = self.forward_layer(sequences, **kwargs)
            bw = self.backward_layer(sequences, **kwargs)
        if self.return_state:
            fw, fw_states = fw[0], list(fw[1:])
            bw, bw_states = bw[0], list(bw[1:])
        if self.return_sequences:
            bw = array_ops.reverse(bw, [1])
        if self.merge_mode == "concat":
            out = array_ops.concat([fw, bw], axis=-1)
        elif self.merge_mode == "sum":
            out = fw + bw
        elif self.merge_mode == "ave":
            out = (fw + bw) / 2.0
        elif self.merge_mode == "mul":
            out = fw * bw
        else:
            out = [fw, bw]
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + fw_states + bw_states
        return out

    def compute_mask(self, inputs, previous_mask=None):
        out = previous_mask if self.return_sequences else None
        if self.merge_mode is None:
            out = [out, out]
        if self.return_state:
            n = len(self.forward_layer._state_sizes) * 2
            return (out if isinstance(out, list) else [out]) + [None] * n
        return out

    def get_config(self):
        config = Layer.get_config(self)
        config["merge_mode"] = self.merge_mode
        config["layer"] = serialize_layer(self.forward_layer)
        config["layer"]["config"]["name"] = self.forward_layer.name[len("forward_"):] \
            if self.forward_layer.name.startswith("forward_") else self.forward_layer.name
        config["backward_layer"] = serialize_layer(self.backward_layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = deserialize_layer(config.pop("layer"), custom_objects)
        backward = config.pop("backward_layer", None)
        backward = deserialize_layer(backward, custom_objects) if backward is not None else None
        revive_dtype(config)
        return cls(layer, backward_layer=backward, **config)


@serialization.register("layers")
class TimeDistributed(Wrapper):
    """Applies ``layer`` to every timestep of [batch, time, ...] inputs (as one call on
    [batch * time, ...]).

    >>> td = tx.keras.layers.TimeDistributed(tx.keras.layers.Dense(2))
    >>> td(tx.ones([3, 4, 5])).shape
    TensorShape([3, 4, 2])
    """

    def __init__(self, layer, **kwargs):
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        shape = tuple(input_shape)
        if len(shape) < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, "
                             "received: %s" % (shape,))
        if not self.layer.built:
            self.layer.build((None,) + shape[2:])
            self.layer.built = True
        self.built = True

    def call(self, inputs, training=None, mask=None):
        dyn = gen_ops.shape(inputs)
        flat = gen_ops.reshape(inputs, gen_ops.concat_v2([[-1], dyn[2:]], 0))
        kwargs = {"training": training} if training is not None else {}
        y = self.layer(flat, **kwargs)

        def back(t):
            out_dyn = gen_ops.shape(t)
            return gen_ops.reshape(t, gen_ops.concat_v2([dyn[:2], out_dyn[1:]], 0))
        out = map_structure(back, y)
        for t in flatten(out):
            masking.set_mask(t, None)
        return out

    def compute_mask(self, inputs, previous_mask=None):
        return previous_mask
