// Data movement shared by the array kernels: every transform is described per output dimension
// by a table of input element offsets (Note [Axis tables]), and copies are templated on the
// element SIZE only, so one instantiation serves float, int32, uint32 (4 bytes), bool, uint8
// (1 byte), and so on.
#pragma once

#include <cstdint>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// Note [Axis tables]
// Output element (i0, ..., ik) is input element tables[0][i0] + ... + tables[k][ik] (an offset
// in elements), or the pad value when any of those entries is -1. Transpose, Slice,
// StridedSlice, Tile, BroadcastTo, ReverseV2, Pad and MirrorPad only differ in their tables;
// the copy coalesces trailing dimensions into runs and uses memcpy where a run is contiguous.
// Object elements (strings) are never memcpy'd: the same transform runs on their int64 indices,
// and the elements are then copied one by one (Note [Object element types] in core/object_types.h).
using AxisTable = std::vector<int64_t>;

// Element strides (row-major) of `shape`.
std::vector<int64_t> RowMajorStrides(const TensorShape& shape);

// Fills `out` (allocated, same dtype as `in`) from `in` as Note [Axis tables] says; `pad` points
// to one element used for -1 entries (may be null when there are none; for object element types
// null means a default-constructed element).
void AxisTableCopy(const Tensor& in, Tensor* out, std::vector<AxisTable> tables, const void* pad, ThreadPool* pool);

// out = in with dimensions permuted (out dim d is in dim perm[d]); uses a blocked kernel for
// (batched) 2-D transposes and a plain copy when the permutation keeps the memory order.
void TransposeCopy(const Tensor& in, const std::vector<int>& perm, Tensor* out, ThreadPool* pool);

// Copies `rows` rows of `row_bytes[i]` bytes from each of `srcs` into `dst`, interleaved
// (concatenation along an axis); SplitRows is the inverse (src is the concatenation). Elements
// of dtype `dt` are copied with CopyElements.
void ConcatRows(DataType dt, const std::vector<const char*>& srcs, const std::vector<int64_t>& row_bytes, int64_t rows,
                char* dst, ThreadPool* pool);
void SplitRows(DataType dt, const char* src, int64_t rows, const std::vector<char*>& dsts,
               const std::vector<int64_t>& row_bytes, ThreadPool* pool);

// The pad of "zero" elements for `dt`: zero bytes for plain types, null (a default element, the
// empty string) for object element types.
const void* ZeroPad(DataType dt);

// Allocates output `i` of `shape` with an overflow-checked size; InvalidArgument or
// ResourceExhausted instead of crashing on huge requests.
Status AllocateChecked(OpKernelContext* ctx, int i, const std::vector<int64_t>& dims, Tensor** out);

}  // namespace cpu
}  // namespace tx
