// CPU kernels for Reshape, ExpandDims, Squeeze and Bitcast: validate the new shape (and dtype)
// and share the input's buffer (no data moves).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensorflux/kernels/cpu/array_kernel_util.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

// Resolves `sizes` (at most one -1) against `input`'s shape, following TensorFlow's rules,
// including its treatment of zero-sized dimensions.
Status ResolveReshape(const TensorShape& input, const std::vector<int64_t>& sizes, TensorShape* out) {
  int unknown = -1;
  int64_t product = 1;
  bool sizes_have_zero = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t d = sizes[i];
    if (d == -1) {
      if (unknown != -1) return InvalidArgument("Only one input size may be -1, not both ", unknown, " and ", i);
      unknown = static_cast<int>(i);
    } else if (d < 0) {
      return InvalidArgument("Size ", i, " must be non-negative, not ", d);
    } else if (d == 0) {
      sizes_have_zero = true;
    } else if (__builtin_mul_overflow(product, d, &product)) {
      return InvalidArgument("Reshape target has too many elements");
    }
  }
  std::vector<int64_t> dims(sizes);
  if (unknown != -1) {
    // Zero-sized input dims are skipped when the target has a zero too, so the other dims
    // can still be inferred ([0,3] -> [-1,0] gives [3,0]).
    int64_t count = 1;
    bool input_has_zero = false;
    for (int64_t d : input.dims()) {
      if (d > 0 || !sizes_have_zero) {
        if (__builtin_mul_overflow(count, d, &count))
          return InvalidArgument("Reshape cannot infer the missing size: too many elements");
      } else {
        input_has_zero = true;
      }
    }
    const int64_t missing = count / product;
    if (!input_has_zero && missing * product != count)
      return InvalidArgument("Input to reshape is a tensor with ", input.num_elements(),
                             " values, but the requested shape requires a multiple of ", product);
    dims[unknown] = missing;
  }
  TensorShape shape(std::move(dims));
  if (shape.num_elements() != input.num_elements())
    return InvalidArgument("Input to reshape is a tensor with ", input.num_elements(),
                           " values, but the requested shape has ", shape.num_elements());
  *out = std::move(shape);
  return Status::OK();
}

// Output 0 is input 0's buffer viewed with the shape given by input 1.
class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& sizes = ctx->input(1);
    if (sizes.dtype() != DT_INT32 && sizes.dtype() != DT_INT64) {
      ctx->SetStatus(
          InvalidArgument("Reshape's shape input must be int32 or int64, got ", DataTypeString(sizes.dtype())));
      return;
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 1, sizes.dtype()));
    if (sizes.rank() != 1) {
      ctx->SetStatus(InvalidArgument("sizes input must be 1-D, not ", sizes.shape().ToString()));
      return;
    }
    std::vector<int64_t> dims(static_cast<size_t>(sizes.num_elements()));
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i] = sizes.dtype() == DT_INT32 ? sizes.data<int32_t>()[i] : sizes.data<int64_t>()[i];
    TensorShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, ResolveReshape(ctx->input(0).shape(), dims, &shape));
    ctx->set_output(0, ctx->input(0).Reshaped(std::move(shape)));
  }
};

// Output 0 is input 0's buffer with a size-1 dimension inserted at `dim`.
class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> dim;
    TX_CTX_RETURN_IF_ERROR(ctx, ReadIndexInput(ctx, 1, "dim", 1, &dim));
    if (dim.size() != 1) {
      ctx->SetStatus(InvalidArgument("ExpandDims' dim must hold exactly one value, got ", dim.size()));
      return;
    }
    int axis;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(dim[0], in.rank() + 1, "ExpandDims dim", &axis));
    std::vector<int64_t> dims = in.shape().dims();
    dims.insert(dims.begin() + axis, 1);
    ctx->set_output(0, in.Reshaped(TensorShape(std::move(dims))));
  }
};

// Output 0 is input 0's buffer without the listed (or all) size-1 dimensions.
class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("squeeze_dims", &axes_)); }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, ctx->output_type(0)));
    const Tensor& in = ctx->input(0);
    const int rank = in.rank();
    std::vector<bool> drop(rank, axes_.empty());
    if (axes_.empty())
      for (int d = 0; d < rank; ++d) drop[d] = in.dim(d) == 1;
    for (int64_t a : axes_) {
      int axis;
      TX_CTX_RETURN_IF_ERROR(ctx, array_util::CanonicalAxis(a, rank, "Squeeze dimension", &axis));
      if (in.dim(axis) != 1) {
        ctx->SetStatus(InvalidArgument("Can not squeeze dim[", axis, "], expected a dimension of 1, got ", in.dim(axis),
                                       " (input shape ", in.shape().ToString(), ")"));
        return;
      }
      drop[axis] = true;
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d)
      if (!drop[d]) dims.push_back(in.dim(d));
    ctx->set_output(0, in.Reshaped(TensorShape(std::move(dims))));
  }

 private:
  std::vector<int64_t> axes_;
};

// Bitcast: the input's bytes as `type` elements, in its buffer when that is aligned for `type`
// (a borrowed buffer need not be), else in a copy.
class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* c) : OpKernel(c) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const DataType to = ctx->output_type(0);
    PartialShape shape;
    TX_CTX_RETURN_IF_ERROR(ctx, array_util::BitcastShape(PartialShape(in.shape()), in.dtype(), to, &shape));
    const size_t align = std::min<size_t>(DataTypeSize(to), alignof(double));
    if (reinterpret_cast<uintptr_t>(in.raw_data()) % align == 0) {
      ctx->set_output(0, Tensor(to, shape.ToTensorShape(), in.buffer()));
      return;
    }
    Tensor* out = nullptr;
    TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, shape.ToTensorShape(), &out));
    std::memcpy(out->raw_data(), in.raw_data(), in.num_elements() * DataTypeSize(in.dtype()));
  }
};

TX_REGISTER_KERNEL(KernelDefBuilder("Reshape"), ReshapeOp);
TX_REGISTER_KERNEL(KernelDefBuilder("Bitcast"), BitcastOp);
TX_REGISTER_ARRAY_KERNEL("ExpandDims", ExpandDimsOp);
TX_REGISTER_ARRAY_KERNEL("Squeeze", SqueezeOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
