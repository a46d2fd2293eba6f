// TensorList: the value a TensorList op's DT_VARIANT scalar holds (TensorFlow's list_ops), and the
// helpers its kernels share (list_kernels.cc, list_tensor_kernels.cc).
//
// Note [TensorList in place]
// Copying a list copies its vector of element tensors (which share their buffers), so writing
// one element of an n-element list costs O(n) when the list must be copied. A loop that writes
// each step into a list would then cost O(n^2). So a kernel that returns a modified list
// (SetItem, PushBack, PopBack, Resize, ScatterIntoExistingList) takes the input list over when
// the kernel holds the only reference to its variant buffer: the executor moved the tensor in
// as its last reader (Note [Buffer forwarding]), and a While loop hands its loop variables to
// the body without keeping a copy (Note [Loop variables move into the body] in
// control_flow.cc). The list is then changed in place and the same buffer is the output, as
// TensorFlow does. Otherwise (the list is fetched, fed, or read by another node) the kernel
// writes a copy.
#pragma once

#include <string>
#include <vector>

#include "tensorflux/core/shape.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/core/variant.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

struct TensorList {
  static constexpr const char* kTypeName = "tensorflow::TensorList";

  std::vector<Tensor> tensors;  // an uninitialized Tensor is an element never set (read as zeros)
  PartialShape element_shape;  // unknown rank unless given
  DataType element_dtype = DT_INVALID;
  int max_num_elements = -1;  // -1: no limit

  // "TensorList<float, [?,3]>(5 elements)".
  std::string DebugString() const;
};

// The list input `i` holds; InvalidArgument naming the input unless it is a scalar variant
// holding a TensorList whose element dtype is `dtype` (DT_INVALID: any).
Status InputList(OpKernelContext* ctx, int i, DataType dtype, const TensorList** out);

// The list of input `in` as output `out`, to be modified: the input's own list when the kernel
// holds its only reference (Note [TensorList in place]), else a copy in a new buffer.
Status ForwardList(OpKernelContext* ctx, int in, int out, DataType dtype, TensorList** list);

// Makes output `out` a new scalar variant holding `list`.
Status OutputList(OpKernelContext* ctx, int out, TensorList list);

// The element shape a shape tensor describes: a scalar -1 is an unknown rank, a vector gives the
// dimensions with -1 for unknown ones. InvalidArgument otherwise.
Status ElementShapeFromTensor(const Tensor& t, PartialShape* out);

// `list`'s element shape merged with `requested` and, when that is not fully defined, with the
// shape of the first set element; InvalidArgument when they disagree.
Status ResolveElementShape(const TensorList& list, const PartialShape& requested, PartialShape* out);

// A tensor of `dtype` and `shape` filled with zeros (empty objects for object dtypes).
Status Zeros(DataType dtype, const TensorShape& shape, Tensor* out);

// Element `i` of `list`: the tensor set there, or zeros of `shape` (which must be fully defined,
// else InvalidArgument saying the element was never set).
Status ElementOrZeros(const TensorList& list, int64_t i, const PartialShape& shape, Tensor* out);

// Checks that `t` may be stored in `list`: its dtype is the element dtype and its shape is
// compatible with the element shape. `what` says which operation for the message.
Status CheckElement(const TensorList& list, const Tensor& t, const char* what);

// Row `i` of `t` (its first dimension) as a new tensor of its own.
Status CopyRow(const Tensor& t, int64_t i, Tensor* out);

// Reads a scalar int32 or int64 input as int64.
Status ScalarInput(OpKernelContext* ctx, int i, const char* name, int64_t* out);

}  // namespace cpu
}  // namespace tx
