// Betainc (the regularized incomplete beta function) and Bucketize (bucket indices of values
// against sorted boundaries); signatures identical to TensorFlow's.
#include <string>
#include <vector>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/framework/shape_inference.h"

namespace tx {
namespace {

// a, b, x: each scalar or of one common shape (Betainc does not broadcast otherwise).
Status BetaincShape(InferenceContext* c) {
  const char* names[3] = {"a", "b", "x"};
  PartialShape out = PartialShape::Scalar();
  int from = -1;
  for (int i = 0; i < 3; ++i) {
    const PartialShape& s = c->input(i);
    if (s.known_rank() && s.rank() == 0) continue;
    if (from < 0) {
      out = s;
      from = i;
      continue;
    }
    PartialShape merged;
    if (!out.Merge(s, &merged).ok())
      return InvalidArgument("Shapes of ", names[from], " and ", names[i], " are inconsistent: ", out.ToString(),
                             " vs. ", s.ToString());
    out = merged;
  }
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace

TX_REGISTER_OP("Betainc")
    .Input("a: T")
    .Input("b: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn(BetaincShape)
    .Summary("Returns the regularized incomplete beta function I_x(a, b) elementwise (scalars broadcast).");

TX_REGISTER_OP("Bucketize")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: {int32, int64, float, double}")
    .Attr("boundaries: list(float)")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Summary("Returns, elementwise, how many of the sorted boundaries are <= the input value.");

}  // namespace tx
