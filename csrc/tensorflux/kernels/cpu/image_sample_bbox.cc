// CPU kernels for SampleDistortedBoundingBoxV2 (stateful) and StatelessSampleDistortedBoundingBox:
// random crops of an image, of an aspect ratio and area in the given ranges, covering enough of
// one of the given boxes (TensorFlow's rejection loop, the Philox words drawn in TensorFlow's
// order, so a stateless seed gives TensorFlow's crop).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Philox words one at a time, four per block (TensorFlow's SimplePhilox).
class WordStream {
 public:
  WordStream(PhiloxKey key, PhiloxCounter counter) : key_(key), counter_(counter) {}
  uint32_t Next() {
    if (used_ == 4) {
      block_ = Philox4x32(counter_, key_);
      counter_ = PhiloxAdd(counter_, 1);
      used_ = 0;
    }
    return block_[used_++];
  }
  float NextFloat() { return Uint32ToFloat(Next()); }
  // Uniform in [0, n) by rejecting the words that would bias the modulo (n > 0).
  uint32_t Uniform(uint32_t n) {
    if ((n & (n - 1)) == 0) return Next() & (n - 1);
    const uint32_t reject_below = (std::numeric_limits<uint32_t>::max() % n) + 1;
    uint32_t w;
    do w = Next();
    while (w < reject_below);
    return w % n;
  }

 private:
  PhiloxKey key_;
  PhiloxCounter counter_;
  PhiloxBlock block_{};
  int used_ = 4;
};

// An axis-aligned pixel rectangle [min_x, max_x) x [min_y, max_y).
struct Rect {
  int64_t min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  float Area() const { return static_cast<float>((max_x - min_x) * (max_y - min_y)); }
  Rect Intersect(const Rect& r) const {
    Rect o{std::max(min_x, r.min_x), std::max(min_y, r.min_y), std::min(max_x, r.max_x), std::min(max_y, r.max_y)};
    return (o.min_x > o.max_x || o.min_y > o.max_y) ? Rect() : o;
  }
};

// Whether `crop` (at least one pixel) covers `min_covered` of one non-empty box.
bool CoversABox(const Rect& crop, float min_covered, const std::vector<Rect>& boxes) {
  if (crop.Area() < 1.0f) return false;
  for (const Rect& b : boxes) {
    const float area = b.Area();
    if (area < 1.0f) continue;
    if (crop.Intersect(b).Area() / area >= min_covered) return true;
  }
  return false;
}

inline int64_t RoundToInt(float v) { return static_cast<int64_t>(std::lrint(v)); }

// The key and counter TensorFlow's stateless ops derive from a seed pair: one Philox block of the
// seed words under a fixed key gives the key (words 0, 1) and the counter's high half (2, 3).
void StatelessKeyCounter(uint64_t s0, uint64_t s1, PhiloxKey* key, PhiloxCounter* counter) {
  const PhiloxBlock mix = Philox4x32(MakeCounter(s0, s1), PhiloxKey{0x3EC8F720u, 0x02461E29u});
  *key = {mix[0], mix[1]};
  *counter = {0, 0, mix[2], mix[3]};
}

// A crop of `aspect` (width / height) whose area is within [min_area, max_area] of the image's,
// its height uniform over the feasible range and its position uniform; false when none fits.
bool RandomCrop(int64_t width, int64_t height, float min_rel, float max_rel, float aspect, WordStream* rng,
                Rect* crop) {
  if (max_rel <= 0.0f || aspect <= 0.0f || width <= 0 || height <= 0 || min_rel > max_rel) return false;
  const float min_area = min_rel * static_cast<float>(width) * static_cast<float>(height);
  const float max_area = max_rel * static_cast<float>(width) * static_cast<float>(height);
  int64_t h = RoundToInt(std::sqrt(min_area / aspect));
  int64_t max_h = RoundToInt(std::sqrt(max_area / aspect));
  if (RoundToInt(static_cast<float>(max_h) * aspect) > width) {
    // The tallest crop whose rounded width still fits.
    const float kEps = 0.0000001f;
    max_h = static_cast<int64_t>((static_cast<double>(width) + 0.5 - kEps) / aspect);
    if (RoundToInt(static_cast<float>(max_h) * aspect) > width) max_h -= 1;
  }
  max_h = std::min(max_h, height);
  h = std::min(h, max_h);
  if (h < max_h) h += rng->Uniform(static_cast<uint32_t>(max_h - h + 1));
  int64_t w = RoundToInt(static_cast<float>(h) * aspect);
  float area = static_cast<float>(w * h);
  if (area < min_area) {  // rounding made it too small: one row taller
    h += 1;
    w = RoundToInt(static_cast<float>(h) * aspect);
    area = static_cast<float>(w * h);
  }
  if (area > max_area) {  // too large: one row shorter
    h -= 1;
    w = RoundToInt(static_cast<float>(h) * aspect);
    area = static_cast<float>(w * h);
  }
  if (area < min_area || area > max_area || w > width || h > height || w <= 0 || h <= 0) return false;
  const int64_t y = h < height ? rng->Uniform(static_cast<uint32_t>(height - h)) : 0;
  const int64_t x = w < width ? rng->Uniform(static_cast<uint32_t>(width - w)) : 0;
  *crop = Rect{x, y, x + w, y + h};
  return true;
}

Status ReadFloatPair(OpKernelConstruction* c, const char* name, float* lo, float* hi) {
  const AttrValue* a = c->node().attr(name);
  if (a == nullptr || a->list.f.size() != 2) return InvalidArgument(c->op_type(), ": ", name, " must hold 2 floats");
  *lo = a->list.f[0];
  *hi = a->list.f[1];
  return Status::OK();
}

template <typename T>
class SampleDistortedBoundingBoxOp : public OpKernel {
 public:
  explicit SampleDistortedBoundingBoxOp(OpKernelConstruction* c) : OpKernel(c), op_(c->op_type()) {
    c->SetStatus(Init(c));
  }

  void Compute(OpKernelContext* ctx) override {
    const char* op = op_.c_str();
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_FLOAT));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DT_FLOAT));
    const Tensor& size = ctx->input(0);
    const Tensor& boxes_t = ctx->input(1);
    const Tensor& covered_t = ctx->input(2);
    if (size.rank() != 1 || size.dim(0) != 3) {
      ctx->SetStatus(InvalidArgument(op, ": image_size must be 1-D [height, width, channels], got shape ",
                                     size.shape().ToString()));
      return;
    }
    const int64_t height = static_cast<int64_t>(size.data<T>()[0]), width = static_cast<int64_t>(size.data<T>()[1]);
    if (height < 0 || width < 0 || height >= std::numeric_limits<int32_t>::max() ||
        width >= std::numeric_limits<int32_t>::max()) {
      ctx->SetStatus(
          InvalidArgument(op, ": image height and width must be in [0, 2^31 - 1), got ", height, " x ", width));
      return;
    }
    if (boxes_t.rank() != 3 || boxes_t.dim(2) != 4) {
      ctx->SetStatus(InvalidArgument(op, ": bounding_boxes must be 3-D [batch, num_boxes, 4], got shape ",
                                     boxes_t.shape().ToString()));
      return;
    }
    if (covered_t.rank() != 0) {
      ctx->SetStatus(
          InvalidArgument(op, ": min_object_covered must be a scalar, got shape ", covered_t.shape().ToString()));
      return;
    }
    const float min_covered = covered_t.data<float>()[0];
    if (!(min_covered >= 0)) {
      ctx->SetStatus(InvalidArgument(op, ": min_object_covered must be non-negative, got ", min_covered));
      return;
    }
    std::vector<Rect> boxes;
    const float* b = boxes_t.data<float>();
    for (int64_t i = 0; i < boxes_t.num_elements() / 4; ++i) {
      for (int k = 0; k < 4; ++k)
        if (!(b[4 * i + k] >= 0.0f && b[4 * i + k] <= 1.0f)) {
          ctx->SetStatus(InvalidArgument(op, ": bounding box coordinates must be in [0, 1], got ", b[4 * i + k]));
          return;
        }
      auto px = [](float v, int64_t n) {
        return static_cast<int64_t>(static_cast<int32_t>(v * static_cast<float>(n)));
      };
      boxes.push_back(
          Rect{px(b[4 * i + 1], width), px(b[4 * i], height), px(b[4 * i + 3], width), px(b[4 * i + 2], height)});
    }
    const Rect image{0, 0, width, height};
    if (boxes.empty()) {
      if (!use_image_) {
        ctx->SetStatus(InvalidArgument(op,
                                       ": no bounding boxes given; set use_image_if_no_bounding_boxes to use "
                                       "the whole image"));
        return;
      }
      boxes.push_back(image);
    }
    PhiloxKey key;
    PhiloxCounter counter;
    TX_CTX_RETURN_IF_ERROR(ctx, Stream(ctx, &key, &counter));
    WordStream rng(key, counter);
    Rect crop;
    bool found = false;
    for (int64_t i = 0; i < max_attempts_ && !found; ++i) {
      const float aspect = rng.NextFloat() * (aspect_hi_ - aspect_lo_) + aspect_lo_;
      found =
          RandomCrop(width, height, area_lo_, area_hi_, aspect, &rng, &crop) && CoversABox(crop, min_covered, boxes);
    }
    if (!found) crop = image;
    Tensor *begin = nullptr, *extent = nullptr, *bbox = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({3}), &begin));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({3}), &extent));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(2, TensorShape({1, 1, 4}), &bbox));
    T* bg = begin->data<T>();
    T* ex = extent->data<T>();
    bg[0] = static_cast<T>(crop.min_y);
    bg[1] = static_cast<T>(crop.min_x);
    bg[2] = static_cast<T>(0);
    ex[0] = static_cast<T>(crop.max_y - crop.min_y);
    ex[1] = static_cast<T>(crop.max_x - crop.min_x);
    ex[2] = static_cast<T>(-1);
    float* bb = bbox->data<float>();
    bb[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
    bb[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
    bb[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
    bb[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
  }

 private:
  Status Init(OpKernelConstruction* c) {
    const char* op = op_.c_str();
    TX_RETURN_IF_ERROR(c->GetAttr("use_image_if_no_bounding_boxes", &use_image_));
    TX_RETURN_IF_ERROR(c->GetAttr("max_attempts", &max_attempts_));
    TX_RETURN_IF_ERROR(ReadFloatPair(c, "aspect_ratio_range", &aspect_lo_, &aspect_hi_));
    TX_RETURN_IF_ERROR(ReadFloatPair(c, "area_range", &area_lo_, &area_hi_));
    if (!(aspect_lo_ > 0 && aspect_hi_ > 0))
      return InvalidArgument(op, ": aspect_ratio_range must be positive, got [", aspect_lo_, ", ", aspect_hi_, "]");
    if (!(area_lo_ > 0 && area_hi_ > 0 && area_lo_ <= 1 && area_hi_ <= 1))
      return InvalidArgument(op, ": area_range must be in (0, 1], got [", area_lo_, ", ", area_hi_, "]");
    if (max_attempts_ <= 0) return InvalidArgument(op, ": max_attempts must be positive, got ", max_attempts_);
    stateless_ = c->num_inputs() == 4;
    if (!stateless_) {
      int64_t seed = 0, seed2 = 0;
      TX_RETURN_IF_ERROR(c->GetAttr("seed", &seed));
      TX_RETURN_IF_ERROR(c->GetAttr("seed2", &seed2));
      state_ = std::make_unique<PhiloxState>(seed, seed2);
    }
    return Status::OK();
  }

  // The stream of this run: reserved from the op's state (max_attempts blocks, TensorFlow's
  // reservation), or derived from the seed input as TensorFlow's stateless ops derive it.
  Status Stream(OpKernelContext* ctx, PhiloxKey* key, PhiloxCounter* counter) {
    if (!stateless_) {
      *key = state_->key();
      *counter = state_->Reserve(static_cast<uint64_t>(max_attempts_));
      return Status::OK();
    }
    const Tensor& seed = ctx->input(3);
    if (seed.rank() != 1 || seed.dim(0) != 2 || (seed.dtype() != DT_INT32 && seed.dtype() != DT_INT64))
      return InvalidArgument(op_, ": seed must be an int32 or int64 tensor of shape [2], got shape ",
                             seed.shape().ToString());
    TX_RETURN_IF_ERROR(CheckInput(ctx, 3, seed.dtype()));
    int64_t s[2];
    for (int i = 0; i < 2; ++i) s[i] = seed.dtype() == DT_INT32 ? seed.data<int32_t>()[i] : seed.data<int64_t>()[i];
    StatelessKeyCounter(static_cast<uint64_t>(s[0]), static_cast<uint64_t>(s[1]), key, counter);
    return Status::OK();
  }

  std::string op_;
  bool use_image_ = false, stateless_ = false;
  int64_t max_attempts_ = 100;
  float aspect_lo_ = 0.75f, aspect_hi_ = 1.33f, area_lo_ = 0.05f, area_hi_ = 1.0f;
  std::unique_ptr<PhiloxState> state_;
};

#define TX_REGISTER_SAMPLE_BBOX(T)                                                                   \
  TX_REGISTER_KERNEL(KernelDefBuilder("SampleDistortedBoundingBoxV2").TypeConstraint<T>("T"),        \
                     SampleDistortedBoundingBoxOp<T>);                                               \
  TX_REGISTER_KERNEL(KernelDefBuilder("StatelessSampleDistortedBoundingBox").TypeConstraint<T>("T"), \
                     SampleDistortedBoundingBoxOp<T>);
TX_REGISTER_SAMPLE_BBOX(uint8_t)
TX_REGISTER_SAMPLE_BBOX(int8_t)
TX_REGISTER_SAMPLE_BBOX(int16_t)
TX_REGISTER_SAMPLE_BBOX(int32_t)
TX_REGISTER_SAMPLE_BBOX(int64_t)
#undef TX_REGISTER_SAMPLE_BBOX

}  // namespace
}  // namespace cpu
}  // namespace tx
