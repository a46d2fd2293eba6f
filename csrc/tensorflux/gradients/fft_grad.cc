// Gradients of the FFT ops (ops/fft_ops.cc), for a real loss with TensorFlow's complex convention
// (Note [FFT adjoints]).
#include <string>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/gradients/gradient_registry.h"
#include "tensorflux/ops/fft_util.h"

// Note [FFT adjoints]
// Each FFT op is a linear map, so its gradient is the adjoint map applied to the output gradient,
// followed by the adjoint of the op's crop-or-pad of its input (a pad or crop back to the input's
// shape). The DFT matrix F is symmetric, so F^H g = conj(F conj(g)): the gradient of FFT* is
// conj(FFT*(conj(dy))) and that of IFFT* is conj(IFFT*(conj(dy))), with no size factor to compute.
// RFFT* is a projection of F applied to a real input: its adjoint zero-pads dy's halved axis back to
// n (FFTND pads its input to fft_length) and keeps the real part of F^H, i.e.
// Re(FFTND(conj(dy), fft_length, axes)). IRFFT* is TensorFlow's formula: RFFT*(dy) times
// (1, 2, ..., 2, 1 if n is even) / N along the halved axis, the 2s counting each frequency's
// Hermitian twin. TensorFlow has no RFFT3D/IRFFT3D/ND gradients; these follow from the same maps.

namespace tx {
namespace {

using fft_util::OpInfo;

// "FFT2D"-style name of the fixed-rank op `base` of `rank` dimensions ("FFT" for rank 1).
std::string FixedRankName(const char* base, int rank) {
  return std::string(base) + (rank > 1 ? std::to_string(rank) + "D" : "");
}

// The op's axes as an int32 vector (negative for the fixed-rank ops' innermost axes).
GValue Axes(GradContext& g, const OpInfo& info) {
  if (info.fixed_rank == 0) return g.input(2);
  std::vector<int64_t> axes;
  for (int i = -info.fixed_rank; i < 0; ++i) axes.push_back(i);
  return g.ops().Ints(axes);
}

// `x` zero-padded or cropped at the end of each dim to the shape of `like` (a no-op when the
// static shapes agree).
GValue ToShapeOf(GradScope& o, GValue x, GValue like) {
  const PartialShape sx = o.shape(x), sl = o.shape(like);
  if (sx.fully_defined() && sl.fully_defined() && sx == sl) return x;
  GValue shape = o.ShapeOf(like);
  GValue extra = o.Op1("Maximum", {o.Sub(shape, o.ShapeOf(x)), o.Int(0)});
  std::vector<GValue> pads = o.Op("Pack", {{o.ZerosLike(extra), extra}}, {{"axis", IntAttr(1)}});
  if (pads.empty()) return GValue();
  GValue padded = o.Op1("Pad", {x, pads[0]});
  return o.Op1("Slice", {padded, o.ZerosLike(shape), shape});
}

// FFT*, IFFT*: conj(op(conj(dy))) through the ND op of the same direction, then back to x's shape.
Status ComplexFftGrad(GradContext& g) {
  OpInfo info;
  TX_RETURN_IF_ERROR(fft_util::Info(g.op_type(), &info));
  GradScope& o = g.ops();
  GValue dy = o.Conj(g.grad(0)), y;
  if (info.fixed_rank > 0) {
    y = o.Op1(FixedRankName(info.inverse ? "IFFT" : "FFT", info.fixed_rank), {dy});
  } else {
    y = o.Op1(info.inverse ? "IFFTND" : "FFTND", {dy, g.input(1), g.input(2)});
  }
  g.set_grad(0, ToShapeOf(o, o.Conj(y), g.input(0)));
  return Status::OK();
}

// The real part of complex z.
GValue RealPart(GradScope& o, GValue z) {
  return o.Op1("Real", {z}, {{"Tout", TypeAttr(o.dtype(z) == DT_COMPLEX128 ? DT_DOUBLE : DT_FLOAT)}});
}

// RFFT*: Re(FFTND(conj(dy), fft_length, axes)), back to x's shape.
Status RealFftGrad(GradContext& g) {
  OpInfo info;
  TX_RETURN_IF_ERROR(fft_util::Info(g.op_type(), &info));
  GradScope& o = g.ops();
  GValue full = o.Op1("FFTND", {o.Conj(g.grad(0)), g.input(1), Axes(g, info)});
  g.set_grad(0, ToShapeOf(o, RealPart(o, full), g.input(0)));
  return Status::OK();
}

// IRFFT*: RFFT*(dy) * mask / N along the halved axis, back to X's shape.
Status InverseRealFftGrad(GradContext& g) {
  OpInfo info;
  TX_RETURN_IF_ERROR(fft_util::Info(g.op_type(), &info));
  GradScope& o = g.ops();
  GValue dy = g.grad(0), lengths = g.input(1);
  const DataType real = o.dtype(dy), complex = real == DT_DOUBLE ? DT_COMPLEX128 : DT_COMPLEX64;
  const AttrMap attrs = {{"Tcomplex", TypeAttr(complex)}};
  GValue spectrum = info.fixed_rank > 0 ? o.Op1(FixedRankName("RFFT", info.fixed_rank), {dy, lengths}, attrs)
                                        : o.Op1("RFFTND", {dy, lengths, g.input(2)}, attrs);
  // mask_k = 2 - [k == 0] - [2k == n] for k <= n/2, n the last length.
  GValue n = o.Op1("StridedSlice", {lengths, o.Ints({-1}), o.Ints({0}), o.Ints({1})},
                   {{"end_mask", IntAttr(1)}, {"shrink_axis_mask", IntAttr(1)}});
  GValue k = o.Op1("Range", {o.Int(0), o.Add(o.Op1("FloorDiv", {n, o.Int(2)}), o.Int(1)), o.Int(1)});
  GValue edge = o.Add(o.Cast(o.Op1("Equal", {k, o.Int(0)}), real), o.Cast(o.Op1("Equal", {o.Add(k, k), n}), real));
  GValue size = o.Cast(o.Op1("Prod", {lengths, o.Int(0)}), real);
  GValue mask = o.Div(o.Sub(o.Scalar(2.0, real), edge), size);
  if (info.fixed_rank == 0) {
    // The halved axis may not be the innermost: shape the mask [h, 1, ..., 1] to broadcast along it.
    const Tensor* axes = o.constant_value(g.input(2));
    const int rank = o.Rank(dy);
    if (axes == nullptr || rank < 0 || axes->num_elements() == 0)
      return Unimplemented("the gradient of IRFFTND needs constant axes and an input of known rank");
    int64_t last = axes->data<int32_t>()[axes->num_elements() - 1];
    if (last < 0) last += rank;
    std::vector<int64_t> dims(static_cast<size_t>(rank - last), 1);
    dims[0] = -1;
    mask = o.Reshape(mask, o.Ints(dims));
  }
  g.set_grad(0, ToShapeOf(o, o.Mul(spectrum, o.Cast(mask, complex)), g.input(0)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("FFT", ComplexFftGrad);
TX_REGISTER_GRADIENT("IFFT", ComplexFftGrad);
TX_REGISTER_GRADIENT("FFT2D", ComplexFftGrad);
TX_REGISTER_GRADIENT("IFFT2D", ComplexFftGrad);
TX_REGISTER_GRADIENT("FFT3D", ComplexFftGrad);
TX_REGISTER_GRADIENT("IFFT3D", ComplexFftGrad);
TX_REGISTER_GRADIENT("FFTND", ComplexFftGrad);
TX_REGISTER_GRADIENT("IFFTND", ComplexFftGrad);
TX_REGISTER_GRADIENT("RFFT", RealFftGrad);
TX_REGISTER_GRADIENT("RFFT2D", RealFftGrad);
TX_REGISTER_GRADIENT("RFFT3D", RealFftGrad);
TX_REGISTER_GRADIENT("RFFTND", RealFftGrad);
TX_REGISTER_GRADIENT("IRFFT", InverseRealFftGrad);
TX_REGISTER_GRADIENT("IRFFT2D", InverseRealFftGrad);
TX_REGISTER_GRADIENT("IRFFT3D", InverseRealFftGrad);
TX_REGISTER_GRADIENT("IRFFTND", InverseRealFftGrad);

}  // namespace tx
