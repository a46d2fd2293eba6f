// CPU kernels of the broadcasting binary ops on strings: Equal, NotEqual (byte-wise comparison)
// and Add (concatenation), with NumPy broadcasting as for numbers.
#include <vector>

#include "tensorflux/kernels/cpu/string_util.h"

namespace tx {
namespace cpu {
namespace {

// Equal (kNot false) and NotEqual on strings; incompatible_shape_error as for numbers.
template <bool kNot>
class StringEqualOp : public OpKernel {
 public:
  explicit StringEqualOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("incompatible_shape_error", &incompatible_shape_error_));
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_STRING));
    BroadcastPlan plan;
    Status s = MakeBroadcastPlan(ctx->input(0).shape(), ctx->input(1).shape(), &plan);
    Tensor* out = nullptr;
    if (!s.ok() && !incompatible_shape_error_) {
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(), &out));
      out->data<bool>()[0] = kNot;
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, s);
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    const TString* x = ctx->input(0).data<TString>();
    const TString* y = ctx->input(1).data<TString>();
    bool* o = out->data<bool>();
    ForEachBroadcast(plan, ctx, 16, [&](int64_t z, int64_t xi, int64_t yi) {
      o[z] = (x[xi] == y[yi]) != kNot;
      return Status::OK();
    });
  }

 private:
  bool incompatible_shape_error_ = true;
};

// Add on strings: x + y concatenated elementwise.
class StringAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_STRING));
    BroadcastPlan plan;
    TX_CTX_RETURN_IF_ERROR(ctx, MakeBroadcastPlan(ctx->input(0).shape(), ctx->input(1).shape(), &plan));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    const TString* x = ctx->input(0).data<TString>();
    const TString* y = ctx->input(1).data<TString>();
    TString* o = out->data<TString>();
    ForEachBroadcast(plan, ctx, 32, [&](int64_t z, int64_t xi, int64_t yi) {
      const size_t total = x[xi].size() + y[yi].size();
      char* p = o[z].ResizeUninitialized(total);
      if (p == nullptr) return StringTooLarge(total);
      std::copy(y[yi].data(), y[yi].data() + y[yi].size(), std::copy(x[xi].data(), x[xi].data() + x[xi].size(), p));
      return Status::OK();
    });
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("Equal").TypeConstraint<TString>("T"), StringEqualOp<false>);
TX_REGISTER_KERNEL(KernelDefBuilder("NotEqual").TypeConstraint<TString>("T"), StringEqualOp<true>);
TX_REGISTER_KERNEL(KernelDefBuilder("Add").TypeConstraint<TString>("T"), StringAddOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
