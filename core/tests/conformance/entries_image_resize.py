"""Conformance entries: the image resize ops (ResizeBilinear, ResizeNearestNeighbor,
ResizeBicubic, ResizeArea, ScaleAndTranslate) and their gradient ops, against the NumPy
interpolation matrices of image_refs.py. The resizers output float32 whatever the input type,
so their gradients are checked with a finite-difference step fit for float32 (grad_eps)."""

import numpy as np
import tensorflux as tx

from conformance import image_refs as ref
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

REAL = (np.float32, np.float64, np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64)
# (in_h, in_w, out_h, out_w, channels): up, down, mixed, identity, 1-pixel, 3 channels.
GEOMETRIES = [(4, 5, 7, 9, 2), (9, 8, 4, 3, 1), (5, 6, 3, 11, 3), (4, 4, 4, 4, 2), (1, 1, 3, 2, 1), (6, 7, 1, 1, 3)]
MODES = [dict(), dict(align_corners=True), dict(half_pixel_centers=True)]


def _size(h, w):
    return np.array([h, w], np.int32)


def _image(shape, dt, seed):
    return rand(shape, dt, 0, 100, seed) if np.dtype(dt).kind in "iu" else rand(shape, dt, -3, 3, seed)


def _resize_samples(modes=MODES):
    out = []
    for i, dt in enumerate(REAL):
        ih, iw, oh, ow, c = GEOMETRIES[i % len(GEOMETRIES)]
        for attrs in modes:
            out.append(Sample({"images": _image((2, ih, iw, c), dt, i), "size": _size(oh, ow)}, dict(attrs),
                              note=f"{np.dtype(dt).name} {attrs}"))
    for j, (ih, iw, oh, ow, c) in enumerate(GEOMETRIES):
        for attrs in modes:
            out.append(Sample({"images": _image((1, ih, iw, c), np.float32, 20 + j), "size": _size(oh, ow)},
                              dict(attrs), note=f"{(ih, iw, oh, ow)} {attrs}"))
    out.append(Sample({"images": _image((0, 3, 4, 2), np.float32, 30), "size": _size(5, 2)}, note="empty batch"))
    return out


def _resize_errors(op):
    img = _image((1, 3, 4, 2), np.float32, 40)
    errs = [
        ErrorSample({"images": img[0], "size": _size(2, 2)}, match="rank 4|4-dimensional"),
        ErrorSample({"images": img, "size": np.array([-1, 4], np.int32)}, match="size must be positive"),
        ErrorSample({"images": img, "size": np.array([0, 4], np.int32)}, match="size must be positive"),
        ErrorSample({"images": img, "size": np.array([2, 3, 4], np.int32)}, match="2 elements"),
        ErrorSample({"images": img[:, :0], "size": _size(2, 2)}, match="non-zero height and width", when="runtime"),
        ErrorSample({"images": img, "size": np.array([2**30, 2**30], np.int32)},
                    error=tx.errors.ResourceExhaustedError, match="out of memory|too large",
                    note="a huge size fails to allocate instead of crashing"),
    ]
    if op != "ResizeArea":
        both = {"align_corners": True, "half_pixel_centers": True}
        errs.append(ErrorSample({"images": img, "size": _size(2, 2)}, both,
                                match="half_pixel_centers is True, align_corners must be False"))
    return errs


def _grad_samples(op_modes=MODES, dt=np.float64):
    out = []
    for k, (ih, iw, oh, ow, c) in enumerate([(3, 4, 5, 3, 2), (5, 4, 2, 7, 1)]):
        for attrs in op_modes:
            out.append(Sample({"images": rand((2, ih, iw, c), dt, seed=50 + k), "size": _size(oh, ow)}, dict(attrs)))
    return out


def _grad_op_samples(op, modes=MODES):
    """Samples of ResizeBilinearGrad / ResizeBicubicGrad: float32 gradients of a resize back to an
    original image (float32 or float64)."""
    out = []
    for dt in (np.float32, np.float64):
        for k, (ih, iw, oh, ow, c) in enumerate(GEOMETRIES[:4]):
            for attrs in modes:
                out.append(Sample({"grads": rand((2, oh, ow, c), np.float32, seed=60 + k),
                                   "original_image": rand((2, ih, iw, c), dt, seed=61 + k)}, dict(attrs),
                                  note=f"{np.dtype(dt).name} {attrs}"))
    return out


def _grad_op_ref(forward):
    """The gradient of a linear resize: the transposed interpolation matrices applied to grads."""

    def f(grads, original_image, align_corners=False, half_pixel_centers=False):
        _, h, w, _ = original_image.shape
        _, oh, ow, _ = grads.shape
        wy, wx = forward(h, oh, align_corners, half_pixel_centers), forward(w, ow, align_corners, half_pixel_centers)
        return ref.apply_axes(grads, wy.T, wx.T).astype(original_image.dtype)

    return f


def _nearest_grad_ref(grads, size, align_corners=False, half_pixel_centers=False):
    b, oh, ow, c = grads.shape
    ys = ref.nearest_indices(size[0], oh, align_corners, half_pixel_centers)
    xs = ref.nearest_indices(size[1], ow, align_corners, half_pixel_centers)
    out = np.zeros((b, size[0], size[1], c), np.float64)
    for i, y in enumerate(ys):
        for j, x in enumerate(xs):
            out[:, y, x] += grads[:, i, j]
    return out.astype(grads.dtype)


def _nearest_grad_samples():
    out = []
    for dt in (np.float32, np.float64, np.int32, np.uint8, np.int8):
        for k, (ih, iw, oh, ow, c) in enumerate(GEOMETRIES[:3]):
            for attrs in MODES:
                lo, hi = (0, 3) if np.dtype(dt).kind in "iu" else (-3, 3)
                out.append(Sample({"grads": rand((2, oh, ow, c), dt, lo, hi, seed=70 + k), "size": _size(ih, iw)},
                                  dict(attrs), note=f"{np.dtype(dt).name} {attrs}"))
    return out


SCALE_TRANSLATE = [("lanczos3", True), ("lanczos5", False), ("gaussian", True), ("box", True),
                   ("triangle", False), ("keyscubic", True), ("mitchellcubic", True), ("lanczos1", False)]


def _st_samples():
    out = []
    for i, (kernel, aa) in enumerate(SCALE_TRANSLATE):
        ih, iw, oh, ow, c = GEOMETRIES[i % 3]
        dt = REAL[i % len(REAL)]
        scale = np.array([oh / ih, ow / iw], np.float32)
        translation = np.array([0.25 * (i % 3), -0.5 * (i % 2)], np.float32)
        out.append(Sample({"images": _image((2, ih, iw, c), dt, 80 + i), "size": _size(oh, ow), "scale": scale,
                           "translation": translation}, {"kernel_type": kernel, "antialias": aa},
                          note=f"{kernel} antialias={aa} {np.dtype(dt).name}"))
    return out


def _st_ref(images, size, scale, translation, kernel_type="lanczos3", antialias=True):
    return ref.scale_and_translate(images, size, scale, translation, kernel_type, antialias)


def _st_grad_ref(grads, original_image, scale, translation, kernel_type="lanczos3", antialias=True):
    _, h, w, _ = original_image.shape
    _, oh, ow, _ = grads.shape
    wy = ref.scale_translate_matrix(h, oh, scale[0], translation[0], kernel_type, antialias)
    wx = ref.scale_translate_matrix(w, ow, scale[1], translation[1], kernel_type, antialias)
    return ref.apply_axes(grads, wy.T, wx.T)


def _st_grad_samples():
    out = []
    for i, (kernel, aa) in enumerate(SCALE_TRANSLATE[:5]):
        ih, iw, oh, ow, c = GEOMETRIES[i % 3]
        out.append(Sample({"grads": rand((2, oh, ow, c), np.float32, seed=90 + i),
                           "original_image": rand((2, ih, iw, c), np.float32, seed=91 + i),
                           "scale": np.array([oh / ih, ow / iw], np.float32),
                           "translation": np.array([0.1, 0.3], np.float32)}, {"kernel_type": kernel, "antialias": aa},
                          note=f"{kernel} antialias={aa}"))
    return out


def _st_errors():
    img = rand((1, 4, 4, 1), np.float32, seed=95)
    two = np.array([1.0, 1.0], np.float32)
    return [ErrorSample({"images": img, "size": _size(2, 2), "scale": np.array([0.0, 1.0], np.float32),
                         "translation": two}, match="scale must be greater than zero", when="runtime"),
            ErrorSample({"images": img, "size": _size(2, 2), "scale": two, "translation": two},
                        {"kernel_type": "bogus"}, match="unrecognized kernel_type", when="runtime"),
            ErrorSample({"images": img, "size": np.array([-2, 2], np.int32), "scale": two, "translation": two},
                        match="size must be positive")]


LINEAR = dict(grad_eps=1e-2, grad_rtol=1e-3, grad_atol=1e-3)

ENTRIES = [
    OpEntry("ResizeBilinear", _resize_samples(), ref=ref.resize_bilinear, rtol=1e-5, atol=1e-4,
            errors=_resize_errors("ResizeBilinear"), grad_samples=_grad_samples(), **LINEAR),
    OpEntry("ResizeNearestNeighbor", _resize_samples(), ref=ref.resize_nearest, rtol=0, atol=0,
            errors=_resize_errors("ResizeNearestNeighbor"), grad_samples=_grad_samples()),
    OpEntry("ResizeBicubic", _resize_samples(), ref=ref.resize_bicubic, rtol=1e-5, atol=1e-4,
            errors=_resize_errors("ResizeBicubic"), grad_samples=_grad_samples(), **LINEAR),
    OpEntry("ResizeArea", _resize_samples([dict(), dict(align_corners=True)]), ref=ref.resize_area, rtol=1e-5,
            atol=1e-4, errors=_resize_errors("ResizeArea")),
    OpEntry("ResizeBilinearGrad", _grad_op_samples("ResizeBilinearGrad"), ref=_grad_op_ref(ref.bilinear_matrix),
            rtol=1e-5, atol=1e-4, grad_inputs=["grads"], grad_samples=_grad_op_samples("ResizeBilinearGrad")[::5],
            errors=[ErrorSample({"grads": rand((1, 2, 2, 1)).astype(np.float32), "original_image": rand((2, 2))},
                                match="rank 4|4-dimensional")], **LINEAR),
    OpEntry("ResizeBicubicGrad", _grad_op_samples("ResizeBicubicGrad"), ref=_grad_op_ref(ref.bicubic_matrix),
            rtol=1e-5, atol=1e-4, grad_inputs=["grads"], grad_samples=_grad_op_samples("ResizeBicubicGrad")[::5],
            **LINEAR),
    OpEntry("ResizeNearestNeighborGrad", _nearest_grad_samples(), ref=_nearest_grad_ref, rtol=1e-5, atol=1e-5,
            grad_samples=[s for s in _nearest_grad_samples() if s.inputs["grads"].dtype == np.float64],
            errors=[ErrorSample({"grads": rand((1, 2, 2, 1)), "size": np.array([0, 3], np.int32)},
                                match="size must be positive")]),
    OpEntry("ScaleAndTranslate", _st_samples(), ref=_st_ref, rtol=1e-4, atol=1e-4, errors=_st_errors(),
            grad_samples=[Sample(dict(s.inputs, images=s.inputs["images"].astype(np.float64)), s.attrs)
                          for s in _st_samples()[:5]], grad_inputs=["images"], **LINEAR),
    OpEntry("ScaleAndTranslateGrad", _st_grad_samples(), ref=_st_grad_ref, rtol=1e-4, atol=1e-4,
            grad_inputs=["grads"], grad_samples=_st_grad_samples(), **LINEAR),
]
