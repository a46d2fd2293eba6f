// CPU kernels of the unary elementwise ops on complex64 and complex128 (Neg, Square, Reciprocal,
// Sign, Sqrt, Rsqrt, Exp, Expm1, Log, Log1p, the trigonometric and hyperbolic maps and their
// inverses, Sigmoid) and of the part ops Real, Imag, Angle, ComplexAbs and Conj. Kept apart from
// unary.cc so other dtypes' blocks stay separate.
#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/complex_functors.h"
#include "tensorflux/kernels/cpu/unary_op.h"

namespace tx {
namespace cpu {
namespace {

struct NegFn : Map<NegFn> {
  template <typename C>
  static C Apply(C x) {
    return -x;
  }
};
struct SquareFn : Map<SquareFn> {
  template <typename C>
  static C Apply(C x) {
    return x * x;
  }
};
struct ReciprocalFn : Map<ReciprocalFn> {
  static constexpr int64_t kCost = 4;
  template <typename C>
  static C Apply(C x) {
    return C(1) / x;
  }
};

#define TX_REGISTER_COMPLEX_UNARY(OP, FN)                                                          \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<complex64>("T"), UnaryOp<complex64, FN>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<complex128>("T"), UnaryOp<complex128, FN>)

TX_REGISTER_COMPLEX_UNARY("Neg", NegFn);
TX_REGISTER_COMPLEX_UNARY("Square", SquareFn);
TX_REGISTER_COMPLEX_UNARY("Reciprocal", ReciprocalFn);
TX_REGISTER_COMPLEX_UNARY("Sign", complex_fn::SignFn);
TX_REGISTER_COMPLEX_UNARY("Sqrt", complex_fn::SqrtFn);
TX_REGISTER_COMPLEX_UNARY("Rsqrt", complex_fn::RsqrtFn);
TX_REGISTER_COMPLEX_UNARY("Exp", complex_fn::ExpFn);
TX_REGISTER_COMPLEX_UNARY("Expm1", complex_fn::Expm1Fn);
TX_REGISTER_COMPLEX_UNARY("Log", complex_fn::LogFn);
TX_REGISTER_COMPLEX_UNARY("Log1p", complex_fn::Log1pFn);
TX_REGISTER_COMPLEX_UNARY("Sin", complex_fn::SinFn);
TX_REGISTER_COMPLEX_UNARY("Cos", complex_fn::CosFn);
TX_REGISTER_COMPLEX_UNARY("Tan", complex_fn::TanFn);
TX_REGISTER_COMPLEX_UNARY("Sinh", complex_fn::SinhFn);
TX_REGISTER_COMPLEX_UNARY("Cosh", complex_fn::CoshFn);
TX_REGISTER_COMPLEX_UNARY("Tanh", complex_fn::TanhFn);
TX_REGISTER_COMPLEX_UNARY("Asin", complex_fn::AsinFn);
TX_REGISTER_COMPLEX_UNARY("Acos", complex_fn::AcosFn);
TX_REGISTER_COMPLEX_UNARY("Atan", complex_fn::AtanFn);
TX_REGISTER_COMPLEX_UNARY("Asinh", complex_fn::AsinhFn);
TX_REGISTER_COMPLEX_UNARY("Acosh", complex_fn::AcoshFn);
TX_REGISTER_COMPLEX_UNARY("Atanh", complex_fn::AtanhFn);
TX_REGISTER_COMPLEX_UNARY("Sigmoid", complex_fn::SigmoidFn);
TX_REGISTER_COMPLEX_UNARY("Conj", complex_fn::ConjFn);
#undef TX_REGISTER_COMPLEX_UNARY

// The part maps: complex64 -> float, complex128 -> double.
#define TX_REGISTER_COMPLEX_PART(OP, FN)                                                                  \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<complex64>("T").TypeConstraint<float>("Tout"),   \
                     UnaryOp<complex64, FN, float>);                                                      \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<complex128>("T").TypeConstraint<double>("Tout"), \
                     UnaryOp<complex128, FN, double>)

TX_REGISTER_COMPLEX_PART("Real", complex_fn::RealFn);
TX_REGISTER_COMPLEX_PART("Imag", complex_fn::ImagFn);
TX_REGISTER_COMPLEX_PART("Angle", complex_fn::AngleFn);
TX_REGISTER_COMPLEX_PART("ComplexAbs", complex_fn::ComplexAbsFn);
#undef TX_REGISTER_COMPLEX_PART

}  // namespace
}  // namespace cpu
}  // namespace tx
