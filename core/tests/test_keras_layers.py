"""Every tx.keras layer against Keras 3 (TensorFlow backend) given the same weights: the layer is
built in both, Keras's weights are copied into ours with set_weights (which also checks that the
weights line up: same count, order and shapes), and the outputs are compared."""

import numpy as np
import pytest

import tensorflux as tx
from keras_parity import as_numpy, copy_weights, keras3

pytestmark = pytest.mark.eager

rng = np.random.default_rng(1234)


def F(*shape):  # noqa: N802 - a float input
    return rng.standard_normal(shape).astype(np.float32)


def I(high, *shape):  # noqa: N802,E743 - an integer input in [0, high)
    return rng.integers(0, high, shape).astype(np.int32)


# name: (factory(layers module) -> layer, inputs, call style: "one" | "list" | "args", call kwargs)
CASES = {
    "dense": (lambda L: L.Dense(4, activation="relu"), [F(3, 5)], "one", {}),
    "dense_rank3_no_bias": (lambda L: L.Dense(4, use_bias=False), [F(2, 3, 5)], "one", {}),
    "einsum_dense": (lambda L: L.EinsumDense("abc,cd->abd", output_shape=(None, 4), bias_axes="d"),
                     [F(2, 3, 5)], "one", {}),
    "embedding": (lambda L: L.Embedding(10, 3), [I(10, 2, 4)], "one", {}),
    "activation_gelu": (lambda L: L.Activation("gelu"), [F(3, 5)], "one", {}),
    "activation_softmax": (lambda L: L.Activation("softmax"), [F(3, 5)], "one", {}),
    "activation_selu": (lambda L: L.Activation("selu"), [F(3, 5)], "one", {}),
    "activation_hard_sigmoid": (lambda L: L.Activation("hard_sigmoid"), [F(3, 5)], "one", {}),
    "activation_mish": (lambda L: L.Activation("mish"), [F(3, 5)], "one", {}),
    "dropout_inference": (lambda L: L.Dropout(0.5), [F(3, 5)], "one", {}),
    "flatten": (lambda L: L.Flatten(), [F(2, 3, 4)], "one", {}),
    "reshape": (lambda L: L.Reshape((4, -1)), [F(2, 12)], "one", {}),
    "permute": (lambda L: L.Permute((2, 1)), [F(2, 3, 4)], "one", {}),
    "repeat_vector": (lambda L: L.RepeatVector(3), [F(2, 4)], "one", {}),
    "conv1d_causal_dilated": (lambda L: L.Conv1D(3, 3, padding="causal", dilation_rate=2), [F(2, 9, 4)], "one", {}),
    "conv1d_strided": (lambda L: L.Conv1D(3, 3, strides=2, activation="tanh"), [F(2, 9, 4)], "one", {}),
    "conv2d_same": (lambda L: L.Conv2D(3, 3, padding="same", activation="relu"), [F(2, 6, 7, 2)], "one", {}),
    "conv2d_strided": (lambda L: L.Conv2D(3, (2, 3), strides=2), [F(2, 6, 7, 2)], "one", {}),
    "conv2d_dilated": (lambda L: L.Conv2D(2, 3, dilation_rate=2), [F(1, 9, 9, 2)], "one", {}),
    "conv3d": (lambda L: L.Conv3D(2, 2), [F(1, 4, 5, 6, 2)], "one", {}),
    "conv1d_transpose": (lambda L: L.Conv1DTranspose(3, 3, strides=2), [F(2, 5, 4)], "one", {}),
    "conv2d_transpose_same": (lambda L: L.Conv2DTranspose(3, 3, strides=2, padding="same"), [F(2, 4, 5, 2)], "one",
                              {}),
    "conv2d_transpose_valid": (lambda L: L.Conv2DTranspose(3, 3, strides=2), [F(2, 4, 5, 2)], "one", {}),
    "conv3d_transpose": (lambda L: L.Conv3DTranspose(2, 2, strides=2), [F(1, 3, 3, 3, 2)], "one", {}),
    "depthwise_conv2d": (lambda L: L.DepthwiseConv2D(3, depth_multiplier=2), [F(2, 6, 6, 3)], "one", {}),
    "separable_conv2d": (lambda L: L.SeparableConv2D(4, 3, padding="same"), [F(2, 6, 6, 3)], "one", {}),
    "max_pool1d": (lambda L: L.MaxPooling1D(2), [F(2, 8, 3)], "one", {}),
    "max_pool2d_same": (lambda L: L.MaxPooling2D(3, strides=2, padding="same"), [F(2, 7, 7, 3)], "one", {}),
    "max_pool3d": (lambda L: L.MaxPooling3D(2), [F(1, 4, 4, 4, 2)], "one", {}),
    "avg_pool1d": (lambda L: L.AveragePooling1D(3, strides=1), [F(2, 8, 3)], "one", {}),
    "avg_pool2d": (lambda L: L.AveragePooling2D(2), [F(2, 6, 6, 3)], "one", {}),
    "avg_pool3d": (lambda L: L.AveragePooling3D(2), [F(1, 4, 4, 4, 2)], "one", {}),
    "global_avg_pool1d": (lambda L: L.GlobalAveragePooling1D(), [F(2, 8, 3)], "one", {}),
    "global_avg_pool2d": (lambda L: L.GlobalAveragePooling2D(keepdims=True), [F(2, 5, 5, 3)], "one", {}),
    "global_max_pool1d": (lambda L: L.GlobalMaxPooling1D(), [F(2, 8, 3)], "one", {}),
    "global_max_pool2d": (lambda L: L.GlobalMaxPooling2D(), [F(2, 5, 5, 3)], "one", {}),
    "upsampling1d": (lambda L: L.UpSampling1D(3), [F(2, 4, 3)], "one", {}),
    "upsampling2d": (lambda L: L.UpSampling2D((2, 3)), [F(2, 3, 4, 2)], "one", {}),
    "upsampling3d": (lambda L: L.UpSampling3D(2), [F(1, 2, 3, 2, 2)], "one", {}),
    "zero_padding1d": (lambda L: L.ZeroPadding1D((1, 2)), [F(2, 4, 3)], "one", {}),
    "zero_padding2d": (lambda L: L.ZeroPadding2D(((1, 2), (0, 1))), [F(2, 3, 4, 2)], "one", {}),
    "zero_padding3d": (lambda L: L.ZeroPadding3D(1), [F(1, 2, 2, 2, 2)], "one", {}),
    "cropping1d": (lambda L: L.Cropping1D((1, 2)), [F(2, 6, 3)], "one", {}),
    "cropping2d": (lambda L: L.Cropping2D(((1, 0), (2, 1))), [F(2, 5, 6, 2)], "one", {}),
    "cropping3d": (lambda L: L.Cropping3D(((1, 0), (0, 1), (1, 1))), [F(1, 4, 4, 4, 2)], "one", {}),
    "rescaling": (lambda L: L.Rescaling(1 / 255.0, offset=-1.0), [F(3, 4) * 255], "one", {}),
    "normalization_given": (lambda L: L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 1.0, 0.25]),
                            [F(5, 3)], "one", {}),
    "batch_norm_inference": (lambda L: L.BatchNormalization(), [F(4, 3)], "one", {}),
    "batch_norm_training": (lambda L: L.BatchNormalization(momentum=0.8), [F(8, 5, 3)], "one", {"training": True}),
    "layer_norm": (lambda L: L.LayerNormalization(), [F(4, 3, 5)], "one", {}),
    "layer_norm_two_axes": (lambda L: L.LayerNormalization(axis=[1, 2], center=False), [F(4, 3, 5)], "one", {}),
    "layer_norm_rms": (lambda L: L.LayerNormalization(rms_scaling=True), [F(4, 5)], "one", {}),
    "group_norm": (lambda L: L.GroupNormalization(groups=2), [F(2, 5, 4)], "one", {}),
    "unit_norm": (lambda L: L.UnitNormalization(), [F(3, 4)], "one", {}),
    "simple_rnn": (lambda L: L.SimpleRNN(4), [F(2, 5, 3)], "one", {}),
    "simple_rnn_backwards_seq": (lambda L: L.SimpleRNN(4, return_sequences=True, go_backwards=True),
                                 [F(2, 5, 3)], "one", {}),
    "lstm": (lambda L: L.LSTM(4), [F(2, 6, 3)], "one", {}),
    "lstm_seq_state": (lambda L: L.LSTM(4, return_sequences=True, return_state=True), [F(2, 6, 3)], "one", {}),
    "gru": (lambda L: L.GRU(4), [F(2, 6, 3)], "one", {}),
    "gru_reset_before": (lambda L: L.GRU(4, reset_after=False, return_sequences=True), [F(2, 6, 3)], "one", {}),
    "rnn_stacked_cells": (lambda L: L.RNN([L.SimpleRNNCell(3), L.LSTMCell(2)], return_sequences=True),
                          [F(2, 4, 3)], "one", {}),
    "bidirectional_lstm": (lambda L: L.Bidirectional(L.LSTM(3, return_sequences=True)), [F(2, 5, 4)], "one", {}),
    "bidirectional_gru_sum": (lambda L: L.Bidirectional(L.GRU(3), merge_mode="sum"), [F(2, 5, 4)], "one", {}),
    "time_distributed": (lambda L: L.TimeDistributed(L.Dense(3)), [F(2, 4, 5)], "one", {}),
    "multi_head_attention": (lambda L: L.MultiHeadAttention(num_heads=2, key_dim=3), [F(2, 4, 6), F(2, 5, 6)],
                             "args", {}),
    "multi_head_attention_causal": (lambda L: L.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=4,
                                                                    output_shape=5),
                                    [F(2, 4, 6), F(2, 4, 6)], "args", {"use_causal_mask": True}),
    "attention": (lambda L: L.Attention(), [F(2, 4, 3), F(2, 5, 3)], "list", {}),
    "attention_concat_scaled": (lambda L: L.Attention(use_scale=True, score_mode="concat"),
                                [F(2, 4, 3), F(2, 5, 3), F(2, 5, 3)], "list", {"use_causal_mask": True}),
    "add": (lambda L: L.Add(), [F(2, 3), F(2, 3), F(2, 3)], "list", {}),
    "subtract": (lambda L: L.Subtract(), [F(2, 3), F(2, 3)], "list", {}),
    "multiply": (lambda L: L.Multiply(), [F(2, 3), F(2, 3)], "list", {}),
    "average": (lambda L: L.Average(), [F(2, 3), F(2, 3)], "list", {}),
    "maximum": (lambda L: L.Maximum(), [F(2, 3), F(2, 3)], "list", {}),
    "minimum": (lambda L: L.Minimum(), [F(2, 3), F(2, 3)], "list", {}),
    "concatenate": (lambda L: L.Concatenate(axis=1), [F(2, 3, 4), F(2, 2, 4)], "list", {}),
    "dot": (lambda L: L.Dot(axes=(1, 1)), [F(2, 3, 4), F(2, 3, 5)], "list", {}),
    "dot_normalized": (lambda L: L.Dot(axes=-1, normalize=True), [F(2, 4), F(2, 4)], "list", {}),
    "softmax": (lambda L: L.Softmax(axis=1), [F(2, 3, 4)], "one", {}),
    "relu": (lambda L: L.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.2), [F(3, 5)], "one", {}),
    "leaky_relu": (lambda L: L.LeakyReLU(negative_slope=0.2), [F(3, 5)], "one", {}),
    "elu": (lambda L: L.ELU(alpha=0.5), [F(3, 5)], "one", {}),
    "prelu": (lambda L: L.PReLU(alpha_initializer="random_uniform", shared_axes=[1]), [F(2, 3, 4)], "one", {}),
    "category_encoding": (lambda L: L.CategoryEncoding(5, output_mode="count"), [I(5, 3, 4)], "one", {}),
    "category_encoding_one_hot": (lambda L: L.CategoryEncoding(5, output_mode="one_hot"), [I(5, 6)], "one", {}),
    "integer_lookup": (lambda L: L.IntegerLookup(vocabulary=[3, 7, 1, 9], mask_token=0), [I(11, 3, 4)], "one", {}),
    "integer_lookup_multi_hot": (lambda L: L.IntegerLookup(vocabulary=[3, 7, 1, 9], output_mode="multi_hot"),
                                 [I(11, 3, 4)], "one", {}),
    "masking": (lambda L: L.Masking(0.0), [np.concatenate([F(2, 3, 2), np.zeros((2, 2, 2), np.float32)], 1)], "one",
                {}),
    "identity": (lambda L: L.Identity(), [F(2, 3)], "one", {}),
    "rms_normalization": (lambda L: L.RMSNormalization(), [F(3, 4)], "one", {}),
    "additive_attention": (lambda L: L.AdditiveAttention(), [F(2, 4, 3), F(2, 5, 3)], "list", {}),
    "spatial_dropout1d_inference": (lambda L: L.SpatialDropout1D(0.5), [F(2, 4, 3)], "one", {}),
    "gaussian_noise_inference": (lambda L: L.GaussianNoise(1.0), [F(2, 3)], "one", {}),
    "time_distributed_conv": (lambda L: L.TimeDistributed(L.Conv2D(2, 3)), [F(2, 3, 5, 5, 1)], "one", {}),
}
for _act in ("celu", "hard_tanh", "log_sigmoid", "soft_shrink", "hard_shrink", "tanh_shrink", "squareplus",
             "glu", "silu", "softplus", "softsign", "elu", "relu6", "exponential", "linear", "tanh", "sigmoid"):
    CASES["activation_" + _act] = (lambda L, a=_act: L.Activation(a), [F(3, 4)], "one", {})


def _call(layer, inputs, style, kwargs, convert):
    xs = [convert(x) for x in inputs]
    if style == "one":
        return layer(xs[0], **kwargs)
    if style == "list":
        return layer(xs, **kwargs)
    return layer(*xs, **kwargs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_matches_keras(name):
    keras = keras3()
    import tensorflow as tf
    factory, inputs, style, kwargs = CASES[name]
    theirs = factory(keras.layers)
    ours = factory(tx.keras.layers)
    _call(ours, inputs, style, kwargs, tx.constant)  # builds ours
    want = as_numpy(_call(theirs, inputs, style, kwargs, tf.constant))
    if name == "batch_norm_training":
        # Keras's call moved its moving averages: start ours from the initial ones, compare after.
        gamma, beta, _, _ = theirs.get_weights()
        ours.set_weights([gamma, beta, np.zeros_like(gamma), np.ones_like(gamma)])
    else:
        copy_weights(ours, theirs)
    got = as_numpy(_call(ours, inputs, style, kwargs, tx.constant))
    got, want = (got, want) if isinstance(got, list) else ([got], [want])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
    if name == "batch_norm_training":
        for g, w in zip(ours.get_weights(), theirs.get_weights()):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_every_layer_family_has_a_parity_case():
    names = {type(f(tx.keras.layers)).__name__ for f, *_ in CASES.values()}
    required = {"Dense", "Activation", "Dropout", "Flatten", "Reshape", "Permute", "RepeatVector", "Embedding",
                "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "DepthwiseConv2D",
                "SeparableConv2D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D",
                "AveragePooling2D", "AveragePooling3D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
                "GlobalMaxPooling1D", "GlobalMaxPooling2D", "UpSampling1D", "UpSampling2D", "ZeroPadding1D",
                "ZeroPadding2D", "Cropping2D", "Rescaling", "Normalization", "BatchNormalization",
                "LayerNormalization", "GroupNormalization", "UnitNormalization", "SimpleRNN", "LSTM", "GRU",
                "Bidirectional", "TimeDistributed", "MultiHeadAttention", "Attention", "Add", "Subtract", "Multiply",
                "Average", "Maximum", "Concatenate", "Dot", "CategoryEncoding", "IntegerLookup"}
    assert required <= names, sorted(required - names)


@pytest.mark.parametrize("kwargs", [dict(negative_slope=-0.1), dict(threshold=-0.5), dict(threshold=None)])
def test_relu_arguments_are_checked_as_in_keras(kwargs):
    K = keras3()
    with pytest.raises(ValueError, match="of a ReLU layer cannot be None or a negative value") as theirs:
        K.layers.ReLU(**kwargs)
    with pytest.raises(ValueError, match="of a ReLU layer cannot be None or a negative value") as ours:
        tx.keras.layers.ReLU(**kwargs)
    assert str(ours.value).split("Received")[0] == str(theirs.value).split("Received")[0]
