// CPU kernels for Betainc (the regularized incomplete beta function of a, b and x, each a scalar
// or of one common shape) and Bucketize (bucket indices against sorted float boundaries).
#include <algorithm>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/special_incomplete.h"

namespace tx {
namespace cpu {
namespace {

// Relative cost of one Betainc element (a continued fraction of a few dozen steps).
constexpr int64_t kBetaincCost = 256;

template <typename T>
class BetaincOp : public OpKernel {
 public:
  explicit BetaincOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    static const char* const kNames[3] = {"a", "b", "x"};
    for (int i = 0; i < 3; ++i) TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DataTypeOf<T>::value));
    // The output shape: the common shape of the non-scalar inputs (TensorFlow's rule).
    int shaped = -1;
    for (int i = 0; i < 3; ++i) {
      const TensorShape& s = ctx->input(i).shape();
      if (s.rank() == 0) continue;
      if (shaped >= 0 && s != ctx->input(shaped).shape()) {
        ctx->SetStatus(InvalidArgument("Shapes of ", kNames[shaped], " and ", kNames[i], " are inconsistent: ",
                                       ctx->input(shaped).shape().ToString(), " vs. ", s.ToString()));
        return;
      }
      if (shaped < 0) shaped = i;
    }
    const TensorShape shape = shaped < 0 ? TensorShape() : ctx->input(shaped).shape();
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    const T* in[3];
    int64_t step[3];
    for (int i = 0; i < 3; ++i) {
      in[i] = ctx->input(i).template data<T>();
      step[i] = ctx->input(i).shape().rank() == 0 ? 0 : 1;
    }
    T* z = out->data<T>();
    ParallelRange(ctx->intra_op_pool(), out->num_elements(), kBetaincCost, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k)
        z[k] = static_cast<T>(special::Betainc(static_cast<double>(in[0][k * step[0]]),
                                               static_cast<double>(in[1][k * step[1]]),
                                               static_cast<double>(in[2][k * step[2]])));
    });
  }
};

// Bucketize: output[i] = the number of boundaries <= input[i] (boundaries sorted ascending).
template <typename T>
class BucketizeOp : public OpKernel {
 public:
  explicit BucketizeOp(OpKernelConstruction* c) : OpKernel(c) {
    const AttrValue* a = c->node().attr("boundaries");
    if (a == nullptr) {
      c->SetStatus(InvalidArgument("Bucketize: missing attr 'boundaries'"));
      return;
    }
    boundaries_.assign(a->list.f.begin(), a->list.f.end());
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end()))
      c->SetStatus(InvalidArgument("Expected sorted boundaries"));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* in = x.data<T>();
    int32_t* o = out->data<int32_t>();
    ParallelRange(ctx->intra_op_pool(), x.num_elements(), 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        o[i] =
            static_cast<int32_t>(std::upper_bound(boundaries_.begin(), boundaries_.end(), in[i]) - boundaries_.begin());
    });
  }

 private:
  std::vector<float> boundaries_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Betainc").TypeConstraint<float>("T"), BetaincOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Betainc").TypeConstraint<double>("T"), BetaincOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("Bucketize").TypeConstraint<int32_t>("T"), BucketizeOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("Bucketize").TypeConstraint<int64_t>("T"), BucketizeOp<int64_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("Bucketize").TypeConstraint<float>("T"), BucketizeOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Bucketize").TypeConstraint<double>("T"), BucketizeOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx
