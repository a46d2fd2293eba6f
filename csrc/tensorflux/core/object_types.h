// Object element types: tensor elements that are C++ objects (DT_STRING's TString, DT_VARIANT's
// Variant) rather than plain bytes. See Note [Object element types].
#pragma once

#include <cstddef>
#include <cstdint>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"

namespace tx {

// Note [Object element types]
// A plain-bytes dtype (float, int32, ...) can be allocated uninitialized, copied with memcpy
// and freed with the memory. An object element type cannot: its elements own memory of their
// own (a long string's heap block), so each must be constructed before use, copied by its copy
// operation and destroyed before its memory is freed. Each object type's file registers one
// ObjectElementOps for its dtype (TX_REGISTER_OBJECT_ELEMENT_TYPE); the engine asks
// ObjectOpsFor(dtype) and never needs to know the type itself:
//  - DataTypeSize is the element size and IsSupportedStorageType is true once registered;
//  - Tensor::Allocate returns constructed elements in a Buffer (AllocateObjectBuffer) whose
//    deallocator destroys them when its last reference goes. Being a deallocator-owned buffer,
//    it is never owned() in Buffer's sense, so no kernel reuses it in place as raw bytes (Note
//    [Buffer forwarding]); OpKernelContext::forward_input_or_allocate_output also checks the dtype;
//  - a Buffer wrapping caller memory (TX_NewTensor) never destroys elements: the caller's
//    deallocator does (c_api.h states the rule);
//  - data-movement kernels copy elements with CopyElements / GatherElements (never memcpy), and
//    a tensor's independent copy is DeepCopyTensor;
//  - the TensorProto codec and the language bindings convert elements one by one.

// How to construct, destroy and copy `n` consecutive elements of an object type. `copy`
// assigns into already-constructed destination elements (src and dst do not overlap).
struct ObjectElementOps {
  size_t element_size;
  void (*construct)(void* p, int64_t n);
  void (*destroy)(void* p, int64_t n);
  void (*copy)(const void* src, void* dst, int64_t n);
};

// The registered operations of `dt`, or nullptr for plain-bytes (and unsupported) types.
const ObjectElementOps* ObjectOpsFor(DataType dt);

// Registers `ops` (static storage) for `dt`; returns true. Called once per type at static
// initialization through TX_REGISTER_OBJECT_ELEMENT_TYPE.
bool RegisterObjectElementOps(DataType dt, const ObjectElementOps* ops);

// Copies `n` elements of `dt` from `src` to `dst` (constructed elements for object types): a
// memcpy for plain-bytes types, ObjectElementOps::copy for object types.
void CopyElements(DataType dt, const void* src, void* dst, int64_t n);

// Writes element src[index[i]] to dst[i] for i < n, or `*pad` where index[i] < 0 (`pad` points
// to one element of `dt`; a default-constructed element when null). Every index must be valid.
void GatherElements(DataType dt, const void* src, const int64_t* index, int64_t n, void* dst, const void* pad);

// A buffer of `n` default-constructed elements of object type `dtype`, destroyed with the buffer;
// nullptr if out of memory or `dtype` is not an object element type.
Buffer* AllocateObjectBuffer(DataType dtype, int64_t n);

// A new tensor with `src`'s dtype, shape and values in a buffer of its own (object elements
// copied one by one); ResourceExhausted on failure.
Status DeepCopyTensor(const Tensor& src, Tensor* out);

}  // namespace tx

#define TX_OBJECT_TYPES_CONCAT_INNER(a, b) a##b
#define TX_OBJECT_TYPES_CONCAT(a, b) TX_OBJECT_TYPES_CONCAT_INNER(a, b)
// TX_REGISTER_OBJECT_ELEMENT_TYPE(DT_STRING, kTStringOps): registers an ObjectElementOps.
#define TX_REGISTER_OBJECT_ELEMENT_TYPE(dt, ops)                                      \
  static const bool TX_OBJECT_TYPES_CONCAT(tx_object_type_registered_, __COUNTER__) = \
      ::tx::RegisterObjectElementOps(dt, &(ops))
