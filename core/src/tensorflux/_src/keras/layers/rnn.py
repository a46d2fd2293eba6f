"""Recurrent layers: RNN (any cell), SimpleRNN, LSTM and GRU, with ``return_sequences``,
``return_state``, ``go_backwards``, masking, dropout and ``unroll``; the time loop is rnn_loop.run
(a tx.while_loop in graphs, Note [RNN accumulators])."""

import inspect

from tensorflux._src import math_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import serialization
from tensorflux._src.keras.input_spec import InputSpec
from tensorflux._src.keras.layer import Layer, revive_dtype
from tensorflux._src.keras.layers import rnn_loop
from tensorflux._src.keras.layers.core import base_config
from tensorflux._src.keras.layers.rnn_cells import (_Cell, GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells,
                                                    dropout_mask)
from tensorflux._src.keras.functional import deserialize_layer, serialize_layer


@serialization.register("layers")
class RNN(Layer):
    """Runs ``cell`` (a Keras cell: ``state_size`` and ``call(inputs, states, training)``, or a list
    of cells, stacked) over the time axis of [batch, time, features] inputs."""

    _KERAS_DEFAULTS = {"stateful": False}

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError("Argument `cell` should have a `call` method and a `state_size` attribute. Received: "
                             "cell=%r" % (cell,))
        if stateful:
            raise NotImplementedError("stateful RNNs are not supported by tx.keras")
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, stateful, unroll
        self.zero_output_for_mask = zero_output_for_mask
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, sequences_shape, initial_state_shape=None):
        if not self.cell.built:
            self.cell.build((sequences_shape[0],) + tuple(sequences_shape[2:]))
            self.cell.built = True
        self.built = True

    @property
    def _state_sizes(self):
        s = self.cell.state_size
        return list(s) if isinstance(s, (list, tuple)) else [s]

    def get_initial_state(self, batch_size):
        if hasattr(self.cell, "get_initial_state"):
            return list(self.cell.get_initial_state(batch_size))
        return [rnn_loop.known_shape(gen_ops.fill(gen_ops.pack([batch_size, s], axis=0),
                                                  math_ops.cast(0, self.compute_dtype)), [None, s])
                for s in self._state_sizes]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        batch = gen_ops.shape(sequences)[0]
        if initial_state is None:
            states = self.get_initial_state(batch)
        else:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            if len(states) != len(self._state_sizes):
                raise ValueError("Layer %s expects %d initial states, got %d" % (self.name, len(self._state_sizes),
                                                                                len(states)))
            states = [math_ops.cast(s, self.compute_dtype) for s in states]
        if mask is not None:
            mask = math_ops.cast(mask, "bool")
        cell = self.cell
        if isinstance(cell, _Cell):
            input_mask = dropout_mask(sequences[:, 0], cell.dropout, cell.seed) \
                if training and cell.dropout > 0 else None
            if input_mask is not None:
                sequences = sequences * gen_ops.expand_dims(input_mask, 1)
            projected = cell.project(sequences)
            rec_mask = dropout_mask(states[0], cell.recurrent_dropout, cell.seed) \
                if training and cell.recurrent_dropout > 0 else None

            def step(z_t, st):
                return cell.recurrent_step(z_t, st, rec_mask)
        else:
            projected = sequences

            def step(x_t, st):
                out, new = cell(x_t, st if len(st) > 1 else st[0], training=training) if _takes_training(cell) \
                    else cell(x_t, st if len(st) > 1 else st[0])
                return out, list(new) if isinstance(new, (list, tuple)) else [new]
        output_size = getattr(cell, "output_size", None) or self._state_sizes[0]
        last, seq, final = rnn_loop.run(step, projected, states, output_size, mask=mask,
                                        go_backwards=self.go_backwards, zero_output_for_mask=self.zero_output_for_mask,
                                        return_sequences=self.return_sequences, unroll=self.unroll)
        output = seq if self.return_sequences else last
        if self.return_state:
            return [output] + list(final)
        return output

    def compute_mask(self, inputs, previous_mask=None):
        out = previous_mask if self.return_sequences else None
        if self.return_state:
            return [out] + [None] * len(self._state_sizes)
        return out

    def get_config(self):
        config = base_config(self, {"return_sequences": self.return_sequences, "return_state": self.return_state,
                                    "go_backwards": self.go_backwards, "stateful": self.stateful,
                                    "unroll": self.unroll, "zero_output_for_mask": self.zero_output_for_mask})
        if type(self) is RNN:
            config["cell"] = serialize_layer(self.cell)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cell = deserialize_layer(config.pop("cell"), custom_objects)
        revive_dtype(config)
        serialization.drop_keras_defaults(cls.__name__, config, cls._KERAS_DEFAULTS)
        return cls(cell, **config)


def _takes_training(cell):
    try:
        return "training" in inspect.signature(cell.call).parameters
    except (TypeError, ValueError):
        return False


_RNN_ARGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask")
_LAYER_ARGS = ("name", "trainable", "dtype", "activity_regularizer", "input_shape", "batch_input_shape", "input_dim",
               "batch_size")


class _CellLayer(RNN):
    """An RNN over a built-in cell whose arguments are the layer's own (SimpleRNN, LSTM, GRU)."""

    _CELL = None
    _CELL_NAME = None
    _KERAS_DEFAULTS = {"stateful": False, "use_cudnn": ("auto", True, False), "time_major": False,
                       "implementation": (1, 2)}

    def __init__(self, units, **kwargs):
        rnn_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in _RNN_ARGS}
        layer_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in _LAYER_ARGS}
        serialization.drop_keras_defaults(type(self).__name__, kwargs, {"use_cudnn": ("auto", True, False),
                                                                        "implementation": (1, 2)})
        cell = self._CELL(units, name=self._CELL_NAME, dtype=layer_kwargs.get("dtype"), **kwargs)
        super().__init__(cell, **rnn_kwargs, **layer_kwargs)

    @property
    def units(self):
        return self.cell.units

    def get_config(self):
        config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            config.pop(key, None)
        config.update(super().get_config())
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        revive_dtype(config)
        serialization.drop_keras_defaults(cls.__name__, config, cls._KERAS_DEFAULTS)
        return cls(**config)


@serialization.register("layers")
class SimpleRNN(_CellLayer):
    """A fully connected RNN: h_t = activation(x_t @ kernel + h_(t-1) @ recurrent_kernel + bias).

    >>> tx.keras.layers.SimpleRNN(4)(tx.ones([2, 5, 3])).shape
    TensorShape([2, 4])
    """
    _CELL, _CELL_NAME = SimpleRNNCell, "simple_rnn_cell"


@serialization.register("layers")
class LSTM(_CellLayer):
    """Long short-term memory (Hochreiter & Schmidhuber), Keras's gates and weights.

    >>> out, h, c = tx.keras.layers.LSTM(4, return_sequences=True, return_state=True)(tx.ones([2, 5, 3]))
    >>> out.shape, h.shape
    (TensorShape([2, 5, 4]), TensorShape([2, 4]))
    """
    _CELL, _CELL_NAME = LSTMCell, "lstm_cell"


@serialization.register("layers")
class GRU(_CellLayer):
    """Gated recurrent unit (Cho et al.), Keras's gates and weights (``reset_after=True``)."""
    _CELL, _CELL_NAME = GRUCell, "gru_cell"
