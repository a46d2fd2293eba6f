// Gradients of the complex-number ops (ops/complex_ops.cc), with TensorFlow's convention for a
// real loss L of complex z: the gradient is dL/dRe(z) + i dL/dIm(z) (math_grad.py's formulas).
#include "tensorflux/core/complex.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Complex(re, im) of real values of `re`'s type (float -> complex64, double -> complex128).
GValue MakeComplex(GradScope& o, GValue re, GValue im) {
  const DataType out = o.dtype(re) == DT_DOUBLE ? DT_COMPLEX128 : DT_COMPLEX64;
  return o.Op1("Complex", {re, im}, {{"Tout", TypeAttr(out)}});
}

// The real or imaginary part of complex `z` as its real type.
GValue Part(GradScope& o, const char* op, GValue z) {
  const DataType out = o.dtype(z) == DT_COMPLEX128 ? DT_DOUBLE : DT_FLOAT;
  return o.Op1(op, {z}, {{"Tout", TypeAttr(out)}});
}

// z = re + i im: dre = Re(dz), dim = Im(dz), each summed over its broadcast dimensions.
Status ComplexGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dz = g.grad(0), dre, dim;
  o.ReduceBroadcastGrads(g.input(0), g.input(1), g.needs_grad(0) ? Part(o, "Real", dz) : GValue(),
                         g.needs_grad(1) ? Part(o, "Imag", dz) : GValue(), &dre, &dim);
  g.set_grad(0, dre);
  g.set_grad(1, dim);
  return Status::OK();
}

// y = Re(z): dz = dy + 0i.
Status RealGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dy = g.grad(0);
  g.set_grad(0, MakeComplex(o, dy, o.ZerosLike(dy)));
  return Status::OK();
}

// y = Im(z): dz = 0 + i dy.
Status ImagGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dy = g.grad(0);
  g.set_grad(0, MakeComplex(o, o.ZerosLike(dy), dy));
  return Status::OK();
}

// y = conj(z): dz = conj(dy).
Status ConjGrad(GradContext& g) {
  g.set_grad(0, g.ops().Conj(g.grad(0)));
  return Status::OK();
}

// y = |z|: dz = dy z / |z|, 0 where z = 0 (DivNoNan).
Status ComplexAbsGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue dy = g.grad(0), y = g.output(0);
  GValue num = o.Mul(MakeComplex(o, dy, o.ZerosLike(dy)), g.input(0));
  g.set_grad(0, o.Op1("DivNoNan", {num, MakeComplex(o, y, o.ZerosLike(y))}));
  return Status::OK();
}

// y = atan2(Im z, Re z): dz = dy (-Im z + i Re z) / |z|^2, written -dy / (Im z + i Re z).
Status AngleGrad(GradContext& g) {
  GradScope& o = g.ops();
  GValue z = g.input(0), dy = g.grad(0);
  GValue swapped = MakeComplex(o, Part(o, "Imag", z), Part(o, "Real", z));
  g.set_grad(0, o.Neg(o.Mul(MakeComplex(o, dy, o.ZerosLike(dy)), o.Reciprocal(swapped))));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Complex", ComplexGrad);
TX_REGISTER_GRADIENT("Real", RealGrad);
TX_REGISTER_GRADIENT("Imag", ImagGrad);
TX_REGISTER_GRADIENT("Conj", ConjGrad);
TX_REGISTER_GRADIENT("ComplexAbs", ComplexAbsGrad);
TX_REGISTER_GRADIENT("Angle", AngleGrad);

}  // namespace tx
