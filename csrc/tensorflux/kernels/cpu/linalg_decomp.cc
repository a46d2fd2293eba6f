// CPU kernels for Cholesky, Qr, Svd, SelfAdjointEigV2 and MatrixSolveLs (float/double, LAPACK),
// one matrix per task over the intra-op pool.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/kernels/cpu/linalg_util.h"

namespace tx {
namespace cpu {
namespace {

constexpr const char* kCholeskyFailed = "Cholesky decomposition was not successful. The input might not be valid.";

// Lower-triangular L with L L^T = input (reading input's lower triangle); the rest is zero.
template <typename T>
class CholeskyOp : public OpKernel {
 public:
  explicit CholeskyOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckSquareMatrices(a, "Cholesky"));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, a.shape(), &out));
    if (out->num_elements() == 0) return;
    const int64_t n = a.dim(a.rank() - 1);
    const T* ap = a.data<T>();
    T* op = out->data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      T* l = op + i * n * n;
      std::memcpy(l, ap + i * n * n, sizeof(T) * n * n);
      if (lapack::PotrfLower(n, l) != 0) return InvalidArgument(kCholeskyFailed);
      for (int64_t r = 0; r < n; ++r) std::fill(l + r * n + r + 1, l + (r + 1) * n, T(0));
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, NumMatrices(a), n * n * n / 3 + 1, per_matrix));
  }
};

// q r = input with q [M, P] (or [M, M] when full_matrices) and r upper triangular.
template <typename T>
class QrOp : public OpKernel {
 public:
  explicit QrOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("full_matrices", &full_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckMatrices(a, "Qr", "input"));
    const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1), p = std::min(m, n);
    const int64_t qc = full_ ? m : p;  // columns of q, rows of r
    Tensor *qt = nullptr, *rt = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, ReplaceTail(a.shape(), 2, {m, qc}), &qt));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, ReplaceTail(a.shape(), 2, {qc, n}), &rt));
    const int64_t batches = NumMatrices(a);
    const T* ap = a.data<T>();
    T* qp = qt->data<T>();
    T* rp = rt->data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      T* q = qp + i * m * qc;
      T* r = rp + i * qc * n;
      std::fill(r, r + qc * n, T(0));
      if (m == 0) return Status::OK();
      if (n == 0) {  // q is the identity's first qc columns
        std::fill(q, q + m * qc, T(0));
        for (int64_t d = 0; d < std::min(m, qc); ++d) q[d * qc + d] = T(1);
        return Status::OK();
      }
      std::vector<T> c(ap + i * m * n, ap + (i + 1) * m * n), tau(static_cast<size_t>(p));
      if (lapack::Geqrf(m, n, c.data(), tau.data()) != 0) return Internal("Qr: geqrf failed");
      for (int64_t row = 0; row < qc; ++row)
        for (int64_t col = row; col < n; ++col) r[row * n + col] = c[row * n + col];
      // Q's first qc columns (qc >= p): orgqr on an m x qc matrix holding the p reflectors.
      std::vector<T> qq(static_cast<size_t>(m * qc), T(0));
      for (int64_t row = 0; row < m; ++row)
        for (int64_t col = 0; col < p; ++col) qq[row * qc + col] = c[row * n + col];
      if (lapack::Orgqr(m, qc, p, qq.data(), tau.data()) != 0) return Internal("Qr: orgqr failed");
      std::memcpy(q, qq.data(), sizeof(T) * m * qc);
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, batches, m * n * p + 1, per_matrix));
  }

 private:
  bool full_ = false;
};

// Singular values (descending) and, with compute_uv, u and v (input = u diag(s) v^T).
template <typename T>
class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("compute_uv", &uv_));
    c->SetStatus(c->GetAttr("full_matrices", &full_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckMatrices(a, "Svd", "input"));
    const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1), p = std::min(m, n);
    const int64_t uc = full_ ? m : p, vc = full_ ? n : p;
    Tensor *st = nullptr, *ut = nullptr, *vt = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, ReplaceTail(a.shape(), 2, {p}), &st));
    TX_CTX_RETURN_IF_ERROR(ctx,
                           ctx->allocate_output(1, uv_ ? ReplaceTail(a.shape(), 2, {m, uc}) : TensorShape({0}), &ut));
    TX_CTX_RETURN_IF_ERROR(ctx,
                           ctx->allocate_output(2, uv_ ? ReplaceTail(a.shape(), 2, {n, vc}) : TensorShape({0}), &vt));
    const T* ap = a.data<T>();
    const char job = !uv_ ? 'N' : (full_ ? 'A' : 'S');
    auto per_matrix = [&](int64_t i) -> Status {
      T* s = st->data<T>() + i * p;
      T* u = uv_ ? ut->data<T>() + i * m * uc : nullptr;
      T* v = uv_ ? vt->data<T>() + i * n * vc : nullptr;
      if (m == 0 || n == 0) {  // no singular values; u and v are identity columns
        if (uv_) {
          std::fill(u, u + m * uc, T(0));
          std::fill(v, v + n * vc, T(0));
          for (int64_t d = 0; d < std::min(m, uc); ++d) u[d * uc + d] = T(1);
          for (int64_t d = 0; d < std::min(n, vc); ++d) v[d * vc + d] = T(1);
        }
        return Status::OK();
      }
      std::vector<T> work(ap + i * m * n, ap + (i + 1) * m * n);
      std::vector<T> vtm(uv_ ? static_cast<size_t>(vc * n) : 1), um(uv_ ? 0 : 1);
      if (lapack::Gesdd(job, m, n, work.data(), s, uv_ ? u : um.data(), vtm.data()) != 0) {
        // No convergence (NaN or Inf in the input): NaN results, as TensorFlow gives.
        std::fill(s, s + p, std::numeric_limits<T>::quiet_NaN());
        if (uv_) std::fill(u, u + m * uc, std::numeric_limits<T>::quiet_NaN());
        if (uv_) std::fill(v, v + n * vc, std::numeric_limits<T>::quiet_NaN());
        return Status::OK();
      }
      if (uv_) TransposeMatrix(vtm.data(), vc, n, v);
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, NumMatrices(a), m * n * p * 4 + 1, per_matrix));
  }

 private:
  bool uv_ = true, full_ = false;
};

// Eigenvalues (ascending) and eigenvectors of self-adjoint matrices, reading the lower triangle.
template <typename T>
class SelfAdjointEigOp : public OpKernel {
 public:
  explicit SelfAdjointEigOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("compute_v", &cv_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckSquareMatrices(a, "SelfAdjointEigV2"));
    const int64_t n = a.dim(a.rank() - 1);
    Tensor *et = nullptr, *vt = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, ReplaceTail(a.shape(), 2, {n}), &et));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, cv_ ? a.shape() : TensorShape({0}), &vt));
    if (n == 0) return;
    const T* ap = a.data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      std::vector<T> buf;
      T* v = nullptr;
      if (cv_) {
        v = vt->data<T>() + i * n * n;
        std::memcpy(v, ap + i * n * n, sizeof(T) * n * n);
      } else {
        buf.assign(ap + i * n * n, ap + (i + 1) * n * n);
        v = buf.data();
      }
      if (lapack::Syevd(cv_, n, v, et->data<T>() + i * n) != 0)
        return InvalidArgument("Self-adjoint eigen decomposition was not successful. The input might not be valid.");
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, NumMatrices(a), n * n * n * 4, per_matrix));
  }

 private:
  bool cv_ = true;
};

// Note [Least squares]
// fast=true solves the regularized normal equations with Cholesky, as TensorFlow does:
// (A^T A + l2 I) X = A^T B when M >= N, else X = A^T (A A^T + l2 I)^-1 B. fast=false computes the
// minimum-norm least-squares solution (LAPACK gelsd) and ignores l2_regularizer, as TF does.
template <typename T>
class MatrixSolveLsOp : public OpKernel {
 public:
  explicit MatrixSolveLsOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("fast", &fast_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DT_DOUBLE));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    const Tensor& l2t = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckMatrices(a, "MatrixSolveLs", "matrix"));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckMatrices(b, "MatrixSolveLs", "rhs"));
    if (l2t.num_elements() != 1) {
      ctx->SetStatus(
          InvalidArgument("MatrixSolveLs: l2_regularizer must be a scalar, got shape ", l2t.shape().ToString()));
      return;
    }
    const T l2 = static_cast<T>(l2t.data<double>()[0]);
    if (a.rank() != b.rank() ||
        !std::equal(a.shape().dims().begin(), a.shape().dims().end() - 2, b.shape().dims().begin()) ||
        a.dim(a.rank() - 2) != b.dim(b.rank() - 2)) {
      ctx->SetStatus(InvalidArgument("MatrixSolveLs: matrix ", a.shape().ToString(), " and rhs ", b.shape().ToString(),
                                     " are incompatible"));
      return;
    }
    const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1), k = b.dim(b.rank() - 1);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, ReplaceTail(b.shape(), 2, {n, k}), &out));
    if (out->num_elements() == 0) return;
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* op = out->data<T>();
    auto per_matrix = [&](int64_t i) { return Solve(m, n, k, l2, ap + i * m * n, bp + i * m * k, op + i * n * k); };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, NumMatrices(a), m * n * std::max(m, n) + 1, per_matrix));
  }

 private:
  Status Solve(int64_t m, int64_t n, int64_t k, T l2, const T* a, const T* b, T* x) const {
    if (m == 0 || k == 0) {
      std::fill(x, x + n * k, T(0));
      return Status::OK();
    }
    if (!fast_) {
      const int64_t rows = std::max(m, n);
      std::vector<T> aw(a, a + m * n), bw(static_cast<size_t>(rows * k), T(0));
      std::memcpy(bw.data(), b, sizeof(T) * m * k);
      if (lapack::Gelsd(m, n, k, aw.data(), bw.data()) != 0)  // no convergence (NaN input): NaN results
        std::fill(bw.begin(), bw.end(), std::numeric_limits<T>::quiet_NaN());
      std::memcpy(x, bw.data(), sizeof(T) * n * k);
      return Status::OK();
    }
    const bool tall = m >= n;
    const int64_t g = tall ? n : m;
    std::vector<T> gram(static_cast<size_t>(g * g));
    // tall: A^T A (n x n); wide: A A^T (m x m).
    BlasGemm(tall, !tall, g, g, tall ? m : n, a, n, a, n, gram.data(), g);
    for (int64_t d = 0; d < g; ++d) gram[d * g + d] += l2;
    if (lapack::PotrfLower(g, gram.data()) != 0)
      return InvalidArgument(
          "Input matrix was rank deficient or ill-conditioned. Try setting fast=False or "
          "provide a larger l2_regularizer > 0.");
    std::vector<T> rhs(static_cast<size_t>(g * k));
    if (tall)
      BlasGemm(true, false, n, k, m, a, n, b, k, rhs.data(), k);  // A^T B
    else
      std::memcpy(rhs.data(), b, sizeof(T) * m * k);
    lapack::Trsm(true, false, g, k, gram.data(), rhs.data());
    lapack::Trsm(true, true, g, k, gram.data(), rhs.data());
    if (tall)
      std::memcpy(x, rhs.data(), sizeof(T) * n * k);
    else
      BlasGemm(true, false, n, k, m, a, n, rhs.data(), k, x, k);  // A^T (A A^T + l2 I)^-1 B
    return Status::OK();
  }

  bool fast_ = true;
};

#define TX_REGISTER_DECOMP_KERNELS(T)                                                                   \
  TX_REGISTER_KERNEL(KernelDefBuilder("Cholesky").TypeConstraint<T>("T"), CholeskyOp<T>);               \
  TX_REGISTER_KERNEL(KernelDefBuilder("Qr").TypeConstraint<T>("T"), QrOp<T>);                           \
  TX_REGISTER_KERNEL(KernelDefBuilder("Svd").TypeConstraint<T>("T"), SvdOp<T>);                         \
  TX_REGISTER_KERNEL(KernelDefBuilder("SelfAdjointEigV2").TypeConstraint<T>("T"), SelfAdjointEigOp<T>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixSolveLs").TypeConstraint<T>("T"), MatrixSolveLsOp<T>);

TX_REGISTER_DECOMP_KERNELS(float)
TX_REGISTER_DECOMP_KERNELS(double)

}  // namespace
}  // namespace cpu
}  // namespace tx
