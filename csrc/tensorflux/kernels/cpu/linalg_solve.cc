// CPU kernels for MatrixSolve, MatrixInverse, Lu, MatrixDeterminant, LogMatrixDeterminant and
// MatrixTriangularSolve (float/double, LAPACK), one matrix per task over the intra-op pool.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "tensorflux/kernels/cpu/linalg_util.h"

namespace tx {
namespace cpu {
namespace {

constexpr const char* kNotInvertibleSolve = "Input matrix is not invertible.";
constexpr const char* kNotInvertibleInverse = "Input is not invertible.";

// output = matrix^-1 rhs (or adjoint(matrix)^-1 rhs) per batch item; batch dims must be equal.
template <typename T>
class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("adjoint", &adjoint_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if (a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2)) {
      ctx->SetStatus(InvalidArgument("First input (lhs) must be a square matrix, got shape ", a.shape().ToString()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckSquareMatrices(a, "MatrixSolve"));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckMatrices(b, "MatrixSolve", "rhs"));
    if (a.rank() != b.rank() ||
        !std::equal(a.shape().dims().begin(), a.shape().dims().end() - 2, b.shape().dims().begin())) {
      ctx->SetStatus(InvalidArgument("All input tensors must have the same outer dimensions: matrix ",
                                     a.shape().ToString(), " vs. rhs ", b.shape().ToString()));
      return;
    }
    const int64_t n = a.dim(a.rank() - 1), k = b.dim(b.rank() - 1);
    if (b.dim(b.rank() - 2) != n) {
      ctx->SetStatus(InvalidArgument("Input matrix and rhs are incompatible: matrix ", a.shape().ToString(),
                                     " vs. rhs ", b.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, b.shape(), &out));
    if (out->num_elements() == 0) return;
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* op = out->data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      std::vector<T> lu(ap + i * n * n, ap + (i + 1) * n * n);
      std::vector<int32_t> piv(static_cast<size_t>(n));
      if (lapack::GetrfT(n, lu.data(), piv.data()) != 0) return InvalidArgument(kNotInvertibleSolve);
      T* x = op + i * n * k;
      std::memcpy(x, bp + i * n * k, sizeof(T) * n * k);
      if (lapack::GetrsT(adjoint_, n, k, lu.data(), piv.data(), x) != 0) return Internal("MatrixSolve: getrs failed");
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, NumMatrices(a), n * n * (n + k), per_matrix));
  }

 private:
  bool adjoint_ = false;
};

// The inverse (of the adjoint, when `adjoint`) of each square matrix.
template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("adjoint", &adjoint_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    if (a.rank() >= 2 && a.dim(a.rank() - 1) != a.dim(a.rank() - 2)) {
      ctx->SetStatus(InvalidArgument("Input matrix must be square, got shape ", a.shape().ToString()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckSquareMatrices(a, "MatrixInverse"));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, a.shape(), &out));
    if (out->num_elements() == 0) return;
    const int64_t n = a.dim(a.rank() - 1);
    const T* ap = a.data<T>();
    T* op = out->data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      T* x = op + i * n * n;
      if (adjoint_)
        TransposeMatrix(ap + i * n * n, n, n, x);
      else
        std::memcpy(x, ap + i * n * n, sizeof(T) * n * n);
      std::vector<int32_t> piv(static_cast<size_t>(n));
      if (lapack::GetrfT(n, x, piv.data()) != 0) return InvalidArgument(kNotInvertibleInverse);
      if (lapack::GetriT(n, x, piv.data()) != 0) return InvalidArgument(kNotInvertibleInverse);
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, NumMatrices(a), n * n * n, per_matrix));
  }

 private:
  bool adjoint_ = false;
};

// lu = L U packed (L unit lower) and p with input[..., p, :] = L U; singular input is an error.
template <typename T, typename Index>
class LuOp : public OpKernel {
 public:
  explicit LuOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    if (a.rank() >= 2 && a.dim(a.rank() - 1) != a.dim(a.rank() - 2)) {
      ctx->SetStatus(InvalidArgument("Input matrix must be square, got shape ", a.shape().ToString()));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckSquareMatrices(a, "Lu"));
    const int64_t n = a.dim(a.rank() - 1);
    Tensor *lut = nullptr, *pt = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, a.shape(), &lut));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, ReplaceTail(a.shape(), 1, {}), &pt));
    if (lut->num_elements() == 0) return;
    const T* ap = a.data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      T* lu = lut->data<T>() + i * n * n;
      Index* perm = pt->data<Index>() + i * n;
      std::memcpy(lu, ap + i * n * n, sizeof(T) * n * n);
      std::vector<int32_t> piv(static_cast<size_t>(n));
      if (lapack::Getrf(n, lu, piv.data()) != 0) return InvalidArgument(kNotInvertibleInverse);
      for (int64_t r = 0; r < n; ++r) perm[r] = static_cast<Index>(r);
      for (int64_t r = 0; r < n; ++r) std::swap(perm[r], perm[piv[r] - 1]);  // LAPACK's row swaps, in order
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, NumMatrices(a), n * n * n, per_matrix));
  }
};

// Sign and log|det| of one n x n matrix from its LU factors (sign 0 and -inf when singular).
template <typename T>
void SignLogDet(int64_t n, const T* a, T* sign, T* logdet) {
  std::vector<T> lu(a, a + n * n);
  std::vector<int32_t> piv(static_cast<size_t>(n));
  const int info = lapack::GetrfT(n, lu.data(), piv.data());  // det(a^T) = det(a)
  if (info > 0) {
    *sign = T(0);
    *logdet = -std::numeric_limits<T>::infinity();
    return;
  }
  T s = T(1), l = T(0);
  for (int64_t i = 0; i < n; ++i) {
    const T d = lu[i * n + i];
    if (std::isnan(d)) {
      *sign = *logdet = std::numeric_limits<T>::quiet_NaN();
      return;
    }
    if (piv[i] != i + 1) s = -s;
    if (d < 0) s = -s;
    l += std::log(std::abs(d));
  }
  *sign = s;
  *logdet = l;
}

// Determinants (`log_form` false) or (sign, log|det|) pairs of square matrices.
template <typename T, bool log_form>
class DeterminantOp : public OpKernel {
 public:
  explicit DeterminantOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckSquareMatrices(a, type_string()));
    const int64_t n = a.dim(a.rank() - 1);
    const TensorShape batch = ReplaceTail(a.shape(), 2, {});
    Tensor *o0 = nullptr, *o1 = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, batch, &o0));
    if (log_form) TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, batch, &o1));
    const T* ap = a.data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      T sign = T(1), logdet = T(0);
      if (n > 0) SignLogDet(n, ap + i * n * n, &sign, &logdet);
      if (log_form) {
        o0->data<T>()[i] = sign;
        o1->data<T>()[i] = logdet;
      } else {
        o0->data<T>()[i] = sign * std::exp(logdet);
      }
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, batch.num_elements(), n * n * n, per_matrix));
  }
};

// Note [Triangular solve broadcasting]
// MatrixTriangularSolve broadcasts the batch dims of matrix and rhs (NumPy rules); each output
// item copies its rhs and solves in place with one TRSM reading only the chosen triangle.
template <typename T>
class TriangularSolveOp : public OpKernel {
 public:
  explicit TriangularSolveOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("lower", &lower_));
    c->SetStatus(c->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckSquareMatrices(a, "MatrixTriangularSolve"));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckMatrices(b, "MatrixTriangularSolve", "rhs"));
    const int ra = a.rank(), rb = b.rank();
    const int64_t n = a.dim(ra - 1), k = b.dim(rb - 1);
    if (b.dim(rb - 2) != n) {
      ctx->SetStatus(InvalidArgument("MatrixTriangularSolve: matrix ", a.shape().ToString(), " and rhs ",
                                     b.shape().ToString(), " are incompatible (rhs needs ", n, " rows)"));
      return;
    }
    const int nb = std::max(ra, rb) - 2;
    std::vector<int64_t> dims(nb), sa(nb), sb(nb);
    int64_t stride_a = 1, stride_b = 1;
    for (int i = nb - 1; i >= 0; --i) {
      const int ia = ra - 2 - nb + i, ib = rb - 2 - nb + i;
      const int64_t da = ia >= 0 ? a.dim(ia) : 1, db = ib >= 0 ? b.dim(ib) : 1;
      if (da != db && da != 1 && db != 1) {
        ctx->SetStatus(InvalidArgument("MatrixTriangularSolve: incompatible batch dimensions: matrix ",
                                       a.shape().ToString(), " vs. rhs ", b.shape().ToString()));
        return;
      }
      dims[i] = std::max(da, db);
      sa[i] = da == 1 ? 0 : stride_a;
      sb[i] = db == 1 ? 0 : stride_b;
      stride_a *= da;
      stride_b *= db;
    }
    std::vector<int64_t> out_dims = dims;
    out_dims.push_back(n);
    out_dims.push_back(k);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    int64_t batches = 1;
    for (int64_t d : dims) batches *= d;
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* op = out->data<T>();
    auto per_matrix = [&](int64_t i) -> Status {
      int64_t oa = 0, ob = 0, rest = i;
      for (int d = nb - 1; d >= 0; --d) {
        const int64_t c = rest % dims[d];
        rest /= dims[d];
        oa += c * sa[d];
        ob += c * sb[d];
      }
      T* x = op + i * n * k;
      std::memcpy(x, bp + ob * n * k, sizeof(T) * n * k);
      lapack::Trsm(lower_, adjoint_, n, k, ap + oa * n * n, x);
      return Status::OK();
    };
    TX_CTX_RETURN_IF_ERROR(ctx, ForEachMatrix(ctx, batches, n * n * k, per_matrix));
  }

 private:
  bool lower_ = true, adjoint_ = false;
};

#define TX_REGISTER_SOLVE_KERNELS(T)                                                                           \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixSolve").TypeConstraint<T>("T"), MatrixSolveOp<T>);                \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixInverse").TypeConstraint<T>("T"), MatrixInverseOp<T>);            \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixDeterminant").TypeConstraint<T>("T"), DeterminantOp<T, false>);   \
  TX_REGISTER_KERNEL(KernelDefBuilder("LogMatrixDeterminant").TypeConstraint<T>("T"), DeterminantOp<T, true>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixTriangularSolve").TypeConstraint<T>("T"), TriangularSolveOp<T>);

TX_REGISTER_SOLVE_KERNELS(float)
TX_REGISTER_SOLVE_KERNELS(double)

#define TX_REGISTER_LU_KERNEL(T, Index)                                                                      \
  TX_REGISTER_KERNEL(KernelDefBuilder("Lu").TypeConstraint<T>("T").TypeConstraint<Index>("output_idx_type"), \
                     LuOp<T, Index>);
TX_REGISTER_LU_KERNEL(float, int32_t)
TX_REGISTER_LU_KERNEL(float, int64_t)
TX_REGISTER_LU_KERNEL(double, int32_t)
TX_REGISTER_LU_KERNEL(double, int64_t)

}  // namespace
}  // namespace cpu
}  // namespace tx
