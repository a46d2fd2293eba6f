"""Recurrent cells: SimpleRNNCell, LSTMCell, GRUCell (Keras 3's weights and equations) and
StackedRNNCells.

Besides Keras's ``call(inputs, states, training)`` (one step), the built-in cells split a step into
`project` (the input half, x @ kernel + bias, done for all timesteps at once before the loop: one
large matmul) and `recurrent_step` (the half that needs the previous state), which the RNN layer
runs in its loop (rnn_loop.py).
"""

from tensorflux._src import array_ops, math_ops, nn_ops
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import activations, initializers, serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import base_config, ser, set_weight_options, weight_options
from tensorflux._src.keras.layers.rnn_loop import known_shape
from tensorflux._src.keras.functional import deserialize_layer, serialize_layer

_KEYS = ("kernel_initializer", "recurrent_initializer", "bias_initializer", "kernel_regularizer",
         "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint")


def dropout_mask(like, rate, seed=None):
    """A [batch, features] mask of 0 and 1 / (1 - rate) shaped like ``like`` (same for every step)."""
    return nn_ops.dropout(gen_ops.ones_like(like), rate=rate, seed=seed)


class _Cell(Layer):
    """What the built-in cells share: the unit count, activations, weight options, dropout."""

    _GATES = 1

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError("Received an invalid value for argument `units`, expected a positive integer, got %r"
                             % (units,))
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, **dict(zip(_KEYS, (kernel_initializer, recurrent_initializer, bias_initializer,
                                                    kernel_regularizer, recurrent_regularizer, bias_regularizer,
                                                    kernel_constraint, recurrent_constraint, bias_constraint))))
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.seed = seed

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def _add_kernels(self, input_dim):
        g = self._GATES
        self.kernel = self.add_weight(shape=(input_dim, g * self.units), name="kernel",
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(shape=(self.units, g * self.units), name="recurrent_kernel",
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        dtype = self.compute_dtype
        return [known_shape(gen_ops.fill(gen_ops.pack([batch_size, s], axis=0), math_ops.cast(0, dtype)), [None, s])
                for s in sizes]

    def project(self, inputs, input_mask=None):
        """x @ kernel (+ the input bias) for inputs of any leading shape; ``input_mask`` is the
        dropout mask of the features."""
        if input_mask is not None:
            inputs = inputs * input_mask
        kernel = self._cast(self.kernel)
        rank = inputs.shape.rank
        if rank == 2:
            z = math_ops.matmul(inputs, kernel)
        else:
            flat = gen_ops.reshape(inputs, gen_ops.pack([-1, gen_ops.shape(inputs)[-1]], axis=0))
            z = gen_ops.reshape(math_ops.matmul(flat, kernel),
                                gen_ops.concat_v2([gen_ops.shape(inputs)[:-1], [self._GATES * self.units]], 0))
            if inputs.shape.rank is not None:
                known_shape(z, inputs.shape.as_list()[:-1] + [self._GATES * self.units])
        bias = self._input_bias()
        return z + bias if bias is not None else z

    def _input_bias(self):
        return self._cast(self.bias) if self.use_bias else None

    def call(self, inputs, states, training=False):
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        input_mask = dropout_mask(inputs, self.dropout, self.seed) if training and self.dropout > 0 else None
        rec_mask = dropout_mask(states[0], self.recurrent_dropout, self.seed) \
            if training and self.recurrent_dropout > 0 else None
        out, new_states = self.recurrent_step(self.project(inputs, input_mask), states, rec_mask)
        return out, new_states

    def get_config(self):
        return base_config(self, dict(units=self.units, activation=ser("activations", self.activation),
                                      use_bias=self.use_bias, dropout=self.dropout,
                                      recurrent_dropout=self.recurrent_dropout, seed=self.seed,
                                      **weight_options(self, _KEYS)))


@serialization.register("layers")
class SimpleRNNCell(_Cell):
    """h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)."""

    def build(self, input_shape):
        self._add_kernels(input_shape[-1])
        self.bias = self.add_weight(shape=(self.units,), name="bias", initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def recurrent_step(self, z, states, rec_mask=None):
        h = states[0] if rec_mask is None else states[0] * rec_mask
        out = self.activation(z + math_ops.matmul(h, self._cast(self.recurrent_kernel)))
        return out, [out]


@serialization.register("layers")
class LSTMCell(_Cell):
    """Long short-term memory: gates i, f, c, o from x @ kernel + h @ recurrent_kernel + bias;
    c = f * c_prev + i * activation(c_gate); h = o * activation(c). States [h, c]."""

    _GATES = 4

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self):
        return [self.units, self.units]

    def build(self, input_shape):
        self._add_kernels(input_shape[-1])
        if self.use_bias:
            init = self.bias_initializer
            if self.unit_forget_bias:
                base, units = self.bias_initializer, self.units

                def init(shape, dtype=None):
                    return array_ops.concat([base((units,), dtype=dtype), initializers.get("ones")((units,), dtype),
                                             base((2 * units,), dtype=dtype)], 0)
            self.bias = self.add_weight(shape=(4 * self.units,), name="bias", initializer=init,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    def recurrent_step(self, z, states, rec_mask=None):
        h_prev, c_prev = states[0], states[1]
        h_in = h_prev if rec_mask is None else h_prev * rec_mask
        z = z + math_ops.matmul(h_in, self._cast(self.recurrent_kernel))
        z0, z1, z2, z3 = array_ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(z0)
        f = self.recurrent_activation(z1)
        c = f * c_prev + i * self.activation(z2)
        o = self.recurrent_activation(z3)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config.update(recurrent_activation=ser("activations", self.recurrent_activation),
                      unit_forget_bias=self.unit_forget_bias)
        return config


@serialization.register("layers")
class GRUCell(_Cell):
    """Gated recurrent unit (gates z, r, h): with ``reset_after`` (Keras's and cuDNN's default) the
    reset gate applies after the recurrent matmul, and the bias has an input and a recurrent row."""

    _GATES = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", reset_after=True, **kwargs):
        super().__init__(units, activation=activation, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def build(self, input_shape):
        self._add_kernels(input_shape[-1])
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self.bias = self.add_weight(shape=shape, name="bias", initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def _input_bias(self):
        if not self.use_bias:
            return None
        b = self._cast(self.bias)
        return b[0] if self.reset_after else b

    def recurrent_step(self, z, states, rec_mask=None):
        u = self.units
        h_prev = states[0]
        h_in = h_prev if rec_mask is None else h_prev * rec_mask
        kernel = self._cast(self.recurrent_kernel)
        x_z, x_r, x_h = array_ops.split(z, 3, axis=-1)
        if self.reset_after:
            inner = math_ops.matmul(h_in, kernel)
            if self.use_bias:
                inner = inner + self._cast(self.bias)[1]
        else:
            inner = math_ops.matmul(h_in, kernel[:, :2 * u])
        zg = self.recurrent_activation(x_z + inner[:, :u])
        r = self.recurrent_activation(x_r + inner[:, u:2 * u])
        if self.reset_after:
            rec_h = r * inner[:, 2 * u:]
        else:
            rec_h = math_ops.matmul(r * h_in, kernel[:, 2 * u:])
        hh = self.activation(x_h + rec_h)
        h = zg * h_prev + (1.0 - zg) * hh
        return h, [h]

    def get_config(self):
        config = super().get_config()
        config.update(recurrent_activation=ser("activations", self.recurrent_activation),
                      reset_after=self.reset_after)
        return config


@serialization.register("layers")
class StackedRNNCells(Layer):
    """Cells applied one after another within each step (states: each cell's, in order)."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self):
        out = []
        for c in self.cells:
            out.extend(c.state_size if isinstance(c.state_size, (list, tuple)) else [c.state_size])
        return out

    @property
    def output_size(self):
        last = self.cells[-1]
        return getattr(last, "output_size", None) or (last.state_size[0] if isinstance(last.state_size, (list, tuple))
                                                       else last.state_size)

    def build(self, input_shape):
        shape = tuple(input_shape)
        for c in self.cells:
            if not c.built:
                c.build(shape)
                c.built = True
            shape = shape[:-1] + (c.output_size if hasattr(c, "output_size") else c.state_size,)
        self.built = True

    def get_initial_state(self, batch_size=None):
        out = []
        for c in self.cells:
            out.extend(c.get_initial_state(batch_size))
        return out

    def call(self, inputs, states, training=False):
        states = list(states)
        new_states, x = [], inputs
        for c in self.cells:
            n = len(c.state_size) if isinstance(c.state_size, (list, tuple)) else 1
            mine, states = states[:n], states[n:]
            x, st = c(x, mine, training=training)
            new_states.extend(st if isinstance(st, (list, tuple)) else [st])
        return x, new_states

    def get_config(self):
        config = Layer.get_config(self)
        config["cells"] = [serialize_layer(c) for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [deserialize_layer(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **{k: v for k, v in config.items() if k in ("name", "trainable")})
