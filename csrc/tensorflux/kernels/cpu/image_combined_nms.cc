// CPU kernel for CombinedNonMaxSuppression: greedy IoU suppression per (batch entry, class),
// then the best max_total_size detections of each batch entry across classes, padded with
// zeros, as TensorFlow computes them (the same priority queue and sort, so equal scores are
// ordered alike).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "tensorflux/kernels/cpu/image_nms.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

struct Detection {
  int64_t box = -1;
  float score = -std::numeric_limits<float>::infinity();
  int64_t cls = -1;
  float coords[4] = {0, 0, 0, 0};
};

// The boxes class `cls` of one batch entry keeps (at most `per_class`), written to
// out[per_class * cls ...]. boxes [num_boxes, q, 4] (q = 1: shared by the classes), scores
// [num_boxes, num_classes].
void SuppressClass(const float* boxes, const float* scores, int64_t num_boxes, int64_t q, int64_t num_classes,
                   int64_t cls, int64_t per_class, float score_threshold, float iou_threshold, Detection* out) {
  struct Candidate {
    int64_t box;
    float score;
  };
  auto lower = [](const Candidate& a, const Candidate& b) { return a.score < b.score; };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> queue(lower);
  for (int64_t i = 0; i < num_boxes; ++i) {
    const float s = scores[i * num_classes + cls];
    if (s > score_threshold) queue.push({i, s});
  }
  const int64_t col = q > 1 ? cls : 0;
  std::vector<int64_t> kept;  // rows of the [num_boxes * q, 4] box matrix
  while (static_cast<int64_t>(kept.size()) < per_class && !queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    const int64_t row = c.box * q + col;
    bool keep = true;
    for (int64_t j = static_cast<int64_t>(kept.size()) - 1; j >= 0 && keep; --j)
      keep = image::IoU(boxes, row, kept[j]) <= iou_threshold;
    if (!keep) continue;
    Detection& d = out[per_class * cls + static_cast<int64_t>(kept.size())];
    d.box = c.box;
    d.score = c.score;
    d.cls = cls;
    std::copy(boxes + row * 4, boxes + row * 4 + 4, d.coords);
    kept.push_back(row);
  }
}

Status ReadPositiveScalar(OpKernelContext* ctx, int i, const char* what, int64_t* v) {
  const Tensor& t = ctx->input(i);
  if (t.rank() != 0)
    return InvalidArgument("CombinedNonMaxSuppression: ", what, " must be a scalar, got shape ", t.shape().ToString());
  *v = t.data<int32_t>()[0];
  if (*v <= 0) return InvalidArgument("CombinedNonMaxSuppression: ", what, " must be positive, got ", *v);
  return Status::OK();
}

class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  explicit CombinedNonMaxSuppressionOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("pad_per_class", &pad_per_class_));
    if (c->status().ok()) c->SetStatus(c->GetAttr("clip_boxes", &clip_boxes_));
  }

  void Compute(OpKernelContext* ctx) override {
    constexpr const char* kOp = "CombinedNonMaxSuppression";
    for (int i = 0; i < 6; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, i == 2 || i == 3 ? DT_INT32 : DT_FLOAT));
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    if (boxes.rank() != 4 || boxes.dim(3) != 4) {
      ctx->SetStatus(
          InvalidArgument(kOp, ": boxes must be 4-D [batch, num_boxes, q, 4], got shape ", boxes.shape().ToString()));
      return;
    }
    if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(1) != boxes.dim(1)) {
      ctx->SetStatus(InvalidArgument(kOp, ": scores must be 3-D [batch, num_boxes, num_classes] matching boxes ",
                                     boxes.shape().ToString(), ", got shape ", scores.shape().ToString()));
      return;
    }
    const int64_t batch = boxes.dim(0), n = boxes.dim(1), q = boxes.dim(2), classes = scores.dim(2);
    if (q != 1 && q != classes) {
      ctx->SetStatus(InvalidArgument(kOp, ": the third dimension of boxes (", q,
                                     ") must be 1 or the number of "
                                     "classes (",
                                     classes, ")"));
      return;
    }
    int64_t max_per_class = 0, max_total = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadPositiveScalar(ctx, 2, "max_output_size_per_class", &max_per_class));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadPositiveScalar(ctx, 3, "max_total_size", &max_total));
    for (int i = 4; i < 6; ++i)
      if (ctx->input(i).rank() != 0) {
        ctx->SetStatus(InvalidArgument(kOp, ": ", i == 4 ? "iou_threshold" : "score_threshold",
                                       " must be a scalar, got shape ", ctx->input(i).shape().ToString()));
        return;
      }
    const float iou = ctx->input(4).data<float>()[0], score_threshold = ctx->input(5).data<float>()[0];
    if (!(iou >= 0 && iou <= 1)) {
      ctx->SetStatus(InvalidArgument(kOp, ": iou_threshold must be in [0, 1], got ", iou));
      return;
    }
    const int64_t per_class = std::min(max_per_class, n);
    const int64_t candidates = per_class * classes;
    const int64_t per_batch = pad_per_class_ ? std::min(max_total, max_per_class * classes) : max_total;
    Tensor *out_boxes = nullptr, *out_scores = nullptr, *out_classes = nullptr, *out_valid = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({batch, per_batch, 4}), &out_boxes));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({batch, per_batch}), &out_scores));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(2, TensorShape({batch, per_batch}), &out_classes));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(3, TensorShape({batch}), &out_valid));
    std::fill(out_boxes->data<float>(), out_boxes->data<float>() + out_boxes->num_elements(), 0.0f);
    std::fill(out_scores->data<float>(), out_scores->data<float>() + out_scores->num_elements(), 0.0f);
    std::fill(out_classes->data<float>(), out_classes->data<float>() + out_classes->num_elements(), 0.0f);
    const float* box_data = boxes.data<float>();
    const float* score_data = scores.data<float>();
    ParallelItems(ctx->intra_op_pool(), batch, n * classes * 16, [&](int64_t begin, int64_t end) {
      std::vector<Detection> found;
      for (int64_t b = begin; b < end; ++b) {
        found.assign(candidates, Detection());
        for (int64_t cls = 0; cls < classes; ++cls)
          SuppressClass(box_data + b * n * q * 4, score_data + b * n * classes, n, q, classes, cls, per_class,
                        score_threshold, iou, found.data());
        std::sort(found.begin(), found.end(), [](const Detection& x, const Detection& y) { return y.score < x.score; });
        const int64_t valid_found =
            std::count_if(found.begin(), found.end(), [](const Detection& d) { return d.box > -1; });
        const int64_t keep = std::min(valid_found, per_batch);
        out_valid->data<int32_t>()[b] = static_cast<int32_t>(keep);
        for (int64_t k = 0; k < keep; ++k) {
          const Detection& d = found[k];
          float* bx = out_boxes->data<float>() + (b * per_batch + k) * 4;
          for (int j = 0; j < 4; ++j) bx[j] = clip_boxes_ ? std::max(std::min(d.coords[j], 1.0f), 0.0f) : d.coords[j];
          out_scores->data<float>()[b * per_batch + k] = d.score;
          out_classes->data<float>()[b * per_batch + k] = static_cast<float>(d.cls);
        }
      }
    });
  }

 private:
  bool pad_per_class_ = false, clip_boxes_ = true;
};

TX_REGISTER_KERNEL(KernelDefBuilder("CombinedNonMaxSuppression"), CombinedNonMaxSuppressionOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
