#include "tensorflux/ops/image_util.h"

#include <string>
#include <vector>

#include "tensorflux/ops/array_util.h"

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

Status WithRankAtLeast(InferenceContext* c, int index, int rank, const char* op, const char* what,
                       PartialShape* out) {
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

}  // namespace image_util
}  // namespace tx
