"""Conformance entries: CropAndResize and its gradient ops, NonMaxSuppressionV3/V4/V5, the color
ops (RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue, AdjustSaturation), ExtractImagePatches and
DrawBoundingBoxes(V2), against the NumPy references of image_refs.py."""

import numpy as np
import tensorflux as tx

from conformance import image_refs as ref
from conformance.gen import rand
from conformance.harness import ErrorSample, OpEntry, Sample

I32 = np.int32
REAL = (np.float32, np.float64, np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64)


def _boxes(n, seed, lo=-0.2, hi=1.2):
    b = np.random.default_rng(seed).uniform(lo, hi, (n, 4)).astype(np.float32)
    b[0] = [0.1, 0.2, 0.9, 0.7]
    return b


# ---------------------------------------------------------------------------- CropAndResize


def _crop_samples():
    out = []
    for i, dt in enumerate(REAL):
        img = rand((3, 7, 9, 2), dt, 0, 50, seed=i) if np.dtype(dt).kind in "iu" else rand((3, 7, 9, 2), dt, seed=i)
        for method in ("bilinear", "nearest"):
            crop = [(4, 5), (1, 1), (3, 1)][i % 3]
            out.append(Sample({"image": img, "boxes": _boxes(5, i), "box_ind": np.array([0, 2, 1, 1, 0], I32),
                               "crop_size": np.array(crop, I32)}, {"method": method, "extrapolation_value": -1.5},
                              note=f"{np.dtype(dt).name} {method} {crop}"))
    out.append(Sample({"image": rand((2, 4, 4, 1), np.float32), "boxes": np.zeros((0, 4), np.float32),
                       "box_ind": np.zeros((0,), I32), "crop_size": np.array([2, 2], I32)}, note="no boxes"))
    return out


def _crop_errors():
    img = rand((2, 4, 4, 1), np.float32, seed=9)
    boxes = _boxes(2, 9)
    crop = np.array([2, 2], I32)
    return [
        ErrorSample({"image": img, "boxes": boxes, "box_ind": np.array([0, 2], I32), "crop_size": crop},
                    error=tx.errors.OutOfRangeError, match="box_ind\\[1\\] = 2 is outside \\[0, batch_size = 2\\)",
                    when="runtime", note="box index past the batch"),
        ErrorSample({"image": img, "boxes": boxes, "box_ind": np.array([-1, 0], I32), "crop_size": crop},
                    error=tx.errors.OutOfRangeError, match="outside", when="runtime"),
        ErrorSample({"image": img, "boxes": boxes[:, :3], "box_ind": np.array([0, 1], I32), "crop_size": crop},
                    match="4 columns|\\[num_boxes, 4\\]"),
        ErrorSample({"image": img, "boxes": boxes, "box_ind": np.array([0, 1, 1], I32), "crop_size": crop},
                    match="box_ind"),
        ErrorSample({"image": img, "boxes": boxes, "box_ind": np.array([0, 1], I32),
                     "crop_size": np.array([0, 2], I32)}, match="crop_size must be positive"),
        ErrorSample({"image": img[0], "boxes": boxes, "box_ind": np.array([0, 1], I32), "crop_size": crop},
                    match="rank 4|4-dimensional"),
        ErrorSample({"image": img, "boxes": np.array([[0, 0, np.inf, 1], [0, 0, 1, 1]], np.float32),
                     "box_ind": np.array([0, 1], I32), "crop_size": crop}, match="not finite", when="runtime"),
    ]


def _crop_grad_image_ref(grads, boxes, box_ind, image_size, T, method="bilinear"):
    """The adjoint of CropAndResize, from its response to unit images."""
    b, h, w, d = (int(v) for v in image_size)
    out = np.zeros((b, h, w, d))
    for y in range(h):
        for x in range(w):
            unit = np.zeros((b, h, w, 1))
            unit[:, y, x] = 1
            resp = ref.crop_and_resize(unit, boxes, box_ind, grads.shape[1:3], method)  # [n, ch, cw, 1]
            for n, bi in enumerate(box_ind):
                out[bi, y, x] += np.einsum("ij,ijd->d", resp[n, ..., 0], grads[n])
    return out.astype(T.as_numpy_dtype)


def _crop_grad_image_samples():
    out = []
    for dt in (tx.float32, tx.float64):
        for method in ("bilinear", "nearest"):
            for crop in ((3, 4), (1, 1)):
                out.append(Sample({"grads": rand((4,) + crop + (2,), np.float32, seed=11),
                                   "boxes": _boxes(4, 12), "box_ind": np.array([1, 0, 1, 1], I32),
                                   "image_size": np.array([2, 5, 6, 2], I32)}, {"T": dt, "method": method},
                                  note=f"{dt.name} {method} {crop}"))
    return out


def _crop_grad_boxes_ref(grads, image, boxes, box_ind, method="bilinear"):
    """Central differences of <CropAndResize(image, boxes), grads> in float64 (the crop is
    quadratic in each box coordinate within one pixel cell, so they are exact up to rounding)."""
    eps = 1e-6
    out = np.zeros(boxes.shape)
    b64 = boxes.astype(np.float64)
    for n in range(len(boxes)):
        for k in range(4):
            plus, minus = b64.copy(), b64.copy()
            plus[n, k] += eps
            minus[n, k] -= eps
            fp = ref.crop_and_resize(image, plus, box_ind, grads.shape[1:3], exact=True)
            fm = ref.crop_and_resize(image, minus, box_ind, grads.shape[1:3], exact=True)
            out[n, k] = np.sum((fp - fm) * grads) / (2 * eps)
    return out


def _crop_grad_boxes_samples():
    out = []
    for dt in (np.float32, np.float64, np.uint8):
        img = rand((2, 6, 7, 2), dt, 0, 9, seed=13) if dt == np.uint8 else rand((2, 6, 7, 2), dt, seed=13)
        boxes = np.array([[0.13, 0.21, 0.77, 0.83], [0.61, 0.09, 0.17, 0.71], [0.33, 0.43, 0.35, 0.47]], np.float32)
        for crop in ((3, 4), (1, 1)):
            out.append(Sample({"grads": rand((3,) + crop + (2,), np.float32, seed=14), "image": img, "boxes": boxes,
                               "box_ind": np.array([0, 1, 1], I32)}, note=f"{np.dtype(dt).name} {crop}"))
    return out


def _crop_grad_float_samples():
    """CropAndResize gradient samples: float64 images, boxes away from pixel-cell edges."""
    boxes = np.array([[0.13, 0.21, 0.77, 0.83], [0.61, 0.09, 0.17, 0.71]], np.float32)
    return [Sample({"image": rand((2, 6, 7, 2), np.float64, seed=15), "boxes": boxes, "box_ind": np.array([1, 0], I32),
                    "crop_size": np.array(c, I32)}, {"method": m}) for c in ((3, 4), (2, 2)) for m in ("bilinear",)]


# ---------------------------------------------------------------------------- NonMaxSuppression


def _nms_inputs(n, seed):
    rng = np.random.default_rng(seed)
    corner = rng.uniform(0, 1, (n, 2))
    size = rng.uniform(0.05, 0.5, (n, 2))
    boxes = np.concatenate([corner, corner + size], 1).astype(np.float32)
    boxes[1::4] = boxes[1::4][:, [2, 3, 0, 1]]  # some boxes with their corners swapped
    scores = rng.uniform(0, 1, n).astype(np.float32)
    if n > 5:
        scores[2] = scores[5]  # a tie: the lower index wins
    return boxes, scores


def _nms_samples(version):
    out = []
    for k, (n, max_out, iou, st) in enumerate([(20, 8, 0.5, -np.inf), (30, 30, 0.3, 0.2), (12, 3, 0.0, -np.inf),
                                                (15, 10, 1.0, 0.5), (0, 4, 0.5, -np.inf)]):
        boxes, scores = _nms_inputs(n, k)
        inputs = {"boxes": boxes, "scores": scores, "max_output_size": np.int32(max_out),
                  "iou_threshold": np.float32(iou), "score_threshold": np.float32(st)}
        if version == 5:
            for sigma in (0.0, 0.5):
                for pad in (False, True):
                    out.append(Sample(dict(inputs, soft_nms_sigma=np.float32(sigma)), {"pad_to_max_output_size": pad},
                                      note=f"n={n} sigma={sigma} pad={pad}"))
        elif version == 4:
            for pad in (False, True):
                out.append(Sample(inputs, {"pad_to_max_output_size": pad}, note=f"n={n} pad={pad}"))
        else:
            out.append(Sample(inputs, note=f"n={n}"))
    return out


def _nms_ref(version):
    def f(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma=0.0,
          pad_to_max_output_size=False):
        idx, sc = ref.non_max_suppression(boxes, scores, int(max_output_size), float(iou_threshold),
                                          float(score_threshold), float(soft_nms_sigma))
        valid = np.int32(len(idx))
        if pad_to_max_output_size:
            idx = np.pad(idx, (0, int(max_output_size) - len(idx)))
            sc = np.pad(sc, (0, int(max_output_size) - len(sc)))
        return {3: (idx,), 4: (idx, valid), 5: (idx, sc, valid)}[version]

    return f


def _nms_errors(version):
    boxes, scores = _nms_inputs(6, 20)
    base = {"boxes": boxes, "scores": scores, "max_output_size": np.int32(3), "iou_threshold": np.float32(0.5),
            "score_threshold": np.float32(0.0)}
    if version == 5:
        base["soft_nms_sigma"] = np.float32(0.0)
    errs = [ErrorSample(dict(base, scores=scores[:5]), match="scores|entries"),
            ErrorSample(dict(base, boxes=boxes[:, :3]), match="4 columns|\\[num_boxes, 4\\]"),
            ErrorSample(dict(base, iou_threshold=np.float32(1.5)), match="iou_threshold must be in \\[0, 1\\]",
                        when="runtime"),
            ErrorSample(dict(base, max_output_size=np.int32(-1)), match="max_output_size must be non-negative",
                        when="runtime"),
            ErrorSample(dict(base, max_output_size=np.array([3], I32)), match="scalar")]
    if version == 5:
        errs.append(ErrorSample(dict(base, soft_nms_sigma=np.float32(-1)), match="soft_nms_sigma must be >= 0",
                                when="runtime"))
    return errs


def _overlaps_samples():
    out = []
    for k, (n, max_out, thr, st) in enumerate([(12, 6, 0.5, -np.inf), (20, 20, 0.3, 0.4), (0, 3, 0.5, 0.0)]):
        rng = np.random.default_rng(60 + k)
        m = rng.uniform(0, 1, (n, n)).astype(np.float32)
        out.append(Sample({"overlaps": m, "scores": rng.uniform(0, 1, n).astype(np.float32),
                           "max_output_size": np.int32(max_out), "overlap_threshold": np.float32(thr),
                           "score_threshold": np.float32(st)}, note=f"n={n}"))
    return out


def _overlaps_ref(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    return ref.non_max_suppression(np.zeros((len(scores), 4)), scores, int(max_output_size), float(overlap_threshold),
                                   float(score_threshold), overlaps=overlaps)[0]


def _combined_samples():
    out = []
    for k, (q, classes, per_class, total) in enumerate([(1, 3, 4, 6), (3, 3, 2, 20), (1, 2, 10, 3)]):
        rng = np.random.default_rng(70 + k)
        corner = rng.uniform(-0.2, 1.0, (2, 15, q, 2))
        boxes = np.concatenate([corner, corner + rng.uniform(0.05, 0.5, (2, 15, q, 2))], -1).astype(np.float32)
        scores = rng.uniform(0, 1, (2, 15, classes)).astype(np.float32)
        for pad, clip in ((False, True), (True, False)):
            out.append(Sample({"boxes": boxes, "scores": scores, "max_output_size_per_class": np.int32(per_class),
                               "max_total_size": np.int32(total), "iou_threshold": np.float32(0.4),
                               "score_threshold": np.float32(0.1)}, {"pad_per_class": pad, "clip_boxes": clip},
                              note=f"q={q} classes={classes} pad={pad} clip={clip}"))
    return out


def _combined_errors():
    base = _combined_samples()[0].inputs
    return [ErrorSample(dict(base, scores=base["scores"][:, :3]), match="disagree|match"),
            ErrorSample(dict(base, boxes=base["boxes"][..., :3]), match="4 coordinates|\\[batch, num_boxes, q, 4\\]"),
            ErrorSample(dict(base, max_total_size=np.int32(0)), match="max_total_size must be positive",
                        when="runtime"),
            ErrorSample(dict(base, iou_threshold=np.float32(-0.1)), match="iou_threshold must be in", when="runtime")]


def _sample_box_inputs(k):
    rng = np.random.default_rng(80 + k)
    lo = rng.uniform(0, 0.5, (1, k % 3, 2))
    boxes = np.concatenate([lo, lo + rng.uniform(0.2, 0.5, (1, k % 3, 2))], -1).clip(0, 1).astype(np.float32)
    return {"image_size": np.array([30 + 17 * k, 50 + 9 * k, 3], [np.int32, np.int64, np.uint8][k % 3]),
            "bounding_boxes": boxes, "min_object_covered": np.float32(0.1 * k)}


def _sample_box_samples(stateless):
    out = []
    for k in range(6):
        attrs = {"aspect_ratio_range": [0.5, 2.0], "area_range": [0.1 + 0.05 * k, 0.9], "max_attempts": 10 + 20 * k,
                 "use_image_if_no_bounding_boxes": True}
        inputs = _sample_box_inputs(k)
        if stateless:
            inputs["seed"] = np.array([k, 100 - 7 * k], [np.int32, np.int64][k % 2])
        else:
            attrs.update(seed=k + 1, seed2=3 * k + 2)
        out.append(Sample(inputs, attrs, note=f"k={k}"))
    return out


def _check_sample_box(values, sample):
    """The crop lies in the image, (begin, size) and the box agree; it covers enough of a box
    or is the whole image (the fallback when no draw fits)."""
    begin, size, box = (np.asarray(v) for v in values)
    h, w = (int(v) for v in sample.inputs["image_size"][:2])
    assert begin.shape == (3,) and size.shape == (3,) and box.shape == (1, 1, 4)
    y, x, ch, cw = int(begin[0]), int(begin[1]), int(size[0]), int(size[1])
    minus_one = np.array(-1).astype(size.dtype)  # "all channels", wrapped for uint8 as in TensorFlow
    assert begin[2] == 0 and size[2] == minus_one and 0 <= y and 0 <= x and y + ch <= h and x + cw <= w
    np.testing.assert_allclose(box[0, 0], [y / h, x / w, (y + ch) / h, (x + cw) / w], rtol=1e-6)
    if (ch, cw) != (h, w):
        lo, hi = sample.attrs["area_range"]
        assert lo * h * w <= ch * cw <= hi * h * w


# ---------------------------------------------------------------------------- color


def _rgb(shape, dt, seed):
    x = rand(shape, dt, 0, 1, seed)
    flat = x.reshape(-1, 3)
    if len(flat) >= 4:  # gray, black, two equal channels
        flat[0], flat[1], flat[2], flat[3] = [0.5, 0.5, 0.5], [0, 0, 0], [0.2, 0.7, 0.7], [0.9, 0.9, 0.1]
    return flat.reshape(shape)


def _color_samples(dtypes, extra=None):
    out = []
    for dt in dtypes:
        for k, shape in enumerate([(3,), (2, 4, 3), (2, 3, 5, 3), (0, 3)]):
            out.append(Sample(dict({"images": _rgb(shape, dt, k)}, **(extra(k) if extra else {})),
                              note=f"{np.dtype(dt).name} {shape}"))
    return out


def _hsv_samples():
    out = []
    for dt in (np.float32, np.float64):
        for k, shape in enumerate([(3,), (2, 4, 3), (1, 2, 6, 3)]):
            out.append(Sample({"images": rand(shape, dt, 0, 1, k)}, note=f"{np.dtype(dt).name} {shape}"))
    return out


def _adjust_samples(name, values):
    out = []
    for k, v in enumerate(values):
        shape = [(2, 4, 3), (1, 2, 3, 3), (3, 1, 3)][k % 3]
        out.append(Sample({"images": _rgb(shape, np.float32, k), name: np.float32(v)}, note=f"{name}={v} {shape}"))
    return out


def _rgb_errors(extra=None):
    bad = {"images": rand((2, 4), np.float32)}
    return [ErrorSample(dict(bad, **(extra or {})), match="3 channels|rank|3-D|dimensions")]


# ---------------------------------------------------------------------------- patches and boxes


PATCHES = [([1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"), ([1, 2, 2, 1], [1, 3, 3, 1], [1, 1, 1, 1], "VALID"),
           ([1, 4, 3, 1], [1, 1, 2, 1], [1, 2, 1, 1], "VALID"), ([1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME")]


def _patch_samples():
    out = []
    for i, dt in enumerate(REAL + (np.bool_,)):
        k, s, r, p = PATCHES[i % len(PATCHES)]
        out.append(Sample({"images": rand((2, 7, 8, 3), dt, 0, 9, seed=i)},
                          {"ksizes": k, "strides": s, "rates": r, "padding": p}, note=f"{np.dtype(dt).name} {k} {p}",
                          cross_check=dt != np.bool_))
    return out


def _draw_samples(v2):
    boxes = np.array([[[0.1, 0.1, 0.5, 0.6], [-0.2, 0.3, 0.8, 1.5], [0.9, 0.9, 0.2, 0.2]],
                      [[0, 0, 1, 1], [0.3, 0.3, 0.31, 0.31], [2, 2, 3, 3]]], np.float32)
    out = []
    for depth in (1, 3, 4):
        inputs = {"images": rand((2, 10, 12, depth), np.float32, 0, 1, seed=depth), "boxes": boxes}
        if v2:
            for colors in (np.array([[1, 0, 0, 1], [0, 1, 0, 1]], np.float32), np.zeros((0, 4), np.float32)):
                out.append(Sample(dict(inputs, colors=colors), note=f"depth {depth}, {len(colors)} colors"))
        else:
            out.append(Sample(inputs, note=f"depth {depth}"))
    return out


ENTRIES = [
    OpEntry("CropAndResize", _crop_samples(), ref=ref.crop_and_resize, rtol=1e-5, atol=1e-4, errors=_crop_errors(),
            grad_samples=_crop_grad_float_samples(), grad_inputs=["image"], grad_eps=1e-2, grad_rtol=1e-3,
            grad_atol=1e-3),
    OpEntry("CropAndResizeGradImage", _crop_grad_image_samples(), ref=_crop_grad_image_ref, rtol=1e-5, atol=1e-4,
            grad_samples=_crop_grad_image_samples()[::3], grad_inputs=["grads"], grad_eps=1e-2, grad_rtol=1e-3,
            grad_atol=1e-3),
    OpEntry("CropAndResizeGradBoxes", _crop_grad_boxes_samples(), ref=_crop_grad_boxes_ref, rtol=2e-3, atol=2e-3),
    OpEntry("NonMaxSuppressionV3", _nms_samples(3), ref=_nms_ref(3), errors=_nms_errors(3)),
    OpEntry("NonMaxSuppressionV4", _nms_samples(4), ref=_nms_ref(4), errors=_nms_errors(4)),
    OpEntry("NonMaxSuppressionV5", _nms_samples(5), ref=_nms_ref(5), rtol=1e-5, atol=1e-6, errors=_nms_errors(5)),
    OpEntry("NonMaxSuppressionWithOverlaps", _overlaps_samples(), ref=_overlaps_ref,
            errors=[ErrorSample(dict(_overlaps_samples()[0].inputs, overlaps=np.zeros((12, 11), np.float32)),
                                match="square")]),
    OpEntry("CombinedNonMaxSuppression", _combined_samples(), ref=ref.combined_non_max_suppression, rtol=1e-6,
            errors=_combined_errors()),
    OpEntry("SampleDistortedBoundingBoxV2", _sample_box_samples(False), check=_check_sample_box,
            errors=[ErrorSample(dict(_sample_box_inputs(1), bounding_boxes=np.full((1, 1, 4), 1.5, np.float32)),
                                {"seed": 1}, match="coordinates must be in \\[0, 1\\]", when="runtime"),
                    ErrorSample(_sample_box_inputs(0), {"seed": 1}, match="no bounding boxes", when="runtime")]),
    OpEntry("StatelessSampleDistortedBoundingBox", _sample_box_samples(True), check=_check_sample_box,
            errors=[ErrorSample(dict(_sample_box_inputs(1), seed=np.array([1, 2, 3], np.int32)), match="seed"),
                    ErrorSample(dict(_sample_box_inputs(1), seed=np.array([1, 2], np.int32)),
                                {"area_range": [0.5, 1.5]}, match="area_range must be in \\(0, 1\\]",
                                when="runtime")]),
    OpEntry("RGBToHSV", _color_samples((np.float32, np.float64)), ref=ref.rgb_to_hsv, rtol=1e-5, atol=1e-6,
            errors=_rgb_errors(), grad_samples=[Sample({"images": rand((2, 3, 3), np.float64, 0, 1, 30)})]),
    OpEntry("HSVToRGB", _hsv_samples(), ref=ref.hsv_to_rgb, rtol=1e-5, atol=1e-6, errors=_rgb_errors()),
    OpEntry("AdjustContrastv2", _adjust_samples("contrast_factor", [0.0, 0.5, 2.0, -1.0]), ref=ref.adjust_contrast,
            rtol=1e-5, atol=1e-5, grad_samples=_adjust_samples("contrast_factor", [0.5, 2.0]), grad_eps=1e-2,
            grad_rtol=1e-3, grad_atol=1e-3,
            errors=[ErrorSample({"images": rand((4, 3)), "contrast_factor": np.float32(1)}, match="rank 3|3-D"),
                    ErrorSample({"images": rand((2, 2, 3)), "contrast_factor": np.ones(2, np.float32)},
                                match="scalar")]),
    OpEntry("AdjustHue", _adjust_samples("delta", [-0.9, -0.3, 0.0, 0.25, 0.7, 1.0]), ref=ref.adjust_hue, rtol=1e-5,
            atol=2e-6, errors=_rgb_errors({"delta": np.float32(0.1)})),
    OpEntry("AdjustSaturation", _adjust_samples("scale", [0.0, 0.5, 1.3, 4.0]), ref=ref.adjust_saturation,
            rtol=1e-5, atol=2e-6, errors=_rgb_errors({"scale": np.float32(0.5)})),
    OpEntry("ExtractImagePatches", _patch_samples(), ref=ref.extract_patches,
            grad_samples=[Sample({"images": rand((2, 8, 7, 2), np.float64, seed=40)},
                                 {"ksizes": k, "strides": s, "rates": r, "padding": p}) for k, s, r, p in PATCHES],
            errors=[ErrorSample({"images": rand((4, 4, 1))}, {"ksizes": [1, 2, 2, 1], "strides": [1, 1, 1, 1],
                                                              "rates": [1, 1, 1, 1], "padding": "VALID"},
                                match="rank 4|4-D"),
                    ErrorSample({"images": rand((1, 4, 4, 1))}, {"ksizes": [2, 2, 2, 1], "strides": [1, 1, 1, 1],
                                                                 "rates": [1, 1, 1, 1], "padding": "VALID"},
                                match="ksizes must be \\[1, rows, cols, 1\\]")]),
    OpEntry("DrawBoundingBoxes", _draw_samples(False), ref=ref.draw_bounding_boxes,
            errors=[ErrorSample({"images": rand((1, 4, 4, 2)), "boxes": np.zeros((1, 1, 4), np.float32)},
                                match="1 \\(gray\\), 3 \\(RGB\\) or 4", when="runtime")]),
    OpEntry("DrawBoundingBoxesV2", _draw_samples(True), ref=ref.draw_bounding_boxes,
            errors=[ErrorSample({"images": rand((1, 4, 4, 3)), "boxes": np.zeros((2, 1, 4), np.float32),
                                 "colors": np.ones((1, 4), np.float32)}, match="boxes must be 3-D", when="runtime"),
                    ErrorSample({"images": rand((1, 4, 4, 3)), "boxes": np.zeros((1, 1, 4), np.float32),
                                 "colors": np.ones((1, 2), np.float32)}, match="colors must be 2-D", when="runtime")]),
]
