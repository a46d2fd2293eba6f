"""The model zoo of issue 17: Keras 3 models (keras.applications with random weights, recurrent
layers, a transformer block, a dilated Conv1D, a U-Net), each frozen by TensorFlow's own
convert_variables_to_constants_v2 (which lowers the RNNs' While loops to Enter/Merge/Switch/Exit),
imported here and run; outputs equal TensorFlow's. The zoo's TensorFlow 1 graphs (tf.compat.v1
while_loop/cond, frozen) are test_tf1_control_flow.py's.
Inputs are small (32x32 images; 75 and 71 for InceptionV3 and Xception, the smallest they accept)
so each model stays quick; the applications are compared on their logits (no softmax, which would
squash random-weight outputs to 0.1 everywhere). The frozen graphs are written by TensorFlow in the
test, nothing is checked in.

Note [Model zoo tolerance]
With random weights the activations of the deep applications shrink layer by layer (MobileNetV2's
logits are about 1e-12, EfficientNetB0's 1e-8), so an absolute tolerance would compare nothing:
outputs must agree to 1e-4 relative to the largest output magnitude (and elementwise rtol 1e-4).

The text model (StringLookup, TextVectorization, an Embedding) is built in a TensorFlow 1 graph:
its lookup tables are graph ops there (HashTableV2 filled by LookupTableImportV2 under
`init_all_tables`), while a tf.function's frozen graph would leave them as captured inputs that a
GraphDef cannot carry. It is frozen with tf.compat.v1's convert_variables_to_constants."""

import numpy as np
import pytest

import tensorflux as tx

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2  # noqa: E402

L = keras.layers


def _application(name, size):
    def build():
        model = getattr(keras.applications, name)(weights=None, input_shape=(size, size, 3), classes=10,
                                                  classifier_activation=None)
        return model, (2, size, size, 3)
    return build


def _recurrent(kind):
    def build():
        inp = keras.Input((6, 4))
        if kind == "Bidirectional":
            x = L.Bidirectional(L.LSTM(5, return_sequences=True))(inp)
        else:
            x = getattr(L, kind)(5, return_sequences=True)(inp)
        x = L.GRU(3)(x) if kind == "LSTM" else L.Dense(3)(x)  # the LSTM+GRU model of the issue
        return keras.Model(inp, x), (2, 6, 4)
    return build


def _transformer():
    inp = keras.Input((8, 16))
    x = L.LayerNormalization()(inp + L.MultiHeadAttention(num_heads=2, key_dim=8)(inp, inp))
    f = L.Dense(32, activation="gelu")(x)  # exact gelu: Erfc
    f = L.Dense(16, activation=lambda v: keras.activations.gelu(v, approximate=True))(f)
    return keras.Model(inp, L.LayerNormalization()(x + f)), (2, 8, 16)


def _dilated_conv1d():
    inp = keras.Input((20, 8))
    x = L.Conv1D(6, 3, dilation_rate=2, padding="same", activation="relu")(inp)  # SpaceToBatchND
    x = L.Conv1D(6, 3, dilation_rate=4, padding="causal")(x)
    return keras.Model(inp, L.Dense(2)(L.GlobalMaxPooling1D()(x))), (2, 20, 8)


def _unet():
    inp = keras.Input((16, 16, 3))
    c1 = L.Conv2D(4, 3, padding="same", activation="relu")(inp)
    c2 = L.Conv2D(8, 3, padding="same", activation="relu")(L.MaxPooling2D()(c1))
    up = L.Conv2DTranspose(4, 2, strides=2, padding="same")(c2)
    nearest = L.Conv2D(4, 1)(L.UpSampling2D()(c2))
    x = L.Resizing(12, 12)(L.Concatenate()([c1, up, nearest]))  # ResizeBilinear
    return keras.Model(inp, L.Conv2D(1, 1)(x)), (2, 16, 16, 3)


APPLICATIONS = {name: _application(name, size) for name, size in [
    ("MobileNetV2", 32), ("MobileNetV3Small", 32), ("ResNet50", 32), ("EfficientNetB0", 32), ("DenseNet121", 32),
    ("InceptionV3", 75), ("Xception", 71), ("ConvNeXtTiny", 32), ("VGG16", 32), ("NASNetMobile", 32)]}
OTHERS = {"LSTM_GRU": _recurrent("LSTM"), "GRU": _recurrent("GRU"), "SimpleRNN": _recurrent("SimpleRNN"),
          "BidirectionalLSTM": _recurrent("Bidirectional"), "transformer": _transformer,
          "dilated_conv1d": _dilated_conv1d, "unet": _unet}
# Ops each model's frozen graph must hold: the ones the issue added for it.
EXPECTED_OPS = {"LSTM_GRU": {"Enter", "TensorListFromTensor", "TensorListStack"}, "transformer": {"Einsum", "Erfc"},
                "dilated_conv1d": {"SpaceToBatchND", "BatchToSpaceND"},
                "unet": {"Conv2DBackpropInput", "ResizeBilinear"}}


def _run_imported(graph_def, inputs, outputs, feeds):
    with tx.Graph().as_default():
        tensors = tx.import_graph_def(graph_def.SerializeToString(), return_elements=inputs + outputs, name="")
        with tx.Session() as s:
            return s.run(tensors[len(inputs):], dict(zip(tensors[:len(inputs)], feeds)))


@pytest.mark.parametrize("name", [*APPLICATIONS, *OTHERS])
def test_frozen_keras_model_matches_tensorflow(name):
    keras.utils.set_random_seed(17)
    model, shape = {**APPLICATIONS, **OTHERS}[name]()
    fn = tf.function(lambda x: model(x, training=False), input_signature=[tf.TensorSpec([None, *shape[1:]])])
    frozen = convert_variables_to_constants_v2(fn.get_concrete_function())
    graph_def = frozen.graph.as_graph_def()
    assert EXPECTED_OPS.get(name, set()) <= {n.op for n in graph_def.node}
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    want = frozen(tf.constant(x))
    want = [w.numpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
    got = _run_imported(graph_def, [t.name for t in frozen.inputs], [t.name for t in frozen.outputs], [x])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        # The tolerance follows the output's scale (Note [Model zoo tolerance]).
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * float(np.abs(w).max()))



def _text_classifier():
    """A TensorFlow 1 graph: strings -> TextVectorization -> Embedding -> mean, with StringLookup
    one-hot features, -> Dense; tables filled by init_all_tables; frozen."""
    graph = tf.Graph()
    with graph.as_default():
        keras.utils.set_random_seed(17)
        text = tf.compat.v1.placeholder(tf.string, [None], name="text")
        vectorize = L.TextVectorization(max_tokens=20, output_sequence_length=6,
                                        vocabulary=["the", "cat", "sat", "on", "mat"])
        tokens = tf.identity(vectorize(text), name="tokens")  # StringSplitV2 + RaggedTensorToTensor
        pooled = L.GlobalAveragePooling1D()(L.Embedding(20, 4)(tokens))
        ids = tf.identity(L.StringLookup(vocabulary=["a", "b", "c"])(text), name="ids")
        tf.identity(L.Dense(3)(tf.concat([pooled, tf.one_hot(ids, 4)], 1)), name="logits")
        init = tf.compat.v1.tables_initializer(name="init_all_tables")
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run([init, tf.compat.v1.global_variables_initializer()])
            return tf.compat.v1.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["logits", "ids", "tokens", "init_all_tables"])


def test_frozen_text_model_matches_tensorflow():
    graph_def = _text_classifier()
    assert {"HashTableV2", "LookupTableImportV2", "LookupTableFindV2", "RaggedTensorToTensor"} <= {
        n.op for n in graph_def.node}
    text = np.array([b"a", b"the cat", b"zzz sat b", b"The  CAT, sat on the mat!", b""], dtype=object)
    fetches = ["logits:0", "ids:0", "tokens:0"]
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run("init_all_tables")
            want = sess.run(fetches, {"text:0": text})
    with tx.Graph().as_default() as graph:
        tx.import_graph_def(graph_def.SerializeToString(), name="")
        with tx.Session() as sess:
            with pytest.raises(tx.errors.FailedPreconditionError, match="Table not initialized"):
                sess.run(fetches, {"text:0": text})
            sess.run(graph.get_operation_by_name("init_all_tables"))
            got = sess.run(fetches, {"text:0": text})
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-6)
    for g, w in zip(got[1:], want[1:]):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
