"""tx.keras saving: ``.keras`` files (config + safetensors weights + optimizer state) restored in a
fresh process with identical predictions, save_weights/load_weights with name and shape checks,
atomic writes, Keras 3 files loaded into tx.keras (interop), summary, and bad files."""

import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import tensorflux as tx
from keras_parity import keras3

pytestmark = pytest.mark.eager
keras = tx.keras
rng = np.random.default_rng(3)


def _cnn(K):
    L = K.layers
    return K.Sequential([K.Input((8, 8, 1)), L.Conv2D(4, 3, activation="relu"), L.BatchNormalization(),
                         L.MaxPooling2D(), L.Flatten(), L.Dropout(0.3), L.Dense(3, activation="softmax")])


def _functional(K):
    L = K.layers
    a, b = K.Input((5,), name="a"), K.Input((7,), dtype="int32", name="ids")
    emb = L.GlobalAveragePooling1D()(L.Embedding(20, 4, mask_zero=True)(b))
    shared = L.Dense(6, activation="gelu")
    h = L.Concatenate()([shared(a), emb])
    h = L.LayerNormalization()(h)
    out1 = L.Dense(2, name="first")(h)
    out2 = L.Dense(1, activation="sigmoid", name="second")(L.Add()([shared(a), shared(a)]))
    return K.Model([a, b], [out1, out2])


def _rnn(K):
    L = K.layers
    inputs = K.Input((6,), dtype="int32")
    x = L.Embedding(30, 8, mask_zero=True)(inputs)
    x = L.Bidirectional(L.LSTM(5, return_sequences=True))(x)
    x = L.GRU(4, return_sequences=True)(x)
    x = L.MultiHeadAttention(2, 3)(x, x)
    x = L.SimpleRNN(3)(x)
    return K.Model(inputs, L.Dense(2)(x))


def _inputs(kind, n=4):
    if kind == "cnn":
        return rng.standard_normal((n, 8, 8, 1)).astype(np.float32)
    if kind == "functional":
        ids = rng.integers(0, 20, (n, 7)).astype(np.int32)
        ids[:, -2:] = 0
        return [rng.standard_normal((n, 5)).astype(np.float32), ids]
    ids = rng.integers(1, 30, (n, 6)).astype(np.int32)
    ids[0, 4:] = 0
    return ids


MODELS = {"cnn": _cnn, "functional": _functional, "rnn": _rnn}


def _same(a, b, rtol=1e-5, atol=1e-6):
    for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_keras_made_files_load_and_predict_the_same(kind, tmp_path):
    K = keras3()
    theirs = MODELS[kind](K)
    x = _inputs(kind)
    theirs.compile("adam", "mse")
    path = str(tmp_path / "theirs.keras")
    theirs.save(path)
    ours = keras.models.load_model(path)
    _same(ours.predict(x, verbose=0), theirs.predict(x, verbose=0), rtol=1e-4, atol=1e-5)
    assert [lyr.name for lyr in ours.layers] == [lyr.name for lyr in theirs.layers]
    assert ours.optimizer.name.lower().startswith("adam")
    # The weights alone, from Keras's .weights.h5, into a model built here.
    weights = str(tmp_path / "theirs.weights.h5")
    theirs.save_weights(weights)
    fresh = MODELS[kind](keras)
    fresh.load_weights(weights)
    _same(fresh.predict(x, verbose=0), theirs.predict(x, verbose=0), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_save_and_load_in_a_fresh_process(kind, tmp_path):
    model = MODELS[kind](keras)
    x = _inputs(kind)
    model.compile(keras.optimizers.Adam(1e-2), "mse")
    y = model.predict(x, verbose=0)
    model.fit(x, [np.zeros_like(v) for v in y] if isinstance(y, list) else np.zeros_like(y), epochs=1, verbose=0)
    path = str(tmp_path / "model.keras")
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["config.json", "metadata.json", "model.weights.safetensors"]
        config = json.loads(zf.read("config.json"))
    assert config["compile_config"]["optimizer"]["class_name"] == "Adam"
    np.savez(tmp_path / "x.npz", *(x if isinstance(x, list) else [x]))
    script = (
        "import sys, numpy as np, tensorflux as tx\n"
        "x = [v for _, v in sorted(np.load(sys.argv[2]).items(), key=lambda kv: int(kv[0].split('_')[1]))]\n"
        "x = x if len(x) > 1 else x[0]\n"
        "m = tx.keras.models.load_model(sys.argv[1])\n"
        "out = m.predict(x, verbose=0)\n"
        "np.savez(sys.argv[3], *(out if isinstance(out, list) else [out]))\n"
        "print(int(m.optimizer.iterations.numpy()))\n")
    res = subprocess.run([sys.executable, "-c", script, path, str(tmp_path / "x.npz"), str(tmp_path / "out.npz")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert int(res.stdout.split()[-1]) == int(model.optimizer.iterations.numpy()) > 0  # optimizer state restored
    got = [v for _, v in sorted(np.load(tmp_path / "out.npz").items(), key=lambda kv: int(kv[0].split("_")[1]))]
    want = model.predict(x, verbose=0)
    _same(got, want if isinstance(want, list) else [want], rtol=0, atol=0)


def test_save_weights_and_load_weights_check_names_and_shapes(tmp_path):
    model = _cnn(keras)
    x = _inputs("cnn")
    path = str(tmp_path / "w.weights.safetensors")
    model.save_weights(path)
    keys = sorted(tx.train.load_safetensors(path))
    assert keys[0] == "layers/batch_normalization/vars/0" and "layers/conv2d/vars/0" in keys
    other = _cnn(keras)
    other.load_weights(path)
    _same(other.predict(x, verbose=0), model.predict(x, verbose=0), rtol=0, atol=0)
    wider = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(5, 3), keras.layers.BatchNormalization(),
                              keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dropout(0.3),
                              keras.layers.Dense(3)])
    before = [w.copy() for w in wider.get_weights()]
    with pytest.raises(ValueError, match=r"layers/conv2d_?\d*/vars/0: the file has shape \(3, 3, 1, 4\), but weight "
                                         r".*kernel.* has shape \(3, 3, 1, 5\)") as info:
        wider.load_weights(path)
    assert "layers/batch_normalization/vars/0" in str(info.value)  # every problem listed
    for a, b in zip(wider.get_weights(), before):  # nothing was assigned
        np.testing.assert_array_equal(a, b)
    smaller = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(), keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="the file has weights the model does not: layers/batch_normalization"):
        smaller.load_weights(path)


def test_bad_keras_files_and_unsaveable_layers(tmp_path):
    model = _cnn(keras)
    path = str(tmp_path / "m.keras")
    model.save(path)
    data = open(path, "rb").read()
    truncated = str(tmp_path / "truncated.keras")
    with open(truncated, "wb") as f:
        f.write(data[:len(data) // 2])
    with pytest.raises(ValueError, match="Cannot read .*truncated.keras as a .keras file"):
        keras.models.load_model(truncated)
    mismatched = str(tmp_path / "mismatched.keras")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(mismatched, "w") as dst:
        config = json.loads(src.read("config.json"))
        config["config"]["layers"][-1]["config"]["units"] = 5
        dst.writestr("config.json", json.dumps(config))
        dst.writestr("metadata.json", src.read("metadata.json"))
        dst.writestr("model.weights.safetensors", src.read("model.weights.safetensors"))
    with pytest.raises(ValueError, match=r"(?s)do not fit model .*the file has shape \(36, 3\).*\(36, 5\)"):
        keras.models.load_model(mismatched)
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(str(tmp_path / "missing.keras"))
    with pytest.raises(ValueError, match="add the `.keras` extension"):
        model.save(str(tmp_path / "model.h5"))

    class Scale(keras.layers.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    custom = keras.Sequential([keras.Input((2,)), Scale(np.float32(2.0))])
    target = str(tmp_path / "custom.keras")
    with pytest.raises(NotImplementedError, match="Layer Scale was created by passing non-serializable argument "
                                                  "values in `__init__\\(\\)`.*must override `get_config\\(\\)`"):
        custom.save(target)
    assert not os.path.exists(target)
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]  # no temporary left behind
    keras.Sequential([keras.Input((2,)), Scale(2.0)]).save(target)  # JSON arguments are saved automatically
    with pytest.raises(ValueError, match="Could not locate layer class 'Scale'"):
        keras.models.load_model(target)
    again = keras.models.load_model(target, custom_objects={"Scale": Scale})
    np.testing.assert_allclose(again.predict(np.ones((1, 2), np.float32), verbose=0), [[2.0, 2.0]])


def test_lambda_layers_load_only_with_safe_mode_off(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda v: v * 3.0 + 1.0)])
    path = str(tmp_path / "lambda.keras")
    model.save(path)
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.models.load_model(path)
    again = keras.models.load_model(path, safe_mode=False)
    np.testing.assert_allclose(again.predict(np.ones((1, 3), np.float32), verbose=0), [[4.0, 4.0, 4.0]])


def test_registered_custom_objects_and_config_round_trips(tmp_path):
    @keras.saving.register_keras_serializable(package="tests")
    class Offset(keras.layers.Layer):
        def __init__(self, value=1.0, **kwargs):
            super().__init__(**kwargs)
            self.value = value

        def build(self, input_shape):
            self.b = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="b")

        def call(self, x):
            return x + self.b * self.value

        def get_config(self):
            return dict(super().get_config(), value=self.value)

    model = keras.Sequential([keras.Input((2,)), Offset(2.0), keras.layers.Dense(1)])
    path = str(tmp_path / "offset.keras")
    model.save(path)
    again = keras.models.load_model(path)
    x = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0))
    functional = _functional(keras)
    clone = keras.models.model_from_json(functional.to_json())
    assert [type(lyr).__name__ for lyr in clone.layers] == [type(lyr).__name__ for lyr in functional.layers]
    assert [w.shape for w in clone.weights] == [w.shape for w in functional.weights]
    assert clone.output_names == functional.output_names


def test_our_configs_are_keras_configs():
    K = keras3()
    for kind in sorted(MODELS):
        ours = MODELS[kind](keras)
        theirs = K.models.model_from_json(ours.to_json())  # Keras 3 reads our config
        assert [type(lyr).__name__ for lyr in theirs.layers] == [type(lyr).__name__ for lyr in ours.layers]
        assert [tuple(w.shape) for w in theirs.weights] == [tuple(w.shape.as_list()) for w in ours.weights]


def test_summary_prints_keras_table():
    lines = []
    _functional(keras).summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert text.startswith('Model: "functional')
    assert "Layer (type)" in text and "Output Shape" in text and "Param #" in text and "Connected to" in text
    assert "(None, 2)" in text and "shared" not in text
    total = sum(int(np.prod(w.shape.as_list())) for w in _functional(keras).weights)
    assert (" Total params: {:,} ".format(total)) in text
    lines = []
    _cnn(keras).summary(print_fn=lines.append)
    assert any("conv2d" in ln and "(None, 6, 6, 4)" in ln and "40" in ln for ln in lines)
    assert any(ln.startswith(" Non-trainable params: 8 ") for ln in lines)


def test_train_checkpoint_tracks_keras_models(tmp_path):
    keras.backend.clear_session()  # optimizer slots are keyed by variable names: both models get the same
    model = _cnn(keras)
    model.compile("adam", "sparse_categorical_crossentropy")
    x = _inputs("cnn", 8)
    model.fit(x, np.zeros(8, np.int32), epochs=1, verbose=0)
    ckpt = tx.train.Checkpoint(model=model, optimizer=model.optimizer)
    path = ckpt.save(str(tmp_path / "ckpt"))
    keys = sorted(tx.train.load_safetensors(path))
    assert "model/layers/conv2d/vars/0" in keys and any(k.startswith("optimizer/") for k in keys)
    keras.backend.clear_session()
    twin = _cnn(keras)
    twin.compile("adam", "sparse_categorical_crossentropy")
    twin.optimizer.build(twin.trainable_variables)
    tx.train.Checkpoint(model=twin, optimizer=twin.optimizer).restore(path).assert_consumed()
    _same(twin.predict(x, verbose=0), model.predict(x, verbose=0), rtol=0, atol=0)
