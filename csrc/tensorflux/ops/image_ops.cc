// Image ops beside resizing: CropAndResize and its gradient ops, NonMaxSuppressionV3/V4/V5, the
// color conversions and adjustments, ExtractImagePatches and DrawBoundingBoxes(V2); signatures
// identical to TensorFlow's.
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
      return InvalidArgument(op, ": images must have 3 channels in the last dimension, got shape ",
                             images.ToString());
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
    .Summary("Crops boxes (normalized [y1, x1, y2, x2]) out of a batch of images and resizes each crop to "
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
    .Summary("Greedily selects boxes by descending score, skipping those overlapping a selected box by more "
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
    .Summary("Non-max suppression returning the selected scores; soft_nms_sigma > 0 decays overlapping scores "
             "(Soft-NMS) instead of dropping the boxes.");

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
    .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
          "complex64, complex128, bool}")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractImagePatchesShape)
    .Summary("Extracts the (dilated) ksizes patches of images [batch, rows, cols, depth] into the depth "
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
