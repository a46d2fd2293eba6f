// CPU kernel for CTCLoss: per batch entry, the forward-backward recursions of connectionist
// temporal classification in log space over the label sequence with blanks interleaved
// (blank = num_classes - 1), giving -log p(labels | inputs) and its gradient with respect to
// the unnormalized inputs (softmax over classes), as TensorFlow's ctc_loss_calculator.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

constexpr double kLogZero = -std::numeric_limits<double>::infinity();

double LogSumExp(double a, double b) {
  if (a == kLogZero) return b;
  if (b == kLogZero) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// The attrs, read once.
struct CtcOptions {
  bool collapse = false, merge = true, ignore_longer = false;
};

// Loss and gradient of one sequence: `logp` [time][classes] log-softmax rows (time = its
// sequence length), label `l`; writes grad rows (time x classes, stride `grad_stride`).
Status OneSequence(const CtcOptions& o, const std::vector<double>& logp, int64_t time, int64_t classes,
                   std::vector<int> l, double* loss, double* grad, int64_t grad_stride, int64_t b) {
  const int blank = static_cast<int>(classes - 1);
  if (l.empty()) return InvalidArgument("CTCLoss: Labels length is zero in batch ", b);
  // As TensorFlow, only a label longer than the sequence is "too long"; one that fits but needs
  // blanks between repeats it has no time for has no path: an infinite loss.
  const int64_t required = static_cast<int64_t>(l.size());
  if (o.collapse) l.erase(std::unique(l.begin(), l.end()), l.end());
  if (required > time) {
    if (o.ignore_longer) {
      *loss = 0;
      return Status::OK();
    }
    return InvalidArgument("CTCLoss: Not enough time for target transition sequence (required: ", required,
                           ", available: ", time, ") in batch entry ", b,
                           "; set ignore_longer_outputs_than_inputs to skip such entries");
  }
  const int64_t u_len = 2 * static_cast<int64_t>(l.size()) + 1;
  std::vector<int> lp(u_len, blank);
  for (size_t i = 0; i < l.size(); ++i) lp[2 * i + 1] = l[i];
  auto skip_ok = [&](int64_t u) {  // may a path jump from u - 2 to u?
    return u > 1 && lp[u] != blank && !(o.merge && lp[u] == lp[u - 2]);
  };
  // May a path stay on u? Without merging, each label emission is its own label.
  auto stay_ok = [&](int64_t u) { return o.merge || lp[u] == blank; };
  std::vector<double> alpha(time * u_len, kLogZero), beta(time * u_len, kLogZero);
  alpha[0] = logp[blank];
  if (u_len > 1) alpha[1] = logp[lp[1]];
  for (int64_t t = 1; t < time; ++t)
    for (int64_t u = 0; u < u_len; ++u) {
      double s = stay_ok(u) ? alpha[(t - 1) * u_len + u] : kLogZero;
      if (u > 0) s = LogSumExp(s, alpha[(t - 1) * u_len + u - 1]);
      if (skip_ok(u)) s = LogSumExp(s, alpha[(t - 1) * u_len + u - 2]);
      alpha[t * u_len + u] = s == kLogZero ? kLogZero : s + logp[t * classes + lp[u]];
    }
  // beta excludes the emission at its own step: alpha * beta sums the paths through (u, t).
  beta[(time - 1) * u_len + u_len - 1] = 0;
  if (u_len > 1) beta[(time - 1) * u_len + u_len - 2] = 0;
  for (int64_t t = time - 2; t >= 0; --t)
    for (int64_t u = 0; u < u_len; ++u) {
      double s = stay_ok(u) ? beta[(t + 1) * u_len + u] + logp[(t + 1) * classes + lp[u]] : kLogZero;
      if (u + 1 < u_len) s = LogSumExp(s, beta[(t + 1) * u_len + u + 1] + logp[(t + 1) * classes + lp[u + 1]]);
      if (u + 2 < u_len && skip_ok(u + 2))
        s = LogSumExp(s, beta[(t + 1) * u_len + u + 2] + logp[(t + 1) * classes + lp[u + 2]]);
      beta[t * u_len + u] = s;
    }
  double log_p = alpha[(time - 1) * u_len + u_len - 1];
  if (u_len > 1) log_p = LogSumExp(log_p, alpha[(time - 1) * u_len + u_len - 2]);
  *loss = -log_p;
  std::vector<double> occ(classes);
  for (int64_t t = 0; t < time; ++t) {
    std::fill(occ.begin(), occ.end(), kLogZero);
    for (int64_t u = 0; u < u_len; ++u) occ[lp[u]] = LogSumExp(occ[lp[u]], alpha[t * u_len + u] + beta[t * u_len + u]);
    for (int64_t k = 0; k < classes; ++k) {
      const double y = std::exp(logp[t * classes + k]);
      grad[t * grad_stride + k] = log_p == kLogZero ? y : y - std::exp(occ[k] - log_p);  // no path: y, as TF
    }
  }
  return Status::OK();
}

template <typename T>
class CtcLossOp : public OpKernel {
 public:
  explicit CtcLossOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("preprocess_collapse_repeated", &o_.collapse));
    c->SetStatus(c->GetAttr("ctc_merge_repeated", &o_.merge));
    c->SetStatus(c->GetAttr("ignore_longer_outputs_than_inputs", &o_.ignore_longer));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& idx = ctx->input(1);
    const Tensor& vals = ctx->input(2);
    const Tensor& len = ctx->input(3);
    if (in.rank() != 3)
      return ctx->SetStatus(InvalidArgument("CTCLoss: inputs must be 3-D [max_time, batch, num_classes], got shape ",
                                            in.shape().ToString()));
    const int64_t max_time = in.dim(0), batch = in.dim(1), classes = in.dim(2);
    if (classes < 1) return ctx->SetStatus(InvalidArgument("CTCLoss: num_classes must be at least 1 (the blank)"));
    if (len.rank() != 1 || len.dim(0) != batch)
      return ctx->SetStatus(InvalidArgument("CTCLoss: sequence_length must be a vector of batch size ", batch,
                                            ", got shape ", len.shape().ToString()));
    if (idx.rank() != 2 || idx.dim(1) != 2)
      return ctx->SetStatus(
          InvalidArgument("CTCLoss: labels_indices must be a matrix [n, 2], got shape ", idx.shape().ToString()));
    if (vals.rank() != 1 || vals.dim(0) != idx.dim(0))
      return ctx->SetStatus(InvalidArgument("CTCLoss: labels_values must be a vector of ", idx.dim(0),
                                            " values (one per index row), got shape ", vals.shape().ToString()));
    const int64_t* ip = idx.data<int64_t>();
    const int32_t* vp = vals.data<int32_t>();
    const int32_t* lenp = len.data<int32_t>();
    std::vector<std::vector<int>> labels(batch);
    std::vector<int64_t> last_pos(batch, -1);
    int64_t last_b = 0;
    for (int64_t i = 0; i < idx.dim(0); ++i) {
      const int64_t b = ip[2 * i], pos = ip[2 * i + 1];
      if (b < 0 || b >= batch)
        return ctx->SetStatus(
            InvalidArgument("CTCLoss: labels_indices[", i, "] has batch index ", b, " outside [0, ", batch, ")"));
      if (b < last_b || pos <= last_pos[b])
        return ctx->SetStatus(InvalidArgument("CTCLoss: labels_indices must be ordered by batch, then position; ",
                                              "row ", i, " is out of order"));
      last_b = b;
      last_pos[b] = pos;
      if (vp[i] < 0 || vp[i] >= classes - 1)
        return ctx->SetStatus(InvalidArgument("CTCLoss: label values must be in [0, num_classes - 1) = [0, ",
                                              classes - 1, ") (num_classes - 1 is the blank), got ", vp[i]));
      labels[b].push_back(vp[i]);
    }
    for (int64_t b = 0; b < batch; ++b)
      if (lenp[b] < 0 || lenp[b] > max_time)
        return ctx->SetStatus(InvalidArgument("CTCLoss: sequence_length[", b, "] = ", lenp[b],
                                              " must be in [0, max_time = ", max_time, "]"));
    Tensor *loss_t = nullptr, *grad_t = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss_t));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, in.shape(), &grad_t));
    T* gp = grad_t->data<T>();
    std::fill(gp, gp + grad_t->num_elements(), T(0));
    const T* xp = in.data<T>();
    std::vector<Status> status(batch);
    ParallelItems(ctx->intra_op_pool(), batch, max_time * classes * 16, [&](int64_t bb, int64_t be) {
      for (int64_t b = bb; b < be; ++b) {
        const int64_t time = lenp[b];
        std::vector<double> logp(time * classes), grad(time * classes, 0.0);
        for (int64_t t = 0; t < time; ++t) {  // log-softmax of row (t, b)
          const T* row = xp + (t * batch + b) * classes;
          double m = -std::numeric_limits<double>::infinity();
          for (int64_t k = 0; k < classes; ++k) m = std::max(m, static_cast<double>(row[k]));
          double s = 0;
          for (int64_t k = 0; k < classes; ++k) s += std::exp(row[k] - m);
          for (int64_t k = 0; k < classes; ++k) logp[t * classes + k] = row[k] - m - std::log(s);
        }
        double loss = 0;
        status[b] = OneSequence(o_, logp, time, classes, labels[b], &loss, grad.data(), classes, b);
        loss_t->data<T>()[b] = static_cast<T>(loss);
        for (int64_t t = 0; t < time; ++t)
          for (int64_t k = 0; k < classes; ++k)
            gp[(t * batch + b) * classes + k] = static_cast<T>(grad[t * classes + k]);
      }
    });
    for (const Status& s : status)
      if (!s.ok()) return ctx->SetStatus(s);
  }

 private:
  CtcOptions o_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("CTCLoss").TypeConstraint<float>("T"), CtcLossOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("CTCLoss").TypeConstraint<double>("T"), CtcLossOp<double>);

}  // namespace
}  // namespace cpu
}  // namespace tx
