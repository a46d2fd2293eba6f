// CPU kernels for Assert, Print, PrintV2 and StringFormat, with TensorFlow's tensor summaries
// (Note [Tensor summaries] in tensor_summary.h).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/string_util.h"
#include "tensorflux/kernels/cpu/tensor_summary.h"

namespace tx {
namespace cpu {
namespace {

// "[summary]" of each input from `first` on, separated by `sep`.
std::string BracketedSummaries(OpKernelContext* ctx, int first, int64_t summarize, const char* sep) {
  std::string out;
  for (int i = first; i < ctx->num_inputs(); ++i) {
    if (i > first) out += sep;
    out += "[" + SummarizeValue(ctx->input(i), summarize, /*print_v2=*/false) + "]";
  }
  return out;
}

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("summarize", &summarize_)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    if (cond.dtype() != DT_BOOL || cond.shape().rank() != 0)
      return ctx->SetStatus(
          InvalidArgument("[", name(), "] condition must be a bool scalar, got shape ", cond.shape().ToString()));
    if (*cond.data<bool>()) return;
    ctx->SetStatus(InvalidArgument("[", name(), "] assertion failed: ", BracketedSummaries(ctx, 1, summarize_, " ")));
  }

 private:
  int64_t summarize_ = 3;
};

// Print: output 0 is input 0; the message and "[summary]" of each data input go to stderr, for
// the first `first_n` runs of this kernel when first_n >= 0.
class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("message", &message_));
    c->SetStatus(c->GetAttr("first_n", &first_n_));
    c->SetStatus(c->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    if (first_n_ >= 0 && calls_.fetch_add(1) >= first_n_) return;
    const std::string line = message_ + BracketedSummaries(ctx, 1, summarize_, "") + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }

 private:
  std::string message_;
  int64_t first_n_ = -1, summarize_ = 3;
  std::atomic<int64_t> calls_{0};  // runs so far, for first_n (shared by concurrent runs)
};

// PrintV2: writes its string and `end` to a standard stream, the log (stderr with a level
// prefix), or appends them to the file of a "file://<path>" stream.
class PrintV2Op : public OpKernel {
 public:
  explicit PrintV2Op(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("output_stream", &stream_));
    c->SetStatus(c->GetAttr("end", &end_));
    static const char* const kStreams[] = {"stdout", "stderr", "log(info)", "log(warning)", "log(error)"};
    bool known = stream_.rfind("file://", 0) == 0;
    for (const char* s : kStreams) known = known || stream_ == s;
    if (c->status().ok() && !known)
      c->SetStatus(InvalidArgument("Unknown output stream: ", stream_,
                                   ", Valid streams are: stdout, stderr, log(info), log(warning), log(error)."));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
    if (ctx->input(0).rank() != 0)
      return ctx->SetStatus(
          InvalidArgument("Input is expected to be scalar, but got ", ctx->input(0).shape().ToString()));
    std::string text = ctx->input(0).data<TString>()[0].str() + end_;
    if (stream_.rfind("file://", 0) == 0) {
      const std::string path = stream_.substr(7);
      FILE* f = std::fopen(path.c_str(), "a");
      if (f == nullptr) return ctx->SetStatus(NotFound("cannot open ", path, " to append the printed text"));
      const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
      if (std::fclose(f) != 0 || !ok)
        ctx->SetStatus(Status(Code::kUnknown, "writing the printed text to " + path + " failed"));
      return;
    }
    if (stream_.rfind("log(", 0) == 0) {
      const char level = stream_[4] == 'i' ? 'I' : stream_[4] == 'w' ? 'W' : 'E';
      text = std::string(1, level) + " " + name() + "] " + text;
    }
    FILE* out = stream_ == "stdout" ? stdout : stderr;
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
  }

 private:
  std::string stream_, end_;
};

// StringFormat: the template with each placeholder replaced by the next input's print_v2 summary.
class StringFormatOp : public OpKernel {
 public:
  explicit StringFormatOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string tmpl, placeholder;
    c->SetStatus(c->GetAttr("template", &tmpl));
    c->SetStatus(c->GetAttr("placeholder", &placeholder));
    c->SetStatus(c->GetAttr("summarize", &summarize_));
    if (!c->status().ok()) return;
    if (placeholder.empty()) {
      c->SetStatus(InvalidArgument("placeholder must not be empty"));
      return;
    }
    size_t start = 0;
    for (size_t at; (at = tmpl.find(placeholder, start)) != std::string::npos; start = at + placeholder.size())
      pieces_.push_back(tmpl.substr(start, at - start));
    pieces_.push_back(tmpl.substr(start));
    const int64_t placeholders = static_cast<int64_t>(pieces_.size()) - 1;
    if (placeholders != c->num_inputs())
      c->SetStatus(InvalidArgument("num placeholders in template and num inputs must match: ", placeholders, " vs. ",
                                   c->num_inputs()));
  }

  void Compute(OpKernelContext* ctx) override {
    std::string text;
    for (size_t i = 0; i < pieces_.size(); ++i) {
      text += pieces_[i];
      if (static_cast<int>(i) < ctx->num_inputs())
        text += SummarizeValue(ctx->input(static_cast<int>(i)), summarize_, /*print_v2=*/true);
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    TX_CTX_RETURN_IF_ERROR(ctx, AssignString(text, out->data<TString>()));
  }

 private:
  std::vector<std::string> pieces_;
  int64_t summarize_ = 3;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Assert"), AssertOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Print"), PrintOp);
TX_REGISTER_KERNEL(KernelDefBuilder("PrintV2"), PrintV2Op);
TX_REGISTER_KERNEL(KernelDefBuilder("StringFormat"), StringFormatOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
