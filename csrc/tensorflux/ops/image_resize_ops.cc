// Image resizing ops: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea,
// ScaleAndTranslate and their gradient ops; signatures identical to TensorFlow's.
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/image_util.h"

namespace tx {
namespace {

// Resize*(images [b, h, w, c], size [2]) -> [b, size[0], size[1], c]; ScaleAndTranslate also
// takes scale and translation, float32 [2] each.
Status ResizeShape(InferenceContext* c) {
  PartialShape images;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'images'", &images));
  int64_t h = -1, w = -1;
  TX_RETURN_IF_ERROR(image_util::SizePair(c, 1, c->op_def().name.c_str(), "size", &h, &w));
  for (int i = 2; i < c->num_inputs(); ++i) {
    const char* what = i == 2 ? "Input 'scale'" : "Input 'translation'";
    PartialShape s;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, what, &s));
    if (s.dim(0) >= 0 && s.dim(0) != 2)
      return InvalidArgument(c->op_def().name, ": ", what, " must have 2 elements, got shape ", s.ToString());
  }
  c->set_output(0, PartialShape({images.dim(0), h, w, images.dim(3)}));
  return Status::OK();
}

// ResizeBilinearGrad / ResizeBicubicGrad / ScaleAndTranslateGrad(grads, original_image, ...):
// the original image's height and width with the gradient's batch and channels.
Status ResizeGradShape(InferenceContext* c) {
  PartialShape grads, orig;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'grads'", &grads));
  TX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, "Input 'original_image'", &orig));
  for (int i = 2; i < c->num_inputs(); ++i) {
    PartialShape s;
    TX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, i == 2 ? "Input 'scale'" : "Input 'translation'", &s));
  }
  c->set_output(0, PartialShape({grads.dim(0), orig.dim(1), orig.dim(2), grads.dim(3)}));
  return Status::OK();
}

// ResizeNearestNeighborGrad(grads, size): the gradient's batch and channels at `size`.
Status ResizeNearestGradShape(InferenceContext* c) {
  PartialShape grads;
  TX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "Input 'grads'", &grads));
  int64_t h = -1, w = -1;
  TX_RETURN_IF_ERROR(image_util::SizePair(c, 1, "ResizeNearestNeighborGrad", "size", &h, &w));
  c->set_output(0, PartialShape({grads.dim(0), h, w, grads.dim(3)}));
  return Status::OK();
}

constexpr char kRealTypes[] = "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}";

}  // namespace

TX_REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Summary("Resizes images [batch, height, width, channels] to `size` by bilinear interpolation.");

TX_REGISTER_OP("ResizeBilinearGrad")
    .Input("grads: float")
    .Input("original_image: T")
    .Output("output: T")
    .Attr("T: {float, bfloat16, half, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeGradShape)
    .Summary("Gradient of ResizeBilinear with respect to its images.");

TX_REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr(kRealTypes)
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Summary("Resizes images [batch, height, width, channels] to `size` by nearest-neighbor sampling.");

TX_REGISTER_OP("ResizeNearestNeighborGrad")
    .Input("grads: T")
    .Input("size: int32")
    .Output("output: T")
    .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeNearestGradShape)
    .Summary("Gradient of ResizeNearestNeighbor: sums each gradient into the pixel it was copied from.");

TX_REGISTER_OP("ResizeBicubic")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(kRealTypes)
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Summary("Resizes images [batch, height, width, channels] to `size` by bicubic interpolation.");

TX_REGISTER_OP("ResizeBicubicGrad")
    .Input("grads: float")
    .Input("original_image: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeGradShape)
    .Summary("Gradient of ResizeBicubic with respect to its images.");

TX_REGISTER_OP("ResizeArea")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(kRealTypes)
    .Attr("align_corners: bool = false")
    .SetShapeFn(ResizeShape)
    .Summary(
        "Resizes images to `size` by area averaging: each output pixel is the mean of the input area it "
        "covers.");

TX_REGISTER_OP("ScaleAndTranslate")
    .Input("images: T")
    .Input("size: int32")
    .Input("scale: float")
    .Input("translation: float")
    .Output("resized_images: float")
    .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}")
    .Attr("kernel_type: string = 'lanczos3'")
    .Attr("antialias: bool = true")
    .SetShapeFn(ResizeShape)
    .Summary(
        "Resamples images to `size` through `scale` and `translation` with a reconstruction filter "
        "(widened when downscaling if antialias).");

TX_REGISTER_OP("ScaleAndTranslateGrad")
    .Input("grads: T")
    .Input("original_image: T")
    .Input("scale: float")
    .Input("translation: float")
    .Output("output: T")
    .Attr("T: {float}")
    .Attr("kernel_type: string = 'lanczos3'")
    .Attr("antialias: bool = true")
    .SetShapeFn(ResizeGradShape)
    .Summary("Gradient of ScaleAndTranslate with respect to its images.");

}  // namespace tx
