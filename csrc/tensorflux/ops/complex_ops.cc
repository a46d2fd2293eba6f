// Complex-number ops (signatures identical to TensorFlow's): Complex builds complex values from
// real and imaginary parts with broadcasting; Real, Imag, Angle and ComplexAbs map complex to
// real elementwise; Conj conjugates.
#include <string>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// input: T (complex) -> output: Tout (its real type), same shape.
OpDefBuilder ComplexToReal(const char* name, const char* in, const char* out, const char* summary) {
  return OpDefBuilder(name)
      .Input(std::string(in) + ": T")
      .Output(std::string(out) + ": Tout")
      .Attr("T: {complex64, complex128} = DT_COMPLEX64")
      .Attr("Tout: {float, double} = DT_FLOAT")
      .SetShapeFn(shape_fns::UnchangedShape)
      .Summary(summary);
}

}  // namespace

TX_REGISTER_OP("Complex")
    .Input("real: T")
    .Input("imag: T")
    .Output("out: Tout")
    .Attr("T: {float, double} = DT_FLOAT")
    .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
    .SetShapeFn(shape_fns::BroadcastBinaryOp)
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
