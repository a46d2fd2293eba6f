"""tx.image against tf.image (skipped without TensorFlow): every function on the same inputs,
values (and, for the differentiable ones, gradients through tx.GradientTape vs
tf.GradientTape); the stateless random functions give TensorFlow's values for the same seed."""

import numpy as np
import pytest
import tensorflux as tx

tf = pytest.importorskip("tensorflow")

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(11)


def _img(*shape, dtype=np.float32, low=0.0, high=1.0):
    x = RNG.uniform(low, high, size=shape)
    return x.astype(dtype) if np.dtype(dtype).kind == "f" else np.round(x).astype(dtype)


def _check(got, want, rtol=1e-5, atol=1e-5):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


def _both(name, *args, rtol=1e-5, atol=1e-5, **kwargs):
    """tx.image.<name>(*args, **kwargs) equals tf.image.<name>(...)."""
    tf_args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    want = getattr(tf.image, name)(*tf_args, **kwargs)
    got = getattr(tx.image, name)(*args, **kwargs)  # NumPy arrays in: tx converts them
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            _check(g.numpy(), w.numpy(), rtol, atol)
    else:
        _check(got.numpy(), want.numpy(), rtol, atol)


METHODS = ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("size", [(7, 9), (3, 2), (5, 5)])
def test_resize_methods(method, antialias, size):
    for x in (_img(5, 5, 3), _img(2, 6, 4, 1, low=-3, high=3), _img(4, 5, 2, dtype=np.uint8, high=255)):
        _both("resize", x, size, method=method, antialias=antialias, rtol=2e-5, atol=2e-4)


def test_resize_preserve_aspect_ratio_and_float64():
    _both("resize", _img(6, 10, 3), [12, 12], preserve_aspect_ratio=True)
    _both("resize", _img(2, 6, 10, 3), [5, 30], preserve_aspect_ratio=True, method="nearest")
    _both("resize", _img(4, 4, 1, dtype=np.float64), [8, 3], method="nearest")
    _both("resize", _img(4, 4, 1, dtype=np.float64), [8, 3], method="bicubic")


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "lanczos3"])
def test_resize_gradients(method):
    x = _img(2, 5, 6, 3, low=-1, high=1)
    dy_shape = (2, 8, 4, 3)
    dy = RNG.standard_normal(dy_shape).astype(np.float32)
    with tf.GradientTape() as tape:
        tx_in = tf.constant(x)
        tape.watch(tx_in)
        want = tape.gradient(tf.image.resize(tx_in, [8, 4], method=method), tx_in, output_gradients=tf.constant(dy))
    t = tx.constant(x)
    with tx.GradientTape() as ttape:
        ttape.watch(t)
        y = tx.image.resize(t, [8, 4], method=method)
    got = ttape.gradient(y, t, output_gradients=tx.constant(dy))
    _check(got.numpy(), want.numpy(), 1e-5, 1e-5)


def test_resize_with_pad_and_crop_or_pad():
    for args in [(_img(4, 8, 3), 8, 8), (_img(2, 9, 4, 1), 5, 7), (_img(6, 6, 2), 3, 12)]:
        _both("resize_with_pad", *args)
        _both("resize_with_crop_or_pad", *args)
    _both("resize_with_pad", _img(4, 8, 3), 5, 5, method="nearest", antialias=True)


def test_geometry():
    x3, x4 = _img(5, 7, 3), _img(2, 5, 7, 3)
    for x in (x3, x4):
        for name in ("flip_left_right", "flip_up_down", "transpose"):
            _both(name, x)
        for k in (0, 1, 2, 3, -1, 6):
            _both("rot90", x, k=k)
        _both("central_crop", x, 0.5)
        _both("central_crop", x, 1.0)
        _both("central_crop", x, 0.33)
        _both("crop_to_bounding_box", x, 1, 2, 3, 4)
        _both("pad_to_bounding_box", x, 1, 2, 8, 11)
        _both("total_variation", x)
    _both("image_gradients", x4)
    _both("sobel_edges", x4)
    _both("rot90", x4, k=tf.constant(3))


def test_extract_patches_and_crop_and_resize():
    x = _img(2, 7, 8, 3)
    _both("extract_patches", x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
    _both("extract_patches", x, [1, 2, 3, 1], [1, 3, 2, 1], [1, 2, 1, 1], "VALID")
    boxes = RNG.uniform(-0.1, 1.1, (5, 4)).astype(np.float32)
    for method in ("bilinear", "nearest"):
        _both("crop_and_resize", x, boxes, [0, 1, 1, 0, 1], [3, 4], method=method, extrapolation_value=0.5)


def test_color_conversions():
    x = _img(2, 4, 5, 3)
    for name in ("rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv", "rgb_to_grayscale", "per_image_standardization"):
        _both(name, x, rtol=1e-5, atol=2e-6)
    for name in ("hsv_to_rgb", "yiq_to_rgb", "yuv_to_rgb"):
        _both(name, x, rtol=1e-5, atol=2e-6)
    _both("grayscale_to_rgb", _img(3, 4, 1))
    _both("rgb_to_grayscale", _img(3, 4, 3, dtype=np.uint8, high=255))
    _both("per_image_standardization", _img(2, 3, 4, 3, dtype=np.uint8, high=255))
    _both("per_image_standardization", np.ones((3, 3, 1), np.float32))


@pytest.mark.parametrize("dtype,to", [(np.uint8, tf.float32), (np.float32, tf.uint8), (np.float32, tf.int16),
                                      (np.int32, tf.uint8), (np.uint8, tf.int32), (np.int16, tf.int64),
                                      (np.float64, tf.float32), (np.uint16, tf.uint8)])
@pytest.mark.parametrize("saturate", [False, True])
def test_convert_image_dtype(dtype, to, saturate):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    x = (_img(3, 4, dtype=dtype, low=info.min, high=info.max) if info else _img(3, 4, dtype=dtype, low=-0.2, high=1.2))
    want = tf.image.convert_image_dtype(x, to, saturate=saturate).numpy()
    got = tx.image.convert_image_dtype(x, tx.as_dtype(to.as_numpy_dtype), saturate=saturate).numpy()
    _check(got, want, 1e-6, 1e-6)


def test_adjustments():
    x = _img(2, 4, 5, 3)
    u8 = _img(4, 5, 3, dtype=np.uint8, high=255)
    for img in (x, u8):
        _both("adjust_brightness", img, 0.2)
        _both("adjust_contrast", img, 1.7)
        _both("adjust_gamma", img, 0.8, 1.1)
        _both("adjust_hue", img, -0.3, atol=2e-6)
        _both("adjust_saturation", img, 1.6, atol=2e-6)


def test_stateless_random_functions_match_tensorflow():
    x = _img(2, 6, 5, 3)
    for seed in ([1, 2], [7, -3], [123, 456]):
        for img in (x, x[0]):
            _both("stateless_random_flip_left_right", img, seed)
            _both("stateless_random_flip_up_down", img, seed)
        _both("stateless_random_brightness", x, 0.3, seed)
        _both("stateless_random_contrast", x, 0.2, 1.8, seed)
        _both("stateless_random_saturation", x, 0.2, 1.8, seed, atol=2e-6)
        _both("stateless_random_hue", x, 0.4, seed, atol=2e-6)
        _both("stateless_random_crop", x, [2, 3, 4, 3], seed)
        _both("stateless_random_crop", x[0], [4, 2, 3], seed)


def test_random_functions_keep_shapes_and_values():
    """Stateful random functions draw differently from TensorFlow; they flip/crop/shift correctly."""
    x = _img(4, 3, 5, 2)
    flipped = tx.image.random_flip_left_right(x, seed=3).numpy()
    for got, orig in zip(flipped, x):
        assert np.array_equal(got, orig) or np.array_equal(got, orig[:, ::-1])
    crop = tx.image.random_crop(x[0], [2, 2, 2], seed=5).numpy()
    windows = [x[0][i:i + 2, j:j + 2] for i in range(2) for j in range(4)]
    assert any(np.array_equal(crop, w) for w in windows)
    delta = tx.image.random_brightness(x, 0.25, seed=1).numpy() - x
    assert np.ptp(delta) < 1e-6 and abs(delta.flat[0]) <= 0.25


def test_non_max_suppression_family():
    n = 40
    corner = RNG.uniform(0, 1, (n, 2))
    boxes = np.concatenate([corner, corner + RNG.uniform(0.05, 0.4, (n, 2))], 1).astype(np.float32)
    scores = RNG.uniform(0, 1, n).astype(np.float32)
    _both("non_max_suppression", boxes, scores, 10, 0.4)
    _both("non_max_suppression", boxes, scores, 30, 0.6, 0.3)
    _both("non_max_suppression_with_scores", boxes, scores, 10, 0.4, 0.1, 0.5)
    _both("non_max_suppression_with_scores", boxes, scores, 10, 0.4)
    _both("non_max_suppression_padded", boxes, scores, 10, 0.4, pad_to_max_output_size=True)
    _both("non_max_suppression_padded", boxes, scores, 12, 0.5)
    batched_boxes = np.stack([boxes, boxes[::-1]]).reshape(2, 1, n, 4)
    batched_scores = np.stack([scores, scores[::-1] * 0.9]).reshape(2, 1, n)
    _both("non_max_suppression_padded", batched_boxes, batched_scores, 7, 0.5, pad_to_max_output_size=True)


def test_draw_bounding_boxes():
    x = _img(2, 10, 12, 3)
    boxes = np.array([[[0.1, 0.1, 0.5, 0.6], [-0.2, 0.3, 0.8, 1.5]], [[0, 0, 1, 1], [0.3, 0.3, 0.31, 0.31]]],
                     np.float32)
    _both("draw_bounding_boxes", x, boxes, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    _both("draw_bounding_boxes", x, boxes, None)


def test_metrics():
    a, b = _img(2, 16, 17, 3), _img(2, 16, 17, 3)
    _both("psnr", a, b, 1.0)
    _both("psnr", (a * 255).astype(np.uint8), (b * 255).astype(np.uint8), 255)
    _both("ssim", a, b, 1.0, atol=1e-5)
    _both("ssim", a, (a * 0.9 + 0.05), 1.0, filter_size=5, filter_sigma=1.0, atol=1e-5)
    _both("ssim", a[0], b[0], 1.0, return_index_map=True, atol=1e-5)
    big_a, big_b = _img(1, 41, 40, 1), _img(1, 41, 40, 1)
    _both("ssim_multiscale", big_a, big_a * 0.8 + big_b * 0.2, 1.0, power_factors=(0.3, 0.3, 0.4), filter_size=5,
          atol=1e-5)


def test_functions_trace_into_tx_function():
    """The composites also build inside tx.function (a graph), with the same values."""
    x = _img(2, 6, 5, 3)

    @tx.function
    def pipeline(img):
        img = tx.image.resize(img, [8, 8], method="bicubic")
        img = tx.image.adjust_saturation(tx.image.flip_left_right(img), 1.3)
        return tx.image.central_crop(tx.image.rot90(img, 1), 0.5)

    want = tf.image.central_crop(tf.image.rot90(tf.image.adjust_saturation(
        tf.image.flip_left_right(tf.image.resize(x, [8, 8], method="bicubic")), 1.3), 1), 0.5)
    _check(pipeline(tx.constant(x)).numpy(), want.numpy(), 1e-5, 2e-6)


def test_combined_and_overlap_nms():
    corner = RNG.uniform(-0.1, 1.0, (2, 25, 3, 2))
    boxes = np.concatenate([corner, corner + RNG.uniform(0.05, 0.5, (2, 25, 3, 2))], -1).astype(np.float32)
    scores = RNG.uniform(0, 1, (2, 25, 3)).astype(np.float32)
    for pad, clip in ((False, True), (True, False)):
        _both("combined_non_max_suppression", boxes, scores, 4, 9, 0.45, 0.2, pad_per_class=pad, clip_boxes=clip)
        _both("combined_non_max_suppression", boxes[:, :, :1], scores, 6, 30, pad_per_class=pad, clip_boxes=clip)
    overlaps = RNG.uniform(0, 1, (18, 18)).astype(np.float32)
    _both("non_max_suppression_overlaps", overlaps, RNG.uniform(0, 1, 18).astype(np.float32), 9, 0.6, 0.1)


def test_sample_distorted_bounding_box_matches_tensorflow():
    for k in range(12):
        size = np.array([20 + 13 * k, 90 - 5 * k, 3], np.int32)
        lo = RNG.uniform(0, 0.5, (1, k % 3, 2))
        boxes = np.concatenate([lo, lo + RNG.uniform(0.2, 0.5, (1, k % 3, 2))], -1).clip(0, 1).astype(np.float32)
        kwargs = dict(min_object_covered=0.1 * (k % 4), aspect_ratio_range=(0.6, 1.8), area_range=(0.2, 0.95),
                      max_attempts=5 + 10 * k, use_image_if_no_bounding_boxes=True)
        _both("stateless_sample_distorted_bounding_box", size, boxes, [k, 11 - k], **kwargs)
        # The stateful op with the same (seed, seed2) draws TensorFlow's crop too.
        raw = dict(image_size=size, bounding_boxes=boxes, min_object_covered=np.float32(kwargs["min_object_covered"]),
                   seed=3, seed2=k + 1, aspect_ratio_range=[0.6, 1.8], area_range=[0.2, 0.95],
                   max_attempts=kwargs["max_attempts"], use_image_if_no_bounding_boxes=True)
        want = tf.raw_ops.SampleDistortedBoundingBoxV2(**raw)
        got = tx.raw_ops.SampleDistortedBoundingBoxV2(**raw)
        for g, w in zip(got, want):
            _check(g.numpy(), w.numpy())


def test_tensorflow_graph_with_image_ops_imports_and_runs():
    """A TensorFlow GraphDef using the image ops (as a Keras Resizing layer or a detection head
    writes them) imports here and gives TensorFlow's values."""
    x = _img(2, 9, 11, 3)
    with tf.Graph().as_default() as g:
        images = tf.compat.v1.placeholder(tf.float32, [None, 9, 11, 3], name="images")
        up = tf.image.resize(images, [16, 20])
        small = tf.image.resize(up, [7, 5], method="bicubic", antialias=True)
        near = tf.image.resize(images, [4, 4], method="nearest")
        crops = tf.image.crop_and_resize(up, [[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0]], [1, 0], [5, 6])
        hsv = tf.image.adjust_saturation(tf.image.adjust_hue(images, 0.2), 1.5)
        out = tf.identity(tf.reduce_sum(small) + tf.reduce_sum(near) + tf.reduce_sum(crops) + tf.reduce_sum(hsv),
                          name="out")
        with tf.compat.v1.Session(graph=g) as s:
            want = s.run([small, near, crops, hsv, out], {images: x})
        names = [t.name for t in (small, near, crops, hsv, out)]
        graph_def = g.as_graph_def()
    with tx.Graph().as_default():
        results = tx.import_graph_def(graph_def, return_elements=["images:0"] + names, name="tf")
        with tx.Session() as s:
            got = s.run(results[1:], {results[0]: x})
    for gv, wv in zip(got, want):
        np.testing.assert_allclose(gv, wv, rtol=1e-5, atol=1e-4)
