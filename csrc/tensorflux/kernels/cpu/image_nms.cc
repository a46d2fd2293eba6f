// CPU kernels for NonMaxSuppressionV3/V4/V5 and NonMaxSuppressionWithOverlaps: greedy selection
// of boxes by descending score, dropping boxes whose IoU (or given overlap) with a selected one
// exceeds the threshold, or (V5 with soft_nms_sigma > 0) decaying their scores by
// exp(-0.5 * iou^2 / sigma), as TensorFlow does. CombinedNonMaxSuppression is in
// image_combined_nms.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "tensorflux/kernels/cpu/image_nms.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

struct NmsResult {
  std::vector<int32_t> indices;
  std::vector<float> scores;
};

// TensorFlow's selection loop: a candidate is compared with the boxes selected since it was last
// looked at (newest first); soft suppression lowers its score and requeues it.
NmsResult Select(const std::function<float(int64_t, int64_t)>& similarity, const float* scores, int64_t n,
                 int64_t max_out, float iou_threshold, float score_threshold, float soft_sigma) {
  struct Candidate {
    int32_t index;
    float score;
    int64_t checked_upto;
  };
  auto lower = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(lower)> queue(lower);
  for (int64_t i = 0; i < n; ++i)
    if (scores[i] > score_threshold) queue.push({static_cast<int32_t>(i), scores[i], 0});
  const bool soft = soft_sigma > 0.0f;
  const float scale = soft ? -0.5f / soft_sigma : 0.0f;
  NmsResult r;
  while (static_cast<int64_t>(r.indices.size()) < max_out && !queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    const float original = c.score;
    bool hard_suppressed = false;
    for (int64_t j = static_cast<int64_t>(r.indices.size()) - 1; j >= c.checked_upto; --j) {
      const float iou = similarity(c.index, r.indices[j]);
      const float weight = std::exp(scale * iou * iou);
      c.score *= (soft || iou <= iou_threshold) ? weight : 0.0f;
      if (!soft && iou > iou_threshold) {
        hard_suppressed = true;
        break;
      }
      if (c.score <= score_threshold) break;
    }
    c.checked_upto = static_cast<int64_t>(r.indices.size());
    if (hard_suppressed) continue;
    if (c.score == original) {
      r.indices.push_back(c.index);
      r.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
  return r;
}

Status CheckScalar(const char* op, const char* what, const Tensor& t) {
  if (t.rank() != 0) return InvalidArgument(op, ": ", what, " must be a scalar, got shape ", t.shape().ToString());
  return Status::OK();
}

// Which NonMaxSuppression version a kernel implements (its inputs and outputs).
enum class Version { kV3, kV4, kV5 };

template <Version kV>
class NonMaxSuppressionOp : public OpKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction* c) : OpKernel(c) {
    if (kV != Version::kV3) c->SetStatus(c->GetAttr("pad_to_max_output_size", &pad_));
  }

  void Compute(OpKernelContext* ctx) override {
    const char* op = kV == Version::kV3 ? "NonMaxSuppressionV3"
        : kV == Version::kV4            ? "NonMaxSuppressionV4"
                                        : "NonMaxSuppressionV5";
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_FLOAT));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_FLOAT));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DT_INT32));
    for (int i = 3; i < ctx->num_inputs(); ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DT_FLOAT));
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const char* names[] = {"max_output_size", "iou_threshold", "score_threshold", "soft_nms_sigma"};
    for (int i = 2; i < ctx->num_inputs(); ++i)
      TX_CTX_RETURN_IF_ERROR(ctx, CheckScalar(op, names[i - 2], ctx->input(i)));
    if (boxes.rank() != 2 || boxes.dim(1) != 4) {
      ctx->SetStatus(InvalidArgument(op, ": boxes must be 2-D [num_boxes, 4], got shape ", boxes.shape().ToString()));
      return;
    }
    const int64_t n = boxes.dim(0);
    if (scores.rank() != 1 || scores.dim(0) != n) {
      ctx->SetStatus(InvalidArgument(op, ": scores must be 1-D with one entry per box (", n, "), got shape ",
                                     scores.shape().ToString()));
      return;
    }
    const int64_t max_out = ctx->input(2).data<int32_t>()[0];
    const float iou_threshold = ctx->input(3).data<float>()[0];
    const float score_threshold = ctx->input(4).data<float>()[0];
    const float sigma = kV == Version::kV5 ? ctx->input(5).data<float>()[0] : 0.0f;
    if (max_out < 0) {
      ctx->SetStatus(InvalidArgument(op, ": max_output_size must be non-negative, got ", max_out));
      return;
    }
    if (!(iou_threshold >= 0.0f && iou_threshold <= 1.0f)) {
      ctx->SetStatus(InvalidArgument(op, ": iou_threshold must be in [0, 1], got ", iou_threshold));
      return;
    }
    if (!(sigma >= 0.0f)) {
      ctx->SetStatus(InvalidArgument(op, ": soft_nms_sigma must be >= 0, got ", sigma));
      return;
    }
    const float* box_data = boxes.data<float>();
    NmsResult r = Select([box_data](int64_t i, int64_t j) { return image::IoU(box_data, i, j); }, scores.data<float>(),
                         n, max_out, iou_threshold, score_threshold, sigma);
    // Padded outputs are allocated at max_output_size and zero-filled past the selection.
    const int64_t valid = static_cast<int64_t>(r.indices.size()), len = pad_ ? max_out : valid;
    Tensor* idx = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({len}), &idx));
    std::fill(std::copy(r.indices.begin(), r.indices.end(), idx->data<int32_t>()), idx->data<int32_t>() + len, 0);
    int next = 1;
    if (kV == Version::kV5) {
      Tensor* sc = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(next++, TensorShape({len}), &sc));
      std::fill(std::copy(r.scores.begin(), r.scores.end(), sc->data<float>()), sc->data<float>() + len, 0.0f);
    }
    if (kV != Version::kV3) {
      Tensor* nv = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(next, TensorShape({}), &nv));
      nv->data<int32_t>()[0] = static_cast<int32_t>(valid);
    }
  }

 private:
  bool pad_ = false;
};

// The same selection with a given [n, n] similarity matrix instead of IoU (no range check on
// the threshold, as in TensorFlow).
class NonMaxSuppressionWithOverlapsOp : public OpKernel {
 public:
  explicit NonMaxSuppressionWithOverlapsOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "NonMaxSuppressionWithOverlaps";
    for (int i = 0; i < 5; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, i == 2 ? DT_INT32 : DT_FLOAT));
    const Tensor& overlaps = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const char* names[] = {"max_output_size", "overlap_threshold", "score_threshold"};
    for (int i = 2; i < 5; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckScalar(kOp, names[i - 2], ctx->input(i)));
    if (overlaps.rank() != 2 || overlaps.dim(0) != overlaps.dim(1)) {
      ctx->SetStatus(
          InvalidArgument(kOp, ": overlaps must be a square matrix, got shape ", overlaps.shape().ToString()));
      return;
    }
    const int64_t n = overlaps.dim(0);
    if (scores.rank() != 1 || scores.dim(0) != n) {
      ctx->SetStatus(InvalidArgument(kOp, ": scores must be 1-D with one entry per box (", n, "), got shape ",
                                     scores.shape().ToString()));
      return;
    }
    const int64_t max_out = ctx->input(2).data<int32_t>()[0];
    if (max_out < 0) {
      ctx->SetStatus(InvalidArgument(kOp, ": max_output_size must be non-negative, got ", max_out));
      return;
    }
    const float* m = overlaps.data<float>();
    NmsResult r = Select([m, n](int64_t i, int64_t j) { return m[i * n + j]; }, scores.data<float>(), n, max_out,
                         ctx->input(3).data<float>()[0], ctx->input(4).data<float>()[0], 0.0f);
    Tensor* idx = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({static_cast<int64_t>(r.indices.size())}), &idx));
    std::copy(r.indices.begin(), r.indices.end(), idx->data<int32_t>());
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("NonMaxSuppressionWithOverlaps"), NonMaxSuppressionWithOverlapsOp);
TX_REGISTER_KERNEL(
    KernelDefBuilder("NonMaxSuppressionV3").TypeConstraint<float>("T").TypeConstraint<float>("T_threshold"),
    NonMaxSuppressionOp<Version::kV3>);
TX_REGISTER_KERNEL(
    KernelDefBuilder("NonMaxSuppressionV4").TypeConstraint<float>("T").TypeConstraint<float>("T_threshold"),
    NonMaxSuppressionOp<Version::kV4>);
TX_REGISTER_KERNEL(KernelDefBuilder("NonMaxSuppressionV5").TypeConstraint<float>("T"),
                   NonMaxSuppressionOp<Version::kV5>);

}  // namespace
}  // namespace cpu
}  // namespace tx
