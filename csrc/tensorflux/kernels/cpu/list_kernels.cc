// Kernels of the TensorList ops that make a list or read or write one element: EmptyTensorList,
// TensorListReserve, TensorListLength, TensorListElementShape, TensorListResize,
// TensorListGetItem, TensorListSetItem, TensorListPushBack, TensorListPopBack. Writers change the
// list in place when they hold it alone (Note [TensorList in place] in tensor_list.h).
#include "tensorflux/kernels/cpu/tensor_list.h"

namespace tx {
namespace cpu {
namespace {

// A kernel reading the `element_dtype` attr (DT_INVALID when the op has none).
class ListOp : public OpKernel {
 public:
  explicit ListOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->node().attr("element_dtype") != nullptr) c->SetStatus(c->GetAttr("element_dtype", &dtype_));
  }
  bool IsExpensive() const override { return false; }

 protected:
  DataType dtype_ = DT_INVALID;
};

// EmptyTensorList(element_shape, max_num_elements), TensorListReserve(element_shape, num_elements).
template <bool kReserve>
class NewListOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    TensorList list;
    list.element_dtype = dtype_;
    TX_CTX_RETURN_IF_ERROR(ctx, ElementShapeFromTensor(ctx->input(0), &list.element_shape));
    int64_t n = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarInput(ctx, 1, kReserve ? "num_elements" : "max_num_elements", &n));
    if (kReserve) {
      if (n < 0)
        return ctx->SetStatus(
            InvalidArgument("The num_elements to reserve must be a non negative number, but got ", n));
      list.tensors.resize(static_cast<size_t>(n));
    } else {
      if (n < -1)
        return ctx->SetStatus(InvalidArgument("max_num_elements must be -1 (no limit) or non-negative, got ", n));
      list.max_num_elements = static_cast<int>(n);
    }
    TX_CTX_RETURN_IF_ERROR(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

class LengthOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, DT_INVALID, &list));
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, TensorShape(), &out));
    *out->data<int32_t>() = static_cast<int32_t>(list->tensors.size());
  }
};

class ElementShapeOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, DT_INVALID, &list));
    const PartialShape& s = list->element_shape;
    Tensor* out = nullptr;
    const bool known = s.known_rank();
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, known ? TensorShape({s.rank()}) : TensorShape(), &out));
    const int n = known ? s.rank() : 1;
    for (int k = 0; k < n; ++k) {
      const int64_t d = known ? s.dim(k) : -1;
      if (out->dtype() == DT_INT32)
        out->data<int32_t>()[k] = static_cast<int32_t>(d);
      else
        out->data<int64_t>()[k] = d;
    }
  }
};

class ResizeOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    int64_t size = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarInput(ctx, 1, "size", &size));
    if (size < 0)
      return ctx->SetStatus(InvalidArgument("TensorListResize expects size to be non-negative. Got: ", size));
    TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ForwardList(ctx, 0, 0, DT_INVALID, &list));
    list->tensors.resize(static_cast<size_t>(size));
  }
};

class GetItemOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, dtype_, &list));
    int64_t index = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarInput(ctx, 1, "index", &index));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    if (index < 0 || index >= size)
      return ctx->SetStatus(
          InvalidArgument("Trying to access element ", index, " in a list with ", size, " elements."));
    Tensor out;
    if (!list->tensors[static_cast<size_t>(index)].initialized()) {
      PartialShape requested, shape;
      TX_CTX_RETURN_IF_ERROR(ctx, ElementShapeFromTensor(ctx->input(2), &requested));
      TX_CTX_RETURN_IF_ERROR(ctx, ResolveElementShape(*list, requested, &shape));
      TX_CTX_RETURN_IF_ERROR(ctx, ElementOrZeros(*list, index, shape, &out));
    } else {
      out = list->tensors[static_cast<size_t>(index)];
    }
    ctx->set_output(0, std::move(out));
  }
};

class SetItemOp : public ListOp {
 public:
  explicit SetItemOp(OpKernelConstruction* c) : ListOp(c) {
    c->SetStatus(c->GetAttr("resize_if_index_out_of_bounds", &resize_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, dtype_, &in));
    int64_t index = 0;
    TX_CTX_RETURN_IF_ERROR(ctx, ScalarInput(ctx, 1, "index", &index));
    const Tensor& item = ctx->input(2);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckElement(*in, item, "set"));
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    if (index < 0 || (index >= size && !resize_))
      return ctx->SetStatus(
          InvalidArgument("Trying to modify element ", index, " in a list with ", size, " elements."));
    TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ForwardList(ctx, 0, 0, dtype_, &list));
    if (index >= size) list->tensors.resize(static_cast<size_t>(index) + 1);
    list->tensors[static_cast<size_t>(index)] = item;
  }

 private:
  bool resize_ = false;
};

class PushBackOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, dtype_, &in));
    const Tensor& item = ctx->input(1);
    TX_CTX_RETURN_IF_ERROR(ctx, CheckElement(*in, item, "append"));
    if (in->max_num_elements >= 0 && static_cast<int64_t>(in->tensors.size()) >= in->max_num_elements)
      return ctx->SetStatus(InvalidArgument("Tried to push item into a full list list size: ", in->tensors.size(),
                                            ", max_num_elements: ", in->max_num_elements));
    TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ForwardList(ctx, 0, 0, dtype_, &list));
    list->tensors.push_back(item);
  }
};

class PopBackOp : public ListOp {
 public:
  using ListOp::ListOp;
  void Compute(OpKernelContext* ctx) override {
    const TensorList* in = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, dtype_, &in));
    if (in->tensors.empty()) return ctx->SetStatus(InvalidArgument("Trying to pop from an empty list."));
    Tensor item;
    if (!in->tensors.back().initialized()) {
      PartialShape requested, shape;
      TX_CTX_RETURN_IF_ERROR(ctx, ElementShapeFromTensor(ctx->input(1), &requested));
      TX_CTX_RETURN_IF_ERROR(ctx, ResolveElementShape(*in, requested, &shape));
      TX_CTX_RETURN_IF_ERROR(ctx, ElementOrZeros(*in, static_cast<int64_t>(in->tensors.size()) - 1, shape, &item));
    }
    TensorList* list = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ForwardList(ctx, 0, 0, dtype_, &list));
    if (!item.initialized()) item = std::move(list->tensors.back());
    list->tensors.pop_back();
    ctx->set_output(1, std::move(item));
  }
};

}  // namespace

TX_REGISTER_KERNEL(KernelDefBuilder("EmptyTensorList"), NewListOp<false>);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListReserve"), NewListOp<true>);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListLength"), LengthOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListElementShape"), ElementShapeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListResize"), ResizeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListGetItem"), GetItemOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListSetItem"), SetItemOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListPushBack"), PushBackOp);
TX_REGISTER_KERNEL(KernelDefBuilder("TensorListPopBack"), PopBackOp);

}  // namespace cpu
}  // namespace tx
