// CPU kernel for RandomShuffle: a uniform random permutation along the first dimension.
#include <cstring>
#include <memory>
#include <vector>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/philox.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Fisher-Yates over row indices (step k draws 64 bits from half of block k/2), then copies rows
// (CopyElements: strings too, as TensorFlow's kernel shuffles any type).
class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    state_ = std::make_unique<PhiloxState>(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (DataTypeSize(x.dtype()) == 0) {
      ctx->SetStatus(Unimplemented("RandomShuffle does not support ", DataTypeString(x.dtype()), " tensors"));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, x.dtype()));
    if (x.rank() == 0 || x.dim(0) <= 1) {
      ctx->set_output(0, x);
      return;
    }
    const int64_t rows = x.dim(0);
    std::vector<int64_t> perm(rows);
    for (int64_t i = 0; i < rows; ++i) perm[i] = i;
    const PhiloxCounter base = state_->Reserve(static_cast<uint64_t>(rows + 1) / 2);
    PhiloxBlock w{};
    for (int64_t k = rows - 1; k >= 1; --k) {
      if (k % 2 == 1 || k == rows - 1) w = Philox4x32(PhiloxAdd(base, static_cast<uint64_t>(k / 2)), state_->key());
      const int j = static_cast<int>(k % 2) * 2;
      const uint64_t bits = (static_cast<uint64_t>(w[j]) << 32) | w[j + 1];
      std::swap(perm[k], perm[static_cast<int64_t>(bits % static_cast<uint64_t>(k + 1))]);
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, x.shape(), &out));
    const size_t row_bytes = x.byte_size() / static_cast<size_t>(rows);
    if (row_bytes == 0) return;
    const int64_t row_elems = x.num_elements() / rows;
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    ParallelItems(ctx->intra_op_pool(), rows, static_cast<int64_t>(row_bytes / 4 + 1), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        CopyElements(x.dtype(), src + perm[i] * row_bytes, dst + i * row_bytes, row_elems);
    });
  }

 private:
  std::unique_ptr<PhiloxState> state_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("RandomShuffle"), RandomShuffleOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
