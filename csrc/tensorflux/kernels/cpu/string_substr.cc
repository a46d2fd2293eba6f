// CPU kernel for Substr: substrings by byte or UTF-8 character position, with pos and len
// broadcast against the input.
#include <string>

#include "tensorflux/kernels/cpu/string_util.h"
#include "tensorflux/lib/utf8.h"

namespace tx {
namespace cpu {
namespace {

// Python-style bytes literal of `s` for messages: b'...' with non-printables escaped.
std::string BytesRepr(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "b'";
  for (unsigned char c : s) {
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + "'";
}

// Byte offset of the character `k` characters into s (characters start at non-trail bytes).
size_t CharOffset(std::string_view s, int64_t k) {
  size_t i = 0;
  while (k > 0 && i < s.size()) {
    ++i;
    while (i < s.size() && utf8::IsTrailByte(s[i])) ++i;
    --k;
  }
  return i;
}

template <typename T>
class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction* c) : OpKernel(c), chars_(CountsUtf8Chars(c)) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<T>::value));
    const Tensor& in = ctx->input(0);
    const Tensor& pos = ctx->input(1);
    const Tensor& len = ctx->input(2);
    if (pos.shape() != len.shape()) {
      ctx->SetStatus(InvalidArgument("pos and len should have the same shape, got: ", pos.shape().ToString(), " vs. ",
                                     len.shape().ToString()));
      return;
    }
    BroadcastPlan plan;
    TX_CTX_RETURN_IF_ERROR(ctx, MakeBroadcastPlan(in.shape(), pos.shape(), &plan));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    const TString* s = in.data<TString>();
    const T* p = pos.data<T>();
    const T* l = len.data<T>();
    TString* o = out->data<TString>();
    ForEachBroadcast(plan, ctx, 32, [&](int64_t z, int64_t si, int64_t pi) {
      const std::string_view str = s[si].view();
      const int64_t size = chars_ ? utf8::CountChars(str) : static_cast<int64_t>(str.size());
      int64_t start = static_cast<int64_t>(p[pi]);
      if (start < 0) start += size;
      if (start < 0 || start > size) {
        if (chars_) return InvalidArgument("pos ", p[pi], " out of range for string at index ", si);
        return InvalidArgument("pos ", p[pi], " out of range for string ", BytesRepr(str), " at index ", si);
      }
      int64_t count = static_cast<int64_t>(l[pi]);
      if (count < 0 || count > size - start) count = size - start;
      if (!chars_) return AssignString(str.substr(static_cast<size_t>(start), static_cast<size_t>(count)), &o[z]);
      const size_t b = CharOffset(str, start);
      const size_t e = b + CharOffset(str.substr(b), count);
      return AssignString(str.substr(b, e - b), &o[z]);
    });
  }

 private:
  const bool chars_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Substr").TypeConstraint<int32_t>("T"), SubstrOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("Substr").TypeConstraint<int64_t>("T"), SubstrOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx
