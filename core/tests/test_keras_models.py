"""tx.keras models and layers beyond single-layer parity: the functional API (shared layers, nested
models, multiple outputs, graph disconnection), subclassed models, layers in tx.function and in
graph mode, masks through a model (against Keras), freezing, configs, adapt, dtype policies and
bad input."""

import numpy as np
import pytest

import tensorflux as tx
from keras_parity import keras3
from test_keras_layers import CASES

pytestmark = pytest.mark.eager
keras = tx.keras
L = keras.layers
rng = np.random.default_rng(5)


def test_functional_shared_layers_nested_models_and_outputs():
    inner_in = keras.Input((3,))
    inner = keras.Model(inner_in, L.Dense(2, name="inner_dense")(inner_in), name="inner")
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    shared = L.Dense(3, activation="tanh", name="shared")
    ha, hb = shared(a), shared(b)
    out = {"sum": L.Add(name="sum")([inner(ha), inner(hb)]), "diff": L.Subtract(name="diff")([ha, hb])}
    model = keras.Model(inputs=[a, b], outputs=out)
    assert [lyr.name for lyr in model.layers] == ["a", "b", "shared", "inner", "diff", "sum"]  # Keras's order
    assert len(model.weights) == 4 and len(shared._inbound_nodes) == 2
    xa, xb = rng.standard_normal((2, 4, 3)).astype(np.float32)
    got = model({"a": xa, "b": xb})
    w, bias = shared.get_weights()
    ha_np, hb_np = np.tanh(xa @ w + bias), np.tanh(xb @ w + bias)
    wi, bi = inner.get_weights()
    np.testing.assert_allclose(got["diff"].numpy(), ha_np - hb_np, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["sum"].numpy(), ha_np @ wi + bi + hb_np @ wi + bi, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model([xa, xb])["sum"].numpy(), got["sum"].numpy())
    clone = keras.Model.from_config(model.get_config())
    assert [lyr.name for lyr in clone.layers] == [lyr.name for lyr in model.layers]
    with pytest.raises(ValueError, match="Graph disconnected"):
        keras.Model(a, L.Add()([ha, hb]))
    with pytest.raises(ValueError, match='Layer "functional.*" expects 2 input\\(s\\), but it received 1'):
        model(xa)


def test_keras_tensor_arithmetic_records_ops():
    x = keras.Input((4,))
    y = (x * 2.0 + 1.0)[:, 1:3] / 4.0
    model = keras.Model(x, y)
    data = rng.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(model(data).numpy(), (data * 2 + 1)[:, 1:3] / 4, rtol=1e-6)
    again = keras.Model.from_config(model.get_config())
    np.testing.assert_allclose(again(data).numpy(), (data * 2 + 1)[:, 1:3] / 4, rtol=1e-6)
    assert "GetItem" in [e["class_name"] for e in model.get_config()["layers"]]


def test_subclassed_model_in_eager_tx_function_and_graph_mode():
    class Block(keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.dense = L.Dense(units)
            self.norm = L.BatchNormalization()
            self.drop = L.Dropout(0.5)

        def call(self, x, training=False):
            return self.drop(tx.nn.relu(self.norm(self.dense(x), training=training)), training=training)

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [Block(8), Block(4)]
            self.head = L.Dense(1)

        def call(self, x, training=False):
            for block in self.blocks:
                x = block(x, training=training)
            return self.head(x)

    net = Net()
    x = rng.standard_normal((5, 3)).astype(np.float32)
    eager = net(x).numpy()
    assert len(net.trainable_weights) == 10 and len(net.non_trainable_weights) == 4
    assert [lyr.name for lyr in net.layers] == [b.name for b in net.blocks] + [net.head.name]
    traced = tx.function(lambda v: net(v))(tx.constant(x)).numpy()
    np.testing.assert_allclose(traced, eager, rtol=1e-6)
    # training=True in a traced step: dropout and batch statistics, moving averages updated.
    before = net.blocks[0].norm.moving_mean.numpy().copy()
    tx.function(lambda v: net(v, training=True))(tx.constant(x))
    assert not np.allclose(net.blocks[0].norm.moving_mean.numpy(), before)
    with tx.Graph().as_default():
        ph = tx.placeholder(tx.float32, [None, 3])
        net_g = Net()
        y = net_g(ph)
        with tx.Session() as sess:
            sess.run(tx.global_variables_initializer())
            out = sess.run(y, {ph: x})
        assert out.shape == (5, 1)


def test_masks_flow_through_a_model_as_in_keras():
    K = keras3()
    ids = rng.integers(1, 20, (4, 7)).astype(np.int32)
    ids[0, 3:] = 0
    ids[2, 5:] = 0

    def build(M):
        inp = M.Input((7,), dtype="int32")
        x = M.layers.Embedding(20, 5, mask_zero=True)(inp)
        seq = M.layers.LSTM(4, return_sequences=True)(x)
        pooled = M.layers.GlobalAveragePooling1D()(seq)
        last = M.layers.GRU(3, go_backwards=True)(seq)
        return M.Model(inp, M.layers.Concatenate()([pooled, last]))

    theirs, ours = build(K), build(keras)
    ours.set_weights(theirs.get_weights())
    np.testing.assert_allclose(ours.predict(ids, verbose=0), theirs.predict(ids, verbose=0), rtol=1e-5, atol=1e-6)
    masked = keras.layers.Embedding(20, 5, mask_zero=True)(tx.constant(ids))
    lstm = keras.layers.LSTM(2, return_sequences=True)
    out = lstm(masked)  # the mask travels with the tensor outside models too
    np.testing.assert_allclose(out.numpy()[0, 3:], np.repeat(out.numpy()[0, 2:3], 4, 0), rtol=1e-6)


def test_freezing_layers_and_weight_api():
    model = keras.Sequential([keras.Input((3,)), L.Dense(4), L.BatchNormalization(), L.Dense(1)])
    assert len(model.trainable_weights) == 6 and len(model.non_trainable_weights) == 2
    model.layers[0].trainable = False
    assert len(model.trainable_weights) == 4 and len(model.non_trainable_weights) == 4
    model.compile("sgd", "mse")
    frozen = model.layers[0].get_weights()
    model.fit(rng.standard_normal((8, 3)).astype(np.float32), np.ones((8, 1), np.float32), verbose=0)
    for a, b in zip(model.layers[0].get_weights(), frozen):
        np.testing.assert_array_equal(a, b)
    assert model.count_params() == 3 * 4 + 4 + 4 * 4 + 4 + 1
    with pytest.raises(ValueError, match=r"layer 'dense.*' with a weight list of length 1, but the layer was "
                                         r"expecting 2 weights"):
        model.layers[0].set_weights([np.zeros((3, 4))])
    with pytest.raises(ValueError, match=r"Layer dense.* weight shape \(3, 4\) is not compatible with provided "
                                         r"weight shape \(4, 3\)"):
        model.layers[0].set_weights([np.zeros((4, 3)), np.zeros(4)])
    assert model.get_layer(index=1) is model.layers[1]
    with pytest.raises(ValueError, match="No such layer: nope"):
        model.get_layer("nope")


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_configs_round_trip(name):
    factory, inputs, style, kwargs = CASES[name]
    layer = factory(L)
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert again.get_config() == dict(config, name=again.name) or again.get_config() == config


def test_adapt_matches_keras():
    K = keras3()
    data = rng.standard_normal((50, 3)).astype(np.float32) * [1.0, 5.0, 0.1] + [0.0, 3.0, -1.0]
    ours, theirs = L.Normalization(), K.layers.Normalization()
    ours.adapt(data)
    theirs.adapt(data)
    np.testing.assert_allclose(ours(data).numpy(), np.asarray(theirs(data)), rtol=1e-4, atol=1e-5)
    ints = rng.integers(0, 6, (40, 3))
    ours, theirs = L.IntegerLookup(), K.layers.IntegerLookup()
    ours.adapt(ints)
    theirs.adapt(ints)
    assert ours.get_vocabulary() == [int(v) for v in theirs.get_vocabulary()]
    np.testing.assert_array_equal(ours(ints).numpy(), np.asarray(theirs(ints)))
    inverse = L.IntegerLookup(vocabulary=ours.get_vocabulary(include_special_tokens=False), invert=True)
    np.testing.assert_array_equal(inverse(ours(ints)).numpy(), ints)


def test_float64_policy_and_mixed_precision_policy_api():
    model = keras.Sequential([keras.Input((3,)), L.Dense(2, dtype="float64"), L.Dense(1, dtype="float64")])
    assert all(w.dtype == tx.float64 for w in model.weights)
    out = model(np.ones((2, 3)))
    assert out.dtype == tx.float64
    policy = keras.mixed_precision.Policy("mixed_bfloat16")
    assert (policy.compute_dtype, policy.variable_dtype) == ("bfloat16", "float32")
    keras.mixed_precision.set_global_policy("float64")
    try:
        assert L.Dense(1).dtype == "float64"
    finally:
        keras.mixed_precision.set_global_policy(None)
    assert L.Dense(1).dtype == "float32"
    with pytest.raises(ValueError, match="Unknown mixed precision policy"):
        keras.mixed_precision.Policy("mixed_int8")


def test_bad_layer_arguments_and_inputs():
    with pytest.raises(ValueError, match="expected a positive integer. Received: units=0"):
        L.Dense(0)
    with pytest.raises(TypeError, match="Unrecognized keyword argument\\(s\\) passed to Dense: {'unitz': 3}"):
        L.Dense(3, unitz=3)
    with pytest.raises(ValueError, match="Unknown activation 'relux'"):
        L.Dense(3, activation="relux")
    with pytest.raises(ValueError, match="Unknown initializer 'glorot'"):
        L.Dense(3, kernel_initializer="glorot")
    conv = L.Conv2D(2, 3)
    conv(tx.ones([1, 5, 5, 3]))
    with pytest.raises(ValueError, match=r'Input 0 of layer "conv2d.*" is incompatible with the layer: expected '
                                         r"axis -1 of input shape to have value 3, but received input with shape "
                                         r"\(1, 5, 5, 4\)"):
        conv(tx.ones([1, 5, 5, 4]))
    with pytest.raises(ValueError, match=r"expected ndim=4, found ndim=3. Full shape received: \(5, 5, 3\)"):
        conv(tx.ones([5, 5, 3]))
    with pytest.raises(ValueError, match="A `Concatenate` layer should be called on a list of inputs"):
        L.Concatenate()(tx.ones([2, 3]))
    with pytest.raises(tx.errors.InvalidArgumentError, match="CategoryEncoding: input values must be in the range"):
        L.CategoryEncoding(3)(tx.constant([[0, 5]]))
    with pytest.raises(NotImplementedError, match="interpolation='bilinear'"):
        L.UpSampling2D(interpolation="bilinear")
    x = keras.Input((3,))
    with pytest.raises(TypeError, match="KerasTensor is symbolic"):
        np.asarray(x)


@pytest.mark.parametrize("make", [lambda: L.LSTM(3, return_sequences=True, go_backwards=True),
                                  lambda: L.GRU(3, return_state=True),
                                  lambda: L.SimpleRNN(3, return_sequences=True, zero_output_for_mask=True)])
def test_recurrent_loop_agrees_eager_traced_and_unrolled(make):
    x = rng.standard_normal((3, 6, 4)).astype(np.float32)
    mask = np.ones((3, 6), bool)
    mask[1, 4:] = False
    layer = make()
    eager = layer(tx.constant(x), mask=tx.constant(mask))
    traced = tx.function(lambda v, m: layer(v, mask=m))(tx.constant(x), tx.constant(mask))
    unrolled = type(layer).from_config(dict(layer.get_config(), unroll=True))
    unrolled(tx.constant(x))
    unrolled.set_weights(layer.get_weights())
    run_unrolled = tx.function(lambda v, m: unrolled(v, mask=m))
    got_unrolled = run_unrolled(tx.constant(x), tx.constant(mask))
    graph = run_unrolled.get_concrete_function(tx.constant(x), tx.constant(mask)).graph
    assert not any(op.type in ("While", "StatelessWhile") for op in graph.get_operations())  # Python steps
    for a, b, c in zip(tx.nest.flatten(eager), tx.nest.flatten(traced), tx.nest.flatten(got_unrolled)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-6)


def test_recurrent_dropout_only_while_training():
    layer = L.LSTM(4, dropout=0.5, recurrent_dropout=0.5, return_sequences=True)
    x = tx.constant(rng.standard_normal((2, 5, 3)).astype(np.float32))
    inference = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), inference)
    step = tx.function(lambda v: layer(v, training=True))
    assert not np.allclose(step(x).numpy(), inference)
    with pytest.raises(NotImplementedError, match="stateful RNNs"):
        L.LSTM(2, stateful=True)
