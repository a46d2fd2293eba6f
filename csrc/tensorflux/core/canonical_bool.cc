#include "tensorflux/core/canonical_bool.h"

#include "tensorflux/core/tstring.h"

namespace tx {

bool IsCanonicalBool(const Tensor& t) {
  if (t.dtype() != DT_BOOL || t.raw_data() == nullptr) return true;
  const auto* p = static_cast<const unsigned char*>(t.raw_data());
  const size_t n = t.byte_size();
  unsigned char high = 0;
  for (size_t i = 0; i < n; ++i) high |= static_cast<unsigned char>(p[i] & 0xFE);
  return high == 0;
}

Status CanonicalBool(const Tensor& in, Tensor* out) {
  if (IsCanonicalBool(in)) {
    *out = in;
    return Status::OK();
  }
  Tensor copy;
  TX_RETURN_IF_ERROR(Tensor::Allocate(DT_BOOL, in.shape(), &copy));
  const auto* src = static_cast<const unsigned char*>(in.raw_data());
  auto* dst = static_cast<unsigned char*>(copy.raw_data());
  const size_t n = in.byte_size();
  for (size_t i = 0; i < n; ++i) dst[i] = src[i] != 0 ? 1 : 0;
  *out = std::move(copy);
  return Status::OK();
}

Status AdoptCallerTensor(const Tensor& in, Tensor* out) {
  if (in.dtype() == DT_STRING) return OwnedStringTensor(in, out);
  return CanonicalBool(in, out);
}

void CanonicalizeBoolInPlace(const Tensor& t) {
  if (t.dtype() != DT_BOOL || t.raw_data() == nullptr) return;
  auto* p = static_cast<unsigned char*>(t.raw_data());
  const size_t n = t.byte_size();
  for (size_t i = 0; i < n; ++i) p[i] = p[i] != 0 ? 1 : 0;
}

}  // namespace tx
