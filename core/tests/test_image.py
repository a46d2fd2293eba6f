"""tx.image against NumPy/SciPy references (TensorFlow not needed), in eager and graph mode, and
its errors on bad input: wrong ranks, bad sizes, boxes out of range, mismatched shapes."""

import colorsys

import numpy as np
import pytest
import scipy.ndimage
import tensorflux as tx
from conformance import image_refs as ref

RNG = np.random.default_rng(3)


def _img(*shape, dtype=np.float32):
    return RNG.uniform(0, 1, shape).astype(dtype)


def _run(fn, *args):
    """fn(*args) eagerly and in a graph (through a Session): both results, which must agree."""
    eager = fn(*args)
    eager = [t.numpy() for t in eager] if isinstance(eager, (tuple, list)) else eager.numpy()
    with tx.Graph().as_default():
        out = fn(*[tx.constant(a) if isinstance(a, np.ndarray) else a for a in args])
        with tx.Session() as s:
            graph = s.run(list(out) if isinstance(out, (tuple, list)) else out)
    for e, g in zip(eager if isinstance(eager, list) else [eager], graph if isinstance(graph, list) else [graph]):
        np.testing.assert_array_equal(e, g)
    return eager


pytestmark = pytest.mark.eager


@pytest.mark.parametrize("method,matrix", [("bilinear", ref.bilinear_matrix), ("bicubic", ref.bicubic_matrix)])
def test_resize_interpolations_match_numpy(method, matrix):
    x = _img(2, 5, 7, 3)
    got = _run(lambda a: tx.image.resize(a, [9, 4], method=method), x)
    want = ref.apply_axes(x, matrix(5, 9, False, True), matrix(7, 4, False, True))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # A 3-D image gives the batch entry.
    np.testing.assert_allclose(tx.image.resize(x[1], [9, 4], method=method).numpy(), got[1], rtol=1e-6, atol=1e-6)


def test_resize_nearest_keeps_dtype_and_area_averages():
    x = (RNG.uniform(0, 255, (1, 4, 6, 1))).astype(np.uint8)
    near = _run(lambda a: tx.image.resize(a, [8, 3], method="nearest"), x)
    assert near.dtype == np.uint8
    np.testing.assert_array_equal(near, ref.resize_nearest(x, [8, 3], half_pixel_centers=True))
    area = _run(lambda a: tx.image.resize(a, [2, 3], method="area"), x)
    np.testing.assert_allclose(area[0, ..., 0], x[0, ..., 0].reshape(2, 2, 3, 2).mean(axis=(1, 3)), rtol=1e-5)


def test_resize_antialias_is_a_lowpass():
    """Downsampling a checkerboard: antialiased bilinear averages it to grey, plain bilinear aliases."""
    board = (np.indices((32, 32)).sum(0) % 2).astype(np.float32)[None, ..., None]
    aliased = tx.image.resize(board, [7, 7]).numpy()
    assert np.ptp(aliased) > 0.5
    for method in ("bilinear", "bicubic", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"):
        smooth = tx.image.resize(board, [7, 7], method=method, antialias=True).numpy()
        assert np.ptp(smooth) < 0.1 and abs(smooth.mean() - 0.5) < 0.02, method


def test_resize_preserve_aspect_ratio_fits_inside():
    out = tx.image.resize(_img(6, 10, 3), [12, 12], preserve_aspect_ratio=True)
    assert out.shape == (7, 12, 3)  # round(6 * 1.2) = 7


def test_crop_and_resize_matches_scipy_map_coordinates():
    x = _img(2, 7, 9, 2).astype(np.float64)
    boxes = np.array([[0.1, 0.2, 0.9, 0.7], [0.6, 0.1, 0.2, 0.8]], np.float32)
    got = tx.image.crop_and_resize(x, boxes, [1, 0], [4, 5]).numpy()
    for n, (box, b) in enumerate(zip(boxes.astype(np.float64), [1, 0])):
        ys = box[0] * 6 + np.arange(4) * (box[2] - box[0]) * 6 / 3
        xs = box[1] * 8 + np.arange(5) * (box[3] - box[1]) * 8 / 4
        yy, xx = np.meshgrid(ys, xs, indexing="ij")
        for c in range(2):
            want = scipy.ndimage.map_coordinates(x[b, ..., c], [yy, xx], order=1)
            np.testing.assert_allclose(got[n, ..., c], want, rtol=1e-5, atol=1e-5)


def test_geometry_matches_numpy():
    x = _img(2, 5, 7, 3)
    np.testing.assert_array_equal(_run(tx.image.flip_left_right, x), x[:, :, ::-1])
    np.testing.assert_array_equal(_run(tx.image.flip_up_down, x[0]), x[0, ::-1])
    np.testing.assert_array_equal(_run(tx.image.transpose, x), x.transpose(0, 2, 1, 3))
    for k in range(-2, 6):
        np.testing.assert_array_equal(tx.image.rot90(x[0], k).numpy(), np.rot90(x[0], k, axes=(0, 1)))
        np.testing.assert_array_equal(tx.image.rot90(x, k).numpy(), np.rot90(x, k, axes=(1, 2)))
    np.testing.assert_array_equal(_run(lambda a: tx.image.crop_to_bounding_box(a, 1, 2, 3, 4), x), x[:, 1:4, 2:6])
    padded = _run(lambda a: tx.image.pad_to_bounding_box(a, 1, 2, 8, 10), x[0])
    np.testing.assert_array_equal(padded, np.pad(x[0], [(1, 2), (2, 1), (0, 0)]))
    np.testing.assert_array_equal(_run(lambda a: tx.image.central_crop(a, 0.5), x[0]), x[0, 1:4, 1:6])
    np.testing.assert_array_equal(tx.image.resize_with_crop_or_pad(x[0], 3, 9).numpy(),
                                  np.pad(x[0, 1:4], [(0, 0), (1, 1), (0, 0)]))


def test_rot90_with_a_tensor_k_in_a_graph():
    x = _img(3, 4, 1)
    with tx.Graph().as_default():
        k = tx.placeholder(tx.int32, [])
        out = tx.image.rot90(tx.constant(x), k)
        with tx.Session() as s:
            for turns in range(4):
                np.testing.assert_array_equal(s.run(out, {k: turns}), np.rot90(x, turns))


def test_gradients_and_total_variation_match_numpy():
    x = _img(2, 4, 5, 3)
    dy, dx = _run(tx.image.image_gradients, x)
    np.testing.assert_allclose(dy, np.concatenate([np.diff(x, axis=1), np.zeros((2, 1, 5, 3))], 1), atol=1e-7)
    np.testing.assert_allclose(dx, np.concatenate([np.diff(x, axis=2), np.zeros((2, 4, 1, 3))], 2), atol=1e-7)
    tv = _run(tx.image.total_variation, x)
    np.testing.assert_allclose(tv,
                               np.abs(np.diff(x, axis=1)).sum((1, 2, 3)) + np.abs(np.diff(x, axis=2)).sum((1, 2, 3)),
                               rtol=1e-5)
    sobel = _run(tx.image.sobel_edges, x)
    padded = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    want_y = sum(ky[i, j] * padded[:, i:i + 4, j:j + 5] for i in range(3) for j in range(3))
    np.testing.assert_allclose(sobel[..., 0], want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sobel[..., 1], sum(ky.T[i, j] * padded[:, i:i + 4, j:j + 5] for i in range(3)
                                                  for j in range(3)), rtol=1e-5, atol=1e-5)


def test_color_functions_match_colorsys_and_numpy():
    x = _img(3, 4, 3).astype(np.float64)
    hsv = _run(tx.image.rgb_to_hsv, x)
    np.testing.assert_allclose(hsv, np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3)]).reshape(x.shape),
                               atol=1e-12)
    np.testing.assert_allclose(_run(tx.image.hsv_to_rgb, hsv), x, atol=1e-12)
    gray = _run(tx.image.rgb_to_grayscale, x.astype(np.float32))
    np.testing.assert_allclose(gray[..., 0], x @ [0.2989, 0.587, 0.114], rtol=1e-5)
    np.testing.assert_array_equal(_run(tx.image.grayscale_to_rgb, gray), np.repeat(gray, 3, -1))
    # TensorFlow's matrices are inverses to about 8 digits only.
    for fwd, back in ((tx.image.rgb_to_yuv, tx.image.yuv_to_rgb), (tx.image.rgb_to_yiq, tx.image.yiq_to_rgb)):
        np.testing.assert_allclose(back(fwd(x)).numpy(), x, atol=1e-4)
    np.testing.assert_allclose(tx.image.rgb_to_yuv(x).numpy(), x @ np.array(
        [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]))
    np.testing.assert_allclose(tx.image.adjust_hue(x.astype(np.float32), 0.3).numpy(), ref.adjust_hue(x, 0.3),
                               atol=1e-5)
    np.testing.assert_allclose(tx.image.adjust_saturation(x.astype(np.float32), 0.4).numpy(),
                               ref.adjust_saturation(x, 0.4), atol=1e-5)
    np.testing.assert_allclose(tx.image.adjust_contrast(x.astype(np.float32), 1.5).numpy(),
                               ref.adjust_contrast(x, 1.5), atol=1e-5)
    np.testing.assert_allclose(tx.image.adjust_gamma(x, 2.0, 0.5).numpy(), 0.5 * x ** 2, rtol=1e-6)
    std = _run(tx.image.per_image_standardization, x)
    np.testing.assert_allclose(std, (x - x.mean()) / x.std(), rtol=1e-4, atol=1e-5)


def test_convert_image_dtype_scales_and_saturates():
    u8 = np.array([0, 1, 127, 255], np.uint8)
    np.testing.assert_allclose(tx.image.convert_image_dtype(u8, tx.float32).numpy(), u8 / 255.0, rtol=1e-6)
    f = np.array([-0.5, 0.0, 0.5, 1.0, 1.5], np.float32)
    np.testing.assert_array_equal(tx.image.convert_image_dtype(f, tx.uint8, saturate=True).numpy(),
                                  [0, 0, 127, 255, 255])
    np.testing.assert_array_equal(tx.image.convert_image_dtype(u8, tx.int32).numpy(), u8.astype(np.int64) * 2**23)
    np.testing.assert_array_equal(tx.image.convert_image_dtype(np.array([2**31 - 1, 2**23], np.int32), tx.uint8)
                                  .numpy(), [255, 1])
    with pytest.raises(AttributeError, match="floating point or integer"):
        tx.image.convert_image_dtype(u8, tx.bool)


def test_psnr_and_ssim_match_numpy():
    a, b = _img(16, 16, 1), _img(16, 16, 1)
    mse = np.mean((a.astype(np.float64) - b) ** 2)
    np.testing.assert_allclose(float(tx.image.psnr(a, b, 1.0)), 10 * np.log10(1 / mse), rtol=1e-5)
    assert float(tx.image.ssim(a, a, 1.0)) == pytest.approx(1.0, abs=1e-6)
    # The same in a graph (depthwise filters keep their static window there too).
    assert _run(lambda p, q: tx.image.ssim(p, q, 1.0), a, b) < 0.5
    big = _img(2, 40, 44, 3)
    ms = _run(lambda p, q: tx.image.ssim_multiscale(p, q, 1.0, power_factors=(0.3, 0.3, 0.4), filter_size=5),
              big, big * 0.5 + 0.25)
    assert ms.shape == (2,) and np.all((0.5 < ms) & (ms < 1.0))
    # SSIM of a constant shift: luminance term only (structure is the same).
    s = float(tx.image.ssim(a, a + 0.1, 1.0, filter_size=5))
    assert 0.9 < s < 1.0
    assert float(tx.image.ssim_multiscale(_img(48, 48, 1) * 0 + 0.5, np.full((48, 48, 1), 0.5, np.float32), 1.0,
                                          power_factors=(0.5, 0.5), filter_size=3)) == pytest.approx(1.0, abs=1e-6)


def test_non_max_suppression_matches_reference_and_pads():
    corner = RNG.uniform(0, 1, (25, 2))
    boxes = np.concatenate([corner, corner + RNG.uniform(0.1, 0.4, (25, 2))], 1).astype(np.float32)
    scores = RNG.uniform(0, 1, 25).astype(np.float32)
    want, _ = ref.non_max_suppression(boxes, scores, 12, 0.3, 0.2)
    np.testing.assert_array_equal(_run(lambda b, s: tx.image.non_max_suppression(b, s, 12, 0.3, 0.2), boxes, scores),
                                  want)
    idx, n = tx.image.non_max_suppression_padded(boxes, scores, 12, 0.3, 0.2, pad_to_max_output_size=True)
    assert int(n) == len(want) and idx.shape == (12,)
    np.testing.assert_array_equal(idx.numpy()[:len(want)], want)
    np.testing.assert_array_equal(idx.numpy()[len(want):], 0)
    soft_idx, soft_scores = tx.image.non_max_suppression_with_scores(boxes, scores, 25, soft_nms_sigma=0.3)
    w_idx, w_scores = ref.non_max_suppression(boxes, scores, 25, 0.5, -np.inf, 0.3)
    np.testing.assert_array_equal(soft_idx.numpy(), w_idx)
    np.testing.assert_allclose(soft_scores.numpy(), w_scores, rtol=1e-5)


def test_extract_patches_and_draw_match_numpy():
    x = _img(2, 6, 7, 3)
    got = _run(lambda a: tx.image.extract_patches(a, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"), x)
    np.testing.assert_array_equal(got, ref.extract_patches(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"))
    boxes = np.array([[[0.0, 0.0, 0.5, 0.5]], [[0.2, 0.3, 1.0, 1.0]]], np.float32)
    drawn = tx.image.draw_bounding_boxes(x, boxes, [[1.0, 0.0, 0.0]]).numpy()
    np.testing.assert_array_equal(drawn, ref.draw_bounding_boxes(x, boxes, np.array([[1.0, 0.0, 0.0]])))


# ---------------------------------------------------------------------------- errors


def test_resize_errors_name_the_op_and_keep_the_context_usable():
    x = _img(1, 4, 4, 3)
    with pytest.raises(tx.errors.InvalidArgumentError, match="ResizeBilinear.*size must be positive"):
        tx.image.resize(x, tx.constant([-2, 3]))
    with pytest.raises(tx.errors.ResourceExhaustedError, match="ResizeBilinear"):
        tx.image.resize(x, [2**30, 2**30])
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tx.image.resize(_img(4, 4), [2, 2])
    with pytest.raises(ValueError, match="2 elements"):
        tx.image.resize(x, [2, 2, 2])
    with pytest.raises(ValueError, match="Resize method is not implemented: spline"):
        tx.image.resize(x, [2, 2], method="spline")
    assert tx.image.resize(x, [2, 2]).shape == (1, 2, 2, 3)  # still usable
    with tx.Graph().as_default():
        size = tx.placeholder(tx.int32, [2])
        out = tx.image.resize(tx.constant(x), size)
        with tx.Session() as s:
            with pytest.raises(tx.errors.InvalidArgumentError, match="size must be positive") as info:
                s.run(out, {size: [0, 5]})
            assert "ResizeBilinear" in info.value.node_name
            assert s.run(out, {size: [3, 5]}).shape == (1, 3, 5, 3)


def test_crop_and_resize_errors():
    x = _img(2, 4, 4, 1)
    boxes = [[0.0, 0.0, 1.0, 1.0]]
    with pytest.raises(tx.errors.OutOfRangeError, match=r"CropAndResize.*box_ind\[0\] = 5 is outside"):
        tx.image.crop_and_resize(x, boxes, [5], [2, 2])
    with pytest.raises(tx.errors.InvalidArgumentError, match="CropAndResize.*\\[num_boxes, 4\\]"):
        tx.image.crop_and_resize(x, [[0.0, 1.0, 1.0]], [0], [2, 2])
    with pytest.raises(tx.errors.InvalidArgumentError, match="CropAndResize.*not finite"):
        tx.image.crop_and_resize(x, [[0.0, np.nan, 1.0, 1.0]], [0], [2, 2])
    with pytest.raises(tx.errors.InvalidArgumentError, match="crop_size must be positive"):
        tx.image.crop_and_resize(x, boxes, [0], [-1, 2])


def test_nms_errors():
    boxes = np.zeros((3, 4), np.float32)
    with pytest.raises(tx.errors.InvalidArgumentError, match="NonMaxSuppressionV3.*scores must be 1-D with one entry"):
        tx.image.non_max_suppression(boxes, [0.1, 0.2], 2)
    with pytest.raises(tx.errors.InvalidArgumentError, match="iou_threshold must be in \\[0, 1\\]"):
        tx.image.non_max_suppression(boxes, [0.1, 0.2, 0.3], 2, iou_threshold=2.0)
    with pytest.raises(ValueError, match="must be True for batched input"):
        tx.image.non_max_suppression_padded(np.zeros((2, 3, 4), np.float32), np.zeros((2, 3), np.float32), 2)


def test_geometry_errors():
    x = _img(4, 5, 3)
    with pytest.raises(ValueError, match="width must be >= target \\+ offset"):
        tx.image.crop_to_bounding_box(x, 0, 2, 2, 4)
    with pytest.raises(ValueError, match="offset_height must be >= 0"):
        tx.image.pad_to_bounding_box(x, -1, 0, 6, 6)
    with pytest.raises(ValueError, match="central_fraction must be within \\(0, 1\\]"):
        tx.image.central_crop(x, 1.5)
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tx.image.flip_left_right(_img(2, 2, 2, 2, 2))
    with pytest.raises(ValueError, match="at least three-dimensional"):
        tx.image.rot90(_img(3, 3))
    with pytest.raises((ValueError, tx.errors.InvalidArgumentError), match="Need value.shape >= size"):
        tx.image.random_crop(x, [5, 5, 3])
    with pytest.raises(ValueError, match="max_delta must be <= 0.5"):
        tx.image.random_hue(x, 0.7)
    with pytest.raises(ValueError, match="upper must be > lower"):
        tx.image.random_contrast(x, 0.5, 0.5)
    with pytest.raises(tx.errors.InvalidArgumentError, match="AdjustHue.*3 channels"):
        tx.image.adjust_hue(_img(2, 2, 4), 0.1)
    with pytest.raises(ValueError, match="Two images are not compatible"):
        tx.image.ssim(_img(8, 8, 1), _img(8, 9, 1), 1.0)
