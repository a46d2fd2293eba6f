"""``tx.image`` boxes: non-max suppression (plain, with scores and Soft-NMS, padded and
batched, with given overlaps, combined over classes), drawing boxes, and sampling distorted
bounding boxes (stateful and stateless)."""

from tensorflux._src import array_ops, dtypes, random_ops, shape_ops
from tensorflux._src.functional_ops import map_fn
from tensorflux._src.generated import gen_ops
from tensorflux._src.graph import name_scope
from tensorflux._src.image_util import to_tensor


def _thresholds(iou_threshold, score_threshold):
    return (to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold"),
            to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold"))


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices of at most ``max_output_size`` boxes ([num_boxes, 4], [y1, x1, y2, x2] in any
    corner order) chosen greedily by descending score, skipping boxes whose IoU with a chosen one
    exceeds ``iou_threshold`` and boxes scoring at most ``score_threshold``.

    >>> boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 2.0, 1.0, 3.0]]
    >>> tx.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3).numpy()
    array([0, 2], dtype=int32)
    """
    with name_scope(name or "non_max_suppression"):
        iou, score = _thresholds(iou_threshold, score_threshold)
        return gen_ops.non_max_suppression_v3(to_tensor(boxes, dtype=dtypes.float32),
                                              to_tensor(scores, dtype=dtypes.float32),
                                              to_tensor(max_output_size, dtype=dtypes.int32), iou, score)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """(selected indices, their scores). With ``soft_nms_sigma`` > 0 overlapping boxes are not
    dropped but their scores decay by exp(-0.5 * iou^2 / soft_nms_sigma) (Soft-NMS, as
    TensorFlow scales it), boxes falling to ``score_threshold`` or below leaving.

    >>> boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.5, 1.0, 1.5]]
    >>> idx, sc = tx.image.non_max_suppression_with_scores(boxes, [0.9, 0.8], 2, soft_nms_sigma=0.5)
    >>> idx.numpy(), sc.numpy().round(4)
    (array([0, 1], dtype=int32), array([0.9   , 0.7159], dtype=float32))
    """
    with name_scope(name or "non_max_suppression_with_scores"):
        iou, score = _thresholds(iou_threshold, score_threshold)
        idx, selected, _ = gen_ops.non_max_suppression_v5(
            to_tensor(boxes, dtype=dtypes.float32), to_tensor(scores, dtype=dtypes.float32),
            to_tensor(max_output_size, dtype=dtypes.int32), iou, score,
            to_tensor(soft_nms_sigma, dtype=dtypes.float32, name="soft_nms_sigma"), pad_to_max_output_size=False)
        return idx, selected


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """(indices, number valid): non-max suppression of boxes [..., num_boxes, 4] with scores
    [..., num_boxes], each batch entry on its own. With ``pad_to_max_output_size`` the indices
    are [..., max_output_size], zero past the valid ones (needed for batched input); without it,
    the valid indices of a single set of boxes.

    ``sorted_input``, ``canonicalized_coordinates`` and ``tile_size`` are TensorFlow's speed hints
    for its tiled algorithm; the result here is the exact greedy selection of
    ``non_max_suppression`` (TensorFlow's tiled one also drops boxes whose IoU equals the threshold).

    >>> boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 2.0, 1.0, 3.0]]
    >>> idx, n = tx.image.non_max_suppression_padded(boxes, [0.9, 0.8, 0.7], 3, pad_to_max_output_size=True)
    >>> idx.numpy(), int(n)
    (array([0, 2, 0], dtype=int32), 2)
    """
    del sorted_input, canonicalized_coordinates, tile_size  # hints only (see the docstring)
    with name_scope(name or "non_max_suppression_padded"):
        boxes = to_tensor(boxes, dtype=dtypes.float32)
        scores = to_tensor(scores, dtype=dtypes.float32)
        rank = boxes.shape.rank
        if not pad_to_max_output_size and rank is not None and rank > 2:
            raise ValueError("'pad_to_max_output_size' (value False) must be True for batched input")
        max_out = to_tensor(max_output_size, dtype=dtypes.int32)
        iou, score = _thresholds(iou_threshold, score_threshold)
        if rank == 2:
            idx, valid = gen_ops.non_max_suppression_v4(boxes, scores, max_out, iou, score,
                                                        pad_to_max_output_size=pad_to_max_output_size)
            return idx, valid
        batch_dims = shape_ops.shape(boxes)[:-2]
        flat_boxes = array_ops.reshape(boxes, array_ops.concat([[-1], shape_ops.shape(boxes)[-2:]], 0))
        flat_scores = array_ops.reshape(scores, array_ops.concat([[-1], shape_ops.shape(scores)[-1:]], 0))

        def one(args):
            b, s = args
            return gen_ops.non_max_suppression_v4(b, s, max_out, iou, score, pad_to_max_output_size=True)

        idx, valid = map_fn(one, (flat_boxes, flat_scores), fn_output_signature=(dtypes.int32, dtypes.int32))
        idx = array_ops.reshape(idx, array_ops.concat([batch_dims, array_ops.expand_dims(max_out, 0)], 0))
        return idx, array_ops.reshape(valid, batch_dims)


def draw_bounding_boxes(images, boxes, colors, name=None):
    """Draws one-pixel outlines of ``boxes`` ([batch, num_boxes, 4] normalized [y1, x1, y2, x2])
    over float32 images [batch, height, width, 1, 3 or 4], box k in ``colors[k % len(colors)]``
    (TensorFlow's default table when ``colors`` is None).

    >>> out = tx.image.draw_bounding_boxes(tx.zeros([1, 3, 3, 1]), [[[0.0, 0.0, 1.0, 1.0]]], [[1.0]])
    >>> out.numpy()[0, ..., 0]
    array([[1., 1., 1.],
           [1., 0., 1.],
           [1., 1., 1.]], dtype=float32)
    """
    images = to_tensor(images, name="images")
    boxes = to_tensor(boxes, dtype=dtypes.float32, name="boxes")
    if colors is None:
        return gen_ops.draw_bounding_boxes(images, boxes, name=name)
    return gen_ops.draw_bounding_boxes_v2(images, boxes, to_tensor(colors, dtype=dtypes.float32), name=name)



def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """non_max_suppression with a given [num_boxes, num_boxes] overlap matrix in place of IoU:
    box j is skipped after box i is selected when overlaps[j, i] > overlap_threshold.

    >>> overlaps = [[1.0, 0.9, 0.0], [0.9, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> tx.image.non_max_suppression_overlaps(overlaps, [0.9, 0.8, 0.7], 3).numpy()
    array([0, 2], dtype=int32)
    """
    with name_scope(name or "non_max_suppression_overlaps"):
        return gen_ops.non_max_suppression_with_overlaps(
            to_tensor(overlaps, dtype=dtypes.float32), to_tensor(scores, dtype=dtypes.float32),
            to_tensor(max_output_size, dtype=dtypes.int32),
            to_tensor(overlap_threshold, dtype=dtypes.float32, name="overlap_threshold"),
            to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold"))


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Non-max suppression per batch entry and class (boxes [batch, num_boxes, q, 4] with q = 1 or
    num_classes, scores [batch, num_boxes, num_classes]), then the ``max_total_size`` best
    detections of each batch entry: (nmsed_boxes [batch, k, 4], nmsed_scores [batch, k],
    nmsed_classes [batch, k], valid_detections [batch]), zero past the valid ones. Boxes are
    clipped to [0, 1] unless ``clip_boxes`` is False.

    >>> boxes = tx.constant([[[[0.0, 0.0, 0.5, 0.5]], [[0.0, 0.0, 0.45, 0.5]], [[0.5, 0.5, 1.0, 1.0]]]])
    >>> scores = tx.constant([[[0.9, 0.1], [0.8, 0.2], [0.1, 0.7]]])
    >>> out = tx.image.combined_non_max_suppression(boxes, scores, 2, 3, score_threshold=0.15)
    >>> out[2].numpy(), int(out[3][0])
    (array([[0., 1., 1.]], dtype=float32), 3)
    """
    with name_scope(name or "combined_non_max_suppression"):
        return gen_ops.combined_non_max_suppression(
            to_tensor(boxes, dtype=dtypes.float32), to_tensor(scores, dtype=dtypes.float32),
            to_tensor(max_output_size_per_class, dtype=dtypes.int32), to_tensor(max_total_size, dtype=dtypes.int32),
            to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold"),
            to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold"),
            pad_per_class=pad_per_class, clip_boxes=clip_boxes)


def _box_attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes):
    """The sampling attrs, TensorFlow's defaults for those left None."""
    return dict(aspect_ratio_range=list(aspect_ratio_range) if aspect_ratio_range is not None else [0.75, 1.33],
                area_range=list(area_range) if area_range is not None else [0.05, 1.0],
                max_attempts=100 if max_attempts is None else max_attempts,
                use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes))


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop of an image of ``image_size`` ([height, width, channels]) with an aspect
    ratio in ``aspect_ratio_range`` and an area fraction in ``area_range`` that covers at least
    ``min_object_covered`` of one of ``bounding_boxes`` ([batch, n, 4] normalized); the whole
    image when ``max_attempts`` draws find none. Returns (begin, size) for ``tx.slice`` and the
    crop as a box [1, 1, 4]. ``seed`` works as op seeds do (tx.random.set_seed).

    >>> begin, size, box = tx.image.sample_distorted_bounding_box(
    ...     [40, 60, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=3, min_object_covered=0.5)
    >>> tx.slice(tx.zeros([40, 60, 3]), begin, size).shape.rank
    3
    """
    seed1, seed2 = random_ops.get_seed(seed) if seed else (0, 0)
    with name_scope(name or "sample_distorted_bounding_box"):
        image_size = to_tensor(image_size)
        return gen_ops.sample_distorted_bounding_box_v2(
            image_size, to_tensor(bounding_boxes, dtype=dtypes.float32),
            to_tensor(min_object_covered, dtype=dtypes.float32), seed=seed1, seed2=seed2,
            **_box_attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes))


def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed, min_object_covered=0.1,
                                            aspect_ratio_range=None, area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """sample_distorted_bounding_box determined by ``seed`` (shape [2]) alone: the crop
    TensorFlow's stateless_sample_distorted_bounding_box picks for that seed.

    >>> begin, size, box = tx.image.stateless_sample_distorted_bounding_box(
    ...     [40, 60, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed=[1, 2], min_object_covered=0.5)
    >>> begin.numpy(), size.numpy()
    (array([0, 3, 0], dtype=int32), array([39, 48, -1], dtype=int32))
    """
    with name_scope(name or "stateless_sample_distorted_bounding_box"):
        return gen_ops.stateless_sample_distorted_bounding_box(
            to_tensor(image_size), to_tensor(bounding_boxes, dtype=dtypes.float32),
            to_tensor(min_object_covered, dtype=dtypes.float32), to_tensor(seed),
            **_box_attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes))
