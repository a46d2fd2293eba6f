// Shapes: TensorShape (every dimension known, for tensors) and PartialShape (static inference).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"

namespace tx {

// The fully known shape of a tensor: a list of non-negative dimension sizes.
class TensorShape {
 public:
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Validates `dims` (each >= 0, element count fits in int64) and builds a shape.
  static Status Make(const int64_t* dims, int rank, TensorShape* out);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;
  void set_dim(int i, int64_t size) { dims_[i] = size; }
  void add_dim(int64_t size) { dims_.push_back(size); }

  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }

  // "[2,3]"; "[]" for a scalar.
  std::string ToString() const;

 private:
  std::vector<int64_t> dims_;
};

// A shape that may have unknown rank or unknown (-1) dimensions.
class PartialShape {
 public:
  // Unknown rank.
  PartialShape() = default;
  PartialShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialShape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}
  explicit PartialShape(const TensorShape& s) : known_rank_(true), dims_(s.dims()) {}

  static PartialShape Unknown() { return PartialShape(); }
  // Rank 0. (Beware: `PartialShape s = {};` is the unknown-rank default, not a scalar.)
  static PartialShape Scalar() { return PartialShape(std::vector<int64_t>{}); }
  // Known rank, every dimension unknown.
  static PartialShape UnknownDims(int rank) { return PartialShape(std::vector<int64_t>(rank, -1)); }

  bool known_rank() const { return known_rank_; }
  // -1 when the rank is unknown.
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  // -1 when dimension `i` is unknown. Requires known_rank().
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool fully_defined() const;
  // Element count, or -1 if not fully defined or if the count overflows int64.
  int64_t num_elements() const;

  // True when some tensor could have both this shape and `other`.
  bool IsCompatibleWith(const PartialShape& other) const;
  bool IsCompatibleWith(const TensorShape& s) const { return IsCompatibleWith(PartialShape(s)); }
  // Combines the knowledge of two compatible shapes; InvalidArgument if incompatible.
  Status Merge(const PartialShape& other, PartialShape* out) const;
  // Exact structural equality (unknowns equal unknowns).
  bool operator==(const PartialShape& o) const { return known_rank_ == o.known_rank_ && dims_ == o.dims_; }
  bool operator!=(const PartialShape& o) const { return !(*this == o); }

  // "[?,3]"; "<unknown>" for unknown rank.
  std::string ToString() const;
  // Converts to TensorShape; requires fully_defined().
  TensorShape ToTensorShape() const { return TensorShape(dims_); }

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace tx
