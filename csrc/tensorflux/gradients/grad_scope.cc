#include "tensorflux/gradients/grad_scope.h"

#include <algorithm>
#include <cstring>

#include "tensorflux/core/complex.h"

namespace tx {

AttrValue IntListAttr(const std::vector<int64_t>& values) {
  AttrValue a = AttrValue::EmptyList();
  a.list.i = values;
  return a;
}

std::vector<GValue> GradScope::Op(const std::string& type, const std::vector<std::vector<GValue>>& inputs,
                                  const AttrMap& attrs) {
  if (!ok()) return {};
  for (const auto& group : inputs)
    for (const GValue& v : group)
      if (!v.valid()) {
        Fail(Internal("gradient function passed a missing value to ", type));
        return {};
      }
  std::vector<GValue> out;
  Status s = b_->AddOp(type, inputs, attrs, &out);
  if (!s.ok()) {
    Fail(std::move(s));
    return {};
  }
  return out;
}

GValue GradScope::Op1(const std::string& type, const std::vector<GValue>& inputs, const AttrMap& attrs, int output) {
  std::vector<std::vector<GValue>> grouped;
  grouped.reserve(inputs.size());
  for (const GValue& v : inputs) grouped.push_back({v});
  std::vector<GValue> out = Op(type, grouped, attrs);
  if (output >= static_cast<int>(out.size())) return GValue();
  return out[output];
}

GValue GradScope::Const(const Tensor& t) {
  if (!ok()) return GValue();
  GValue v;
  Status s = b_->Constant(t, &v);
  if (!s.ok()) Fail(std::move(s));
  return v;
}

GValue GradScope::Ints(const std::vector<int64_t>& values, DataType dt) {
  Tensor t;
  Status s = Tensor::Allocate(dt, TensorShape({static_cast<int64_t>(values.size())}), &t);
  if (!s.ok()) {
    Fail(std::move(s));
    return GValue();
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (dt == DT_INT64)
      t.data<int64_t>()[i] = values[i];
    else
      t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
  }
  return Const(t);
}

GValue GradScope::Int(int64_t value, DataType dt) { return Scalar(static_cast<double>(value), dt); }

GValue GradScope::Scalar(double value, DataType dt) {
  Tensor t;
  Status s = Tensor::Allocate(dt, TensorShape(), &t);
  if (!s.ok()) {
    Fail(std::move(s));
    return GValue();
  }
  switch (dt) {
    case DT_COMPLEX64: *t.data<complex64>() = complex64(static_cast<float>(value)); break;
    case DT_COMPLEX128: *t.data<complex128>() = complex128(value); break;
    case DT_FLOAT: *t.data<float>() = static_cast<float>(value); break;
    case DT_DOUBLE: *t.data<double>() = value; break;
    case DT_INT32: *t.data<int32_t>() = static_cast<int32_t>(value); break;
    case DT_INT64: *t.data<int64_t>() = static_cast<int64_t>(value); break;
    case DT_HALF: *t.data<Half>() = Half(static_cast<float>(value)); break;
    case DT_BFLOAT16: *t.data<BFloat16>() = BFloat16(static_cast<float>(value)); break;
    case DT_INT8: *t.data<int8_t>() = static_cast<int8_t>(value); break;
    case DT_INT16: *t.data<int16_t>() = static_cast<int16_t>(value); break;
    case DT_UINT8: *t.data<uint8_t>() = static_cast<uint8_t>(static_cast<int64_t>(value)); break;
    case DT_UINT16: *t.data<uint16_t>() = static_cast<uint16_t>(static_cast<int64_t>(value)); break;
    case DT_UINT32: *t.data<uint32_t>() = static_cast<uint32_t>(static_cast<int64_t>(value)); break;
    case DT_UINT64: *t.data<uint64_t>() = static_cast<uint64_t>(static_cast<int64_t>(value)); break;
    default:
      Fail(Unimplemented("gradient constants of type ", DataTypeString(dt), " are not supported yet"));
      return GValue();
  }
  return Const(t);
}

GValue GradScope::ShapeOf(GValue x, DataType out_type) {
  PartialShape s = shape(x);
  if (s.fully_defined()) return Ints(s.dims(), out_type);
  return Op1("Shape", {x}, {{"out_type", TypeAttr(out_type)}});
}

GValue GradScope::SizeOf(GValue x, DataType out_type) {
  PartialShape s = shape(x);
  if (s.fully_defined()) return Int(s.num_elements(), out_type);
  return Op1("Size", {x}, {{"out_type", TypeAttr(out_type)}});
}

GValue GradScope::Cast(GValue a, DataType dt) {
  if (!ok()) return GValue();
  if (dtype(a) == dt) return a;
  return Op1("Cast", {a}, {{"DstT", TypeAttr(dt)}});
}

GValue GradScope::Conj(GValue a) {
  if (!ok() || !IsComplexType(dtype(a))) return a;
  return Op1("Conj", {a});
}

GValue GradScope::AddN(const std::vector<GValue>& values) {
  if (values.empty()) return GValue();
  if (values.size() == 1) return values[0];
  std::vector<GValue> out = Op("AddN", {values});
  return out.empty() ? GValue() : out[0];
}

GValue GradScope::Sum(GValue x, GValue axes, bool keep_dims) {
  return Op1("Sum", {x, axes}, {{"keep_dims", BoolAttr(keep_dims)}});
}

GValue GradScope::ReshapeLike(GValue x, GValue like) {
  if (!ok()) return GValue();
  PartialShape want = shape(like), have = shape(x);
  if (want.fully_defined() && have == want) return x;
  return Reshape(x, ShapeOf(like));
}

namespace {

// Axes of `out` (a broadcast result) that broadcasting added to or stretched from `in`.
std::vector<int64_t> BroadcastAxes(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> axes;
  const size_t lead = out.size() - in.size();
  for (size_t i = 0; i < out.size(); ++i)
    if (i < lead || (in[i - lead] == 1 && out[i] != 1)) axes.push_back(static_cast<int64_t>(i));
  return axes;
}

}  // namespace

GValue GradScope::SumToShapeOf(GValue grad, GValue x) {
  if (!ok()) return GValue();
  PartialShape sx = shape(x), sg = shape(grad);
  if (sx.fully_defined() && sg.fully_defined() && sg.rank() >= sx.rank()) {
    std::vector<int64_t> axes = BroadcastAxes(sx.dims(), sg.dims());
    GValue r = axes.empty() ? grad : Sum(grad, axes);
    return ReshapeLike(r, x);
  }
  std::vector<GValue> args = Op("BroadcastGradientArgs", {{ShapeOf(x)}, {ShapeOf(grad)}});
  if (args.empty()) return GValue();
  return Reshape(Sum(grad, args[0]), ShapeOf(x));
}

void GradScope::ReduceBroadcastGrads(GValue x, GValue y, GValue gx, GValue gy, GValue* dx, GValue* dy) {
  *dx = GValue();
  *dy = GValue();
  if (!ok()) return;
  PartialShape sx = shape(x), sy = shape(y);
  if (sx.fully_defined() && sy.fully_defined()) {
    const size_t r = std::max(sx.dims().size(), sy.dims().size());
    std::vector<int64_t> out(r);
    for (size_t i = 0; i < r; ++i) {
      const size_t ox = r - sx.dims().size(), oy = r - sy.dims().size();
      const int64_t a = i < ox ? 1 : sx.dims()[i - ox], b = i < oy ? 1 : sy.dims()[i - oy];
      out[i] = a == 1 ? b : a;
    }
    if (gx.valid()) {
      std::vector<int64_t> axes = BroadcastAxes(sx.dims(), out);
      *dx = ReshapeLike(axes.empty() ? gx : Sum(gx, axes), x);
    }
    if (gy.valid()) {
      std::vector<int64_t> axes = BroadcastAxes(sy.dims(), out);
      *dy = ReshapeLike(axes.empty() ? gy : Sum(gy, axes), y);
    }
    return;
  }
  GValue shx = ShapeOf(x), shy = ShapeOf(y);
  std::vector<GValue> args = Op("BroadcastGradientArgs", {{shx}, {shy}});
  if (args.empty()) return;
  if (gx.valid()) *dx = Reshape(Sum(gx, args[0]), shx);
  if (gy.valid()) *dy = Reshape(Sum(gy, args[1]), shy);
}

GValue GradScope::ReducedShape(GValue x, GValue axes) {
  if (!ok()) return GValue();
  const PartialShape sx = shape(x);
  const Tensor* a = constant_value(axes);
  if (sx.known_rank() && a != nullptr) {
    const int rank = sx.rank();
    std::vector<bool> reduced(rank, false);
    for (int64_t k = 0; k < a->num_elements(); ++k) {
      int64_t axis = a->dtype() == DT_INT64 ? a->data<int64_t>()[k] : a->data<int32_t>()[k];
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) {
        Fail(InvalidArgument("reduction axis ", axis, " is out of range for rank ", rank));
        return GValue();
      }
      reduced[axis] = true;
    }
    if (sx.fully_defined()) {
      std::vector<int64_t> dims = sx.dims();
      for (int i = 0; i < rank; ++i)
        if (reduced[i]) dims[i] = 1;
      return Ints(dims);
    }
    std::vector<int64_t> keep(rank), ones(rank);
    for (int i = 0; i < rank; ++i) {
      keep[i] = reduced[i] ? 0 : 1;
      ones[i] = reduced[i] ? 1 : 0;
    }
    return Add(Mul(ShapeOf(x), Ints(keep)), Ints(ones));
  }
  // Dynamic: mark the reduced axes with UnsortedSegmentSum, then shape * (1 - mask) + mask.
  GValue rank = Op1("Rank", {x});
  GValue axes32 = Cast(axes, DT_INT32);
  GValue pos = Op1("FloorMod", {Op1("AddV2", {axes32, rank}), rank});
  GValue hits = Op1("UnsortedSegmentSum", {OnesLike(pos), pos, rank});
  GValue mask = Op1("Minimum", {hits, Int(1)});
  return Add(Mul(ShapeOf(x), Sub(Int(1), mask)), mask);
}

}  // namespace tx
