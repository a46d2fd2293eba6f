// CPU kernels of the binary elementwise ops on complex64 and complex128 (NumPy broadcasting):
// arithmetic, Pow, SquaredDifference, Equal/NotEqual, the no-NaN and x*log(y) family, and the
// fused gradient ops (SqrtGrad, RsqrtGrad, ReciprocalGrad, TanhGrad, SigmoidGrad) with
// TensorFlow's conjugated factors. Kept apart from binary.cc so other dtypes' blocks stay separate.
#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/binary_op.h"
#include "tensorflux/kernels/cpu/complex_functors.h"

namespace tx {
namespace cpu {
namespace {

#define TX_REGISTER_COMPLEX_BINARY(OP, FN)                                                          \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<complex64>("T"), BinaryOp<complex64, FN>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<complex128>("T"), BinaryOp<complex128, FN>)

TX_REGISTER_COMPLEX_BINARY("AddV2", AddFn);
TX_REGISTER_COMPLEX_BINARY("Add", AddFn);
TX_REGISTER_COMPLEX_BINARY("Sub", SubFn);
TX_REGISTER_COMPLEX_BINARY("Mul", MulFn);
TX_REGISTER_COMPLEX_BINARY("RealDiv", DivFn);
TX_REGISTER_COMPLEX_BINARY("Div", DivFn);
TX_REGISTER_COMPLEX_BINARY("Pow", PowFn);
TX_REGISTER_COMPLEX_BINARY("Equal", EqualFn);
TX_REGISTER_COMPLEX_BINARY("NotEqual", NotEqualFn);
TX_REGISTER_COMPLEX_BINARY("SquaredDifference", complex_fn::SquaredDifferenceFn);
TX_REGISTER_COMPLEX_BINARY("Xlogy", complex_fn::XlogyFn);
TX_REGISTER_COMPLEX_BINARY("Xlog1py", complex_fn::Xlog1pyFn);
TX_REGISTER_COMPLEX_BINARY("Xdivy", complex_fn::XdivyFn);
TX_REGISTER_COMPLEX_BINARY("DivNoNan", complex_fn::DivNoNanFn);
TX_REGISTER_COMPLEX_BINARY("MulNoNan", complex_fn::MulNoNanFn);
TX_REGISTER_COMPLEX_BINARY("SqrtGrad", complex_fn::SqrtGradFn);
TX_REGISTER_COMPLEX_BINARY("RsqrtGrad", complex_fn::RsqrtGradFn);
TX_REGISTER_COMPLEX_BINARY("ReciprocalGrad", complex_fn::ReciprocalGradFn);
TX_REGISTER_COMPLEX_BINARY("TanhGrad", complex_fn::TanhGradFn);
TX_REGISTER_COMPLEX_BINARY("SigmoidGrad", complex_fn::SigmoidGradFn);
#undef TX_REGISTER_COMPLEX_BINARY

// Complex(real, imag) broadcasts like the arithmetic ops; float makes complex64, double complex128.
TX_REGISTER_KERNEL(KernelDefBuilder("Complex").TypeConstraint<float>("T").TypeConstraint<complex64>("Tout"),
                   BinaryOp<float, complex_fn::MakeComplexFn>);
TX_REGISTER_KERNEL(KernelDefBuilder("Complex").TypeConstraint<double>("T").TypeConstraint<complex128>("Tout"),
                   BinaryOp<double, complex_fn::MakeComplexFn>);

}  // namespace
}  // namespace cpu
}  // namespace tx
