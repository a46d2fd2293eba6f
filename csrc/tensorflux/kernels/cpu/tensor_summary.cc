#include "tensorflux/kernels/cpu/tensor_summary.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tensorflux/core/tstring.h"

namespace tx {
namespace cpu {
namespace {

// The shortest of %.{short}g and %.{long}g that reads back as `v` (TensorFlow's FloatToBuffer).
template <typename T>
std::string ShortestFloat(T v, int short_digits, int long_digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", short_digits, static_cast<double>(v));
  const double back = std::strtod(buf, nullptr);
  if (static_cast<T>(back) != v && v == v) std::snprintf(buf, sizeof buf, "%.*g", long_digits, static_cast<double>(v));
  return buf;
}

float HalfBits(uint16_t h, bool bfloat) {
  if (bfloat) {
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  int exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF, bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000 | (mant << 13);
  } else if (exp != 0) {
    bits = sign | (static_cast<uint32_t>(exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    exp = -14;
    while (!(mant & 0x400)) mant <<= 1, --exp;
    bits = sign | (static_cast<uint32_t>(exp + 127) << 23) | ((mant & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// C escapes of `s` (\n, \", \\, \ooo for other non-printables), as absl::CEscape.
std::string CEscape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c >= 0x7F) {
          char buf[5];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string Element(const Tensor& t, int64_t i, bool print_v2) {
  switch (t.dtype()) {
    case DT_FLOAT: return ShortestFloat(t.data<float>()[i], 6, 9);
    case DT_DOUBLE: return ShortestFloat(t.data<double>()[i], 15, 17);
    case DT_HALF: return ShortestFloat(HalfBits(t.data<uint16_t>()[i], false), 6, 9);
    case DT_BFLOAT16: return ShortestFloat(HalfBits(t.data<uint16_t>()[i], true), 6, 9);
    case DT_INT8: return std::to_string(t.data<int8_t>()[i]);
    case DT_INT16: return std::to_string(t.data<int16_t>()[i]);
    case DT_INT32: return std::to_string(t.data<int32_t>()[i]);
    case DT_INT64: return std::to_string(t.data<int64_t>()[i]);
    case DT_UINT8: return std::to_string(t.data<uint8_t>()[i]);
    case DT_UINT16: return std::to_string(t.data<uint16_t>()[i]);
    case DT_UINT32: return std::to_string(t.data<uint32_t>()[i]);
    case DT_UINT64: return std::to_string(t.data<uint64_t>()[i]);
    case DT_BOOL: return t.data<uint8_t>()[i] ? "1" : "0";
    case DT_STRING: {
      const std::string s = CEscape(t.data<TString>()[i].view());
      return print_v2 ? "\"" + s + "\"" : s;
    }
    default: return "?";
  }
}

// TensorFlow's PrintOneDim: the classic layout, up to `limit` elements.
void PrintOneDim(const Tensor& t, int dim, int64_t limit, int64_t* index, std::string* out) {
  if (*index >= limit) return;
  const int64_t count = t.dim(dim);
  if (dim == t.rank() - 1) {
    for (int64_t i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) *out += "...";
        return;
      }
      if (i > 0) *out += " ";
      *out += Element(t, (*index)++, false);
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    bool opened = false;
    if (*index < limit) {
      *out += "[";
      opened = true;
    }
    PrintOneDim(t, dim + 1, limit, index, out);
    if (*index < limit || opened) *out += "]";
  }
}

void DimSpacing(int dim, int rank, std::string* out) {
  if (dim == rank - 1) {
    *out += " ";
    return;
  }
  out->append(static_cast<size_t>(rank - dim - 1), '\n');
  out->append(static_cast<size_t>(dim + 1), ' ');
}

// TensorFlow's PrintOneDimV2: the print_v2 layout, `ends` entries at each end of a dimension.
void PrintOneDimV2(const Tensor& t, int dim, int64_t ends, int64_t base, std::string* out) {
  const int rank = t.rank();
  if (dim == rank) {
    *out += Element(t, base, true);
    return;
  }
  *out += "[";
  const int64_t count = t.dim(dim);
  const int64_t start_of_end = std::max(ends, count - ends);
  int64_t stride = 1;
  for (int d = dim + 1; d < rank; ++d) stride *= t.dim(d);
  for (int64_t i = 0; i < ends && i < count; ++i) {
    if (i > 0) DimSpacing(dim, rank, out);
    PrintOneDimV2(t, dim + 1, ends, base + stride * i, out);
  }
  if (count > 2 * ends) {
    DimSpacing(dim, rank, out);
    *out += "...";
  }
  for (int64_t i = start_of_end; i < count; ++i) {
    DimSpacing(dim, rank, out);
    PrintOneDimV2(t, dim + 1, ends, base + stride * i, out);
  }
  *out += "]";
}

}  // namespace

std::string SummarizeValue(const Tensor& t, int64_t max_entries, bool print_v2) {
  const int64_t n = t.num_elements();
  if (max_entries < 0) max_entries = n;
  const int64_t limit = std::min(max_entries, n);
  if (limit > 0 && !t.initialized()) return "uninitialized Tensor of " + std::to_string(n) + " elements";
  std::string out;
  if (t.rank() == 0) {
    if (limit > 0) out = Element(t, 0, print_v2);
    if (n > limit) out += "...";
    return out;
  }
  if (print_v2) {
    PrintOneDimV2(t, 0, limit, 0, &out);
  } else {
    int64_t index = 0;
    PrintOneDim(t, 0, limit, &index, &out);
    if (n > limit) out += "...";
  }
  return out;
}

}  // namespace cpu
}  // namespace tx
