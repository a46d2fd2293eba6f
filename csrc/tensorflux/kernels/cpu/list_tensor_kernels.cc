// Kernels of the TensorList ops that move whole tensors in or out of a list: TensorListFromTensor,
// TensorListStack, TensorListGather, TensorListScatterV2, TensorListScatterIntoExistingList,
// TensorListConcatV2, TensorListSplit; and ZerosLike / AddN of lists (gradients of lists).
#include <algorithm>
#include <cstring>

#include "tensorflux/core/object_types.h"
#include "tensorflux/kernels/cpu/tensor_list.h"

namespace tx {
namespace cpu {
namespace {

class ListOp : public OpKernel {
 public:
  explicit ListOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->node().attr("element_dtype") != nullptr) c->SetStatus(c->GetAttr("element_dtype", &dtype_));
  }

 protected:
  DataType dtype_ = DT_INVALID;
};

// The int32 vector input `i` as int64 values.
Status IndicesInput(OpKernelContext* ctx, int i, const char* name, std::vector<int64_t>* out) {
  const Tensor& t = ctx->input(i);
  if (t.rank() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64))
    return InvalidArgument(name, " must be an int32 vector, got a ", DataTypeString(t.dtype()), " tensor of shape ",
                           t.shape().ToString());
  out->resize(static_cast<size_t>(t.num_elements()));
  for (int64_t k = 0; k < t.num_elements(); ++k)
    (*out)[k] = t.dtype() == DT_INT32 ? int64_t{t.data<int32_t>()[k]} : t.data<int64_t>()[k];
  return Status::OK();
}

// Stacks `rows` (each of `element` shape) into output 0 of shape [rows.size()] + element.
Status StackInto(OpKernelContext* ctx, DataType dtype, const std::vector<Tensor>& rows, const TensorShape& element) {
  std::vector<int64_t> dims{static_cast<int64_t>(rows.size())};
  dims.insert(dims.end(), element.dims().begin(), element.dims().end());
  Tensor* out = nullptr;
  TX_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape(std::move(dims)), &out));
  const int64_t n = element.num_elements();
  const size_t bytes = static_cast<size_t>(n) * DataTypeSize(dtype);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].shape() != element)
      return InvalidArgument("Tried to stack elements of different shapes: element ", r, " has shape ",
                             rows[r].shape().ToString(), ", the others ", element.ToString());
    CopyElements(dtype, rows[r].raw_data(), static_cast<char*>(out->raw_data()) + r * bytes, n);
  }
  return Status::OK();
}

// The elements `indices` of `list` (zeros for unset ones), checked against the element shape
// the op asks for (input `shape_input`); `shape` receives the shape they share.
Status Elements(OpKernelContext* ctx, const TensorList& list, const std::vector<int64_t>& indices, int shape_input,
                std::vector<Tensor>* rows, TensorShape* shape) {
  PartialShape requested, element;
  TX_RETURN_IF_ERROR(ElementShapeFromTensor(ctx->input(shape_input), &requested));
  TX_RETURN_IF_ERROR(ResolveElementShape(list, requested, &element));
  const int64_t size = static_cast<int64_t>(list.tensors.size());
  for (int64_t i : indices) {
    if (i < 0 || i >= size)
      return InvalidArgument("Trying to access element ", i, " in a list with ", size, " elements.");
    if (!list.tensors[static_cast<size_t>(i)].initialized() && !element.fully_defined())
      return InvalidArgument("Tried to read from a list with unset element ", i,
                             " but the element shape is not "
                             "fully defined: ",
                             element.ToString());
  }
  if (indices.empty() && !element.fully_defined())
    return InvalidArgument("Tried to stack elements of an empty list with a non-fully-defined element shape: ",
                           element.ToString());
  rows->clear();
  for (int64_t i : indices) {
    Tensor t;
    TX_RETURN_IF_ERROR(ElementOrZeros(list, i, element, &t));
    rows->push_back(std::move(t));
  }
  *shape = indices.empty() || element.fully_defined() ? element.ToTensorShape() : (*rows)[0].shape();
  return Status::OK();
}

class FromTensorOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    if (t.rank() < 1)
      return ctx->SetStatus(InvalidArgument("tensor must be at least a vector, but saw shape: ", t.shape().ToString()));
    TensorList list;
    list.element_dtype = dtype_;
    TX_CTX_RETURN_IF_ERROR(ctx, ElementShapeFromTensor(ctx->input(1), &list.element_shape));
    const TensorShape rows(std::vector<int64_t>(t.shape().dims().begin() + 1, t.shape().dims().end()));
    if (!list.element_shape.IsCompatibleWith(rows))
      return ctx->SetStatus(InvalidArgument("Specified a list with shape ", list.element_shape.ToString(),
                                            " from a tensor with shape ", t.shape().ToString()));
    for (int64_t i = 0; i < t.dim(0); ++i) {
      Tensor row;
      TX_CTX_RETURN_IF_ERROR(ctx, CopyRow(t, i, &row));
      list.tensors.push_back(std::move(row));
    }
    TX_CTX_RETURN_IF_ERROR(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

class StackOp : public ListOp {
 public:
  explicit StackOp(OpKernelConstruction* c) : ListOp(c) { c->SetStatus(c->GetAttr("num_elements", &num_elements_)); }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, dtype_, &list));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    if (num_elements_ != -1 && num_elements_ != size)
      return ctx->SetStatus(InvalidArgument("Operation expected a list with ", num_elements_,
                                            " elements but got a list with ", size, " elements."));
    std::vector<int64_t> all(static_cast<size_t>(size));
    for (int64_t i = 0; i < size; ++i) all[i] = i;
    std::vector<Tensor> rows;
    TensorShape element;
    TX_CTX_RETURN_IF_ERROR(ctx, Elements(ctx, *list, all, 1, &rows, &element));
    TX_CTX_RETURN_IF_ERROR(ctx, StackInto(ctx, dtype_, rows, element));
  }

 private:
  int64_t num_elements_ = -1;
};

class GatherOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, dtype_, &list));
    std::vector<int64_t> indices;
    TX_CTX_RETURN_IF_ERROR(ctx, IndicesInput(ctx, 1, "indices", &indices));
    std::vector<Tensor> rows;
    TensorShape element;
    TX_CTX_RETURN_IF_ERROR(ctx, Elements(ctx, *list, indices, 2, &rows, &element));
    TX_CTX_RETURN_IF_ERROR(ctx, StackInto(ctx, dtype_, rows, element));
  }
};

// Writes tensor[k] at indices[k] of `list`, growing it as needed.
Status Scatter(const Tensor& t, const std::vector<int64_t>& indices, TensorList* list) {
  if (t.rank() < 1) return InvalidArgument("tensor must be at least a vector, but saw shape: ", t.shape().ToString());
  if (t.dim(0) != static_cast<int64_t>(indices.size()))
    return InvalidArgument("Expected len(indices) == tensor.shape[0], but saw: ", indices.size(), " vs. ", t.dim(0));
  const TensorShape rows(std::vector<int64_t>(t.shape().dims().begin() + 1, t.shape().dims().end()));
  if (!list->element_shape.IsCompatibleWith(rows))
    return InvalidArgument("Tried to scatter rows of shape ", rows.ToString(), " into a list whose element shape is ",
                           list->element_shape.ToString());
  for (size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0)
      return InvalidArgument("Indices in TensorListScatter must all be non-negative, got ", indices[k]);
    if (indices[k] >= static_cast<int64_t>(list->tensors.size()))
      list->tensors.resize(static_cast<size_t>(indices[k]) + 1);
    TX_RETURN_IF_ERROR(CopyRow(t, static_cast<int64_t>(k), &list->tensors[static_cast<size_t>(indices[k])]));
  }
  return Status::OK();
}

class ScatterOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    TensorList list;
    list.element_dtype = dtype_;
    TX_CTX_RETURN_IF_ERROR(ctx, ElementShapeFromTensor(ctx->input(2), &list.element_shape));
    std::vector<int64_t> indices;
    TX_CTX_RETURN_IF_ERROR(ctx, IndicesInput(ctx, 1, "indices", &indices));
    int64_t n = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarInput(ctx, 3, "num_elements", &n));
    if (n < -1) return ctx->SetStatus(InvalidArgument("TensorListScatter expects num_elements >= -1, found: ", n));
    if (n > 0) list.tensors.resize(static_cast<size_t>(n));
    TX_CTX_RETURN_IF_ERROR(ctx, Scatter(ctx->input(0), indices, &list));
    TX_CTX_RETURN_IF_ERROR(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

class ScatterIntoOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> indices;
    TX_CTX_RETURN_IF_ERROR(ctx, IndicesInput(ctx, 2, "indices", &indices));
    if (ctx->input(1).dtype() != dtype_)
      return ctx->SetStatus(InvalidArgument("Invalid data types; op elements ", DataTypeString(dtype_),
                                            " but tensor is ", DataTypeString(ctx->input(1).dtype())));
    TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ForwardList(ctx, 0, 0, dtype_, &list));
    TX_CTX_RETURN_IF_ERROR(ctx, Scatter(ctx->input(1), indices, list));
  }
};

class ConcatOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, dtype_, &list));
    PartialShape requested, element;
    TX_CTX_RETURN_IF_ERROR(ctx, ElementShapeFromTensor(ctx->input(1), &requested));
    TX_CTX_RETURN_IF_ERROR(ctx, list->element_shape.Merge(requested, &element));
    if (element.known_rank() && element.rank() == 0)
      return ctx->SetStatus(InvalidArgument("Concat requires elements to be at least vectors, found scalars instead."));
    std::vector<int64_t> leading;
    TX_CTX_RETURN_IF_ERROR(ctx, IndicesInput(ctx, 2, "leading_dims", &leading));
    const size_t size = list->tensors.size();
    // Unset elements are zeros of [leading_dims[i]] + element_shape[1:].
    std::vector<Tensor> parts(size);
    TensorShape inner;
    bool have_inner = false;
    for (size_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      if (!t.initialized()) continue;
      if (t.rank() < 1)
        return ctx->SetStatus(
            InvalidArgument("Concat saw a scalar shape at index ", i, " but requires at least vectors."));
      TensorShape s(std::vector<int64_t>(t.shape().dims().begin() + 1, t.shape().dims().end()));
      if (have_inner && s != inner)
        return ctx->SetStatus(
            InvalidArgument("Tried to concat tensors with unequal shapes: ", inner.ToString(), " vs ", s.ToString()));
      inner = s;
      have_inner = true;
      parts[i] = t;
    }
    if (!have_inner) {
      std::vector<int64_t> dims = element.known_rank() ? element.dims() : std::vector<int64_t>{};
      if (!element.known_rank() || std::any_of(dims.begin() + 1, dims.end(), [](int64_t d) { return d < 0; }))
        return ctx->SetStatus(
            InvalidArgument("All except the first dimension must be fully defined when concating an "
                            "empty tensor list. element_shape: ",
                            element.ToString()));
      inner = TensorShape(std::vector<int64_t>(dims.begin() + 1, dims.end()));
    }
    int64_t total = 0;
    for (size_t i = 0; i < size; ++i) {
      if (!parts[i].initialized()) {
        if (i >= leading.size())
          return ctx->SetStatus(InvalidArgument("element ", i, " is unset and leading_dims gives no length for it"));
        std::vector<int64_t> dims{leading[i]};
        dims.insert(dims.end(), inner.dims().begin(), inner.dims().end());
        TX_CTX_RETURN_IF_ERROR(ctx, Zeros(dtype_, TensorShape(std::move(dims)), &parts[i]));
      }
      total += parts[i].dim(0);
    }
    std::vector<int64_t> dims{total};
    dims.insert(dims.end(), inner.dims().begin(), inner.dims().end());
    Tensor *out = nullptr, *lengths = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(std::move(dims)), &out));
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(1, TensorShape({static_cast<int64_t>(size)}), &lengths));
    char* dst = static_cast<char*>(out->raw_data());
    for (size_t i = 0; i < size; ++i) {
      CopyElements(dtype_, parts[i].raw_data(), dst, parts[i].num_elements());
      dst += parts[i].byte_size();
      lengths->data<int64_t>()[i] = parts[i].dim(0);
    }
  }
};

class SplitOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    if (t.rank() < 1)
      return ctx->SetStatus(InvalidArgument("Tensor must be at least a vector, but saw shape: ", t.shape().ToString()));
    TensorList list;
    list.element_dtype = dtype_;
    TX_CTX_RETURN_IF_ERROR(ctx, ElementShapeFromTensor(ctx->input(1), &list.element_shape));
    std::vector<int64_t> lengths;
    TX_CTX_RETURN_IF_ERROR(ctx, IndicesInput(ctx, 2, "lengths", &lengths));
    int64_t start = 0;
    const int64_t row = t.dim(0) == 0 ? 0 : t.num_elements() / t.dim(0);
    const size_t es = DataTypeSize(dtype_);
    for (size_t k = 0; k < lengths.size(); ++k) {
      if (lengths[k] < 0 || start + lengths[k] > t.dim(0))
        return ctx->SetStatus(InvalidArgument("Invalid value in lengths: ", lengths[k], " (the pieces must add up to ",
                                              t.dim(0), ", the tensor's first dimension)"));
      std::vector<int64_t> dims = t.shape().dims();
      dims[0] = lengths[k];
      TensorShape shape(std::move(dims));
      if (!list.element_shape.IsCompatibleWith(shape))
        return ctx->SetStatus(InvalidArgument("Tried to split a tensor into pieces of shape ", shape.ToString(),
                                              " for a list whose element shape is ", list.element_shape.ToString()));
      Tensor piece;
      TX_CTX_RETURN_IF_ERROR(ctx, Tensor::Allocate(dtype_, shape, &piece));
      CopyElements(dtype_, static_cast<const char*>(t.raw_data()) + static_cast<size_t>(start * row) * es,
                   piece.raw_data(), piece.num_elements());
      list.tensors.push_back(std::move(piece));
      start += lengths[k];
    }
    if (start != t.dim(0))
      return ctx->SetStatus(
          InvalidArgument("Unused values in tensor. Length of tensor: ", t.dim(0), " Values used: ", start));
    TX_CTX_RETURN_IF_ERROR(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

// ZerosLike of a list: the same length, zeros where elements are set.
class ZerosLikeListOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, DT_INVALID, &in));
    TensorList list;
    list.element_dtype = in->element_dtype;
    list.element_shape = in->element_shape;
    list.max_num_elements = in->max_num_elements;
    list.tensors.resize(in->tensors.size());
    for (size_t i = 0; i < in->tensors.size(); ++i)
      if (in->tensors[i].initialized())
        TX_CTX_RETURN_IF_ERROR(ctx, Zeros(in->element_dtype, in->tensors[i].shape(), &list.tensors[i]));
    TX_CTX_RETURN_IF_ERROR(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

}  // namespace

TX_REGISTER_KERNEL(KernelDefBuilder("TensorListFromTensor"), FromTensorOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListStack"), StackOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListGather"), GatherOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListScatterV2"), ScatterOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListScatterIntoExistingList"), ScatterIntoOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListConcatV2"), ConcatOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListSplit"), SplitOp);
TX_REGISTER_KERNEL(KernelDefBuilder("ZerosLike").TypeConstraint("T", DT_VARIANT), ZerosLikeListOp);

}  // namespace cpu
}  // namespace tx
