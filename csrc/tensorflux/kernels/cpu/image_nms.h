// Box overlap shared by the non-max suppression kernels (image_nms.cc, image_combined_nms.cc).
#pragma once

#include <algorithm>
#include <cstdint>

namespace tx {
namespace cpu {
namespace image {

// Intersection over union of boxes i and j of `boxes` ([n, 4] rows of [y1, x1, y2, x2], corners
// in either order), in TensorFlow's float arithmetic; 0 when either box is empty.
inline float IoU(const float* boxes, int64_t i, int64_t j) {
  const float* a = boxes + i * 4;
  const float* b = boxes + j * 4;
  const float ay0 = std::min(a[0], a[2]), ax0 = std::min(a[1], a[3]), ay1 = std::max(a[0], a[2]),
              ax1 = std::max(a[1], a[3]);
  const float by0 = std::min(b[0], b[2]), bx0 = std::min(b[1], b[3]), by1 = std::max(b[0], b[2]),
              bx1 = std::max(b[1], b[3]);
  const float area_a = (ay1 - ay0) * (ax1 - ax0), area_b = (by1 - by0) * (bx1 - bx0);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float inter =
      std::max(std::min(ay1, by1) - std::max(ay0, by0), 0.0f) * std::max(std::min(ax1, bx1) - std::max(ax0, bx0), 0.0f);
  return inter / (area_a + area_b - inter);
}

}  // namespace image
}  // namespace cpu
}  // namespace tx
