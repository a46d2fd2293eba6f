// CPU kernel for Assert: an InvalidArgument error showing the data tensors when the condition is false.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

template <typename T>
void AppendValues(std::ostringstream& os, const Tensor& t, int64_t n) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) os << ' ';
    if constexpr (sizeof(T) == 1 && !std::is_same_v<T, bool>) {
      os << static_cast<int>(p[i]);  // int8/uint8 as numbers, not characters
    } else {
      os << p[i];
    }
  }
}

// TensorFlow's summary of a tensor: "[v0 v1...]" with at most `limit` values (all when < 0); a
// scalar is its value.
std::string Summarize(const Tensor& t, int64_t limit) {
  std::ostringstream os;
  const int64_t total = t.num_elements();
  const int64_t n = limit < 0 ? total : std::min(total, limit);
  const bool bracket = t.shape().rank() > 0;
  if (bracket) os << '[';
  os << std::boolalpha;
  switch (t.dtype()) {
    case DT_FLOAT: AppendValues<float>(os, t, n); break;
    case DT_DOUBLE: AppendValues<double>(os, t, n); break;
    case DT_INT8: AppendValues<int8_t>(os, t, n); break;
    case DT_INT16: AppendValues<int16_t>(os, t, n); break;
    case DT_INT32: AppendValues<int32_t>(os, t, n); break;
    case DT_INT64: AppendValues<int64_t>(os, t, n); break;
    case DT_UINT8: AppendValues<uint8_t>(os, t, n); break;
    case DT_UINT16: AppendValues<uint16_t>(os, t, n); break;
    case DT_UINT32: AppendValues<uint32_t>(os, t, n); break;
    case DT_UINT64: AppendValues<uint64_t>(os, t, n); break;
    case DT_BOOL: AppendValues<bool>(os, t, n); break;
    default: os << "<" << DataTypeString(t.dtype()) << " " << t.shape().ToString() << ">"; return os.str();
  }
  if (total > n) os << "...";
  if (bracket) os << ']';
  return os.str();
}

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("summarize", &summarize_)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    if (cond.dtype() != DT_BOOL || cond.shape().rank() != 0)
      return ctx->SetStatus(InvalidArgument("[", name(), "] condition must be a bool scalar, got shape ",
                                            cond.shape().ToString()));
    if (*cond.data<bool>()) return;
    std::string message = "[" + name() + "] assertion failed:";
    for (int i = 1; i < ctx->num_inputs(); ++i) message += " " + Summarize(ctx->input(i), summarize_);
    ctx->SetStatus(InvalidArgument(message));
  }

 private:
  int64_t summarize_ = 3;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Assert"), AssertOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
