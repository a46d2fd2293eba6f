// Complex-number ops (signatures identical to TensorFlow's): Complex builds complex values from
// real and imaginary parts with broadcasting; Real, Imag, Angle and ComplexAbs map complex to
// real elementwise; Conj conjugates.
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Checks that complex attr `c` and real attr `r` pair up (complex64 with float, complex128 with
// double), as the kernels exist only for those pairs.
Status CheckPair(InferenceContext* ctx, const char* c, const char* r) {
  DataType complex = DT_INVALID, real = DT_INVALID;
  TX_RETURN_IF_ERROR(ctx->GetAttr(c, &complex));
  TX_RETURN_IF_ERROR(ctx->GetAttr(r, &real));
  if ((complex == DT_COMPLEX64) != (real == DT_FLOAT))
    return InvalidArgument(c, " ", DataTypeString(complex), " does not go with ", r, " ", DataTypeString(real),
                           " (complex64 goes with float, complex128 with double)");
  return Status::OK();
}

Status ComplexToRealShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(CheckPair(c, "T", "Tout"));
  return shape_fns::UnchangedShape(c);
}

Status ComplexShape(InferenceContext* c) {
  TX_RETURN_IF_ERROR(CheckPair(c, "Tout", "T"));
  return shape_fns::BroadcastBinaryOp(c);
}

// input: T (complex) -> output: Tout (its real type), same shape.
OpDefBuilder ComplexToReal(const char* name, const char* in, const char* out, const char* summary) {
  return OpDefBuilder(name)
      .Input(std::string(in) + ": T")
      .Output(std::string(out) + ": Tout")
      .Attr("T: {complex64, complex128} = DT_COMPLEX64")
      .Attr("Tout: {float, double} = DT_FLOAT")
      .SetShapeFn(ComplexToRealShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP("Complex")
    .Input("real: T")
    .Input("imag: T")
    .Output("out: Tout")
    .Attr("T: {float, double} = DT_FLOAT")
    .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
    .SetShapeFn(ComplexShape)
    .Summary("Builds complex numbers real + i imag elementwise, with broadcasting.");

TX_REGISTER_OP_FROM(ComplexToReal("Real", "input", "output", "The real part of each element."));
TX_REGISTER_OP_FROM(ComplexToReal("Imag", "input", "output", "The imaginary part of each element."));
TX_REGISTER_OP_FROM(ComplexToReal("Angle", "input", "output", "The argument (phase, in [-pi, pi]) of each element."));
TX_REGISTER_OP_FROM(ComplexToReal("ComplexAbs", "x", "y", "The modulus |x| of each element."));

TX_REGISTER_OP("Conj")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {complex64, complex128, variant} = DT_COMPLEX64")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("The complex conjugate of each element.");

}  // namespace tx
