// Image ops beside resizing: CropAndResize and its gradient ops, NonMaxSuppressionV3/V4/V5, the
// color conversions and adjustments, ExtractImagePatches and DrawBoundingBoxes(V2); signatures
// identical to TensorFlow's.
#include <algorithm>
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/image_util.h"

namespace tx {
namespace {

// CropAndResize(image [b, h, w, d], boxes [n, 4], box_ind [n], crop_size [2]) -> [n, ch, cw, d].
Status CropAndResizeShape(InferenceContext* c) {
  PartialShape image, boxes, ind;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'image'", &image));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, "Input 'boxes'", &boxes));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "Input 'box_ind'", &ind));
  if (boxes.dim(1) >= 0 && boxes.dim(1) != 4)
    return InvalidArgument("CropAndResize: boxes must have 4 columns, got shape ", boxes.ToString());
  int64_t n = boxes.dim(0);
  if (n >= 0 && ind.dim(0) >= 0 && n != ind.dim(0))
    return InvalidArgument("CropAndResize: boxes has ", n, " rows but box_ind has ", ind.dim(0), " entries");
  if (n < 0) n = ind.dim(0);
  int64_t h = -1, w = -1;
  TX_RETURN_IF_ERROR(image_util::SizePair(c, 3, "CropAndResize", "crop_size", &h, &w));
  c->set_output(0, PartialShape({n, h, w, image.dim(3)}));
  return Status::OK();
}

// CropAndResizeGradImage(grads, boxes, box_ind, image_size [4]) -> image_size.
Status CropAndResizeGradImageShape(InferenceContext* c) {
  PartialShape grads, size;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'grads'", &grads));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, "Input 'image_size'", &size));
  if (size.dim(0) >= 0 && size.dim(0) != 4)
    return InvalidArgument("CropAndResizeGradImage: image_size must have 4 elements, got shape ", size.ToString());
  PartialShape out;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(3, &out));
  if (!out.known_rank()) out = PartialShape::UnknownDims(4);
  c->set_output(0, out);
  return Status::OK();
}

// CropAndResizeGradBoxes(grads [n, ...], image, boxes [n, 4], box_ind) -> [n, 4].
Status CropAndResizeGradBoxesShape(InferenceContext* c) {
  PartialShape grads, image, boxes;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'grads'", &grads));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, "Input 'image'", &image));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 2, "Input 'boxes'", &boxes));
  c->set_output(0, PartialShape({boxes.dim(0) >= 0 ? boxes.dim(0) : grads.dim(0), 4}));
  return Status::OK();
}

// NonMaxSuppressionV3/4/5: boxes [n, 4], scores [n], scalars; selected indices [?] (or
// [max_output_size] when padded and constant), scores alike, valid count [].
Status NmsShape(InferenceContext* c) {
  const std::string& op = c->op_def().name;
  PartialShape boxes, scores;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'boxes'", &boxes));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'scores'", &scores));
  if (boxes.dim(1) >= 0 && boxes.dim(1) != 4)
    return InvalidArgument(op, ": boxes must have 4 columns, got shape ", boxes.ToString());
  if (boxes.dim(0) >= 0 && scores.dim(0) >= 0 && boxes.dim(0) != scores.dim(0))
    return InvalidArgument(op, ": boxes has ", boxes.dim(0), " rows but scores has ", scores.dim(0), " entries");
  const char* names[] = {"max_output_size", "iou_threshold", "score_threshold", "soft_nms_sigma"};
  for (int i = 2; i < c->num_inputs(); ++i) TX_RETURN_IF_ERROR(image_util::Scalar(c, i, op.c_str(), names[i - 2]));
  int64_t len = -1;
  bool pad = false;
  if (op != "NonMaxSuppressionV3") TX_RETURN_IF_ERROR(c->GetAttr("pad_to_max_output_size", &pad));
  const Tensor* max_out = c->input_tensor(2);
  if (pad && max_out != nullptr && max_out->dtype() == DT_INT32 && max_out->num_elements() == 1)
    len = max_out->data<int32_t>()[0];
  c->set_output(0, PartialShape({len}));
  if (op == "NonMaxSuppressionV5") c->set_output(1, PartialShape({len}));
  if (op != "NonMaxSuppressionV3") c->set_output(c->num_outputs() - 1, PartialShape::Scalar());
  return Status::OK();
}

// NonMaxSuppressionWithOverlaps: overlaps [n, n], scores [n], three scalars -> indices [?].
Status NmsOverlapsShape(InferenceContext* c) {
  PartialShape overlaps, scores;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, "Input 'overlaps'", &overlaps));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "Input 'scores'", &scores));
  if (overlaps.dim(0) >= 0 && overlaps.dim(1) >= 0 && overlaps.dim(0) != overlaps.dim(1))
    return InvalidArgument("NonMaxSuppressionWithOverlaps: overlaps must be square, got ", overlaps.ToString());
  if (overlaps.dim(0) >= 0 && scores.dim(0) >= 0 && overlaps.dim(0) != scores.dim(0))
    return InvalidArgument("NonMaxSuppressionWithOverlaps: overlaps has ", overlaps.dim(0), " rows but scores has ",
                           scores.dim(0), " entries");
  const char* names[] = {"max_output_size", "overlap_threshold", "score_threshold"};
  for (int i = 2; i < 5; ++i)
    TX_RETURN_IF_ERROR(image_util::Scalar(c, i, "NonMaxSuppressionWithOverlaps", names[i - 2]));
  c->set_output(0, PartialShape({-1}));
  return Status::OK();
}

// CombinedNonMaxSuppression: boxes [b, n, q, 4], scores [b, n, classes] -> [b, k, 4], [b, k],
// [b, k], [b] with k = max_total_size (or fewer with pad_per_class), when constant.
Status CombinedNmsShape(InferenceContext* c) {
  constexpr const char* kOp = "CombinedNonMaxSuppression";
  PartialShape boxes, scores;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'boxes'", &boxes));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 3, "Input 'scores'", &scores));
  if (boxes.dim(3) >= 0 && boxes.dim(3) != 4)
    return InvalidArgument(kOp, ": boxes must have 4 coordinates in the last dimension, got ", boxes.ToString());
  for (int d = 0; d < 2; ++d)
    if (boxes.dim(d) >= 0 && scores.dim(d) >= 0 && boxes.dim(d) != scores.dim(d))
      return InvalidArgument(kOp, ": boxes ", boxes.ToString(), " and scores ", scores.ToString(),
                             " disagree in the batch or box dimension");
  const char* names[] = {"max_output_size_per_class", "max_total_size", "iou_threshold", "score_threshold"};
  for (int i = 2; i < 6; ++i) TX_RETURN_IF_ERROR(image_util::Scalar(c, i, kOp, names[i - 2]));
  bool pad_per_class = false;
  TX_RETURN_IF_ERROR(c->GetAttr("pad_per_class", &pad_per_class));
  const Tensor *per_class = c->input_tensor(2), *total = c->input_tensor(3);
  int64_t k = -1;
  if (total != nullptr && total->dtype() == DT_INT32 && total->num_elements() == 1) {
    k = total->data<int32_t>()[0];
    if (pad_per_class) {
      if (per_class != nullptr && per_class->dtype() == DT_INT32 && per_class->num_elements() == 1 &&
          scores.dim(2) >= 0)
        k = std::min<int64_t>(k, int64_t{per_class->data<int32_t>()[0]} * scores.dim(2));
      else
        k = -1;
    }
  }
  const int64_t b = boxes.dim(0) >= 0 ? boxes.dim(0) : scores.dim(0);
  c->set_output(0, PartialShape({b, k, 4}));
  c->set_output(1, PartialShape({b, k}));
  c->set_output(2, PartialShape({b, k}));
  c->set_output(3, PartialShape({b}));
  return Status::OK();
}

// (Stateless)SampleDistortedBoundingBox(V2): image_size [3], bounding_boxes [batch, n, 4],
// min_object_covered [] (and seed [2]) -> begin [3], size [3], bboxes [1, 1, 4].
Status SampleBoxShape(InferenceContext* c) {
  const std::string& op = c->op_def().name;
  PartialShape size, boxes;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "Input 'image_size'", &size));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 3, "Input 'bounding_boxes'", &boxes));
  if (size.dim(0) >= 0 && size.dim(0) != 3)
    return InvalidArgument(op, ": image_size must have 3 elements (height, width, channels), got ", size.ToString());
  if (boxes.dim(2) >= 0 && boxes.dim(2) != 4)
    return InvalidArgument(op, ": bounding_boxes must have 4 coordinates in the last dimension, got ",
                           boxes.ToString());
  TX_RETURN_IF_ERROR(image_util::Scalar(c, 2, op.c_str(), "min_object_covered"));
  if (c->num_inputs() == 4) {
    PartialShape seed;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, "Input 'seed'", &seed));
    if (seed.dim(0) >= 0 && seed.dim(0) != 2)
      return InvalidArgument(op, ": seed must have shape [2], got ", seed.ToString());
  }
  c->set_output(0, PartialShape({3}));
  c->set_output(1, PartialShape({3}));
  c->set_output(2, PartialShape({1, 1, 4}));
  return Status::OK();
}

// Color ops: images [..., 3] (at least rank `kMinRank`), output alike; the adjustment's second
// input is a scalar.
template <int kMinRank>
Status ColorShape(InferenceContext* c) {
  const std::string& op = c->op_def().name;
  PartialShape images;
  TX_RETURN_IF_ERROR(image_util::WithRankAtLeast(c, 0, kMinRank, op.c_str(), "images", &images));
  if (images.known_rank() && images.rank() >= 1) {
    const int64_t channels = images.dim(images.rank() - 1);
    if (channels >= 0 && channels != 3 && op != "AdjustContrastv2")
      return InvalidArgument(op, ": images must have 3 channels in the last dimension, got shape ", images.ToString());
  }
  if (c->num_inputs() == 2) TX_RETURN_IF_ERROR(image_util::Scalar(c, 1, op.c_str(), "the adjustment"));
  c->set_output(0, images);
  return Status::OK();
}

Status ExtractImagePatchesShape(InferenceContext* c) {
  PartialShape images;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'images'", &images));
  std::vector<int64_t> ksizes, strides, rates;
  std::string padding;
  TX_RETURN_IF_ERROR(c->GetAttr("ksizes", &ksizes));
  TX_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  TX_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  TX_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  image_util::PatchGeometry g;
  TX_RETURN_IF_ERROR(image_util::ExtractPatchesGeometry("ExtractImagePatches", images.dim(1), images.dim(2), ksizes,
                                                        strides, rates, padding, &g));
  const int64_t depth = images.dim(3) >= 0 ? g.k_rows * g.k_cols * images.dim(3) : -1;
  c->set_output(0, PartialShape({images.dim(0), g.out_rows, g.out_cols, depth}));
  return Status::OK();
}

// DrawBoundingBoxes(V2): images [b, h, w, d] unchanged; boxes [b, n, 4]; colors [m, >= d].
Status DrawBoxesShape(InferenceContext* c) {
  PartialShape images, boxes;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'images'", &images));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 3, "Input 'boxes'", &boxes));
  if (c->num_inputs() == 3) {
    PartialShape colors;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(2), 2, "Input 'colors'", &colors));
  }
  c->set_output(0, images);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("CropAndResize")
    .Input("image: T")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("crop_size: int32")
    .Output("crops: float")
    .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .Attr("extrapolation_value: float = 0")
    .SetShapeFn(CropAndResizeShape)
    .Summary(
        "Crops boxes (normalized [y1, x1, y2, x2]) out of a batch of images and resizes each crop to "
        "crop_size.");

TX_REGISTER_OP("CropAndResizeGradImage")
    .Input("grads: float")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("image_size: int32")
    .Output("output: T")
    .Attr("T: {float, half, double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .SetShapeFn(CropAndResizeGradImageShape)
    .Summary("Gradient of CropAndResize with respect to the image.");

TX_REGISTER_OP("CropAndResizeGradBoxes")
    .Input("grads: float")
    .Input("image: T")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Output("output: float")
    .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
    .Attr("method: {'bilinear'} = 'bilinear'")
    .SetShapeFn(CropAndResizeGradBoxesShape)
    .Summary("Gradient of CropAndResize with respect to the boxes.");

TX_REGISTER_OP("NonMaxSuppressionV3")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .SetShapeFn(NmsShape)
    .Summary(
        "Greedily selects boxes by descending score, skipping those overlapping a selected box by more "
        "than iou_threshold.");

TX_REGISTER_OP("NonMaxSuppressionV4")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn(NmsShape)
    .Summary("NonMaxSuppressionV3 that can pad the selection to max_output_size and counts the valid entries.");

TX_REGISTER_OP("NonMaxSuppressionV5")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T")
    .Input("score_threshold: T")
    .Input("soft_nms_sigma: T")
    .Output("selected_indices: int32")
    .Output("selected_scores: T")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn(NmsShape)
    .Summary(
        "Non-max suppression returning the selected scores; soft_nms_sigma > 0 decays overlapping scores "
        "(Soft-NMS) instead of dropping the boxes.");

TX_REGISTER_OP("NonMaxSuppressionWithOverlaps")
    .Input("overlaps: float")
    .Input("scores: float")
    .Input("max_output_size: int32")
    .Input("overlap_threshold: float")
    .Input("score_threshold: float")
    .Output("selected_indices: int32")
    .SetShapeFn(NmsOverlapsShape)
    .Summary("Non-max suppression with a given [n, n] overlap matrix in place of the boxes' IoU.");

TX_REGISTER_OP("CombinedNonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size_per_class: int32")
    .Input("max_total_size: int32")
    .Input("iou_threshold: float")
    .Input("score_threshold: float")
    .Output("nmsed_boxes: float")
    .Output("nmsed_scores: float")
    .Output("nmsed_classes: float")
    .Output("valid_detections: int32")
    .Attr("pad_per_class: bool = false")
    .Attr("clip_boxes: bool = true")
    .SetShapeFn(CombinedNmsShape)
    .Summary(
        "Non-max suppression per batch entry and class, then the best max_total_size detections of each "
        "batch entry, zero-padded.");

TX_REGISTER_OP("SampleDistortedBoundingBoxV2")
    .Input("image_size: T")
    .Input("bounding_boxes: float")
    .Input("min_object_covered: float")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float")
    .Attr("T: {uint8, int8, int16, int32, int64}")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("aspect_ratio_range: list(float) = [0.75, 1.33]")
    .Attr("area_range: list(float) = [0.05, 1]")
    .Attr("max_attempts: int = 100")
    .Attr("use_image_if_no_bounding_boxes: bool = false")
    .SetIsStateful()
    .SetShapeFn(SampleBoxShape)
    .Summary("Samples a random crop of an image that covers enough of one of the bounding boxes.");

TX_REGISTER_OP("StatelessSampleDistortedBoundingBox")
    .Input("image_size: T")
    .Input("bounding_boxes: float")
    .Input("min_object_covered: float")
    .Input("seed: Tseed")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float")
    .Attr("T: {uint8, int8, int16, int32, int64}")
    .Attr("Tseed: {int32, int64}")
    .Attr("aspect_ratio_range: list(float) = [0.75, 1.33]")
    .Attr("area_range: list(float) = [0.05, 1]")
    .Attr("max_attempts: int = 100")
    .Attr("use_image_if_no_bounding_boxes: bool = false")
    .SetShapeFn(SampleBoxShape)
    .Summary("SampleDistortedBoundingBoxV2 determined by `seed` (shape [2]) alone.");

TX_REGISTER_OP("AdjustContrastv2")
    .Input("images: T")
    .Input("contrast_factor: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn(ColorShape<3>)
    .Summary("Scales each image channel's deviation from its mean by contrast_factor.");

TX_REGISTER_OP("AdjustHue")
    .Input("images: T")
    .Input("delta: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn(ColorShape<3>)
    .Summary("Rotates the hue of RGB images by delta (a fraction of the color wheel).");

TX_REGISTER_OP("AdjustSaturation")
    .Input("images: T")
    .Input("scale: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn(ColorShape<3>)
    .Summary("Multiplies the saturation of RGB images by scale (clamped to [0, 1]).");

TX_REGISTER_OP("RGBToHSV")
    .Input("images: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(ColorShape<1>)
    .Summary("Converts RGB pixels (last dimension 3, values in [0, 1]) to hue, saturation and value in [0, 1].");

TX_REGISTER_OP("HSVToRGB")
    .Input("images: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(ColorShape<1>)
    .Summary("Converts HSV pixels (last dimension 3, values in [0, 1]) to RGB.");

TX_REGISTER_OP("ExtractImagePatches")
    .Input("images: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
        "complex64, complex128, bool}")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractImagePatchesShape)
    .Summary(
        "Extracts the (dilated) ksizes patches of images [batch, rows, cols, depth] into the depth "
        "dimension.");

TX_REGISTER_OP("DrawBoundingBoxes")
    .Input("images: T")
    .Input("boxes: float")
    .Output("output: T")
    .Attr("T: {float, half} = DT_FLOAT")
    .SetShapeFn(DrawBoxesShape)
    .Summary("Draws the outlines of normalized boxes [y1, x1, y2, x2] over images in a default color table.");

TX_REGISTER_OP("DrawBoundingBoxesV2")
    .Input("images: T")
    .Input("boxes: float")
    .Input("colors: float")
    .Output("output: T")
    .Attr("T: {float, half} = DT_FLOAT")
    .SetShapeFn(DrawBoxesShape)
    .Summary("Draws the outlines of normalized boxes [y1, x1, y2, x2] over images, box k in colors[k % n].");

}  // namespace tx
