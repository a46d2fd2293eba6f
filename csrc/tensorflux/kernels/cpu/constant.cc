// CPU kernel for Const: every run outputs the value tensor itself (shared buffer, no copy).
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Holds the `value` attr, checked once at construction, and hands it out on each run.
class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("value", &value_));
    if (!c->status().ok()) return;
    if (value_.dtype() != c->output_type(0)) {
      c->SetStatus(InvalidArgument("Const value has dtype ", DataTypeString(value_.dtype()), " but attr dtype is ",
                                   DataTypeString(c->output_type(0))));
    } else if (!IsSupportedStorageType(value_.dtype())) {
      c->SetStatus(Unimplemented("Const of type ", DataTypeString(value_.dtype()), " is not supported"));
    } else if (value_.num_elements() > 0 && (!value_.initialized() || value_.buffer()->size() < value_.byte_size())) {
      c->SetStatus(InvalidArgument("Const value of shape ", value_.shape().ToString(), " holds too little data"));
    } else if (!value_.initialized()) {  // an empty tensor without a buffer: give it one
      Tensor t;
      c->SetStatus(Tensor::Allocate(value_.dtype(), value_.shape(), &t));
      value_ = t;
    }
  }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }

 private:
  Tensor value_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Const"), ConstOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
