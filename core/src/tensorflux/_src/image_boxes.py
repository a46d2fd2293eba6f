"""``tx.image`` boxes: non-max suppression (plain, with scores and Soft-NMS, padded and
batched) over the NonMaxSuppressionV3/V4/V5 ops, and drawing boxes."""

from tensorflux._src import array_ops, dtypes, shape_ops
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

