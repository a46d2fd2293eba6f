// Linear algebra ops: BatchMatMulV2 (signature identical to TensorFlow's).
#include <cstdint>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// Note [Batch matmul inference]
// Both inputs have rank >= 2; their last two dims are matrices (swapped by adj_x/adj_y) whose
// inner sizes must agree when known, and the leading dims broadcast with NumPy rules.
Status BatchMatMulV2Shape(InferenceContext* c) {
  PartialShape x, y;
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "Input 'x'", &x));
  TX_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, "Input 'y'", &y));
  bool adj_x = false, adj_y = false;
  TX_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  TX_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  if (!x.known_rank() || !y.known_rank()) {
    c->set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  const int rx = x.rank(), ry = y.rank();
  const int64_t m = x.dim(adj_x ? rx - 1 : rx - 2), kx = x.dim(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim(adj_y ? ry - 1 : ry - 2), n = y.dim(adj_y ? ry - 2 : ry - 1);
  if (kx >= 0 && ky >= 0 && kx != ky)
    return InvalidArgument("Matrix size-incompatible: In[0]: ", x.ToString(), ", In[1]: ", y.ToString(),
                           " (inner dimensions ", kx, " and ", ky, " differ)");
  PartialShape bx(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 2));
  PartialShape by(std::vector<int64_t>(y.dims().begin(), y.dims().end() - 2));
  PartialShape batch;
  Status s = BroadcastShapes(bx, by, &batch);
  if (!s.ok())
    return InvalidArgument("In[0] and In[1] must have broadcastable batch dimensions: ", x.ToString(), " vs. ",
                           y.ToString());
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(m);
  dims.push_back(n);
  c->set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, "
        "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV2Shape)
    .Summary("Matrix products over the last two dims, with NumPy broadcasting of the leading (batch) dims.");

}  // namespace tx
