#include "tensorflux/core/shape.h"

#include <limits>

namespace tx {

Status TensorShape::Make(const int64_t* dims, int rank, TensorShape* out) {
  if (rank < 0) return InvalidArgument("shape rank must be non-negative, got ", rank);
  std::vector<int64_t> d(dims, dims + rank);
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    if (d[i] < 0) return InvalidArgument("dimension ", i, " of a tensor shape must be >= 0, got ", d[i]);
    if (d[i] != 0 && n > std::numeric_limits<int64_t>::max() / d[i])
      return InvalidArgument("shape has too many elements (overflows int64)");
    n *= d[i];
  }
  *out = TensorShape(std::move(d));
  return Status::OK();
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

static std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return s + "]";
}

std::string TensorShape::ToString() const { return DimsToString(dims_); }

bool PartialShape::fully_defined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t PartialShape::num_elements() const {
  if (!fully_defined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims_)
    if (__builtin_mul_overflow(n, d, &n)) return -1;  // too large to describe a tensor
  return n;
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  if (!known_rank_ || !other.known_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  return true;
}

Status PartialShape::Merge(const PartialShape& other, PartialShape* out) const {
  if (!IsCompatibleWith(other))
    return InvalidArgument("shapes ", ToString(), " and ", other.ToString(), " are incompatible");
  if (!known_rank_) {
    *out = other;
    return Status::OK();
  }
  if (!other.known_rank_) {
    *out = *this;
    return Status::OK();
  }
  std::vector<int64_t> d(dims_);
  for (size_t i = 0; i < d.size(); ++i)
    if (d[i] < 0) d[i] = other.dims_[i];
  *out = PartialShape(std::move(d));
  return Status::OK();
}

std::string PartialShape::ToString() const { return known_rank_ ? DimsToString(dims_) : std::string("<unknown>"); }

}  // namespace tx
