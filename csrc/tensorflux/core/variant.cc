// DT_VARIANT's element operations (Note [Object element types] in object_types.h).
#include "tensorflux/core/variant.h"

#include <new>

#include "tensorflux/core/object_types.h"

namespace tx {
namespace {

void ConstructVariants(void* p, int64_t n) {
  Variant* v = static_cast<Variant*>(p);
  for (int64_t i = 0; i < n; ++i) new (v + i) Variant();
}

void DestroyVariants(void* p, int64_t n) {
  Variant* v = static_cast<Variant*>(p);
  for (int64_t i = 0; i < n; ++i) v[i].~Variant();
}

void CopyVariants(const void* src, void* dst, int64_t n) {
  const Variant* s = static_cast<const Variant*>(src);
  Variant* d = static_cast<Variant*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = s[i];
}

const ObjectElementOps kVariantOps = {sizeof(Variant), ConstructVariants, DestroyVariants, CopyVariants};

}  // namespace

TX_REGISTER_OBJECT_ELEMENT_TYPE(DT_VARIANT, kVariantOps);

}  // namespace tx
