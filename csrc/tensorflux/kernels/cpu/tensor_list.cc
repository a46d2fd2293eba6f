// TensorList helpers (tensor_list.h).
#include "tensorflux/kernels/cpu/tensor_list.h"

#include <cstring>

#include "tensorflux/core/object_types.h"

namespace tx {
namespace cpu {

std::string TensorList::DebugString() const {
  return StrCat("TensorList<", DataTypeString(element_dtype), ", ", element_shape.ToString(), ">(", tensors.size(),
                " elements)");
}

namespace {

Status ListOf(const Tensor& t, int i, DataType dtype, const TensorList** out) {
  if (t.dtype() != DT_VARIANT || t.num_elements() != 1 || !t.initialized())
    return InvalidArgument("input ", i, " must be a TensorList (a scalar variant), got a ", DataTypeString(t.dtype()),
                           " tensor of shape ", t.shape().ToString());
  const TensorList* list = t.data<Variant>()[0].get<TensorList>();
  if (list == nullptr)
    return InvalidArgument("input ", i, " must hold a TensorList, but the variant holds ",
                           t.data<Variant>()[0].DebugString());
  if (dtype != DT_INVALID && list->element_dtype != dtype)
    return InvalidArgument("Invalid data types; op elements ", DataTypeString(dtype), " but list elements ",
                           DataTypeString(list->element_dtype));
  *out = list;
  return Status::OK();
}

}  // namespace

Status InputList(OpKernelContext* ctx, int i, DataType dtype, const TensorList** out) {
  return ListOf(ctx->input(i), i, dtype, out);
}

Status ForwardList(OpKernelContext* ctx, int in, int out, DataType dtype, TensorList** list) {
  const Tensor& t = ctx->input(in);
  const TensorList* source = nullptr;
  TX_RETURN_IF_ERROR(ListOf(t, in, dtype, &source));
  if (t.buffer()->RefCountIsOne()) {  // Note [TensorList in place]
    ctx->set_output(out, t);
    *list = ctx->mutable_output(out)->data<Variant>()[0].get<TensorList>();
    return Status::OK();
  }
  TX_RETURN_IF_ERROR(OutputList(ctx, out, *source));
  *list = ctx->mutable_output(out)->data<Variant>()[0].get<TensorList>();
  return Status::OK();
}

Status OutputList(OpKernelContext* ctx, int out, TensorList list) {
  Tensor* t = nullptr;
  TX_RETURN_IF_ERROR(ctx->allocate_output(out, TensorShape(), &t));
  t->data<Variant>()[0] = Variant(std::move(list));
  return Status::OK();
}

Status ElementShapeFromTensor(const Tensor& t, PartialShape* out) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)
    return InvalidArgument("element_shape must be int32 or int64, got ", DataTypeString(t.dtype()));
  auto at = [&](int64_t k) { return t.dtype() == DT_INT32 ? int64_t{t.data<int32_t>()[k]} : t.data<int64_t>()[k]; };
  if (t.rank() == 0) {
    if (at(0) != -1) return InvalidArgument("element_shape must be -1 (unknown rank) when it is a scalar, got ", at(0));
    *out = PartialShape::Unknown();
    return Status::OK();
  }
  if (t.rank() != 1)
    return InvalidArgument("element_shape must be a scalar or a vector, got shape ", t.shape().ToString());
  std::vector<int64_t> dims(static_cast<size_t>(t.num_elements()));
  for (int64_t k = 0; k < t.num_elements(); ++k) {
    dims[k] = at(k);
    if (dims[k] < -1) return InvalidArgument("element_shape has an invalid dimension ", dims[k]);
  }
  *out = PartialShape(std::move(dims));
  return Status::OK();
}

Status ResolveElementShape(const TensorList& list, const PartialShape& requested, PartialShape* out) {
  PartialShape s;
  TX_RETURN_IF_ERROR(list.element_shape.Merge(requested, &s)
                         .WithPrefix("the requested element shape is incompatible with the list's element shape: "));
  if (!s.fully_defined()) {
    for (const Tensor& t : list.tensors) {
      if (!t.initialized()) continue;
      TX_RETURN_IF_ERROR(s.Merge(PartialShape(t.shape()), &s).WithPrefix("the list's elements have another shape: "));
      break;
    }
  }
  *out = std::move(s);
  return Status::OK();
}

Status Zeros(DataType dtype, const TensorShape& shape, Tensor* out) {
  TX_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, out));
  if (ObjectOpsFor(dtype) == nullptr && out->byte_size() > 0) std::memset(out->raw_data(), 0, out->byte_size());
  return Status::OK();
}

Status ElementOrZeros(const TensorList& list, int64_t i, const PartialShape& shape, Tensor* out) {
  const Tensor& t = list.tensors[static_cast<size_t>(i)];
  if (t.initialized()) {
    *out = t;
    return Status::OK();
  }
  if (!shape.fully_defined())
    return InvalidArgument("Trying to read an uninitialized tensor (element ", i,
                           " was never set) but the element "
                           "shape is not fully defined: ",
                           shape.ToString(), "; set the element, or give a fully defined element_shape");
  return Zeros(list.element_dtype, shape.ToTensorShape(), out);
}

Status CheckElement(const TensorList& list, const Tensor& t, const char* what) {
  if (t.dtype() != list.element_dtype)
    return InvalidArgument("Invalid data types; ", what, " a ", DataTypeString(t.dtype()), " tensor into a list of ",
                           DataTypeString(list.element_dtype), " elements");
  if (!list.element_shape.IsCompatibleWith(t.shape()))
    return InvalidArgument("Tried to ", what, " a tensor with incompatible shape ", t.shape().ToString(),
                           " into a list whose element shape is ", list.element_shape.ToString());
  return Status::OK();
}

Status CopyRow(const Tensor& t, int64_t i, Tensor* out) {
  std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
  TX_RETURN_IF_ERROR(Tensor::Allocate(t.dtype(), TensorShape(std::move(dims)), out));
  const int64_t n = out->num_elements();
  const size_t es = DataTypeSize(t.dtype());
  CopyElements(t.dtype(), static_cast<const char*>(t.raw_data()) + static_cast<size_t>(i * n) * es, out->raw_data(), n);
  return Status::OK();
}

Status ScalarInput(OpKernelContext* ctx, int i, const char* name, int64_t* out) {
  const Tensor& t = ctx->input(i);
  if (t.rank() != 0 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64))
    return InvalidArgument(name, " must be an int32 scalar, got a ", DataTypeString(t.dtype()), " tensor of shape ",
                           t.shape().ToString());
  *out = t.dtype() == DT_INT32 ? int64_t{*t.data<int32_t>()} : *t.data<int64_t>();
  return Status::OK();
}

}  // namespace cpu
}  // namespace tx
