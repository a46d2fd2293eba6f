#include "tensorflux/ops/array_util.h"

#include <algorithm>

namespace tx {
namespace array_util {

Status ReadInts(const Tensor& t, const char* what, std::vector<int64_t>* out) {
  const int64_t n = t.num_elements();
  if (n > 0 && (!t.initialized() || t.buffer()->size() < t.byte_size())) return InvalidArgument(what, " holds no data");
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    switch (t.dtype()) {
      case DT_INT8: (*out)[i] = t.data<int8_t>()[i]; break;
      case DT_INT16: (*out)[i] = t.data<int16_t>()[i]; break;
      case DT_INT32: (*out)[i] = t.data<int32_t>()[i]; break;
      case DT_INT64: (*out)[i] = t.data<int64_t>()[i]; break;
      default: return InvalidArgument(what, " must be an integer tensor, got ", DataTypeString(t.dtype()));
    }
  }
  return Status::OK();
}

Status ReadScalarInt(const Tensor& t, const char* what, int64_t* out) {
  if (t.num_elements() != 1 || t.rank() > 1)
    return InvalidArgument(what, " must be a scalar, got shape ", t.shape().ToString());
  std::vector<int64_t> v;
  TX_RETURN_IF_ERROR(ReadInts(t, what, &v));
  *out = v[0];
  return Status::OK();
}

Status CanonicalAxis(int64_t axis, int rank, const char* what, int* out) {
  if (axis < -static_cast<int64_t>(rank) || axis >= rank)
    return InvalidArgument(what, " ", axis, " is out of range: expected a value in [", -rank, ", ", rank,
                           ") for a tensor of rank ", rank);
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

Status BitcastShape(const PartialShape& input, DataType from, DataType to, PartialShape* out) {
  const int64_t in_size = static_cast<int64_t>(DataTypeSize(from));
  const int64_t out_size = static_cast<int64_t>(DataTypeSize(to));
  if (in_size == 0 || out_size == 0)
    return InvalidArgument("Cannot bitcast types ", DataTypeString(from), " to ", DataTypeString(to),
                           " because one of the type sizes is zero.");
  if (!input.known_rank() || in_size == out_size) {
    *out = input;
    return Status::OK();
  }
  std::vector<int64_t> dims = input.dims();
  if (in_size > out_size) {
    dims.push_back(in_size / out_size);
  } else {
    const int64_t ratio = out_size / in_size;
    if (dims.empty() || (dims.back() >= 0 && dims.back() != ratio))
      return InvalidArgument("Cannot bitcast from ", DataTypeString(from), " to ", DataTypeString(to), ": shape ",
                             input.ToString(), " must end in a dimension of ", ratio, " (", DataTypeString(to), " is ",
                             ratio, " times as wide)");
    dims.pop_back();
  }
  *out = PartialShape(std::move(dims));
  return Status::OK();
}

Status CheckedNumElements(const std::vector<int64_t>& dims, int64_t* out) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("dimension sizes must be non-negative, got ", d);
    if (d == 0) {
      *out = 0;
      return Status::OK();
    }
    if (__builtin_mul_overflow(n, d, &n)) overflow = true;
  }
  if (overflow) return InvalidArgument("the output would have more elements than int64 can count");
  *out = n;
  return Status::OK();
}

namespace {

uint64_t AbsStride(int64_t s) { return s < 0 ? static_cast<uint64_t>(-(s + 1)) + 1 : static_cast<uint64_t>(s); }

// Resolves one ranged (non-shrunk) dimension of known size n.
void ResolveRange(int64_t n, int64_t b, int64_t e, int64_t s, bool bm, bool em, int64_t* begin, int64_t* len) {
  auto norm = [n](int64_t x) { return x < 0 ? x + n : x; };
  if (s > 0) {
    b = bm ? 0 : std::clamp<int64_t>(norm(b), 0, n);
    e = em ? n : std::clamp<int64_t>(norm(e), 0, n);
    *len = e > b ? static_cast<int64_t>(static_cast<uint64_t>(e - b - 1) / AbsStride(s) + 1) : 0;
  } else {
    b = bm ? n - 1 : std::clamp<int64_t>(norm(b), -1, n - 1);
    e = em ? -1 : std::clamp<int64_t>(norm(e), -1, n - 1);
    *len = b > e ? static_cast<int64_t>(static_cast<uint64_t>(b - e - 1) / AbsStride(s) + 1) : 0;
  }
  *begin = b;
}

}  // namespace

Status ResolveStridedSlice(const PartialShape& input, const std::vector<int64_t>& begin,
                           const std::vector<int64_t>& end, const std::vector<int64_t>& strides, int64_t begin_mask,
                           int64_t end_mask, int64_t ellipsis_mask, int64_t new_axis_mask, int64_t shrink_axis_mask,
                           StridedSliceInfo* out) {
  const size_t L = begin.size();
  if (end.size() != L || strides.size() != L)
    return InvalidArgument("begin, end and strides must have the same length, got ", L, ", ", end.size(), " and ",
                           strides.size());
  if (L > 64) return InvalidArgument("a StridedSlice spec may have at most 64 entries, got ", L);
  if (!input.known_rank()) return InvalidArgument("StridedSlice needs the input's rank");
  const int rank = input.rank();
  auto bit = [](int64_t mask, size_t i) { return ((static_cast<uint64_t>(mask) >> i) & 1) != 0; };
  int ellipses = 0, real = 0;
  for (size_t i = 0; i < L; ++i) {
    if (bit(ellipsis_mask, i))
      ++ellipses;
    else if (!bit(new_axis_mask, i))
      ++real;
  }
  if (ellipses > 1) return InvalidArgument("Multiple ellipses in a slice spec are not allowed");
  if (real > rank) return InvalidArgument("the slice spec indexes ", real, " dimensions but the input has rank ", rank);
  *out = StridedSliceInfo();
  int d = 0;
  auto full = [&]() {
    const int64_t n = input.dim(d++);
    out->begin.push_back(0);
    out->stride.push_back(1);
    out->length.push_back(n);
    out->final_dims.push_back(n);
  };
  for (size_t i = 0; i < L; ++i) {
    if (strides[i] == 0) return InvalidArgument("strides[", i, "] must be non-zero");
    if (bit(ellipsis_mask, i)) {
      for (int k = 0; k < rank - real; ++k) full();
      continue;
    }
    if (bit(new_axis_mask, i)) {
      out->final_dims.push_back(1);
      continue;
    }
    const int64_t n = input.dim(d);
    const int64_t s = strides[i];
    if (bit(shrink_axis_mask, i)) {
      if (s < 0) return InvalidArgument("strides[", i, "] must be positive for an index (shrunk) entry, got ", s);
      int64_t b = begin[i];
      if (n >= 0) {
        if (b < -n || b >= n)
          return InvalidArgument("slice index ", b, " of dimension ", d, " out of bounds (size ", n, ")");
        if (b < 0) b += n;
      } else if (b < 0) {
        b = -1;  // resolved at run time
      }
      out->begin.push_back(b);
      out->stride.push_back(1);
      out->length.push_back(1);
    } else if (n < 0) {
      out->begin.push_back(0);
      out->stride.push_back(s);
      out->length.push_back(-1);
      out->final_dims.push_back(-1);
    } else {
      int64_t b, len;
      ResolveRange(n, begin[i], end[i], s, bit(begin_mask, i), bit(end_mask, i), &b, &len);
      out->begin.push_back(b);
      out->stride.push_back(s);
      out->length.push_back(len);
      out->final_dims.push_back(len);
    }
    ++d;
  }
  while (d < rank) full();
  bool identity = true;
  for (int k = 0; k < rank; ++k)
    if (out->begin[k] != 0 || out->length[k] != input.dim(k) || input.dim(k) < 0 ||
        (out->stride[k] != 1 && input.dim(k) > 1))
      identity = false;
  out->identity = identity;
  return Status::OK();
}

Status ResolveSlice(const PartialShape& input, const std::vector<int64_t>& begin, const std::vector<int64_t>& size,
                    std::vector<int64_t>* out_dims) {
  const int rank = input.rank();
  if (static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank)
    return InvalidArgument("Expected begin and size to have ", rank, " entries (the input's rank), got ", begin.size(),
                           " and ", size.size());
  out_dims->assign(rank, -1);
  for (int d = 0; d < rank; ++d) {
    const int64_t n = input.dim(d), b = begin[d], s = size[d];
    if (b < 0 || (n >= 0 && b > n)) return InvalidArgument("Expected begin[", d, "] in [0, ", n, "], but got ", b);
    if (s < -1) return InvalidArgument("Expected size[", d, "] >= -1, but got ", s);
    if (n < 0) {
      (*out_dims)[d] = s;
      continue;
    }
    if (s == -1) {
      (*out_dims)[d] = n - b;
    } else {
      if (s > n - b) return InvalidArgument("Expected size[", d, "] in [0, ", n - b, "], but got ", s);
      (*out_dims)[d] = s;
    }
  }
  return Status::OK();
}

Status ResolvePad(const PartialShape& input, const std::vector<int64_t>& paddings, int mode,
                  std::vector<int64_t>* out_dims) {
  const int rank = input.rank();
  if (static_cast<int>(paddings.size()) != 2 * rank)
    return InvalidArgument("paddings must have shape [", rank, ", 2] for an input of rank ", rank, ", got ",
                           paddings.size(), " values");
  out_dims->assign(rank, -1);
  for (int d = 0; d < rank; ++d) {
    const int64_t lo = paddings[2 * d], hi = paddings[2 * d + 1], n = input.dim(d);
    if (lo < 0 || hi < 0) return InvalidArgument("Paddings must be non-negative: ", lo, " ", hi, " in dimension ", d);
    if (n < 0) continue;
    if (mode == 1 && (lo >= n || hi >= n))
      return InvalidArgument("paddings must be less than the dimension size in REFLECT mode: ", lo, ", ", hi,
                             " not less than ", n, " in dimension ", d);
    if (mode == 2 && (lo > n || hi > n))
      return InvalidArgument("paddings must be no greater than the dimension size in SYMMETRIC mode: ", lo, ", ", hi,
                             " greater than ", n, " in dimension ", d);
    int64_t total;
    if (__builtin_add_overflow(n, lo, &total) || __builtin_add_overflow(total, hi, &total))
      return InvalidArgument("padded dimension ", d, " is too large");
    (*out_dims)[d] = total;
  }
  return Status::OK();
}

Status ResolveBroadcastTo(const PartialShape& input, const std::vector<int64_t>& target) {
  for (int64_t t : target)
    if (t < -1) return InvalidArgument("BroadcastTo target shape has a negative dimension ", t);
  if (!input.known_rank()) return Status::OK();
  const int r = input.rank(), tr = static_cast<int>(target.size());
  auto mismatch = [&]() {
    return InvalidArgument("Unable to broadcast tensor of shape ", input.ToString(), " to tensor of shape ",
                           PartialShape(target).ToString());
  };
  if (r > tr) return mismatch();
  for (int k = 0; k < r; ++k) {
    const int64_t a = input.dim(k), t = target[tr - r + k];
    if (a < 0 || t < 0 || a == 1 || a == t) continue;
    return mismatch();
  }
  return Status::OK();
}

Status ResolveSplitSizes(std::vector<int64_t>* sizes, int64_t dim) {
  int unknown = -1;
  int64_t sum = 0;
  for (size_t i = 0; i < sizes->size(); ++i) {
    const int64_t s = (*sizes)[i];
    if (s == -1) {
      if (unknown != -1)
        return InvalidArgument("size_splits may contain at most one -1, found at ", unknown, " and ", i);
      unknown = static_cast<int>(i);
    } else if (s < 0) {
      return InvalidArgument("size_splits[", i, "] must be >= 0 (or -1), got ", s);
    } else if (__builtin_add_overflow(sum, s, &sum)) {
      return InvalidArgument("size_splits sum overflows");
    }
  }
  if (dim < 0) return Status::OK();
  if (unknown == -1 && sum != dim)
    return InvalidArgument("size_splits must sum to the size of the split dimension (", dim, "), got ", sum);
  if (unknown != -1) {
    if (sum > dim)
      return InvalidArgument("size_splits (without the -1) sum to ", sum, ", more than the split dimension's size ",
                             dim);
    (*sizes)[unknown] = dim - sum;
  }
  return Status::OK();
}

}  // namespace array_util
}  // namespace tx
