// Canonical bool tensors: every DT_BOOL byte the engine computes with is 0 or 1.
#pragma once

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"

namespace tx {

// Note [Canonical bool]
// A DT_BOOL element is one byte that is 0 (false) or 1 (true); kernels rely on it (LogicalNot
// flips the low bit, Equal compares bytes, Where counts by value). Callers can hand the engine
// other bytes: a NumPy view of uint8 as bool, TX_NewTensor over arbitrary memory, a
// TX_AllocateTensor buffer written by hand, a safetensors file or a TensorProto. The engine
// normalises (nonzero -> 1, as C and NumPy convert to bool) rather than rejecting: a NumPy
// `np.uint8(2).view(bool)` is True, so rejecting would refuse values NumPy itself accepts. It does
// so where it first reads a caller's buffer: session feeds, eager tensor handles, tensor attrs
// (Const values) and checkpoint saves read a non-canonical tensor through a canonical copy (the
// caller's memory is never written), and the decoders (TensorProto, safetensors) normalise the
// bytes they decode into engine memory. The scan costs one pass over bool inputs only. Writing
// into a buffer after handing it to the engine is undefined behaviour (c_api.h), for any dtype.

// True when `t` is not DT_BOOL or every byte of it is 0 or 1.
bool IsCanonicalBool(const Tensor& t);

// `in` itself when IsCanonicalBool(in); otherwise a new tensor whose bytes are 0/1 (nonzero -> 1).
// ResourceExhausted when the copy cannot be allocated. See Note [Canonical bool].
Status CanonicalBool(const Tensor& in, Tensor* out);

// What the engine reads where it first takes a caller's tensor (the sites Note [Canonical bool]
// lists): CanonicalBool for DT_BOOL; for DT_STRING, ValidateStringTensor, and a copy owning its
// bytes when an element views caller bytes (OwnedStringTensor).
Status AdoptCallerTensor(const Tensor& in, Tensor* out);

// Rewrites the nonzero bytes of a DT_BOOL tensor to 1 in place; requires that the engine owns the
// buffer (decoders); does nothing for other dtypes. See Note [Canonical bool].
void CanonicalizeBoolInPlace(const Tensor& t);

}  // namespace tx
