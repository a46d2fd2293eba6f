// CPU kernels for RegexReplace, StaticRegexReplace, RegexFullMatch and StaticRegexFullMatch over
// the engine's regex engine (Note [Regex engine] in lib/regex.h).
#include <memory>
#include <string>

#include "tensorflux/kernels/cpu/string_util.h"
#include "tensorflux/lib/regex.h"

namespace tx {
namespace cpu {
namespace {

// Compiles `pattern`; InvalidArgument in TensorFlow's words when it does not compile.
Status CompilePattern(std::string_view pattern, std::unique_ptr<regex::Regex>* out) {
  std::string error;
  *out = regex::Regex::Compile(pattern, &error);
  if (*out == nullptr) return InvalidArgument("Invalid pattern: ", pattern, ", error: ", error);
  return Status::OK();
}

void ReplaceAll(OpKernelContext* ctx, const regex::Regex& re, std::string_view rewrite, bool global) {
  MapStrings<TString>(ctx, [&](const TString& s, TString* out) {
    std::string result;
    regex::Replace(re, s.view(), rewrite, global, &result);
    return AssignString(result, out);
  });
}

void FullMatchAll(OpKernelContext* ctx, const regex::Regex& re) {
  MapStrings<bool>(ctx, [&](const TString& s, bool* out) {
    *out = re.FullMatch(s.view());
    return Status::OK();
  });
}

class RegexReplaceOp : public OpKernel {
 public:
  explicit RegexReplaceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("replace_global", &global_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::string_view pattern, rewrite;
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarStringInput(ctx, 1, "Pattern must be scalar, but received ", &pattern));
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarStringInput(ctx, 2, "Rewrite must be scalar, but received ", &rewrite));
    std::unique_ptr<regex::Regex> re;
    TX_CTX_RETURN_IF_ERROR(ctx, CompilePattern(pattern, &re));
    ReplaceAll(ctx, *re, rewrite, global_);
  }

 private:
  bool global_ = true;
};

// The pattern is compiled once, when the kernel is made, so a bad one fails before any run.
class StaticRegexReplaceOp : public OpKernel {
 public:
  explicit StaticRegexReplaceOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string pattern;
    c->SetStatus(c->GetAttr("pattern", &pattern));
    c->SetStatus(c->GetAttr("rewrite", &rewrite_));
    c->SetStatus(c->GetAttr("replace_global", &global_));
    if (c->status().ok()) c->SetStatus(CompilePattern(pattern, &re_));
  }
  void Compute(OpKernelContext* ctx) override { ReplaceAll(ctx, *re_, rewrite_, global_); }

 private:
  std::unique_ptr<regex::Regex> re_;
  std::string rewrite_;
  bool global_ = true;
};

class RegexFullMatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string_view pattern;
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarStringInput(ctx, 1, "Pattern must be scalar, but received ", &pattern));
    std::unique_ptr<regex::Regex> re;
    TX_CTX_RETURN_IF_ERROR(ctx, CompilePattern(pattern, &re));
    FullMatchAll(ctx, *re);
  }
};

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string pattern;
    c->SetStatus(c->GetAttr("pattern", &pattern));
    if (c->status().ok()) c->SetStatus(CompilePattern(pattern, &re_));
  }
  void Compute(OpKernelContext* ctx) override { FullMatchAll(ctx, *re_); }

 private:
  std::unique_ptr<regex::Regex> re_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("RegexReplace"), RegexReplaceOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StaticRegexReplace"), StaticRegexReplaceOp);
TX_REGISTER_KERNEL(KernelDefBuilder("RegexFullMatch"), RegexFullMatchOp);
TX_REGISTER_KERNEL(KernelDefBuilder("StaticRegexFullMatch"), StaticRegexFullMatchOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
