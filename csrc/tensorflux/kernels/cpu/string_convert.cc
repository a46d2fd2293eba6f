// CPU kernels for StringToNumber and AsString.
#include <cerrno>
#include <cinttypes>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "tensorflux/kernels/cpu/string_util.h"

namespace tx {
namespace cpu {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Parses all of `s` (surrounding whitespace allowed) as T the way TensorFlow's
// SafeStringToNumeric does: decimal integers with an optional sign, checked for overflow; floats
// in C's strtod syntax (inf, nan, hex), out-of-range magnitudes becoming inf or 0.
template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  s = Trimmed(s);
  if (s.empty() || s.size() > 4096) return false;
  char buf[4097];
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  if constexpr (std::is_floating_point_v<T>) {
    *out = std::is_same_v<T, float> ? std::strtof(buf, &end) : std::strtod(buf, &end);
    return end == buf + s.size();
  } else {
    const bool negative = buf[0] == '-';
    if (std::is_unsigned_v<T> && negative) return false;
    const char* digits = buf + (buf[0] == '-' || buf[0] == '+' ? 1 : 0);
    if (*digits < '0' || *digits > '9') return false;  // strtoll would accept more whitespace
    errno = 0;
    if constexpr (std::is_signed_v<T>) {
      const long long v = std::strtoll(buf, &end, 10);
      if (errno == ERANGE || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
      *out = static_cast<T>(v);
    } else {
      const unsigned long long v = std::strtoull(buf, &end, 10);
      if (errno == ERANGE || v > std::numeric_limits<T>::max()) return false;
      *out = static_cast<T>(v);
    }
    return end == buf + s.size();
  }
}

template <typename T>
class StringToNumberOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    MapStrings<T>(ctx, [](const TString& s, T* out) {
      if (ParseNumber<T>(s.view(), out)) return Status::OK();
      return InvalidArgument("StringToNumberOp could not correctly convert string: ", s.view());
    });
  }
};

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  int exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000 | (mant << 13);
  } else if (exp != 0) {
    bits = sign | (static_cast<uint32_t>(exp - 15 + 127) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalize
    exp = -14;
    while (!(mant & 0x400)) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (static_cast<uint32_t>(exp + 127) << 23) | ((mant & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// printf into a std::string; false when the C library refuses (a width too large to format).
template <typename... Args>
bool Format(std::string* out, const char* fmt, Args... args) {
  const int n = std::snprintf(nullptr, 0, fmt, args...);
  if (n < 0) return false;
  out->resize(static_cast<size_t>(n) + 1);
  std::snprintf(out->data(), out->size(), fmt, args...);
  out->resize(static_cast<size_t>(n));
  return true;
}

// Note [AsString formats]
// As in TensorFlow, the attrs build one printf conversion: '%', the fill flag (' ', '+', '-',
// '0' or '#'), the width, '.precision', then 'f', 'e' (scientific) or 'g' (shortest) for floats
// (half and bfloat16 print as float), 'd'/'u' for integers and 's' for strings (no precision);
// complex values print as "(re,im)" with that conversion twice, and bools as true/false.
class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t precision = -1, width = -1;
    bool scientific = false, shortest = false;
    std::string fill;
    c->SetStatus(c->GetAttr("T", &dtype_));
    c->SetStatus(c->GetAttr("precision", &precision));
    c->SetStatus(c->GetAttr("scientific", &scientific));
    c->SetStatus(c->GetAttr("shortest", &shortest));
    c->SetStatus(c->GetAttr("width", &width));
    c->SetStatus(c->GetAttr("fill", &fill));
    if (!c->status().ok()) return;
    const bool floating = dtype_ == DT_FLOAT || dtype_ == DT_DOUBLE || dtype_ == DT_HALF || dtype_ == DT_BFLOAT16 ||
        dtype_ == DT_COMPLEX64 || dtype_ == DT_COMPLEX128;
    const std::string type = DataTypeString(dtype_);
    Status bad;
    if (scientific && shortest)
      bad = InvalidArgument("Cannot select both scientific and shortest notation");
    else if (fill.size() > 1)
      bad = InvalidArgument("Fill string must be one or fewer characters");
    else if (!floating && (scientific || shortest))
      bad = InvalidArgument("scientific and shortest format not supported for datatype ", type);
    else if (!floating && dtype_ != DT_STRING && precision > -1)
      bad = InvalidArgument("precision not supported for datatype ", type);
    else if (dtype_ == DT_VARIANT)
      bad = InvalidArgument("AsString of variant tensors is not supported");
    if (!bad.ok()) {
      c->SetStatus(bad);
      return;
    }
    format_ = "%";
    if (!fill.empty()) {
      if (std::string_view(" +-0#").find(fill[0]) == std::string_view::npos) {
        c->SetStatus(InvalidArgument("Fill argument not supported: \"", fill, "\""));
        return;
      }
      format_ += fill;
    }
    if (width > -1) format_ += std::to_string(width);
    if (precision > -1 && floating) format_ += "." + std::to_string(precision);
    switch (dtype_) {
      case DT_INT64: format_ += PRId64; break;
      case DT_UINT64: format_ += PRIu64; break;
      case DT_UINT8:
      case DT_UINT16:
      case DT_UINT32: format_ += "u"; break;
      case DT_INT8:
      case DT_INT16:
      case DT_INT32: format_ += "d"; break;
      case DT_STRING: format_ += "s"; break;
      default: format_ += shortest ? "g" : scientific ? "e" : "f"; break;
    }
    if (dtype_ == DT_COMPLEX64 || dtype_ == DT_COMPLEX128) format_ = "(" + format_ + "," + format_ + ")";
  }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, dtype_));
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, in.shape(), &out));
    TString* o = out->data<TString>();
    const char* f = format_.c_str();
    ForEachElement(ctx, in.num_elements(), 256, [&](int64_t i) {
      std::string s;
      bool ok = true;
      switch (dtype_) {
        case DT_FLOAT: ok = Format(&s, f, static_cast<double>(in.data<float>()[i])); break;
        case DT_DOUBLE: ok = Format(&s, f, in.data<double>()[i]); break;
        case DT_HALF: ok = Format(&s, f, static_cast<double>(HalfToFloat(in.data<uint16_t>()[i]))); break;
        case DT_BFLOAT16: ok = Format(&s, f, static_cast<double>(BFloat16ToFloat(in.data<uint16_t>()[i]))); break;
        case DT_COMPLEX64: {
          const std::complex<float> v = in.data<std::complex<float>>()[i];
          ok = Format(&s, f, static_cast<double>(v.real()), static_cast<double>(v.imag()));
          break;
        }
        case DT_COMPLEX128: {
          const std::complex<double> v = in.data<std::complex<double>>()[i];
          ok = Format(&s, f, v.real(), v.imag());
          break;
        }
        case DT_INT8: ok = Format(&s, f, static_cast<int>(in.data<int8_t>()[i])); break;
        case DT_INT16: ok = Format(&s, f, static_cast<int>(in.data<int16_t>()[i])); break;
        case DT_INT32: ok = Format(&s, f, in.data<int32_t>()[i]); break;
        case DT_INT64: ok = Format(&s, f, in.data<int64_t>()[i]); break;
        case DT_UINT8: ok = Format(&s, f, static_cast<unsigned>(in.data<uint8_t>()[i])); break;
        case DT_UINT16: ok = Format(&s, f, static_cast<unsigned>(in.data<uint16_t>()[i])); break;
        case DT_UINT32: ok = Format(&s, f, in.data<uint32_t>()[i]); break;
        case DT_UINT64: ok = Format(&s, f, in.data<uint64_t>()[i]); break;
        case DT_BOOL: s = in.data<uint8_t>()[i] ? "true" : "false"; break;
        case DT_STRING: {  // %s stops at a NUL: format the padding, then splice the bytes in
          const TString& v = in.data<TString>()[i];
          ok = Format(&s, f, "");
          const size_t pad = s.size() > v.size() ? s.size() - v.size() : 0;
          const bool left = format_.find('-') != std::string::npos;
          s.assign(pad, ' ');
          s.insert(left ? s.size() : 0, v.data(), v.size());
          break;
        }
        default: ok = false; break;
      }
      if (!ok) return InvalidArgument("AsString could not format element ", i, " with '", format_, "'");
      return AssignString(s, &o[i]);
    });
  }

 private:
  DataType dtype_ = DT_INVALID;
  std::string format_;
};

#define TX_REGISTER_STRING_TO_NUMBER(T) \
  TX_REGISTER_KERNEL(KernelDefBuilder("StringToNumber").TypeConstraint<T>("out_type"), StringToNumberOp<T>)
TX_REGISTER_STRING_TO_NUMBER(float);
TX_REGISTER_STRING_TO_NUMBER(double);
TX_REGISTER_STRING_TO_NUMBER(int32_t);
TX_REGISTER_STRING_TO_NUMBER(int64_t);
TX_REGISTER_STRING_TO_NUMBER(uint32_t);
TX_REGISTER_STRING_TO_NUMBER(uint64_t);
#undef TX_REGISTER_STRING_TO_NUMBER

struct RegisterAsString {
  RegisterAsString() {
    for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16,
                       DT_HALF, DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128, DT_BOOL, DT_STRING})
      KernelRegistry::Global()->Register(
          KernelDefBuilder("AsString").TypeConstraint("T", t).Build([](OpKernelConstruction* c) -> OpKernel* {
            return new AsStringOp(c);
          }));
  }
};
const RegisterAsString register_as_string;

}  // namespace
}  // namespace cpu
}  // namespace tx
