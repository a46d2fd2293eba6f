// CPU kernels for MatrixBandPart, MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3 (any element
// type the engine stores) and Cross (real types). Diagonal layout: Note [Diagonal alignment].
#include <algorithm>
#include <cstring>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/linalg_util.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/ops/matrix_diag_util.h"

namespace tx {
namespace cpu {
namespace {

using diag_util::DiagBand;

// Reads k from input `i` as (k0, k1).
Status ReadK(const OpKernelContext* ctx, int i, int64_t* k0, int64_t* k1) {
  std::vector<int64_t> k;
  TX_RETURN_IF_ERROR(array_util::ReadInts(ctx->input(i), "k", &k));
  return diag_util::ReadDiagIndex(k, k0, k1);
}

// Reads a scalar element of type T from input `i`.
template <typename T>
Status ReadScalar(const OpKernelContext* ctx, int i, const char* what, T* out) {
  const Tensor& t = ctx->input(i);
  if (t.num_elements() != 1) return InvalidArgument(what, " must be a scalar, got shape ", t.shape().ToString());
  *out = t.data<T>()[0];
  return Status::OK();
}

// Keeps entries (i, j) with (num_lower < 0 or i - j <= num_lower) and (num_upper < 0 or
// j - i <= num_upper); zeroes the rest.
template <typename T>
class BandPartOp : public OpKernel {
 public:
  explicit BandPartOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    if (a.rank() < 2) {
      ctx->SetStatus(InvalidArgument("input must be at least 2-dim, received shape: ", a.shape().ToString()));
      return;
    }
    int64_t lo = 0, up = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadScalarInt(ctx->input(1), "num_lower", &lo));
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadScalarInt(ctx->input(2), "num_upper", &up));
    const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1);
    if (lo > m) {
      ctx->SetStatus(
          InvalidArgument("num_lower must be negative or less or equal to number of rows (", m, ") got: ", lo));
      return;
    }
    if (up > n) {
      ctx->SetStatus(
          InvalidArgument("num_upper must be negative or less or equal to number of columns (", n, ") got: ", up));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, a.shape(), &out));
    const T* ap = a.data<T>();
    T* op = out->data<T>();
    ParallelItems(ctx->intra_op_pool(), NumMatrices(a) * m, n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r % m;
        const int64_t j0 = lo < 0 ? 0 : std::max<int64_t>(0, i - lo), j1 = up < 0 ? n : std::min(n, i + up + 1);
        T* o = op + r * n;
        const T* x = ap + r * n;
        std::fill(o, o + n, T());
        for (int64_t j = j0; j < j1; ++j) o[j] = x[j];
      }
    });
  }
};

// Visits every (matrix b, diagonal d, position t) of `band` with packed index `pi` and matrix
// index `mi` (within the batch item), as fn(b, pi, mi).
template <typename F>
void ForEachDiagElement(const DiagBand& band, int64_t batches, const F& fn) {
  const int64_t nd = band.num_diags();
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t d = band.k1; d >= band.k0; --d) {
      const int64_t len = band.Length(d), off = band.Offset(d), row = band.k1 - d;
      for (int64_t t = 0; t < len; ++t) {
        const int64_t i = t + std::max<int64_t>(-d, 0), j = t + std::max<int64_t>(d, 0);
        fn(b, (b * nd + row) * band.max_len + off + t, i * band.cols + j);
      }
    }
}

// The diagonals k0..k1 of each matrix, packed (and padded with padding_value).
template <typename T>
class DiagPartOp : public OpKernel {
 public:
  explicit DiagPartOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("align", &align_)); }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 2, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    if (a.rank() < 2) {
      ctx->SetStatus(InvalidArgument("input must be at least 2-dim, received shape: ", a.shape().ToString()));
      return;
    }
    int64_t k0, k1;
    T pad;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadK(ctx, 1, &k0, &k1));
    TX_CTX_RETURN_IF_ERROR(ctx, ReadScalar<T>(ctx, 2, "padding_value", &pad));
    DiagBand band;
    TX_CTX_RETURN_IF_ERROR(ctx, diag_util::ParseAlign(align_, &band));
    const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1);
    TX_CTX_RETURN_IF_ERROR(ctx, diag_util::BandOfMatrix(m, n, k0, k1, &band));
    TensorShape shape = ReplaceTail(a.shape(), 2, {});
    if (k0 != k1) shape.add_dim(band.num_diags());
    shape.add_dim(band.max_len);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape, &out));
    T* op = out->data<T>();
    std::fill(op, op + out->num_elements(), pad);
    const T* ap = a.data<T>();
    ForEachDiagElement(band, NumMatrices(a), [&](int64_t b, int64_t pi, int64_t mi) { op[pi] = ap[b * m * n + mi]; });
  }

 private:
  std::string align_;
};

// Writes `diagonal` (packed as for DiagPart) onto each matrix of `out`; `set` keeps the input.
template <typename T>
class DiagOp : public OpKernel {
 public:
  explicit DiagOp(OpKernelConstruction* c) : OpKernel(c), set_(c->op_type() == "MatrixSetDiagV3") {
    c->SetStatus(c->GetAttr("align", &align_));
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, set_ ? 1 : 4, DataTypeOf<T>::value));
    const Tensor& diag = ctx->input(set_ ? 1 : 0);
    int64_t k0, k1;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadK(ctx, set_ ? 2 : 1, &k0, &k1));
    DiagBand band;
    TX_CTX_RETURN_IF_ERROR(ctx, diag_util::ParseAlign(align_, &band));
    const int diag_axes = k0 == k1 ? 1 : 2;
    if (diag.rank() < diag_axes) {
      ctx->SetStatus(
          InvalidArgument("diagonal must be at least ", diag_axes, "-dim, received shape: ", diag.shape().ToString()));
      return;
    }
    if (k0 != k1 && diag.dim(diag.rank() - 2) != k1 - k0 + 1) {
      ctx->SetStatus(
          InvalidArgument("The number of diagonals provided in the input does not match the "
                          "lower_diag_index and upper_diag_index range: ",
                          diag.dim(diag.rank() - 2), " vs. ", k1 - k0 + 1));
      return;
    }
    const int64_t max_len = diag.dim(diag.rank() - 1);
    const TensorShape batch = ReplaceTail(diag.shape(), diag_axes, {});
    int64_t rows, cols;
    Tensor* out = nullptr;
    if (set_) {
      const Tensor& a = ctx->input(0);
      if (a.rank() < 2) {
        ctx->SetStatus(InvalidArgument("input must be at least 2-dim, received shape: ", a.shape().ToString()));
        return;
      }
      rows = a.dim(a.rank() - 2);
      cols = a.dim(a.rank() - 1);
      TX_CTX_RETURN_IF_ERROR(ctx, diag_util::BandOfMatrix(rows, cols, k0, k1, &band));
      if (ReplaceTail(a.shape(), 2, {}) != batch || max_len != band.max_len) {
        ctx->SetStatus(InvalidArgument("diagonal must have shape ", ReplaceTail(a.shape(), 2, {}).ToString(), " + [",
                                       k0 == k1 ? "" : std::to_string(band.num_diags()) + ", ", band.max_len,
                                       "] for input ", a.shape().ToString(), ", got ", diag.shape().ToString()));
        return;
      }
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, a.shape(), &out));
      std::memcpy(out->raw_data(), a.raw_data(), a.byte_size());
    } else {
      T pad;
      TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadScalarInt(ctx->input(2), "num_rows", &rows));
      TX_CTX_RETURN_IF_ERROR(ctx, array_util::ReadScalarInt(ctx->input(3), "num_cols", &cols));
      TX_CTX_RETURN_IF_ERROR(ctx, ReadScalar<T>(ctx, 4, "padding_value", &pad));
      TX_CTX_RETURN_IF_ERROR(ctx, diag_util::ResolveDiagMatrixSize(max_len, k0, k1, &rows, &cols));
      TX_CTX_RETURN_IF_ERROR(ctx, diag_util::BandOfMatrix(rows, cols, k0, k1, &band));
      TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, ReplaceTail(diag.shape(), diag_axes, {rows, cols}), &out));
      std::fill(out->data<T>(), out->data<T>() + out->num_elements(), pad);
    }
    band.max_len = max_len;  // the packed rows' length as given
    T* op = out->data<T>();
    const T* dp = diag.data<T>();
    ForEachDiagElement(band, batch.num_elements(),
                       [&](int64_t b, int64_t pi, int64_t mi) { op[b * rows * cols + mi] = dp[pi]; });
  }

 private:
  bool set_;
  std::string align_;
};

// product[..., :] = a[..., :] x b[..., :] for 3-vectors.
template <typename T>
class CrossOp : public OpKernel {
 public:
  explicit CrossOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DataTypeOf<T>::value));
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, DataTypeOf<T>::value));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if (a.shape() != b.shape()) {
      ctx->SetStatus(
          InvalidArgument("Both inputs must be of same shape: ", a.shape().ToString(), " vs. ", b.shape().ToString()));
      return;
    }
    if (a.rank() < 1 || a.dim(a.rank() - 1) != 3) {
      ctx->SetStatus(InvalidArgument("Trailing dimension must be of size 3, got shape ", a.shape().ToString()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, a.shape(), &out));
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* z = out->data<T>();
    const int64_t n = a.num_elements() / 3;
    ParallelItems(ctx->intra_op_pool(), n, 9, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const T* u = x + 3 * i;
        const T* v = y + 3 * i;
        T* w = z + 3 * i;
        w[0] = static_cast<T>(u[1] * v[2] - u[2] * v[1]);
        w[1] = static_cast<T>(u[2] * v[0] - u[0] * v[2]);
        w[2] = static_cast<T>(u[0] * v[1] - u[1] * v[0]);
      }
    });
  }
};

#define TX_REGISTER_DIAG_KERNELS(T)                                                               \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixBandPart").TypeConstraint<T>("T"), BandPartOp<T>);   \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixDiagPartV3").TypeConstraint<T>("T"), DiagPartOp<T>); \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixDiagV3").TypeConstraint<T>("T"), DiagOp<T>);         \
  TX_REGISTER_KERNEL(KernelDefBuilder("MatrixSetDiagV3").TypeConstraint<T>("T"), DiagOp<T>);

TX_REGISTER_DIAG_KERNELS(float)
TX_REGISTER_DIAG_KERNELS(double)
TX_REGISTER_DIAG_KERNELS(int32_t)
TX_REGISTER_DIAG_KERNELS(int64_t)
TX_REGISTER_DIAG_KERNELS(uint8_t)
TX_REGISTER_DIAG_KERNELS(bool)
TX_REGISTER_DIAG_KERNELS(complex64)  // complex block
TX_REGISTER_DIAG_KERNELS(complex128)

#define TX_REGISTER_CROSS_KERNEL(T) TX_REGISTER_KERNEL(KernelDefBuilder("Cross").TypeConstraint<T>("T"), CrossOp<T>);
TX_REGISTER_CROSS_KERNEL(float)
TX_REGISTER_CROSS_KERNEL(double)
TX_REGISTER_CROSS_KERNEL(int32_t)
TX_REGISTER_CROSS_KERNEL(int64_t)

}  // namespace
}  // namespace cpu
}  // namespace tx
