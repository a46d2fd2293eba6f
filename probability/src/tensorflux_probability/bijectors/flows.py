"""Normalizing-flow bijectors: RealNVP (affine coupling), MaskedAutoregressiveFlow, and the MADE
network (AutoregressiveNetwork) that parameterises the latter.

Note [Autoregressive masks]: MADE gives input i (of D) degree i + 1 and each hidden unit a degree
in [1, D - 1]; a weight from a unit of degree a to a hidden unit of degree b is kept when b >= a,
and to an output of input j when j + 1 > a. Output j then depends only on inputs before j, so
the flow's Jacobian is triangular: the inverse (density) pass is one network call, the forward
(sampling) pass D calls, each fixing one more coordinate.
"""

import numpy as np

import tensorflux as tx

from tensorflux_probability.bijectors.bijector import Bijector


class RealNVP(Bijector):
    """Affine coupling: the first ``num_masked`` coordinates pass through and parameterise a shift
    and log-scale of the rest, y_rest = x_rest * exp(log_scale) + shift. ``shift_and_log_scale_fn``
    is ``fn(x_masked, output_units) -> (shift, log_scale)`` (see ``real_nvp_default_template``).

    >>> nvp = txp.bijectors.RealNVP(num_masked=1, shift_and_log_scale_fn=txp.bijectors.real_nvp_default_template([8]))
    >>> x = tx.constant([[0.5, -1.0]])
    >>> bool(np.allclose(nvp.inverse(tx.identity(nvp.forward(x))).numpy(), x.numpy(), atol=1e-5))
    True
    """

    def __init__(self, num_masked=None, fraction_masked=None, shift_and_log_scale_fn=None, is_constant_jacobian=False,
                 validate_args=False, name="real_nvp"):
        if (num_masked is None) == (fraction_masked is None):
            raise ValueError("RealNVP takes exactly one of num_masked and fraction_masked")
        if shift_and_log_scale_fn is None:
            raise ValueError("RealNVP needs a shift_and_log_scale_fn")
        super().__init__(1, is_constant_jacobian=is_constant_jacobian, validate_args=validate_args,
                         parameters=dict(locals()), name=name)
        self._num_masked = num_masked
        self._fraction = fraction_masked
        self._fn = shift_and_log_scale_fn

    def _split_at(self, x):
        d = x.shape.as_list()[-1]
        if d is None:
            raise ValueError("%s needs a static event size" % self.name)
        k = self._num_masked if self._num_masked is not None else int(round(self._fraction * d))
        k = k if k >= 0 else d + k
        if not 0 < k < d:
            raise ValueError("%s: num_masked=%d leaves nothing to transform in events of size %d" % (self.name, k, d))
        return k, d - k

    def _params(self, x0, units):
        shift, log_scale = self._fn(x0, units)
        return (tx.zeros_like(x0[..., :1]) if shift is None else shift,
                tx.zeros_like(x0[..., :1]) if log_scale is None else log_scale)

    def _forward(self, x):
        k, rest = self._split_at(x)
        x0, x1 = x[..., :k], x[..., k:]
        shift, log_scale = self._params(x0, rest)
        return tx.concat([x0, x1 * tx.exp(log_scale) + shift], axis=-1)

    def _inverse(self, y):
        k, rest = self._split_at(y)
        y0, y1 = y[..., :k], y[..., k:]
        shift, log_scale = self._params(y0, rest)
        return tx.concat([y0, (y1 - shift) * tx.exp(-log_scale)], axis=-1)

    def _forward_log_det_jacobian(self, x):
        k, rest = self._split_at(x)
        _, log_scale = self._params(x[..., :k], rest)
        return tx.reduce_sum(tx.broadcast_to(log_scale, tx.shape(x[..., k:])), axis=-1)

    def _inverse_log_det_jacobian(self, y):
        k, rest = self._split_at(y)
        _, log_scale = self._params(y[..., :k], rest)
        return -tx.reduce_sum(tx.broadcast_to(log_scale, tx.shape(y[..., k:])), axis=-1)


class _RealNVPTemplate(tx.Module):
    """The MLP of ``real_nvp_default_template``, built on first use; a Module, so a flow's
    ``trainable_variables`` find its weights."""

    def __init__(self, hidden_layers, shift_only, activation, name):
        super().__init__(name=name)
        self._hidden = list(hidden_layers)
        self._shift_only = shift_only
        self._activation = activation
        self.net = None

    def __call__(self, x, output_units):
        if self.net is None:
            dtype = x.dtype.name  # the network computes in the flow's dtype
            layers = [tx.keras.layers.Dense(h, activation=self._activation, dtype=dtype) for h in self._hidden]
            layers.append(tx.keras.layers.Dense((1 if self._shift_only else 2) * output_units, dtype=dtype))
            self.net = tx.keras.Sequential(layers)
        out = self.net(x)
        if self._shift_only:
            return out, None
        shift, log_scale = tx.split(out, 2, axis=-1)
        return shift, log_scale


def real_nvp_default_template(hidden_layers, shift_only=False, activation="relu", name=None):
    """A ``shift_and_log_scale_fn`` for RealNVP: a tx.keras MLP with ``hidden_layers`` units,
    built on first use in the input's dtype (a Module: its weights are its ``trainable_variables``).

    >>> fn = txp.bijectors.real_nvp_default_template([4])
    >>> shift, log_scale = fn(tx.zeros([2, 1]), 3)
    >>> shift.shape, len(fn.trainable_variables)
    (TensorShape([2, 3]), 4)
    """
    return _RealNVPTemplate(hidden_layers, shift_only, activation, name or "real_nvp_template")


def _made_masks(event_size, hidden_units):
    """The weight masks of MADE layers (Note [Autoregressive masks])."""
    degrees = [np.arange(1, event_size + 1)]
    for h in hidden_units:
        degrees.append(np.arange(h) % max(event_size - 1, 1) + 1)
    masks = []
    for a, b in zip(degrees[:-1], degrees[1:]):
        masks.append((b[None, :] >= a[:, None]).astype(np.float32))
    masks.append((np.arange(1, event_size + 1)[None, :] > degrees[-1][:, None]).astype(np.float32))
    return masks


class AutoregressiveNetwork(tx.keras.layers.Layer):
    """MADE: a masked MLP whose output [..., event_size, params] at position j depends only on
    inputs before j (Note [Autoregressive masks]); a tx.keras layer.

    >>> made = txp.bijectors.AutoregressiveNetwork(params=2, event_shape=[3], hidden_units=[8])
    >>> made(tx.zeros([5, 3])).shape
    TensorShape([5, 3, 2])
    """

    def __init__(self, params, event_shape=None, hidden_units=None, activation="relu",
                 kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        self._params = int(params)
        self._event_shape = None if event_shape is None else [int(d) for d in np.reshape(event_shape, [-1])]
        self._hidden = [int(h) for h in (hidden_units or [])]
        self._activation = tx.keras.activations.get(activation)
        self._kernel_initializer = kernel_initializer

    def build(self, input_shape):
        d = int(input_shape[-1]) if self._event_shape is None else self._event_shape[-1]
        self._d = d
        masks = _made_masks(d, self._hidden)
        masks[-1] = np.repeat(masks[-1], self._params, axis=1)
        sizes = [d] + self._hidden + [d * self._params]
        self._masks, self._kernels, self._biases = [], [], []
        for i, m in enumerate(masks):
            self._masks.append(m)
            self._kernels.append(self.add_weight(shape=(sizes[i], sizes[i + 1]), initializer=self._kernel_initializer,
                                                 name="kernel_%d" % i))
            self._biases.append(self.add_weight(shape=(sizes[i + 1],), initializer="zeros", name="bias_%d" % i))
        self.built = True

    def call(self, x):
        h = x
        for i, (m, k, b) in enumerate(zip(self._masks, self._kernels, self._biases)):
            h = tx.matmul(h, k * tx.constant(m, k.dtype)) + b
            if i < len(self._masks) - 1:
                h = self._activation(h)
        # Output unit o = j * params + p is output j's parameter p (masks repeated per input).
        return tx.reshape(h, tx.concat([tx.shape(x)[:-1], [self._d, self._params]], 0))


class MaskedAutoregressiveFlow(Bijector):
    """y_j = x_j * exp(log_scale_j(y_<j)) + shift_j(y_<j) (MAF, Papamakarios et al.):
    ``shift_and_log_scale_fn(y)`` returns (shift, log_scale), or one tensor [..., D, 2] (an
    AutoregressiveNetwork with params=2). Inverse and log-density: one call; forward: D calls.

    >>> made = txp.bijectors.AutoregressiveNetwork(params=2, hidden_units=[8])
    >>> maf = txp.bijectors.MaskedAutoregressiveFlow(made)
    >>> x = tx.constant([[0.3, -0.2, 1.0]])
    >>> bool(np.allclose(maf.inverse(tx.identity(maf.forward(x))).numpy(), x.numpy(), atol=1e-5))
    True
    """

    def __init__(self, shift_and_log_scale_fn, is_constant_jacobian=False, validate_args=False, name="maf"):
        super().__init__(1, is_constant_jacobian=is_constant_jacobian, validate_args=validate_args,
                         parameters=dict(locals()), name=name)
        self._fn = shift_and_log_scale_fn

    def _params(self, y):
        out = self._fn(y)
        if isinstance(out, (tuple, list)):
            return out[0], out[1]
        shift, log_scale = tx.unstack(out, num=2, axis=-1)
        return shift, log_scale

    def _forward(self, x):
        d = x.shape.as_list()[-1]
        if d is None:
            raise ValueError("%s needs a static event size" % self.name)
        y = tx.zeros_like(x)
        for _ in range(d):
            shift, log_scale = self._params(y)
            y = x * tx.exp(log_scale) + shift
        return y

    def _inverse(self, y):
        shift, log_scale = self._params(y)
        return (y - shift) * tx.exp(-log_scale)

    def _inverse_log_det_jacobian(self, y):
        _, log_scale = self._params(y)
        return -tx.reduce_sum(log_scale, axis=-1)
