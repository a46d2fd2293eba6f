// CPU kernels for StringSplitV2 (a sparse matrix of the pieces of each string) and ReduceJoin
// (strings joined along dimensions).
#include <string>
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/index_copy.h"
#include "tensorflux/kernels/cpu/string_util.h"

namespace tx {
namespace cpu {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Python's str.split semantics on bytes: runs of ASCII whitespace when `sep` is empty (no empty
// pieces), else every occurrence of `sep`; at most `maxsplit` splits when it is >= 0.
void Split(std::string_view s, std::string_view sep, int64_t maxsplit, std::vector<std::string_view>* out) {
  out->clear();
  int64_t splits = 0;
  if (sep.empty()) {
    size_t i = 0;
    while (true) {
      while (i < s.size() && IsSpace(s[i])) ++i;
      if (i == s.size()) return;
      if (maxsplit >= 0 && splits == maxsplit) {
        out->push_back(s.substr(i));
        return;
      }
      size_t j = i;
      while (j < s.size() && !IsSpace(s[j])) ++j;
      out->push_back(s.substr(i, j - i));
      ++splits;
      i = j;
    }
  }
  size_t start = 0;
  while (maxsplit < 0 || splits < maxsplit) {
    const size_t at = s.find(sep, start);
    if (at == std::string_view::npos) break;
    out->push_back(s.substr(start, at - start));
    start = at + sep.size();
    ++splits;
  }
  out->push_back(s.substr(start));
}

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("maxsplit", &maxsplit_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DT_STRING));
    const Tensor& in = ctx->input(0);
    const Tensor& sep = ctx->input(1);
    if (in.rank() != 1) {
      ctx->SetStatus(InvalidArgument("input must be a vector, got shape: ", in.shape().ToString()));
      return;
    }
    if (sep.rank() != 0) {
      ctx->SetStatus(InvalidArgument("sep must be a scalar, got shape: ", sep.shape().ToString()));
      return;
    }
    const std::string_view separator = sep.data<TString>()[0].view();
    std::vector<std::vector<std::string_view>> pieces(static_cast<size_t>(in.dim(0)));
    int64_t total = 0, widest = 0;
    for (int64_t i = 0; i < in.dim(0); ++i) {
      Split(in.data<TString>()[i].view(), separator, maxsplit_, &pieces[i]);
      total += static_cast<int64_t>(pieces[i].size());
      widest = std::max<int64_t>(widest, static_cast<int64_t>(pieces[i].size()));
    }
    Tensor *indices = nullptr, *values = nullptr, *shape = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({total, 2}), &indices));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t k = 0;
    for (int64_t i = 0; i < in.dim(0); ++i) {
      for (size_t j = 0; j < pieces[i].size(); ++j, ++k) {
        indices->data<int64_t>()[2 * k] = i;
        indices->data<int64_t>()[2 * k + 1] = static_cast<int64_t>(j);
        TX_CTX_RETURN_IF_ERROR(ctx, AssignString(pieces[i][j], &values->data<TString>()[k]));
      }
    }
    shape->data<int64_t>()[0] = in.dim(0);
    shape->data<int64_t>()[1] = widest;
  }

 private:
  int64_t maxsplit_ = -1;
};

// Joins along the listed dimensions; the first listed dimension varies fastest, as in TensorFlow.
class ReduceJoinOp : public OpKernel {
 public:
  explicit ReduceJoinOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("keep_dims", &keep_dims_));
    c->SetStatus(c->GetAttr("separator", &sep_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> axes;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "reduction_indices", 1, &axes));
    const int rank = in.rank();
    std::vector<bool> reduced(rank, false);
    for (int64_t& a : axes) {
      if (a < -rank || a >= rank) {
        ctx->SetStatus(OutOfRange("Invalid reduction dimension ", a, " for input with ", rank, " dimension(s)"));
        return;
      }
      if (a < 0) a += rank;
      if (reduced[a]) {
        ctx->SetStatus(InvalidArgument("Duplicate reduction dimension ", a));
        return;
      }
      reduced[a] = true;
    }
    std::vector<int64_t> out_dims, kept;  // kept: the input dims that remain, outermost first
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        out_dims.push_back(in.dim(d));
        kept.push_back(d);
      } else if (keep_dims_) {
        out_dims.push_back(1);
      }
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, AllocateChecked(ctx, 0, out_dims, &out));
    const std::vector<int64_t> strides = RowMajorStrides(in.shape());
    int64_t group = 1;
    for (int64_t a : axes) group *= in.dim(static_cast<int>(a));
    const TString* s = in.data<TString>();
    TString* o = out->data<TString>();
    ForEachElement(ctx, out->num_elements(), 16 * group + 1, [&](int64_t z) {
      int64_t base = 0, rest = z;
      for (size_t k = kept.size(); k-- > 0;) {
        const int64_t dim = in.dim(static_cast<int>(kept[k]));
        base += (rest % dim) * strides[kept[k]];
        rest /= dim;
      }
      // Offsets of the joined elements: the first listed axis is the innermost loop.
      std::vector<int64_t> offsets{base};
      for (int64_t a : axes) {
        std::vector<int64_t> next;
        next.reserve(offsets.size() * static_cast<size_t>(in.dim(static_cast<int>(a))));
        for (int64_t j = 0; j < in.dim(static_cast<int>(a)); ++j)
          for (int64_t off : offsets) next.push_back(off + j * strides[a]);
        offsets = std::move(next);
      }
      size_t total = offsets.empty() ? 0 : sep_.size() * (offsets.size() - 1);
      for (int64_t off : offsets) total += s[off].size();
      char* p = o[z].ResizeUninitialized(total);
      if (p == nullptr) return StringTooLarge(total);
      for (size_t k = 0; k < offsets.size(); ++k) {
        if (k > 0) p = std::copy(sep_.begin(), sep_.end(), p);
        p = std::copy(s[offsets[k]].data(), s[offsets[k]].data() + s[offsets[k]].size(), p);
      }
      return Status::OK();
    });
  }

 private:
  bool keep_dims_ = false;
  std::string sep_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("StringSplitV2"), StringSplitV2Op);
TX_REGISTER_KERNEL(KernelDefBuilder("ReduceJoin"), ReduceJoinOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
