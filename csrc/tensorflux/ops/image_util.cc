#include "tensorflux/ops/image_util.h"

#include <string>
#include <vector>

#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/conv_window.h"

namespace tx {
namespace image_util {

Status SizePair(InferenceContext* c, int index, const char* op, const char* what, int64_t* h, int64_t* w) {
  *h = *w = -1;
  const PartialShape& s = c->input(index);
  if (s.known_rank() && (s.rank() != 1 || (s.dim(0) >= 0 && s.dim(0) != 2)))
    return InvalidArgument(op, ": ", what, " must be a 1-D tensor of 2 elements (height, width), got shape ",
                           s.ToString());
  const Tensor* t = c->input_tensor(index);
  if (t == nullptr) return Status::OK();
  std::vector<int64_t> v;
  TX_RETURN_IF_ERROR(array_util::ReadInts(*t, what, &v));
  if (v.size() != 2) return InvalidArgument(op, ": ", what, " must have 2 elements, got ", v.size());
  if (v[0] <= 0 || v[1] <= 0) return InvalidArgument(op, ": ", what, " must be positive, got [", v[0], ", ", v[1], "]");
  *h = v[0];
  *w = v[1];
  return Status::OK();
}

Status WithRankAtLeast(InferenceContext* c, int index, int rank, const char* op, const char* what, PartialShape* out) {
  const PartialShape& s = c->input(index);
  if (s.known_rank() && s.rank() < rank)
    return InvalidArgument(op, ": ", what, " must be at least rank ", rank, ", got shape ", s.ToString());
  *out = s;
  return Status::OK();
}

Status Scalar(InferenceContext* c, int index, const char* op, const char* what) {
  const PartialShape& s = c->input(index);
  if (s.known_rank() && s.rank() != 0)
    return InvalidArgument(op, ": ", what, " must be a scalar, got shape ", s.ToString());
  return Status::OK();
}

Status ExtractPatchesGeometry(const char* op, int64_t rows, int64_t cols, const std::vector<int64_t>& ksizes,
                              const std::vector<int64_t>& strides, const std::vector<int64_t>& rates,
                              const std::string& padding, PatchGeometry* g) {
  const std::vector<int64_t>* lists[3] = {&ksizes, &strides, &rates};
  const char* names[3] = {"ksizes", "strides", "rates"};
  for (int i = 0; i < 3; ++i) {
    const std::vector<int64_t>& v = *lists[i];
    if (v.size() != 4 || v[0] != 1 || v[3] != 1 || v[1] < 1 || v[2] < 1)
      return InvalidArgument(op, ": ", names[i], " must be [1, rows, cols, 1] with positive rows and cols, got ",
                             v.size(), " entries");
  }
  Padding p = Padding::kValid;
  TX_RETURN_IF_ERROR(ParsePadding(padding, &p));
  if (p == Padding::kExplicit) return InvalidArgument(op, ": padding must be 'SAME' or 'VALID', got 'EXPLICIT'");
  g->k_rows = ksizes[1];
  g->k_cols = ksizes[2];
  g->stride_rows = strides[1];
  g->stride_cols = strides[2];
  g->rate_rows = rates[1];
  g->rate_cols = rates[2];
  if (rows >= 0) {
    Status s = WindowedOutputSize(rows, g->k_rows, g->rate_rows, g->stride_rows, p, 0, 0, &g->out_rows, &g->pad_top);
    if (!s.ok()) return InvalidArgument(op, ": ", s.message());
  }
  if (cols >= 0) {
    Status s = WindowedOutputSize(cols, g->k_cols, g->rate_cols, g->stride_cols, p, 0, 0, &g->out_cols, &g->pad_left);
    if (!s.ok()) return InvalidArgument(op, ": ", s.message());
  }
  return Status::OK();
}

}  // namespace image_util
}  // namespace tx
