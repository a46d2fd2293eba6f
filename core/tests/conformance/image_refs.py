"""NumPy references for the image ops, written independently of the kernels: resizes as
[out, in] interpolation matrices applied per axis (float64), crops, non-max suppression as a
plain Python loop, colors through ``colorsys``. Source coordinates are computed in float32 as
TensorFlow defines them (an index on the wrong side of a pixel boundary would otherwise differ
from the op by a whole pixel); the interpolation itself is float64."""

from __future__ import annotations

import colorsys
import math

import numpy as np

F32 = np.float32


def resize_scale(in_size, out_size, align_corners):
    if align_corners and out_size > 1:
        return F32(in_size - 1) / F32(out_size - 1)
    return F32(in_size) / F32(out_size)


def source_coord(x, scale, half_pixel):
    """Output index x in input coordinates (float32, as TensorFlow)."""
    if half_pixel:
        return F32((F32(x) + F32(0.5)) * scale - F32(0.5))
    return F32(F32(x) * scale)


def apply_axes(images, wy, wx):
    """images [b, h, w, c] (any real dtype) through row matrix wy [oh, h] and column matrix wx [ow, w]."""
    return np.einsum("yh,bhwc,xw->byxc", wy, images.astype(np.float64), wx)


def bilinear_matrix(in_size, out_size, align_corners, half_pixel):
    scale = resize_scale(in_size, out_size, align_corners)
    w = np.zeros((out_size, in_size))
    for o in range(out_size):
        c = float(source_coord(o, scale, half_pixel))
        lo, hi = max(math.floor(c), 0), min(math.ceil(c), in_size - 1)
        frac = c - math.floor(c)
        w[o, lo] += 1 - frac
        w[o, hi] += frac
    return w


def resize_bilinear(images, size, align_corners=False, half_pixel_centers=False):
    _, h, w, _ = images.shape
    return apply_axes(images, bilinear_matrix(h, size[0], align_corners, half_pixel_centers),
                      bilinear_matrix(w, size[1], align_corners, half_pixel_centers))


def nearest_indices(in_size, out_size, align_corners, half_pixel):
    scale = resize_scale(in_size, out_size, align_corners)
    out = []
    for o in range(out_size):
        c = float(F32((F32(o) + F32(0.5)) * scale) if half_pixel else F32(F32(o) * scale))
        # align_corners rounds half away from zero (c >= 0 here), else floors.
        i = min(math.floor(c + 0.5) if align_corners else math.floor(c), in_size - 1)
        out.append(max(i, 0) if half_pixel else i)
    return np.array(out)


def resize_nearest(images, size, align_corners=False, half_pixel_centers=False):
    _, h, w, _ = images.shape
    ys = nearest_indices(h, size[0], align_corners, half_pixel_centers)
    xs = nearest_indices(w, size[1], align_corners, half_pixel_centers)
    return images[:, ys][:, :, xs]


def cubic(x, a):
    """The cubic convolution kernel with parameter a."""
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def bicubic_matrix(in_size, out_size, align_corners, half_pixel):
    """Keys' kernel (a = -0.5) with out-of-image taps dropped and renormalized for half-pixel
    centers; a = -0.75 with taps clamped to the border otherwise. The fractional position is
    quantized to 1/1024 (TensorFlow tabulates the kernel)."""
    scale = resize_scale(in_size, out_size, align_corners)
    a = -0.5 if half_pixel else -0.75
    w = np.zeros((out_size, in_size))
    for o in range(out_size):
        c = float(source_coord(o, scale, half_pixel))
        base = math.floor(c)
        t = float(np.rint(F32(c - base) * F32(1024))) / 1024
        taps = [(base - 1, cubic(1 + t, a)), (base, cubic(t, a)), (base + 1, cubic(1 - t, a)),
                (base + 2, cubic(2 - t, a))]
        if half_pixel:
            taps = [(i, v) for i, v in taps if 0 <= i < in_size]
            total = sum(v for _, v in taps)
            taps = [(i, v / total) for i, v in taps]
        for i, v in taps:
            w[o, min(max(i, 0), in_size - 1)] += v
    return w


def resize_bicubic(images, size, align_corners=False, half_pixel_centers=False):
    _, h, w, _ = images.shape
    return apply_axes(images, bicubic_matrix(h, size[0], align_corners, half_pixel_centers),
                      bicubic_matrix(w, size[1], align_corners, half_pixel_centers))


def area_matrix(in_size, out_size, align_corners):
    """Each output cell [o * s, (o + 1) * s) averages the input cells it overlaps (indices past
    the edge read the edge pixel)."""
    scale = resize_scale(in_size, out_size, align_corners)
    if scale == 0:  # a one-pixel axis with align_corners: every output cell is that pixel
        return np.ones((out_size, in_size))
    w = np.zeros((out_size, in_size))
    for o in range(out_size):
        lo, hi = float(F32(F32(o) * scale)), float(F32(F32(o + 1) * scale))
        for i in range(math.floor(lo), math.ceil(hi)):
            overlap = min(i + 1, hi) - max(i, lo)
            w[o, min(max(i, 0), in_size - 1)] += overlap / float(scale)
    return w


def resize_area(images, size, align_corners=False):
    _, h, w, _ = images.shape
    return apply_axes(images, area_matrix(h, size[0], align_corners), area_matrix(w, size[1], align_corners))


def _lanczos(r):
    return lambda x: 0.0 if x > r else 1.0 if x <= 1e-3 else r * math.sin(math.pi * x) * math.sin(
        math.pi * x / r) / (math.pi * math.pi * x * x)


FILTERS = {
    "lanczos1": (1.0, _lanczos(1.0)), "lanczos3": (3.0, _lanczos(3.0)), "lanczos5": (5.0, _lanczos(5.0)),
    "gaussian": (1.5, lambda x: math.exp(-x * x / (2 * 0.5 * 0.5)) if x < 1.5 else 0.0),
    "box": (1.0, lambda x: 1.0 if x < 0.5 else 0.5 if x == 0.5 else 0.0),
    "triangle": (1.0, lambda x: max(1.0 - x, 0.0)),
    "keyscubic": (2.0, lambda x: cubic(x, -0.5)),
    "mitchellcubic": (2.0, lambda x: ((7 / 6 * x - 2) * x * x + 8 / 9) if x < 1 else
                      (((-7 / 18 * x + 2) * x - 10 / 3) * x + 16 / 9) if x < 2 else 0.0),
}


def scale_translate_matrix(in_size, out_size, scale, translate, kernel_type, antialias):
    """Rows: output pixels sampled at (o + 0.5 - translate) / scale with the filter, widened by
    1 / scale when downscaling with antialias, weights normalized over the taps inside the image."""
    radius, fn = FILTERS[kernel_type]
    inv_scale = F32(1.0 / F32(scale))
    kscale = max(float(inv_scale), 1.0) if antialias else 1.0
    w = np.zeros((out_size, in_size))
    for o in range(out_size):
        sample = float(F32(F32(o + 0.5) * inv_scale + F32(-inv_scale * F32(translate))))
        if sample < 0 or sample > in_size:
            continue
        start = min(max(math.ceil(sample - radius * kscale - 0.5), 0), in_size - 1)
        end = min(max(math.floor(sample + radius * kscale - 0.5), 0), in_size - 1) + 1
        taps = [(i, fn(abs((i + 0.5 - sample) / kscale))) for i in range(start, end)]
        total = sum(v for _, v in taps)
        if abs(total) > 1e-30:
            for i, v in taps:
                w[o, i] = v / total
    return w


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3", antialias=True):
    _, h, w, _ = images.shape
    return apply_axes(images, scale_translate_matrix(h, size[0], scale[0], translation[0], kernel_type, antialias),
                      scale_translate_matrix(w, size[1], scale[1], translation[1], kernel_type, antialias))


def _crop_coords(lo, hi, crop, size, exact):
    """The sampling positions of one box axis: float32 as TensorFlow computes them, or exact."""
    if exact:
        if crop > 1:
            return [lo * (size - 1) + i * (hi - lo) * (size - 1) / (crop - 1) for i in range(crop)]
        return [0.5 * (lo + hi) * (size - 1)]
    lo, hi = F32(lo), F32(hi)
    if crop > 1:
        step = F32((hi - lo) * F32(size - 1) / F32(crop - 1))
        return [F32(lo * F32(size - 1) + F32(i) * step) for i in range(crop)]
    return [F32(0.5 * (float(lo) + float(hi)) * (size - 1))]


def crop_and_resize(image, boxes, box_ind, crop_size, method="bilinear", extrapolation_value=0.0, exact=False):
    """CropAndResize; ``exact`` samples at float64 positions (for finite differences in the boxes)."""
    _, h, w, d = image.shape
    ch, cw = int(crop_size[0]), int(crop_size[1])
    out = np.full((len(boxes), ch, cw, d), float(extrapolation_value))
    img = image.astype(np.float64)
    for n, (box, b) in enumerate(zip(boxes, box_ind)):
        ys, xs = _crop_coords(box[0], box[2], ch, h, exact), _crop_coords(box[1], box[3], cw, w, exact)
        for i, y in enumerate(ys):
            for j, x in enumerate(xs):
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    continue
                if method == "nearest":
                    out[n, i, j] = img[b, int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
                    continue
                y0, x0 = math.floor(y), math.floor(x)
                y1, x1 = math.ceil(y), math.ceil(x)
                fy, fx = float(y) - y0, float(x) - x0
                top = img[b, y0, x0] * (1 - fx) + img[b, y0, x1] * fx
                bottom = img[b, y1, x0] * (1 - fx) + img[b, y1, x1] * fx
                out[n, i, j] = top * (1 - fy) + bottom * fy
    return out


def iou(a, b):
    ay0, ay1 = sorted((a[0], a[2]))
    ax0, ax1 = sorted((a[1], a[3]))
    by0, by1 = sorted((b[0], b[2]))
    bx0, bx1 = sorted((b[1], b[3]))
    area_a, area_b = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ay1, by1) - max(ay0, by0), 0) * max(min(ax1, bx1) - max(ax0, bx0), 0)
    return inter / (area_a + area_b - inter)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma=0.0,
                        overlaps=None):
    """(selected indices, their scores): greedy by score (ties: lower index first); with
    soft_nms_sigma > 0 each selection multiplies the others' scores by exp(-0.5 iou^2 / sigma).
    ``overlaps`` [n, n] replaces the IoU of boxes (overlaps[candidate, selected])."""
    boxes = np.asarray(boxes, np.float64)
    live = {i: float(s) for i, s in enumerate(scores) if s > score_threshold}
    selected, selected_scores = [], []
    while live and len(selected) < max_output_size:
        best = min(live, key=lambda i: (-live[i], i))
        score = live.pop(best)
        selected.append(best)
        selected_scores.append(score)
        for i in list(live):
            o = float(overlaps[i, best]) if overlaps is not None else iou(boxes[i], boxes[best])
            if soft_nms_sigma > 0:
                live[i] *= math.exp(-0.5 * o * o / soft_nms_sigma)
                if live[i] <= score_threshold:
                    del live[i]
            elif o > iou_threshold:
                del live[i]
    return np.array(selected, np.int32), np.array(selected_scores, np.float32)


def rgb_to_hsv(images):
    flat = images.reshape(-1, 3).astype(np.float64)
    return np.array([colorsys.rgb_to_hsv(*p) for p in flat]).reshape(images.shape)


def hsv_to_rgb(images):
    flat = images.reshape(-1, 3).astype(np.float64)
    return np.array([colorsys.hsv_to_rgb(*p) for p in flat]).reshape(images.shape)


def adjust_hue(images, delta):
    hsv = rgb_to_hsv(images)
    hsv[..., 0] = np.mod(hsv[..., 0] + delta, 1.0)
    return hsv_to_rgb(hsv)


def adjust_saturation(images, scale):
    hsv = rgb_to_hsv(images)
    hsv[..., 1] = np.clip(hsv[..., 1] * scale, 0.0, 1.0)
    return hsv_to_rgb(hsv)


def adjust_contrast(images, contrast_factor):
    x = images.astype(np.float64)
    mean = x.mean(axis=(-3, -2), keepdims=True)
    return mean + contrast_factor * (x - mean)


def extract_patches(images, ksizes, strides, rates, padding):
    b, rows, cols, d = images.shape
    kr, kc = ksizes[1], ksizes[2]
    sr, sc = strides[1], strides[2]
    rr, rc = rates[1], rates[2]
    er, ec = (kr - 1) * rr + 1, (kc - 1) * rc + 1
    if padding == "VALID":
        out_r, out_c, top, left = (rows - er) // sr + 1, (cols - ec) // sc + 1, 0, 0
    else:
        out_r, out_c = -(-rows // sr), -(-cols // sc)
        top = max((out_r - 1) * sr + er - rows, 0) // 2
        left = max((out_c - 1) * sc + ec - cols, 0) // 2
    out = np.zeros((b, out_r, out_c, kr, kc, d), images.dtype)
    for i in range(out_r):
        for j in range(out_c):
            for p in range(kr):
                for q in range(kc):
                    y, x = i * sr + p * rr - top, j * sc + q * rc - left
                    if 0 <= y < rows and 0 <= x < cols:
                        out[:, i, j, p, q] = images[:, y, x]
    return out.reshape(b, out_r, out_c, kr * kc * d)


DEFAULT_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                  [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def draw_bounding_boxes(images, boxes, colors=None):
    out = images.copy()
    _, h, w, d = images.shape
    table = [list(c[:d]) for c in (colors if colors is not None and len(colors) else DEFAULT_COLORS)]
    if colors is None or not len(colors):
        table = [([1.0] + c[1:]) if d == 1 else c for c in table]
    for b in range(boxes.shape[0]):
        for k, box in enumerate(boxes[b]):
            color = table[k % len(table)]
            top, left = int(F32(box[0]) * F32(h - 1)), int(F32(box[1]) * F32(w - 1))
            bottom, right = int(F32(box[2]) * F32(h - 1)), int(F32(box[3]) * F32(w - 1))
            if top > bottom or left > right or top >= h or bottom < 0 or left >= w or right < 0:
                continue
            for x in range(max(left, 0), min(right, w - 1) + 1):
                if top >= 0:
                    out[b, top, x] = color
                if bottom < h:
                    out[b, bottom, x] = color
            for y in range(max(top, 0), min(bottom, h - 1) + 1):
                if left >= 0:
                    out[b, y, left] = color
                if right < w:
                    out[b, y, right] = color
    return out


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                                 score_threshold, pad_per_class=False, clip_boxes=True):
    """Per batch entry: NMS per class (boxes[:, :, class or 0]), the detections of all classes
    sorted by score, the first max_total_size kept (boxes clipped to [0, 1]), zero-padded."""
    batch, n, q, _ = boxes.shape
    classes = scores.shape[2]
    per_class = min(int(max_output_size_per_class), n)
    k = min(int(max_total_size), int(max_output_size_per_class) * classes) if pad_per_class else int(max_total_size)
    out_boxes, out_scores, out_classes = np.zeros((batch, k, 4)), np.zeros((batch, k)), np.zeros((batch, k))
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []
        for c in range(classes):
            cls_boxes = boxes[b, :, c if q > 1 else 0]
            idx, sc = non_max_suppression(cls_boxes, scores[b, :, c], per_class, float(iou_threshold),
                                          float(score_threshold))
            found += [(float(s), c, cls_boxes[i]) for i, s in zip(idx, sc)]
        found.sort(key=lambda d: -d[0])
        found = found[:k]
        valid[b] = len(found)
        for j, (score, c, box) in enumerate(found):
            out_boxes[b, j] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, j], out_classes[b, j] = score, c
    return out_boxes, out_scores, out_classes, valid
