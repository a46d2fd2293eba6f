// CPU kernels for StringJoin, StringLength, StringStrip, StringLower and StringUpper.
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/string_util.h"
#include "tensorflux/lib/unicode_case.h"
#include "tensorflux/lib/utf8.h"

namespace tx {
namespace cpu {
namespace {

// Joins the inputs elementwise; every non-scalar input has the output's shape, scalars repeat.
class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("separator", &sep_)); }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor* shaped = nullptr;
    for (int i = 0; i < n; ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DT_STRING));
      const Tensor& t = ctx->input(i);
      if (t.rank() == 0) continue;
      if (shaped != nullptr && t.shape() != shaped->shape()) {
        ctx->SetStatus(
            InvalidArgument("Input shapes do not match: ", shaped->shape().ToString(), " vs. ", t.shape().ToString()));
        return;
      }
      shaped = &t;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shaped ? shaped->shape() : TensorShape({}), &out));
    TString* o = out->data<TString>();
    ForEachElement(ctx, out->num_elements(), 16 * (n + 1), [&](int64_t e) {
      size_t total = n > 0 ? sep_.size() * static_cast<size_t>(n - 1) : 0;
      for (int i = 0; i < n; ++i) total += ctx->input(i).data<TString>()[ctx->input(i).rank() == 0 ? 0 : e].size();
      char* p = o[e].ResizeUninitialized(total);
      if (p == nullptr) return StringTooLarge(total);
      for (int i = 0; i < n; ++i) {
        if (i > 0) p = std::copy(sep_.begin(), sep_.end(), p);
        const TString& s = ctx->input(i).data<TString>()[ctx->input(i).rank() == 0 ? 0 : e];
        p = std::copy(s.data(), s.data() + s.size(), p);
      }
      return Status::OK();
    });
  }

 private:
  std::string sep_;
};

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction* c) : OpKernel(c), chars_(CountsUtf8Chars(c)) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    MapStrings<int32_t>(ctx, [&](const TString& s, int32_t* out) {
      const int64_t n = chars_ ? utf8::CountChars(s.view()) : static_cast<int64_t>(s.size());
      if (n > INT32_MAX) return InvalidArgument("string length ", n, " does not fit in int32");
      *out = static_cast<int32_t>(n);
      return Status::OK();
    });
  }

 private:
  const bool chars_;
};

bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

class StringStripOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    MapStrings<TString>(ctx, [](const TString& s, TString* out) {
      std::string_view v = s.view();
      while (!v.empty() && IsAsciiSpace(v.front())) v.remove_prefix(1);
      while (!v.empty() && IsAsciiSpace(v.back())) v.remove_suffix(1);
      return AssignString(v, out);
    });
  }
};

// StringLower (kUpper false) and StringUpper: ASCII letters, or with encoding "utf-8" the letters
// of the scripts Note [Simple case mapping] covers, plus ß -> SS and the final form of sigma at
// the end of a word (invalid bytes are kept).
template <bool kUpper>
class StringCaseOp : public OpKernel {
 public:
  explicit StringCaseOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string encoding;
    c->SetStatus(c->GetAttr("encoding", &encoding));
    for (char& ch : encoding) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (encoding != "" && encoding != "utf-8" && encoding != "utf8")
      c->SetStatus(InvalidArgument("encoding must be '' or 'utf-8', got '", encoding, "'"));
    utf8_ = !encoding.empty();
  }

  void Compute(OpKernelContext* ctx) override {
    MapStrings<TString>(ctx, [&](const TString& s, TString* out) {
      if (!utf8_) {
        char* p = out->ResizeUninitialized(s.size());
        if (p == nullptr) return StringTooLarge(s.size());
        for (size_t i = 0; i < s.size(); ++i) {
          const char ch = s.data()[i];
          p[i] = kUpper ? (ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 32) : ch)
                        : (ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch);
        }
        return Status::OK();
      }
      std::vector<int32_t> runes;  // kInvalidRune - byte for bytes that are not UTF-8
      for (size_t i = 0; i < s.size();) {
        int32_t r;
        const int len = utf8::DecodeRune(s.data() + i, s.size() - i, &r);
        runes.push_back(r == utf8::kInvalidRune ? -1 - static_cast<uint8_t>(s.data()[i]) : r);
        i += static_cast<size_t>(len);
      }
      auto cased = [&](size_t k) {
        return k < runes.size() && runes[k] >= 0 &&
            (unicase::ToLower(runes[k]) != runes[k] || unicase::ToUpper(runes[k]) != runes[k]);
      };
      std::string text;
      text.reserve(s.size());
      for (size_t k = 0; k < runes.size(); ++k) {
        const int32_t r = runes[k];
        if (r < 0) {
          text.push_back(static_cast<char>(-1 - r));
        } else if (kUpper && r == 0xDF) {
          text += "SS";  // the one full (one-to-two) mapping the Latin letters need
        } else if (!kUpper && r == 0x3A3 && k > 0 && cased(k - 1) && !cased(k + 1)) {
          utf8::AppendRune(0x3C2, &text);  // final sigma, as ICU and Python lowercase it
        } else {
          utf8::AppendRune(kUpper ? unicase::ToUpper(r) : unicase::ToLower(r), &text);
        }
      }
      return AssignString(text, out);
    });
  }

 private:
  bool utf8_ = false;
};

TX_REGISTER_KERNEL(KernelDefBuilder("StringJoin"), StringJoinOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StringLength"), StringLengthOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StringStrip"), StringStripOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StringLower"), StringCaseOp<false>);
TX_REGISTER_KERNEL(KernelDefBuilder("StringUpper"), StringCaseOp<true>);

}  // namespace
}  // namespace cpu
}  // namespace tx
