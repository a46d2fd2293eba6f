"""Attention layers: MultiHeadAttention (Keras 3's EinsumDense projections) and Attention
(Luong-style dot-product attention), with Keras's masks (key/value padding, causal)."""

import math

from tensorflux._src import math_ops, nn_ext_ops, nn_ops
from tensorflux._src.einsum_ops import einsum
from tensorflux._src.generated import gen_ops
from tensorflux._src.keras import masking, serialization
from tensorflux._src.keras.layer import Layer
from tensorflux._src.keras.layers.core import Dropout, EinsumDense, base_config, set_weight_options, weight_options

_LARGE_NEGATIVE = 1e9


def _masked_softmax(scores, mask, axis=-1):
    """softmax(scores) where ``mask`` (bool, broadcast to scores) keeps positions; the others get
    -1e9 added first, as Keras's Softmax layer does."""
    if mask is not None:
        scores = scores + (1.0 - math_ops.cast(mask, scores.dtype)) * math_ops.cast(-_LARGE_NEGATIVE, scores.dtype)
    return nn_ext_ops.softmax(scores, axis=axis)


def _causal(query, value):
    """[1, T, S] lower-triangular bool mask (query step t sees value steps <= t)."""
    t = gen_ops.shape(query)[1]
    s = gen_ops.shape(value)[1]
    rows = gen_ops.expand_dims(gen_ops.range(0, t, 1), -1)
    cols = gen_ops.expand_dims(gen_ops.range(0, s, 1), 0)
    return gen_ops.expand_dims(gen_ops.greater_equal(rows, cols), 0)


def _and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return gen_ops.logical_and(a, b)


_MHA_KEYS = ("kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
             "kernel_constraint", "bias_constraint")


@serialization.register("layers")
class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al.): ``num_heads`` heads of size ``key_dim`` project the
    query, key and value ([batch, steps, features]), attend with scaled dot products, and project
    back to the query's features (or ``output_shape``).

    >>> mha = tx.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> mha(tx.ones([1, 3, 8]), tx.ones([1, 5, 8])).shape
    TensorShape([1, 3, 8])
    """

    _KERAS_DEFAULTS = {"flash_attention": None, "attention_axes": (None, [1], (1,)), "use_gate": False,
                       "sliding_window": None}

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if attention_axes not in (None, 1, (1,), [1]):
            raise NotImplementedError("MultiHeadAttention(attention_axes=%r): tx.keras attends over axis 1 of "
                                      "[batch, steps, features] inputs" % (attention_axes,))
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim or key_dim
        self.dropout, self.use_bias, self._output_shape, self.seed = dropout, use_bias, output_shape, seed
        set_weight_options(self, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                           kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                           kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        self.supports_masking = True

    def _dense(self, equation, output_shape, bias_axes, name):
        return EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes if self.use_bias else None,
                           name=name, dtype=self.dtype_policy,
                           **{k: getattr(self, k) for k in _MHA_KEYS})

    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        for what, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3:
                raise ValueError("MultiHeadAttention %s: tx.keras takes [batch, steps, features] inputs; the %s has "
                                 "shape %s" % (self.name, what, tuple(shape)))
        self._query_dense = self._dense("abc,cde->abde", (None, self.num_heads, self.key_dim), "de", "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._dense("abc,cde->abde", (None, self.num_heads, self.key_dim), "de", "key")
        self._key_dense.build(key_shape)
        self._value_dense = self._dense("abc,cde->abde", (None, self.num_heads, self.value_dim), "de", "value")
        self._value_dense.build(value_shape)
        out_dim = self._output_shape if self._output_shape is not None else query_shape[-1]
        out_dims = (out_dim,) if isinstance(out_dim, int) else tuple(out_dim)
        letters = "efghijk"[:len(out_dims)]
        self._output_dense = self._dense("abcd,cd%s->ab%s" % (letters, letters), (None,) + out_dims, letters,
                                         "attention_output")
        self._output_dense.build((None, None, self.num_heads, self.value_dim))
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed)
        self.built = True

    # Keras's public names of the projections (the saved weights' paths use them).
    query_dense = property(lambda self: self._query_dense)
    key_dense = property(lambda self: self._key_dense)
    value_dense = property(lambda self: self._value_dense)
    output_dense = property(lambda self: self._output_dense)

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        key = value if key is None else key
        query_mask = query_mask if query_mask is not None else masking.get_mask(query)
        value_mask = value_mask if value_mask is not None else masking.get_mask(value)
        key_mask = key_mask if key_mask is not None else masking.get_mask(key)
        mask = None
        if query_mask is not None:
            mask = gen_ops.expand_dims(math_ops.cast(query_mask, "bool"), -1)
        if value_mask is not None:
            mask = _and(mask, gen_ops.expand_dims(math_ops.cast(value_mask, "bool"), -2))
        if key_mask is not None:
            mask = _and(mask, gen_ops.expand_dims(math_ops.cast(key_mask, "bool"), -2))
        if use_causal_mask:
            mask = _and(mask, _causal(query, value))
        if attention_mask is not None:
            mask = _and(math_ops.cast(attention_mask, "bool"), mask)
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        q = q * math_ops.cast(1.0 / math.sqrt(float(self.key_dim)), q.dtype)
        scores = einsum("aecd,abcd->acbe", k, q)
        if mask is not None:
            mask = gen_ops.expand_dims(mask, -3)  # a heads axis
        weights = _masked_softmax(scores, mask)
        dropped = self._dropout_layer(weights, training=training)
        out = self._output_dense(einsum("acbe,aecd->abcd", dropped, v))
        return (out, weights) if return_attention_scores else out

    def get_config(self):
        return base_config(self, dict(num_heads=self.num_heads, key_dim=self.key_dim, value_dim=self.value_dim,
                                      dropout=self.dropout, use_bias=self.use_bias, output_shape=self._output_shape,
                                      attention_axes=None, seed=self.seed, **weight_options(self, _MHA_KEYS)))


@serialization.register("layers")
class Attention(Layer):
    """Dot-product attention: ``softmax(query @ key^T [* scale]) @ value`` for inputs
    ``[query, value]`` or ``[query, value, key]`` (score_mode "dot" or "concat"), masking padded
    value steps and, with ``use_causal_mask``, future steps."""

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. Received: "
                             "score_mode=%r" % (score_mode,))
        self.use_scale, self.score_mode, self.dropout, self.seed = use_scale, score_mode, dropout, seed
        self.supports_masking = True

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(), initializer="ones") if self.use_scale else None
        self.concat_score_weight = self.add_weight(name="concat_score_weight", shape=(), initializer="ones") \
            if self.score_mode == "concat" else None
        self.built = True

    def call(self, inputs, mask=None, training=None, return_attention_scores=False, use_causal_mask=False):
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError("Attention layer %s must be called on a list of inputs, namely [query, value] or "
                             "[query, value, key]. Received: %r" % (self.name, inputs))
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) == 3 else value
        q_mask = mask[0] if mask is not None else None
        v_mask = mask[1] if mask is not None and len(mask) > 1 else None
        scores = self._scores(query, key)
        keep = None
        if v_mask is not None:
            keep = gen_ops.expand_dims(math_ops.cast(v_mask, "bool"), -2)
        if use_causal_mask:
            keep = _and(keep, _causal(query, key))
        weights = _masked_softmax(scores, keep)
        if training and self.dropout > 0:
            weights = nn_ops.dropout(weights, rate=self.dropout, seed=self.seed)
        out = math_ops.matmul(weights, value)
        if q_mask is not None:
            out = out * gen_ops.expand_dims(math_ops.cast(q_mask, out.dtype), -1)
        return (out, weights) if return_attention_scores else out

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = math_ops.matmul(query, key, transpose_b=True)
            return scores * self._cast(self.scale) if self.scale is not None else scores
        q = gen_ops.expand_dims(query, -2)
        k = gen_ops.expand_dims(key, -3)
        inner = self._cast(self.scale) * (q + k) if self.scale is not None else q + k
        return self._cast(self.concat_score_weight) * math_ops.reduce_sum(gen_ops.tanh(inner), axis=-1)

    def compute_mask(self, inputs, previous_mask=None):
        if previous_mask is None or previous_mask[0] is None:
            return None
        return previous_mask[0]

    def get_config(self):
        return base_config(self, {"use_scale": self.use_scale, "score_mode": self.score_mode,
                                  "dropout": self.dropout, "seed": self.seed})


@serialization.register("layers")
class AdditiveAttention(Attention):
    """Bahdanau-style attention: scores sum(tanh(query + key) [* scale]) over the features."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, score_mode="dot", dropout=dropout, **kwargs)

    def build(self, input_shape):
        dim = input_shape[0][-1]
        self.scale = self.add_weight(name="scale", shape=(dim,), initializer="glorot_uniform") \
            if self.use_scale else None
        self.concat_score_weight = None
        self.built = True

    def _scores(self, query, key):
        q = gen_ops.expand_dims(query, -2)
        k = gen_ops.expand_dims(key, -3)
        t = gen_ops.tanh(q + k)
        if self.scale is not None:
            t = t * self._cast(self.scale)
        return math_ops.reduce_sum(t, axis=-1)

    def get_config(self):
        config = super().get_config()
        config.pop("score_mode", None)
        return config
