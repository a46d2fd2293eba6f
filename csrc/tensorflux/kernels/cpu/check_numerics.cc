// CPU kernel for CheckNumerics: passes its input through, failing on any Inf or NaN.
#include <cmath>
#include <string>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("message", &message_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& x = ctx->input(0);
    const T* p = x.data<T>();
    const int64_t n = x.num_elements();
    int nan = 0, inf = 0;  // ints (not bools) so the loop vectorizes
    for (int64_t i = 0; i < n; ++i) {
      const T v = p[i];
      nan |= v != v;
      inf |= std::abs(v) == std::numeric_limits<T>::infinity();
    }
    if (nan || inf) {
      const char* what = nan && inf ? "Inf and NaN" : nan ? "NaN" : "Inf";
      ctx->SetStatus(InvalidArgument(message_, " : Tensor had ", what, " values"));
      return;
    }
    ctx->set_output(0, x);
  }

 private:
  std::string message_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("CheckNumerics").TypeConstraint<float>("T"), CheckNumericsOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("CheckNumerics").TypeConstraint<double>("T"), CheckNumericsOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx
