// AddN of TensorLists (DT_VARIANT): the gradients of a list read in several places add up element
// by element, as TensorFlow's TensorListBinaryAdd does. Lists must have equal lengths and element
// dtypes; an unset element adds as zero. The sum goes into an input list the kernel holds
// alone (Note [TensorList in place]): a loop's accumulated list gradient is not copied per step.
#include <cstring>

#include "tensorflux/kernels/cpu/tensor_list.h"

namespace tx {
namespace cpu {
namespace {

template <typename T>
void AddInto(const Tensor& a, Tensor* acc) {
  T* d = acc->data<T>();
  const T* s = a.data<T>();
  for (int64_t i = 0; i < acc->num_elements(); ++i) d[i] += s[i];
}

Status AddElement(const Tensor& a, Tensor* acc) {
  if (!a.initialized()) return Status::OK();
  if (!acc->initialized()) {
    *acc = a;
    return Status::OK();
  }
  if (a.shape() != acc->shape())
    return InvalidArgument("cannot add list elements of shapes ", a.shape().ToString(), " and ",
                           acc->shape().ToString());
  Tensor sum;
  TX_RETURN_IF_ERROR(Tensor::Allocate(a.dtype(), a.shape(), &sum));
  std::memcpy(sum.raw_data(), acc->raw_data(), acc->byte_size());
  switch (a.dtype()) {
    case DT_FLOAT: AddInto<float>(a, &sum); break;
    case DT_DOUBLE: AddInto<double>(a, &sum); break;
    case DT_INT32: AddInto<int32_t>(a, &sum); break;
    case DT_INT64: AddInto<int64_t>(a, &sum); break;
    default: return Unimplemented("adding lists of ", DataTypeString(a.dtype()), " elements");
  }
  *acc = std::move(sum);
  return Status::OK();
}

class AddNListOp : public OpKernel {
 public:
  explicit AddNListOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* ctx) override {
    const TensorList* first = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, 0, DT_INVALID, &first));
    for (int k = 1; k < ctx->num_inputs(); ++k) {
      const TensorList* l = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, k, first->element_dtype, &l));
      if (l->tensors.size() != first->tensors.size())
        return ctx->SetStatus(InvalidArgument("Trying to add two lists of unequal lengths: ", first->tensors.size(),
                                              " and ", l->tensors.size()));
    }
    int base = 0;  // an input the kernel holds alone, if any, takes the sum
    for (int k = 0; k < ctx->num_inputs(); ++k)
      if (ctx->input(k).buffer()->RefCountIsOne()) {
        base = k;
        break;
      }
    TensorList* sum = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ForwardList(ctx, base, 0, first->element_dtype, &sum));
    for (int k = 0; k < ctx->num_inputs(); ++k) {
      if (k == base) continue;
      const TensorList* l = nullptr;
      TX_CTX_RETURN_IF_ERROR(ctx, InputList(ctx, k, sum->element_dtype, &l));
      for (size_t i = 0; i < l->tensors.size(); ++i)
        TX_CTX_RETURN_IF_ERROR(ctx, AddElement(l->tensors[i], &sum->tensors[i]));
    }
  }
};

}  // namespace

TX_REGISTER_KERNEL(KernelDefBuilder("AddN").TypeConstraint("T", DT_VARIANT), AddNListOp);

}  // namespace cpu
}  // namespace tx
