"""Gradients of the image ops beyond the conformance table: CropAndResize with respect to the
boxes (finite differences), TensorFlow's gradients for the same ops (when installed), and the
ops whose gradient is an explicit error (as TensorFlow defines none)."""

import numpy as np
import pytest
import tensorflux as tx
from tensorflux._src.generated import gen_ops

pytestmark = pytest.mark.eager

RNG = np.random.default_rng(8)
# Boxes whose sampling points stay inside pixel cells under small perturbations.
BOXES = np.array([[0.13, 0.21, 0.77, 0.83], [0.61, 0.09, 0.17, 0.71], [0.32, 0.44, 0.36, 0.49]], np.float32)


def _tape_grad(fn, *xs, dy):
    ts = [tx.constant(x) for x in xs]
    with tx.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        y = fn(*ts)
    return [g.numpy() for g in tape.gradient(y, ts, output_gradients=tx.constant(dy))]


def test_crop_and_resize_boxes_gradient_matches_finite_differences():
    image = RNG.uniform(-1, 1, (2, 6, 7, 2)).astype(np.float32)
    for crop in ([3, 4], [1, 1]):
        dy = RNG.standard_normal((3, crop[0], crop[1], 2)).astype(np.float32)

        def f(b):
            return tx.image.crop_and_resize(image, b, [0, 1, 1], crop)

        (dboxes,) = _tape_grad(f, BOXES, dy=dy)
        eps = 1e-3
        numeric = np.zeros(BOXES.shape)
        for i in range(3):
            for k in range(4):
                plus, minus = BOXES.astype(np.float64).copy(), BOXES.astype(np.float64).copy()
                plus[i, k] += eps
                minus[i, k] -= eps
                fp = f(plus.astype(np.float32)).numpy().astype(np.float64)
                fm = f(minus.astype(np.float32)).numpy().astype(np.float64)
                numeric[i, k] = np.sum((fp - fm) * dy) / (2 * eps)
        np.testing.assert_allclose(dboxes, numeric, rtol=2e-2, atol=2e-2)


def test_crop_and_resize_image_gradient_is_the_adjoint():
    """<crop(x), dy> = <x, dcrop/dx^T dy> for every x: the image gradient is the exact adjoint."""
    x = RNG.standard_normal((2, 5, 6, 3))
    dy = RNG.standard_normal((3, 4, 2, 3)).astype(np.float32)
    for method in ("bilinear", "nearest"):
        def f(img):
            return tx.image.crop_and_resize(img, BOXES, [1, 0, 1], [4, 2], method=method)

        (dx,) = _tape_grad(f, x, dy=dy)
        np.testing.assert_allclose(np.sum(f(tx.constant(x)).numpy() * dy), np.sum(x * dx), rtol=1e-5)


@pytest.mark.parametrize("op,args", [
    ("ResizeArea", lambda x: gen_ops.resize_area(x, tx.constant(np.array([2, 3], np.int32)))),
    ("AdjustHue", lambda x: gen_ops.adjust_hue(x, tx.constant(np.float32(0.1)))),
    ("AdjustSaturation", lambda x: gen_ops.adjust_saturation(x, tx.constant(np.float32(0.5)))),
])
def test_ops_without_gradient_raise_naming_the_op(op, args):
    x = tx.constant(RNG.uniform(0, 1, (1, 4, 4, 3)).astype(np.float32))
    with tx.GradientTape() as tape:
        tape.watch(x)
        y = args(x)
    with pytest.raises(tx.errors.UnimplementedError, match=op):
        tape.gradient(y, x)
    with tx.Graph().as_default():
        gx = tx.placeholder(tx.float32, [1, 4, 4, 3])
        with pytest.raises(tx.errors.UnimplementedError, match=op):
            tx.gradients(args(gx), gx)


def test_second_derivative_through_the_boxes_is_an_explicit_error():
    image = tx.constant(RNG.uniform(0, 1, (1, 4, 4, 1)).astype(np.float32))
    boxes = tx.constant(BOXES[:1])
    with tx.GradientTape() as outer:
        outer.watch(boxes)
        with tx.GradientTape() as inner:
            inner.watch(boxes)
            y = tx.reduce_sum(tx.image.crop_and_resize(image, boxes, [0], [2, 2]) ** 2)
        g = inner.gradient(y, boxes)
    with pytest.raises(tx.errors.UnimplementedError, match="CropAndResize"):
        outer.gradient(g, boxes)


def test_resize_second_derivative_is_the_forward_resize():
    """d/dx of <resize(x), dy> is linear in dy; its derivative in dy is resize itself."""
    x = tx.constant(RNG.standard_normal((1, 3, 4, 2)).astype(np.float32))
    dy = tx.constant(RNG.standard_normal((1, 5, 2, 2)).astype(np.float32))
    w = RNG.standard_normal((1, 3, 4, 2)).astype(np.float32)
    with tx.GradientTape() as outer:
        outer.watch(dy)
        with tx.GradientTape() as inner:
            inner.watch(x)
            y = tx.image.resize(x, [5, 2], method="bicubic")
        gx = inner.gradient(y, x, output_gradients=dy)
        s = tx.reduce_sum(gx * w)
    ddy = outer.gradient(s, dy).numpy()
    np.testing.assert_allclose(ddy, tx.image.resize(w, [5, 2], method="bicubic").numpy(), rtol=1e-5, atol=1e-5)


def test_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.uniform(0.05, 0.95, (2, 5, 6, 3)).astype(np.float32)
    cases = [
        (lambda m, v: m.image.crop_and_resize(v, BOXES, [0, 1, 1], [3, 4]), (3, 3, 4, 3)),
        (lambda m, v: m.image.rgb_to_hsv(v), x.shape),
        (lambda m, v: m.image.extract_patches(v, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"), None),
        (lambda m, v: m.image.resize(v, [3, 9], method="lanczos3", antialias=True), (2, 3, 9, 3)),
        (lambda m, v: m.image.resize(v, [3, 9], method="nearest"), (2, 3, 9, 3)),
        (lambda m, v: m.image.per_image_standardization(v), x.shape),
        (lambda m, v: m.image.total_variation(v), (2,)),
        (lambda m, v: m.image.ssim(v, v * 0.5, 1.0, filter_size=3), (2,)),
    ]
    for fn, out_shape in cases:
        tin = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(tin)
            want_y = fn(tf, tin)
        dy = RNG.standard_normal(want_y.shape).astype(np.float32)
        want = tape.gradient(want_y, tin, output_gradients=tf.constant(dy)).numpy()
        (got,) = _tape_grad(lambda v: fn(tx, v), x, dy=dy)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
