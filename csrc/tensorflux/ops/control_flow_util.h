// Instantiation of the functions that the functional control-flow ops (If, Case, While and their
// stateless forms) call, shared by their shape functions and kernels so both use one cached body.
#pragma once

#include <memory>
#include <vector>

#include "tensorflux/framework/function_instantiate.h"

namespace tx {

using FunctionBodyPtr = std::shared_ptr<const FunctionBody>;

// The static shapes and resource handle data of a node's inputs [begin, end of inputs).
struct ArgShapes {
  std::vector<PartialShape> shapes;
  std::vector<InferenceContext::HandleData> handles;
};
ArgShapes NodeArgShapes(const Node& n, int begin);
ArgShapes ContextArgShapes(const InferenceContext& c, int begin);

// The branches of an If/StatelessIf (then_branch, else_branch) or Case/StatelessCase (branches)
// with attrs `attrs`, instantiated for `args`; each is checked against Tin/Tout, errors name the
// branch ("then_branch: function 'f' returns [float] but the call expects [int32]").
Status GetBranchBodies(FunctionLibrary* lib, const AttrMap& attrs, const ArgShapes& args,
                       std::vector<FunctionBodyPtr>* out);

// The most specific shape compatible with both `a` and `b` (dimensions they agree on).
PartialShape JoinShapes(const PartialShape& a, const PartialShape& b);

// The cond and body functions of a While/StatelessWhile node instantiated for loop-variable
// shapes that every iteration keeps (Note [While shapes]); `shapes` receives those shapes.
struct WhileBodies {
  FunctionBodyPtr cond, body;
  std::vector<PartialShape> shapes;
  std::vector<InferenceContext::HandleData> handles;  // what every iteration keeps of each variable's handle data
};

// What both `a` and `b` say of a handle: the joined shape when the dtypes agree, else nothing.
InferenceContext::HandleData JoinHandles(const InferenceContext::HandleData& a, const InferenceContext::HandleData& b);
Status GetWhileBodies(FunctionLibrary* lib, const AttrMap& attrs, ArgShapes args, WhileBodies* out);

}  // namespace tx
