// Small helpers shared by the array and index gradients (array_grad.cc, index_grad.cc,
// reduce_grad.cc): reading constant integer inputs, building integer constants of any shape, and
// scalar sizes that fold to constants when static (SInt).
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/gradients/grad_scope.h"

namespace tx {

// The elements of `v` when it is a constant integer tensor (any rank), else false.
inline bool ConstInts(const GradScope& o, GValue v, std::vector<int64_t>* out) {
  const Tensor* t = o.constant_value(v);
  if (t == nullptr || (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)) return false;
  out->resize(t->num_elements());
  for (int64_t i = 0; i < t->num_elements(); ++i)
    (*out)[i] = t->dtype() == DT_INT64 ? t->data<int64_t>()[i] : t->data<int32_t>()[i];
  return true;
}

// An integer constant of shape `dims` holding `values` (row-major) in type `dt`.
inline GValue IntTensor(GradScope& o, const std::vector<int64_t>& dims, const std::vector<int64_t>& values,
                        DataType dt) {
  Tensor t;
  Status s = Tensor::Allocate(dt, TensorShape(dims), &t);
  if (!s.ok()) {
    o.Fail(std::move(s));
    return GValue();
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (dt == DT_INT64)
      t.data<int64_t>()[i] = values[i];
    else
      t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
  return o.Const(t);
}

// A scalar integer that is either known at build time (`known` >= 0) or computed by the graph
// (`value`, a scalar of the scope's index type).
struct SInt {
  int64_t known = -1;
  GValue value;
  static SInt Of(int64_t k) { return SInt{k, GValue()}; }
  static SInt Dyn(GValue v) { return SInt{-1, v}; }
  bool is_known() const { return known >= 0; }
  // The value as a scalar graph value of type `dt`.
  GValue Get(GradScope& o, DataType dt) const { return is_known() ? o.Int(known, dt) : o.Cast(value, dt); }
};

// Element `i` (>= 0) of the 1-D tensor `vec` as a scalar.
inline GValue ElementOf(GradScope& o, GValue vec, GValue i) {
  GValue one = o.Ints({1}, o.dtype(i));
  return o.Reshape(o.Op1("Slice", {vec, o.Reshape(i, o.Ints({1})), one}), o.Ints({}));
}

// The 1-D shape vector (type `dt`) of `dims`: a constant when every entry is known.
inline GValue ShapeVector(GradScope& o, const std::vector<SInt>& dims, DataType dt) {
  std::vector<int64_t> values;
  for (const SInt& d : dims) {
    if (!d.is_known()) {
      std::vector<GValue> parts;
      for (const SInt& e : dims) parts.push_back(e.Get(o, dt));
      std::vector<GValue> out = o.Op("Pack", {parts}, {{"axis", IntAttr(0)}});
      return out.empty() ? GValue() : out[0];
    }
    values.push_back(d.known);
  }
  return o.Ints(values, dt);
}

// The sum of all elements of `x` (a scalar).
inline GValue SumAll(GradScope& o, GValue x) {
  const int rank = o.Rank(x);
  if (rank >= 0) {
    std::vector<int64_t> axes(rank);
    for (int i = 0; i < rank; ++i) axes[i] = i;
    return o.Sum(x, axes);
  }
  return o.Sum(x, o.Op1("Range", {o.Int(0), o.Op1("Rank", {x}), o.Int(1)}));
}

// d params of GatherV2(params, indices, axis, batch_dims) given dz, dense (index_grad.cc).
GValue GatherParamsGrad(GradScope& o, GValue params, GValue indices, GValue axis, int64_t batch_dims, GValue dz);

}  // namespace tx
