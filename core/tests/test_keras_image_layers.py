"""Resizing and UpSampling2D(interpolation=...) against Keras 3 on TensorFlow, on the same images."""

import numpy as np
import pytest

import tensorflux as tx
from keras_parity import keras3

pytestmark = pytest.mark.eager

L = tx.keras.layers


def _config(layer):
    """A layer's config as JSON values, without its (generated) name."""
    import json
    return {k: v for k, v in json.loads(json.dumps(layer.get_config())).items() if k != "name"}
rng = np.random.default_rng(7)
IMAGES = rng.random((2, 6, 9, 3)).astype(np.float32)

RESIZING = {
    "bilinear_up": dict(height=8, width=12),
    "bilinear_down_antialias": dict(height=3, width=4, antialias=True),
    "nearest": dict(height=4, width=13, interpolation="nearest"),
    "bicubic": dict(height=7, width=5, interpolation="bicubic"),
    "bicubic_antialias": dict(height=3, width=5, interpolation="bicubic", antialias=True),
    "area": dict(height=3, width=4, interpolation="area"),
    "lanczos3": dict(height=5, width=7, interpolation="lanczos3"),
    "lanczos5": dict(height=9, width=7, interpolation="lanczos5", antialias=True),
    "crop_wide": dict(height=4, width=4, crop_to_aspect_ratio=True),
    "crop_tall": dict(height=5, width=2, crop_to_aspect_ratio=True, interpolation="nearest"),
    "pad_wide": dict(height=4, width=4, pad_to_aspect_ratio=True, fill_value=0.5),
    "pad_tall": dict(height=2, width=9, pad_to_aspect_ratio=True, interpolation="bicubic"),
    "channels_first": dict(height=4, width=5, data_format="channels_first"),
}


@pytest.mark.parametrize("name", sorted(RESIZING))
def test_resizing_matches_keras(name):
    K = keras3()
    kwargs = RESIZING[name]
    x = np.transpose(IMAGES, (0, 3, 1, 2)) if kwargs.get("data_format") == "channels_first" else IMAGES
    ours, theirs = L.Resizing(**kwargs), K.layers.Resizing(**kwargs)
    for images in (x, x[0]):
        got, want = ours(images).numpy(), np.asarray(theirs(images))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert _config(ours) == _config(theirs)


def test_resizing_integer_images_and_models_match_keras():
    K = keras3()
    pixels = (IMAGES * 255).astype(np.uint8)
    for kwargs in (dict(height=4, width=5), dict(height=4, width=5, interpolation="nearest")):
        got, want = L.Resizing(**kwargs)(pixels), K.layers.Resizing(**kwargs)(pixels)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), np.asarray(want))
    inputs = tx.keras.Input((None, None, 3))
    model = tx.keras.Model(inputs, L.Resizing(5, 5, crop_to_aspect_ratio=True)(inputs))
    assert model.output_shape == (None, 5, 5, 3)
    np.testing.assert_allclose(model.predict(IMAGES, verbose=0),
                               np.asarray(K.layers.Resizing(5, 5, crop_to_aspect_ratio=True)(IMAGES)), atol=1e-5)


@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic", "nearest", "area", "lanczos3"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_upsampling2d_interpolations_match_keras(interpolation, data_format):
    K = keras3()
    x = np.transpose(IMAGES, (0, 3, 1, 2)) if data_format == "channels_first" else IMAGES
    kwargs = dict(size=(2, 3), interpolation=interpolation, data_format=data_format)
    ours, theirs = L.UpSampling2D(**kwargs), K.layers.UpSampling2D(**kwargs)
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-5, atol=1e-5)
    assert _config(ours) == _config(theirs)


def test_upsampling2d_bilinear_trains_and_errors():
    inputs = tx.keras.Input((4, 4, 1))
    h = L.UpSampling2D(interpolation="bilinear")(L.Conv2D(2, 3, padding="same")(inputs))
    model = tx.keras.Model(inputs, L.GlobalAveragePooling2D()(h))
    assert h.shape == (None, 8, 8, 2)
    model.compile(optimizer="sgd", loss="mse")
    x = rng.random((16, 4, 4, 1)).astype(np.float32)
    losses = model.fit(x, x.mean(axis=(1, 2)).repeat(2, axis=1), epochs=3, verbose=0).history["loss"]
    assert losses[-1] < losses[0]  # gradients flow through ResizeBilinear
    with pytest.raises(ValueError, match="Invalid value for argument `interpolation`"):
        L.UpSampling2D(interpolation="cubic")
    with pytest.raises(ValueError, match="Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio`"):
        L.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="Invalid images rank: expected rank 3"):
        L.Resizing(2, 2)(tx.ones([2, 3]))
