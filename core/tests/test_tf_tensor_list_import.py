"""Frozen TensorFlow graphs holding TensorList ops (a tf.TensorArray in a tf.function, Keras RNN
layers) import and run here with TensorFlow's outputs; frozen with TensorFlow's default lowered
control flow (Switch/Merge/Enter/Exit, rebuilt into While at import) and without it."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")

RNG = np.random.default_rng(11)
LIST_OPS = {"TensorListReserve", "TensorListFromTensor", "TensorListStack", "TensorListGetItem",
            "TensorListSetItem"}


def _freeze(fn, specs, lower):
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    concrete = tf.function(fn, input_signature=specs).get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=lower)
    return frozen, frozen.graph.as_graph_def()


def _ops(gd):
    return {n.op for n in gd.node} | {n.op for f in gd.library.function for n in f.node_def}


def _compare(frozen, gd, cases, rtol=1e-5, atol=1e-6):
    inputs = [t.name for t in frozen.inputs]
    outputs = [t.name for t in frozen.outputs]
    with tx.Graph().as_default():
        tensors = tx.import_graph_def(gd.SerializeToString(), return_elements=inputs + outputs, name="")
        xs, ys = tensors[:len(inputs)], tensors[len(inputs):]
        with tx.Session() as s:
            for values in cases:
                want = frozen(*[tf.constant(v) for v in values])
                want = [w.numpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
                got = s.run(ys, dict(zip(xs, values)))
                for a, b in zip(got, want):
                    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        return ys


def _tensor_array_fn(x):
    steps = tf.shape(x)[0]
    rows = tf.TensorArray(tf.float32, size=steps).unstack(x)

    def body(t, h, out):
        h = tf.tanh(rows.read(t) + h * 0.5)
        return t + 1, h, out.write(t, h)

    _, h, out = tf.while_loop(lambda t, h, out: t < steps, body,
                              [0, tf.zeros(tf.shape(x)[1:]), tf.TensorArray(tf.float32, size=steps)])
    return out.stack(), h


@pytest.mark.parametrize("lower", [True, False])
def test_tensor_array_function(lower):
    frozen, gd = _freeze(_tensor_array_fn, [tf.TensorSpec([None, 3], tf.float32)], lower)
    assert {"TensorListReserve", "TensorListFromTensor", "TensorListStack"} <= _ops(gd)
    assert ("Enter" in _ops(gd)) == lower
    ys = _compare(frozen, gd, [(RNG.standard_normal((n, 3)).astype(np.float32),) for n in (1, 4, 9)])
    assert ys[0].shape.as_list() == [None, 3]  # the element shape flowed through the loop


def _keras_model(layer, return_sequences):
    import keras

    inp = keras.Input((5, 4))
    out = layer(6, return_sequences=return_sequences)(inp)
    return keras.Model(inp, keras.layers.Dense(2)(out))


@pytest.mark.parametrize("kind,seq", [("LSTM", False), ("LSTM", True), ("GRU", False), ("SimpleRNN", True)])
def test_keras_rnn(kind, seq):
    import keras

    keras.utils.set_random_seed(4)
    model = _keras_model(getattr(keras.layers, kind), seq)
    frozen, gd = _freeze(lambda x: model(x), [tf.TensorSpec([None, 5, 4], tf.float32)], True)
    assert LIST_OPS & _ops(gd) and "Enter" in _ops(gd)
    cases = [(RNG.standard_normal((b, 5, 4)).astype(np.float32),) for b in (1, 3)]
    _compare(frozen, gd, cases, rtol=1e-4, atol=1e-5)
