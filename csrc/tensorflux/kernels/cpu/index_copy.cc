#include "tensorflux/kernels/cpu/index_copy.h"

#include <algorithm>
#include <cstring>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace cpu {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// Dispatches `f.template operator()<E>()` on an unsigned type of `size` bytes.
template <typename F>
void BySize(size_t size, F&& f) {
  switch (size) {
    case 1: f(uint8_t{}); break;
    case 2: f(uint16_t{}); break;
    case 4: f(uint32_t{}); break;
    case 8: f(uint64_t{}); break;
    case 16: f(Bytes16{}); break;
    default: break;  // unreachable: only storage types of these sizes are allocated
  }
}

// The cartesian combination of two tables: entry (i, j) is a[i] + b[j], -1 if either is -1.
AxisTable Combine(const AxisTable& a, const AxisTable& b) {
  AxisTable out(a.size() * b.size());
  size_t k = 0;
  for (int64_t x : a)
    for (int64_t y : b) out[k++] = (x < 0 || y < 0) ? -1 : x + y;
  return out;
}

template <typename E>
void CopyRows(const E* in, E* out, const std::vector<AxisTable>& outer, const AxisTable& inner, E pad, int64_t rows,
              ThreadPool* pool) {
  const int64_t m = static_cast<int64_t>(inner.size());
  // Classify the inner table: [pads][contiguous run][pads], or a general gather.
  int64_t a = 0;
  while (a < m && inner[a] < 0) ++a;
  int64_t b = m;
  while (b > a && inner[b - 1] < 0) --b;
  bool run = true, has_pad = a > 0 || b < m;
  for (int64_t j = a; j < b && run; ++j) {
    if (inner[j] < 0) has_pad = true;
    if (inner[j] != inner[a] + (j - a)) run = false;
  }
  const int64_t run_start = a < b ? inner[a] : 0;
  const int nd = static_cast<int>(outer.size());
  ParallelItems(pool, rows, m, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> idx(nd, 0);
    int64_t rest = r0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t n = static_cast<int64_t>(outer[d].size());
      idx[d] = rest % n;
      rest /= n;
    }
    for (int64_t r = r0; r < r1; ++r) {
      E* o = out + r * m;
      int64_t base = 0;
      bool pad_row = false;
      for (int d = 0; d < nd; ++d) {
        const int64_t t = outer[d][idx[d]];
        if (t < 0) pad_row = true;
        base += t;
      }
      if (pad_row) {
        std::fill(o, o + m, pad);
      } else if (run) {
        std::fill(o, o + a, pad);
        if (b > a) std::memcpy(o + a, in + base + run_start, static_cast<size_t>(b - a) * sizeof(E));
        std::fill(o + b, o + m, pad);
      } else if (!has_pad) {
        const E* src = in + base;
        const int64_t* t = inner.data();
        for (int64_t j = 0; j < m; ++j) o[j] = src[t[j]];
      } else {
        const E* src = in + base;
        for (int64_t j = 0; j < m; ++j) o[j] = inner[j] < 0 ? pad : src[inner[j]];
      }
      for (int d = nd - 1; d >= 0; --d) {  // odometer step
        if (++idx[d] < static_cast<int64_t>(outer[d].size())) break;
        idx[d] = 0;
      }
    }
  });
}

// out[c, r] = in[r, c] for `batch` matrices of R x C, in cache-sized tiles.
template <typename E>
void Transpose2D(const E* in, E* out, int64_t batch, int64_t R, int64_t C, ThreadPool* pool) {
  constexpr int64_t B = sizeof(E) >= 16 ? 16 : sizeof(E) >= 8 ? 32 : 64;  // tile of at most 16 KiB
  const int64_t rt = (R + B - 1) / B, ct = (C + B - 1) / B;
  ParallelItems(pool, batch * rt, B * C, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bi = t / rt, i0 = (t % rt) * B, i1 = std::min(R, i0 + B);
      const E* src = in + bi * R * C;
      E* dst = out + bi * R * C;
      // Through an L1-resident tile, so both the reads and the writes are contiguous runs (a
      // direct strided write thrashes the cache when R is a power of two).
      E tile[B * B];
      const int64_t h = i1 - i0;
      for (int64_t j0 = 0; j0 < ct * B; j0 += B) {
        const int64_t j1 = std::min(C, j0 + B), w = j1 - j0;
        for (int64_t i = 0; i < h; ++i) {
          const E* row = src + (i0 + i) * C + j0;
          for (int64_t j = 0; j < w; ++j) tile[j * B + i] = row[j];
        }
        for (int64_t j = 0; j < w; ++j)
          std::memcpy(dst + (j0 + j) * R + i0, tile + j * B, static_cast<size_t>(h) * sizeof(E));
      }
    }
  });
}

// Deallocator of wrapped memory that stays the caller's.
void Keep(void*, size_t, void*) {}

// Runs `move(src_index, dst_index)` (a transform of int64 tensors shaped like `in` and `out`) on
// the flat indices of `in`, then copies the object elements accordingly (pad where index -1).
template <typename Move>
void MoveObjectsByIndex(const Tensor& in, Tensor* out, const void* pad, Move move) {
  std::vector<int64_t> src(static_cast<size_t>(in.num_elements())), dst(static_cast<size_t>(out->num_elements()));
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int64_t>(i);
  Tensor src_index(DT_INT64, in.shape(),
                   RefPtr<Buffer>::Adopt(Buffer::Wrap(src.data(), src.size() * 8, Keep, nullptr)));
  Tensor dst_index(DT_INT64, out->shape(),
                   RefPtr<Buffer>::Adopt(Buffer::Wrap(dst.data(), dst.size() * 8, Keep, nullptr)));
  move(src_index, &dst_index);
  GatherElements(out->dtype(), in.raw_data(), dst.data(), out->num_elements(), out->raw_data(), pad);
}

}  // namespace

const void* ZeroPad(DataType dt) {
  alignas(16) static const unsigned char kZeros[16] = {};
  return ObjectOpsFor(dt) != nullptr ? nullptr : kZeros;
}

std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> s(shape.rank(), 1);
  for (int d = shape.rank() - 2; d >= 0; --d) s[d] = s[d + 1] * shape.dim(d + 1);
  return s;
}

void AxisTableCopy(const Tensor& in, Tensor* out, std::vector<AxisTable> tables, const void* pad, ThreadPool* pool) {
  const int64_t n = out->num_elements();
  if (n == 0) return;
  if (ObjectOpsFor(out->dtype()) != nullptr) {
    const int64_t no_element = -1;
    MoveObjectsByIndex(in, out, pad, [&](const Tensor& src, Tensor* dst) {
      AxisTableCopy(src, dst, std::move(tables), &no_element, pool);
    });
    return;
  }
  const size_t esize = DataTypeSize(out->dtype());
  if (tables.empty()) {
    std::memcpy(out->raw_data(), in.raw_data(), esize);
    return;
  }
  // Coalesce trailing dimensions into longer rows (bounded table sizes).
  while (tables.size() >= 2) {
    const size_t last = tables.back().size(), prev = tables[tables.size() - 2].size();
    if (last >= 2048 || prev * last > (size_t{1} << 16)) break;
    AxisTable merged = Combine(tables[tables.size() - 2], tables.back());
    tables.pop_back();
    tables.back() = std::move(merged);
  }
  AxisTable inner = std::move(tables.back());
  tables.pop_back();
  const int64_t rows = n / static_cast<int64_t>(inner.size());
  BySize(esize, [&](auto tag) {
    using E = decltype(tag);
    E p{};
    if (pad != nullptr) std::memcpy(&p, pad, sizeof(E));
    CopyRows<E>(in.data<E>(), out->data<E>(), tables, inner, p, rows, pool);
  });
}

void TransposeCopy(const Tensor& in, const std::vector<int>& perm, Tensor* out, ThreadPool* pool) {
  const int64_t n = in.num_elements();
  if (n == 0) return;
  if (ObjectOpsFor(in.dtype()) != nullptr) {
    MoveObjectsByIndex(in, out, nullptr, [&](const Tensor& src, Tensor* dst) { TransposeCopy(src, perm, dst, pool); });
    return;
  }
  const size_t esize = DataTypeSize(in.dtype());
  // Drop size-1 dims, then merge input dims that stay adjacent and in order.
  std::vector<int> keep_of(in.rank(), -1);
  std::vector<int64_t> dims;
  for (int d = 0; d < in.rank(); ++d)
    if (in.dim(d) != 1) {
      keep_of[d] = static_cast<int>(dims.size());
      dims.push_back(in.dim(d));
    }
  std::vector<int> p;
  for (int q : perm)
    if (keep_of[q] >= 0) p.push_back(keep_of[q]);
  // Groups: maximal runs of p with consecutive values.
  std::vector<std::vector<int>> groups;
  for (size_t k = 0; k < p.size(); ++k) {
    if (k > 0 && p[k] == p[k - 1] + 1)
      groups.back().push_back(p[k]);
    else
      groups.push_back({p[k]});
  }
  // Order groups by their first input dim to get the merged input shape.
  std::vector<int> order(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) order[g] = static_cast<int>(g);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return groups[x][0] < groups[y][0]; });
  std::vector<int64_t> mdims(groups.size());
  std::vector<int> gpos(groups.size());  // merged input position of group g
  for (size_t k = 0; k < order.size(); ++k) {
    int64_t size = 1;
    for (int d : groups[order[k]]) size *= dims[d];
    mdims[k] = size;
    gpos[order[k]] = static_cast<int>(k);
  }
  std::vector<int> mperm(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) mperm[g] = gpos[g];
  const int r = static_cast<int>(mperm.size());
  if (r <= 1) {
    std::memcpy(out->raw_data(), in.raw_data(), static_cast<size_t>(n) * esize);
    return;
  }
  if (r == 2 || (r == 3 && mperm[0] == 0)) {
    const int64_t batch = r == 3 ? mdims[0] : 1;
    const int64_t R = mdims[r - 2], C = mdims[r - 1];
    BySize(esize, [&](auto tag) {
      using E = decltype(tag);
      Transpose2D<E>(in.data<E>(), out->data<E>(), batch, R, C, pool);
    });
    return;
  }
  const std::vector<int64_t> strides = RowMajorStrides(TensorShape(mdims));
  std::vector<AxisTable> tables(r);
  for (int d = 0; d < r; ++d) {
    tables[d].resize(static_cast<size_t>(mdims[mperm[d]]));
    for (size_t i = 0; i < tables[d].size(); ++i) tables[d][i] = static_cast<int64_t>(i) * strides[mperm[d]];
  }
  Tensor view = out->Reshaped(TensorShape(std::vector<int64_t>{n}));
  AxisTableCopy(in, &view, std::move(tables), nullptr, pool);
}

void ConcatRows(DataType dt, const std::vector<const char*>& srcs, const std::vector<int64_t>& row_bytes, int64_t rows,
                char* dst, ThreadPool* pool) {
  const int64_t esize = static_cast<int64_t>(DataTypeSize(dt));
  int64_t total = 0;
  for (int64_t b : row_bytes) total += b;
  ParallelItems(pool, rows, std::max<int64_t>(total / 8, 1), [&](int64_t r0, int64_t r1) {
    char* o = dst + r0 * total;
    for (int64_t r = r0; r < r1; ++r)
      for (size_t i = 0; i < srcs.size(); ++i) {
        if (row_bytes[i] > 0) CopyElements(dt, srcs[i] + r * row_bytes[i], o, row_bytes[i] / esize);
        o += row_bytes[i];
      }
  });
}

void SplitRows(DataType dt, const char* src, int64_t rows, const std::vector<char*>& dsts,
               const std::vector<int64_t>& row_bytes, ThreadPool* pool) {
  const int64_t esize = static_cast<int64_t>(DataTypeSize(dt));
  int64_t total = 0;
  for (int64_t b : row_bytes) total += b;
  ParallelItems(pool, rows, std::max<int64_t>(total / 8, 1), [&](int64_t r0, int64_t r1) {
    const char* s = src + r0 * total;
    for (int64_t r = r0; r < r1; ++r)
      for (size_t i = 0; i < dsts.size(); ++i) {
        if (row_bytes[i] > 0) CopyElements(dt, s, dsts[i] + r * row_bytes[i], row_bytes[i] / esize);
        s += row_bytes[i];
      }
  });
}

Status AllocateChecked(OpKernelContext* ctx, int i, const std::vector<int64_t>& dims, Tensor** out) {
  int64_t n;
  TX_RETURN_IF_ERROR(array_util::CheckedNumElements(dims, &n));
  return ctx->allocate_output(i, TensorShape(dims), out);
}

}  // namespace cpu
}  // namespace tx
