// Array ops: Const, Placeholder, Identity, Reshape, Bitcast (signatures identical to TensorFlow's).
#include <cstdint>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"
#include "tensorflux/ops/array_util.h"

namespace tx {
namespace {

Status ConstShape(InferenceContext* c) {
  Tensor value;
  DataType dtype;
  TX_RETURN_IF_ERROR(c->GetAttr("value", &value));
  TX_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (value.dtype() != dtype)
    return InvalidArgument("Const value has dtype ", DataTypeString(value.dtype()), " but attr dtype is ",
                           DataTypeString(dtype));
  c->set_output(0, PartialShape(value.shape()));
  return Status::OK();
}

Status BitcastShapeFn(InferenceContext* c) {
  DataType from, to;
  TX_RETURN_IF_ERROR(c->GetAttr("T", &from));
  TX_RETURN_IF_ERROR(c->GetAttr("type", &to));
  PartialShape out;
  TX_RETURN_IF_ERROR(array_util::BitcastShape(c->input(0), from, to, &out));
  c->set_output(0, std::move(out));
  return Status::OK();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialShape shape;
  TX_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

// Note [Reshape inference]
// The target comes from the constant `shape` input (or only its length when it is not constant).
// With exactly one unknown entry and a known input element count, the unknown entry is the count
// divided by the product of the known entries (an error when it does not divide). A fully known
// target must hold exactly the input's element count. Zero-sized targets with an unknown entry are
// left unknown here; the kernel resolves them like TensorFlow does.
Status ReshapeShape(InferenceContext* c) {
  const PartialShape& sizes = c->input(1);
  if (sizes.known_rank() && sizes.rank() != 1)
    return InvalidArgument("Reshape's shape input must be 1-D, got shape ", sizes.ToString());
  PartialShape target;
  TX_RETURN_IF_ERROR(c->ShapeFromShapeTensor(1, &target));
  if (!target.known_rank()) {
    c->set_output(0, target);
    return Status::OK();
  }
  const PartialShape& in = c->input(0);
  const int64_t in_count = in.num_elements();  // -1 when unknown
  int unknown = -1, num_unknown = 0;
  int64_t known_product = 1;
  bool overflow = false;
  for (int i = 0; i < target.rank(); ++i) {
    const int64_t d = target.dim(i);
    if (d < 0) {
      unknown = i;
      ++num_unknown;
    } else if (__builtin_mul_overflow(known_product, d, &known_product)) {
      overflow = true;
    }
  }
  if (overflow) return InvalidArgument("Reshape target shape ", target.ToString(), " has too many elements");
  std::vector<int64_t> dims = target.dims();
  if (num_unknown == 0 && in_count >= 0 && in_count != known_product)
    return InvalidArgument("Cannot reshape a tensor with ", in_count, " elements to shape ", target.ToString(), " (",
                           known_product, " elements)");
  if (num_unknown == 1 && in_count >= 0 && known_product > 0) {
    if (in_count % known_product != 0)
      return InvalidArgument("Cannot reshape a tensor with ", in_count, " elements to shape ", target.ToString(),
                             ": the number of elements must be divisible by ", known_product);
    dims[unknown] = in_count / known_product;
  }
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape)
    .Summary("Produces the constant tensor held in its `value` attribute.");

TX_REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(PlaceholderShape)
    .Summary("Stands for a tensor that must be fed when the graph runs.");

TX_REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns its input unchanged, sharing the same buffer.");

TX_REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(ReshapeShape)
    .Summary("Views a tensor's elements, in row-major order, with a new shape (one entry may be -1).");

#define TX_BITCAST_TYPES                                                                                  \
  "{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, complex64, " \
  "complex128, qint8, quint8, qint16, quint16, qint32}"

TX_REGISTER_OP("Bitcast")
    .Input("input: T")
    .Output("output: type")
    .Attr("T: " TX_BITCAST_TYPES)
    .Attr("type: " TX_BITCAST_TYPES)
    .SetShapeFn(BitcastShapeFn)
    .Summary(
        "Reinterprets the bytes of `input` as elements of `type` (no copy): a wider `T` adds a last "
        "dimension of sizeof(T) / sizeof(type), a narrower one removes a last dimension of that size.");

#undef TX_BITCAST_TYPES

}  // namespace tx
