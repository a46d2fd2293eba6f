// CPU kernel for Einsum: each operand is first reduced to distinct labels (diagonals of repeated
// labels taken, labels used nowhere else summed), then the pair is contracted with one GEMM per
// batch item (OpenBLAS for float/double), and the result is permuted into the output's order.
#include <algorithm>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

#include "tensorflux/kernels/cpu/blas.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/einsum_util.h"

namespace tx {
namespace cpu {
namespace {

// A dense operand viewed through its labels: data with per-label sizes and element strides.
template <typename T>
struct Labeled {
  const T* data = nullptr;
  std::vector<int> labels;
  std::vector<int64_t> dims, strides;
  Tensor holder;  // owns data when it was computed here
};

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size());
  int64_t acc = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= dims[i];
  }
  return s;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

// dst (contiguous over out_dims) = sum over sum_dims of src, read through the given strides.
template <typename T>
void StridedSum(const T* src, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& out_strides,
                const std::vector<int64_t>& sum_dims, const std::vector<int64_t>& sum_strides, T* dst) {
  const int64_t n_out = Product(out_dims), n_sum = Product(sum_dims);
  if (sum_dims.empty() && !out_dims.empty() && n_out > 0) {  // a permuted copy: rows of the last dim
    const int r = static_cast<int>(out_dims.size());
    const int64_t inner = out_dims[r - 1], step = out_strides[r - 1];
    std::vector<int64_t> idx(r - 1, 0);
    int64_t off = 0;
    for (int64_t row = 0; row < n_out / inner; ++row) {
      const T* s = src + off;
      T* d = dst + row * inner;
      if (step == 1)
        std::memcpy(d, s, sizeof(T) * inner);
      else
        for (int64_t j = 0; j < inner; ++j) d[j] = s[j * step];
      for (int a = r - 2; a >= 0; --a) {
        off += out_strides[a];
        if (++idx[a] < out_dims[a]) break;
        off -= out_strides[a] * out_dims[a];
        idx[a] = 0;
      }
    }
    return;
  }
  std::vector<int64_t> idx(out_dims.size(), 0), sidx(sum_dims.size(), 0);
  int64_t off = 0;
  for (int64_t o = 0; o < n_out; ++o) {
    T acc = T(0);
    int64_t soff = 0;
    std::fill(sidx.begin(), sidx.end(), 0);
    for (int64_t s = 0; s < n_sum; ++s) {
      acc += src[off + soff];
      for (int a = static_cast<int>(sum_dims.size()) - 1; a >= 0; --a) {
        soff += sum_strides[a];
        if (++sidx[a] < sum_dims[a]) break;
        soff -= sum_strides[a] * sum_dims[a];
        sidx[a] = 0;
      }
    }
    dst[o] = acc;
    for (int a = static_cast<int>(out_dims.size()) - 1; a >= 0; --a) {
      off += out_strides[a];
      if (++idx[a] < out_dims[a]) break;
      off -= out_strides[a] * out_dims[a];
      idx[a] = 0;
    }
  }
}

// `x` reduced to the labels in `keep` order (each must be one of x's labels): repeated labels
// give their diagonal, labels not kept are summed. No copy when nothing changes.
template <typename T>
Status Reduce(const Labeled<T>& x, const std::vector<int>& keep, Labeled<T>* out) {
  std::map<int, int64_t> stride, size;
  for (size_t a = 0; a < x.labels.size(); ++a) {
    stride[x.labels[a]] += x.strides[a];
    size[x.labels[a]] = x.dims[a];
  }
  out->labels = keep;
  out->dims.clear();
  std::vector<int64_t> in_strides, sum_dims, sum_strides;
  for (int l : keep) {
    out->dims.push_back(size[l]);
    in_strides.push_back(stride[l]);
  }
  for (const auto& [l, s] : stride)
    if (std::find(keep.begin(), keep.end(), l) == keep.end()) {
      sum_dims.push_back(size[l]);
      sum_strides.push_back(s);
    }
  out->strides = ContiguousStrides(out->dims);
  if (sum_dims.empty() && keep == x.labels && in_strides == out->strides) {
    out->data = x.data;
    return Status::OK();
  }
  TX_RETURN_IF_ERROR(Tensor::Allocate(DataTypeOf<T>::value, TensorShape(out->dims), &out->holder));
  StridedSum(x.data, out->dims, in_strides, sum_dims, sum_strides, out->holder.template data<T>());
  out->data = out->holder.template data<T>();
  return Status::OK();
}

// C[m, n] = op(A) op(B) for one batch item.
template <typename T>
void Gemm(ThreadPool* pool, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  if constexpr (std::is_floating_point_v<T>) {
    if (FitsBlasInt(m, n, k, lda, ldb, n)) {
      if (pool != nullptr)
        PoolGemm(pool, ta, tb, m, n, k, a, lda, b, ldb, c, n);
      else
        BlasGemm(ta, tb, m, n, k, a, lda, b, ldb, c, n);
      return;
    }
  }
  std::fill(c, c + m * n, T(0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const T av = ta ? a[p * lda + i] : a[i * lda + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += av * (tb ? b[j * ldb + p] : b[p * ldb + j]);
    }
}

std::vector<int> Concat(std::initializer_list<const std::vector<int>*> parts) {
  std::vector<int> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

bool Contains(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// Contracts x and y (distinct labels each) into z with labels B + F0 + F1, the groups taken in the
// order of `out` (batch labels may broadcast: size 1 in one operand).
template <typename T>
Status Contract(OpKernelContext* ctx, const Labeled<T>& x, const Labeled<T>& y, const std::vector<int>& out,
                Labeled<T>* z) {
  std::vector<int> B, F0, F1, K;
  for (int l : out) {
    const bool in0 = Contains(x.labels, l), in1 = Contains(y.labels, l);
    if (in0 && in1)
      B.push_back(l);
    else if (in0)
      F0.push_back(l);
    else if (in1)
      F1.push_back(l);
  }
  for (int l : x.labels)
    if (Contains(y.labels, l) && !Contains(out, l)) K.push_back(l);
  // Operand layouts GEMM can read directly: x as [B,F0,K] or [B,K,F0]; y as [B,K,F1] or [B,F1,K].
  const bool trans_x = x.labels != Concat({&B, &F0, &K}) && x.labels == Concat({&B, &K, &F0});
  const bool trans_y = y.labels != Concat({&B, &K, &F1}) && y.labels == Concat({&B, &F1, &K});
  Labeled<T> xr, yr;
  TX_RETURN_IF_ERROR(Reduce(x, trans_x ? Concat({&B, &K, &F0}) : Concat({&B, &F0, &K}), &xr));
  TX_RETURN_IF_ERROR(Reduce(y, trans_y ? Concat({&B, &F1, &K}) : Concat({&B, &K, &F1}), &yr));
  auto size_of = [](const Labeled<T>& t, int l) {
    for (size_t a = 0; a < t.labels.size(); ++a)
      if (t.labels[a] == l) return t.dims[a];
    return int64_t{1};
  };
  int64_t m = 1, n = 1, k = 1;
  for (int l : F0) m *= size_of(x, l);
  for (int l : F1) n *= size_of(y, l);
  for (int l : K) k *= size_of(x, l);
  const int nb = static_cast<int>(B.size());
  std::vector<int64_t> bdims(nb), bx(nb), by(nb);
  int64_t sx = 1, sy = 1;
  for (int i = nb - 1; i >= 0; --i) {
    const int64_t dx = size_of(x, B[i]), dy = size_of(y, B[i]);
    bdims[i] = std::max(dx, dy);
    if (dx == 0 || dy == 0) bdims[i] = 0;
    bx[i] = dx == 1 ? 0 : sx;
    by[i] = dy == 1 ? 0 : sy;
    sx *= dx;
    sy *= dy;
  }
  z->labels = Concat({&B, &F0, &F1});
  z->dims = bdims;
  for (int l : F0) z->dims.push_back(size_of(x, l));
  for (int l : F1) z->dims.push_back(size_of(y, l));
  z->strides = ContiguousStrides(z->dims);
  TX_RETURN_IF_ERROR(Tensor::Allocate(DataTypeOf<T>::value, TensorShape(z->dims), &z->holder));
  T* c = z->holder.template data<T>();
  z->data = c;
  const int64_t batches = Product(bdims);
  if (batches == 0 || m == 0 || n == 0) return Status::OK();
  if (k == 0) {
    std::fill(c, c + batches * m * n, T(0));
    return Status::OK();
  }
  auto item = [&](int64_t bi, ThreadPool* pool) {
    int64_t ox = 0, oy = 0, rest = bi;
    for (int i = nb - 1; i >= 0; --i) {
      const int64_t ci = rest % bdims[i];
      rest /= bdims[i];
      ox += ci * bx[i];
      oy += ci * by[i];
    }
    Gemm(pool, trans_x, trans_y, m, n, k, xr.data + ox * m * k, yr.data + oy * k * n, c + bi * m * n);
  };
  if (batches == 1) {
    item(0, ctx->intra_op_pool());
    return Status::OK();
  }
  ParallelItems(ctx->intra_op_pool(), batches, std::min<int64_t>(m * n * k, int64_t{1} << 30),
                [&](int64_t b0, int64_t b1) {
                  for (int64_t bi = b0; bi < b1; ++bi) item(bi, nullptr);
                });
  return Status::OK();
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string equation;
    c->SetStatus(c->GetAttr("equation", &equation));
    if (c->status().ok()) c->SetStatus(einsum::Parse(equation, c->num_inputs(), &eq_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<PartialShape> shapes;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DataTypeOf<T>::value));
      shapes.emplace_back(ctx->input(i).shape());
    }
    PartialShape out_shape;
    std::vector<std::vector<int>> labels;
    std::vector<int> out_labels;
    TX_CTX_RETURN_IF_ERROR(ctx, einsum::ResolveShapes(eq_, shapes, &out_shape, &labels, &out_labels));
    std::vector<Labeled<T>> ops(labels.size());
    for (size_t i = 0; i < labels.size(); ++i) {
      const Tensor& t = ctx->input(static_cast<int>(i));
      ops[i].data = t.data<T>();
      ops[i].labels = labels[i];
      ops[i].dims = t.shape().dims();
      ops[i].strides = ContiguousStrides(ops[i].dims);
    }
    std::vector<int> out_unique;  // output labels without repeats, in order
    for (int l : out_labels)
      if (!Contains(out_unique, l)) out_unique.push_back(l);
    // Reduce each operand to the labels that the output or the other operand uses.
    std::vector<Labeled<T>> red(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      std::vector<int> keep;
      for (int l : ops[i].labels) {
        bool used = Contains(out_unique, l) || (ops.size() == 2 && Contains(ops[1 - i].labels, l));
        if (used && !Contains(keep, l)) keep.push_back(l);
      }
      TX_CTX_RETURN_IF_ERROR(ctx, Reduce(ops[i], keep, &red[i]));
    }
    Labeled<T> z;
    if (red.size() == 2) {
      TX_CTX_RETURN_IF_ERROR(ctx, Contract(ctx, red[0], red[1], out_unique, &z));
    } else {
      z = red[0];
      if (z.holder.initialized()) z.data = z.holder.template data<T>();
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, out_shape.ToTensorShape(), &out));
    if (out->num_elements() == 0) return;
    // Permute z into the output order; repeated output labels place values on their diagonal.
    const std::vector<int64_t> out_strides = ContiguousStrides(out->shape().dims());
    std::vector<int64_t> zdims, zstr_out;
    for (size_t a = 0; a < z.labels.size(); ++a) {
      int64_t s = 0;
      for (size_t b = 0; b < out_labels.size(); ++b)
        if (out_labels[b] == z.labels[a]) s += out_strides[b];
      zdims.push_back(z.dims[a]);
      zstr_out.push_back(s);
    }
    T* o = out->data<T>();
    if (out_labels == z.labels) {
      std::memcpy(o, z.data, sizeof(T) * out->num_elements());
      return;
    }
    if (out_labels.size() == out_unique.size()) {  // a permutation: gather rows of z in output order
      std::vector<int64_t> gather_strides;
      for (int l : out_labels)
        for (size_t a = 0; a < z.labels.size(); ++a)
          if (z.labels[a] == l) gather_strides.push_back(z.strides[a]);
      StridedSum(z.data, out->shape().dims(), gather_strides, {}, {}, o);
      return;
    }
    std::fill(o, o + out->num_elements(), T(0));
    // Repeated output labels: walk z in its own order, writing onto the output's diagonals.
    const int64_t total = Product(zdims);
    std::vector<int64_t> idx(zdims.size(), 0);
    int64_t src = 0, dst = 0;
    for (int64_t e = 0; e < total; ++e) {
      o[dst] = z.data[src];
      for (int a = static_cast<int>(zdims.size()) - 1; a >= 0; --a) {
        src += z.strides[a];
        dst += zstr_out[a];
        if (++idx[a] < zdims[a]) break;
        src -= z.strides[a] * zdims[a];
        dst -= zstr_out[a] * zdims[a];
        idx[a] = 0;
      }
    }
  }

 private:
  einsum::Equation eq_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("Einsum").TypeConstraint<float>("T"), EinsumOp<float>);
TX_REGISTER_KERNEL(KernelDefBuilder("Einsum").TypeConstraint<double>("T"), EinsumOp<double>);
TX_REGISTER_KERNEL(KernelDefBuilder("Einsum").TypeConstraint<int32_t>("T"), EinsumOp<int32_t>);
TX_REGISTER_KERNEL(KernelDefBuilder("Einsum").TypeConstraint<int64_t>("T"), EinsumOp<int64_t>);

}  // namespace
}  // namespace cpu
}  // namespace tx
