// GradScope: the vocabulary gradient functions are written in. It wraps a GradBuilder, keeps the
// first error (later calls return "no value" and do nothing), and folds shape arithmetic into
// constants whenever shapes are statically known.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensorflux/gradients/grad_builder.h"

namespace tx {

class GradScope {
 public:
  explicit GradScope(GradBuilder* b) : b_(b) {}

  // The first error any call met; OK when all succeeded.
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  // Records `s` unless an error is already recorded.
  void Fail(Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  GradBuilder* builder() const { return b_; }

  // Adds op `type` (inputs grouped per OpDef input argument); all outputs, empty after an error.
  std::vector<GValue> Op(const std::string& type, const std::vector<std::vector<GValue>>& inputs,
                         const AttrMap& attrs = {});
  // Like Op, for single-input-per-argument ops with one wanted output (`output` picks it).
  GValue Op1(const std::string& type, const std::vector<GValue>& inputs, const AttrMap& attrs = {}, int output = 0);

  DataType dtype(GValue v) const { return b_->dtype(v); }
  PartialShape shape(GValue v) const { return b_->shape(v); }
  const Tensor* constant_value(GValue v) const { return b_->constant_value(v); }

  // Constants.
  GValue Const(const Tensor& t);
  // A 1-D int32 (or `dt` int64) constant.
  GValue Ints(const std::vector<int64_t>& values, DataType dt = DT_INT32);
  // A scalar int32 (or int64) constant.
  GValue Int(int64_t value, DataType dt = DT_INT32);
  // A scalar of type `dt` (float, double, int32, int64, complex64, complex128) holding `value`.
  GValue Scalar(double value, DataType dt);

  // Shapes: a constant when statically known, else a Shape/Size/Rank op.
  GValue ShapeOf(GValue x, DataType out_type = DT_INT32);
  GValue SizeOf(GValue x, DataType out_type = DT_INT32);
  // Static rank of x, or -1.
  int Rank(GValue x) const { return shape(x).rank(); }

  // Elementwise helpers (same-dtype inputs, NumPy broadcasting).
  GValue Add(GValue a, GValue b) { return Op1("AddV2", {a, b}); }
  GValue Sub(GValue a, GValue b) { return Op1("Sub", {a, b}); }
  GValue Mul(GValue a, GValue b) { return Op1("Mul", {a, b}); }
  GValue Div(GValue a, GValue b) { return Op1("RealDiv", {a, b}); }
  GValue Neg(GValue a) { return Op1("Neg", {a}); }
  GValue Square(GValue a) { return Op1("Square", {a}); }
  GValue Reciprocal(GValue a) { return Op1("Reciprocal", {a}); }
  GValue ZerosLike(GValue a) { return Op1("ZerosLike", {a}); }
  GValue OnesLike(GValue a) { return Op1("OnesLike", {a}); }
  GValue Cast(GValue a, DataType dt);
  // The complex conjugate of a complex value; any other value itself (TensorFlow's math_ops.conj).
  GValue Conj(GValue a);
  GValue Select(GValue cond, GValue a, GValue b) { return Op1("SelectV2", {cond, a, b}); }
  // Sum of `values` (AddN for more than two, the value itself for one).
  GValue AddN(const std::vector<GValue>& values);

  // Reductions and reshapes.
  GValue Sum(GValue x, GValue axes, bool keep_dims = false);
  GValue Sum(GValue x, const std::vector<int64_t>& axes, bool keep_dims = false) {
    return Sum(x, Ints(axes), keep_dims);
  }
  GValue Reshape(GValue x, GValue shape) { return Op1("Reshape", {x, shape}); }
  // x reshaped to the shape of `like` (a no-op when the static shapes already agree).
  GValue ReshapeLike(GValue x, GValue like);
  GValue Transpose(GValue x, GValue perm) { return Op1("Transpose", {x, perm}); }
  GValue Tile(GValue x, GValue multiples) { return Op1("Tile", {x, multiples}); }
  GValue ExpandDims(GValue x, int64_t axis) { return Op1("ExpandDims", {x, Int(axis)}); }

  // The gradients of a NumPy-broadcasting binary op z = f(x, y): sums gx and gy over the
  // dimensions that broadcasting added or stretched, so they take x's and y's shapes. Statically
  // when both shapes are known; otherwise through BroadcastGradientArgs.
  void ReduceBroadcastGrads(GValue x, GValue y, GValue gx, GValue gy, GValue* dx, GValue* dy);
  // The shape of Sum(x, axes, keep_dims=true): x's shape with 1 at each reduced axis (axes may be
  // negative); a constant when x's shape and the axes are static.
  GValue ReducedShape(GValue x, GValue axes);
  // Sums `grad` (of a broadcast of `x`) back to x's shape; for unary broadcasts (BroadcastTo).
  GValue SumToShapeOf(GValue grad, GValue x);

 private:
  GradBuilder* b_;
  Status status_;
};

// Typed attr values.
inline AttrValue TypeAttr(DataType dt) { return AttrValue::Type(dt); }
inline AttrValue BoolAttr(bool b) { return AttrValue::Bool(b); }
inline AttrValue IntAttr(int64_t i) { return AttrValue::Int(i); }
inline AttrValue StringAttr(std::string s) { return AttrValue::String(std::move(s)); }
AttrValue IntListAttr(const std::vector<int64_t>& values);

}  // namespace tx
