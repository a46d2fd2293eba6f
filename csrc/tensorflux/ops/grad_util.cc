#include "tensorflux/ops/grad_util.h"

#include <algorithm>
#include <string>

#include "tensorflux/ops/array_util.h"

namespace tx {
namespace grad_util {

namespace {

// "[2,5]" (sep ",") or "[2 5]" (sep " "): a shape vector the way TensorFlow's errors print it.
std::string ListString(const std::vector<int64_t>& v, const char* sep) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

Status ConstInts(const InferenceContext* c, int i, const char* what, std::vector<int64_t>* v, bool* known) {
  *known = false;
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr) return Status::OK();
  TX_RETURN_IF_ERROR(array_util::ReadInts(*t, what, v));
  *known = true;
  return Status::OK();
}

Status BroadcastGradientAxes(const std::vector<int64_t>& s0, const std::vector<int64_t>& s1, std::vector<int64_t>* r0,
                             std::vector<int64_t>* r1) {
  r0->clear();
  r1->clear();
  if (s0 == s1) return Status::OK();
  const size_t rank = std::max(s0.size(), s1.size());
  const size_t pad0 = rank - s0.size(), pad1 = rank - s1.size();
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = i < pad0 ? 1 : s0[i - pad0];
    const int64_t b = i < pad1 ? 1 : s1[i - pad1];
    if (a != b && a != 1 && b != 1)
      return InvalidArgument("Incompatible shapes: ", ListString(s0, ","), " vs. ", ListString(s1, ","));
    if (a == 1) r0->push_back(static_cast<int64_t>(i));
    if (b == 1) r1->push_back(static_cast<int64_t>(i));
  }
  return Status::OK();
}

Status ConcatOffsets(int64_t concat_dim, const std::vector<std::vector<int64_t>>& shapes,
                     std::vector<std::vector<int64_t>>* offsets) {
  const std::vector<int64_t>& first = shapes[0];
  const int64_t rank = static_cast<int64_t>(first.size());
  if (concat_dim < -rank || concat_dim >= rank)
    return InvalidArgument("Concat dim is out of range: ", concat_dim, " vs. ", rank);
  const int64_t axis = concat_dim < 0 ? concat_dim + rank : concat_dim;
  offsets->assign(shapes.size(), std::vector<int64_t>(first.size(), 0));
  int64_t offset = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<int64_t>& s = shapes[i];
    if (s.size() != first.size())
      return InvalidArgument("input ", i, " should contain ", rank, " elements, but got ", s.size());
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) continue;
      if (s[d] != first[d])
        return InvalidArgument("All dimensions except ", axis, " must match. Input ", i, " has shape ",
                               ListString(s, " "), " and doesn't match input 0 with shape ", ListString(first, " "),
                               ".");
    }
    (*offsets)[i][axis] = offset;
    offset += s[axis];
  }
  return Status::OK();
}

Status SegmentReductionDims(const PartialShape& data, const PartialShape& segment_ids, int64_t num_segments,
                            std::vector<int64_t>* out_dims) {
  if (num_segments < -1) return InvalidArgument("Input num_segments == ", num_segments, " must not be negative.");
  const int ids_rank = segment_ids.rank();
  bool prefix = data.rank() >= ids_rank;
  for (int d = 0; prefix && d < ids_rank; ++d)
    if (data.dim(d) >= 0 && segment_ids.dim(d) >= 0 && data.dim(d) != segment_ids.dim(d)) prefix = false;
  if (!prefix)
    return InvalidArgument("data.shape = ", data.ToString(),
                           " does not start with segment_ids.shape = ", segment_ids.ToString());
  out_dims->assign(1, num_segments);
  for (int d = ids_rank; d < data.rank(); ++d) out_dims->push_back(data.dim(d));
  return Status::OK();
}

Status SegmentIdOutOfRange(const std::vector<int64_t>& ids_dims, int64_t flat, int64_t id, int64_t num_segments) {
  std::string coords;
  for (size_t d = ids_dims.size(); d-- > 0;) {
    const int64_t n = std::max<int64_t>(ids_dims[d], 1);
    coords = std::to_string(flat % n) + (coords.empty() ? "" : ",") + coords;
    flat /= n;
  }
  return InvalidArgument("segment_ids[", coords, "] = ", id, " is out of range [0, ", num_segments, ")");
}

Status ResolveMirrorPadGrad(const PartialShape& input, const std::vector<int64_t>& paddings, int mode,
                            std::vector<int64_t>* out_dims) {
  const int rank = input.rank();
  if (static_cast<int64_t>(paddings.size()) != 2 * static_cast<int64_t>(rank))
    return InvalidArgument("The first dimension of paddings must be the rank of inputs: paddings has ",
                           paddings.size() / 2, " rows, the input has shape ", input.ToString());
  out_dims->assign(rank, -1);
  for (int d = 0; d < rank; ++d) {
    const int64_t lo = paddings[2 * d], hi = paddings[2 * d + 1], n = input.dim(d);
    if (lo < 0 || hi < 0) return InvalidArgument("Paddings must be non-negative: ", lo, ", ", hi);
    if (n < 0) continue;
    if (lo > n || hi > n || lo + hi >= n)
      return InvalidArgument("Total paddings must be less than the input dimension size: ", lo, " + ", hi,
                             " was not less than ", n, " in dimension ", d);
    const int64_t out = n - lo - hi;
    if (mode == 1 && (lo >= out || hi >= out))
      return InvalidArgument("paddings must be less than the output dimension size: ", lo, ", ", hi, " not less than ",
                             out, " in dimension ", d);
    if (mode == 2 && (lo > out || hi > out))
      return InvalidArgument("paddings must be no greater than the output dimension size: ", lo, ", ", hi,
                             " greater than ", out, " in dimension ", d);
    (*out_dims)[d] = out;
  }
  return Status::OK();
}

Status CheckTensorScatter(const PartialShape& tensor, const PartialShape& indices, const PartialShape& updates) {
  if (indices.known_rank() && indices.rank() < 1)
    return InvalidArgument("Indices shape must have rank at least one. Found: ", indices.ToString());
  if (updates.known_rank() && updates.rank() < 1)
    return InvalidArgument("Updates shape must have rank at least one. Found: ", updates.ToString());
  if (tensor.num_elements() == 0 && indices.num_elements() > 0)
    return InvalidArgument("Indices and updates specified for empty output shape ", tensor.ToString());
  if (!tensor.known_rank() || !indices.known_rank() || !updates.known_rank()) return Status::OK();
  const int64_t n = indices.dim(indices.rank() - 1);
  if (n < 0) return Status::OK();
  if (n > tensor.rank())
    return InvalidArgument("index innermost dimension length must be <= rank of tensor; saw: ", n, " vs. ",
                           tensor.rank());
  std::vector<int64_t> want(indices.dims().begin(), indices.dims().end() - 1);
  for (int d = static_cast<int>(n); d < tensor.rank(); ++d) want.push_back(tensor.dim(d));
  if (!PartialShape(want).IsCompatibleWith(updates))
    return InvalidArgument("updates must have shape indices.shape[:-1] + tensor.shape[", n,
                           ":] = ", PartialShape(want).ToString(), ", got ", updates.ToString());
  return Status::OK();
}

}  // namespace grad_util
}  // namespace tx
