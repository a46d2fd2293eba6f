// Functionalization of lowered (TensorFlow 1) control flow at GraphDef import: loops made of
// Enter/Merge/Switch/LoopCond/NextIteration/Exit and conds made of Switch/_SwitchN/Merge become
// While/If/Case nodes calling new library functions (Note [Functionalize control flow]).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/framework/functionalize_graph.h"
#include "tensorflux/framework/proto_codec.h"

namespace tx {

// True when `gd` has a node of a lowered control-flow op (Switch, _SwitchN, Merge, Enter, Exit,
// NextIteration, LoopCond).
bool HasLoweredControlFlow(const codec::GraphDefProto& gd);

// Rewrites the nodes of `gd` so that no lowered control flow is left: each while-loop frame
// becomes a While/StatelessWhile node, each Switch/Merge cond an If/StatelessIf (or, for
// _SwitchN, Case/StatelessCase), calling functions appended to `functions`. The nodes whose values
// leave the loop or cond (Exit, Merge) keep their names as Identity/IdentityN nodes, so consumers
// and fetches by name still work; `moved` (may be null) receives, for each node moved into a
// function, the name of the node that now runs it. `library` holds the functions nodes may call
// (for errors); `external` the inputs mapped from outside the GraphDef. Errors name the node:
// InvalidArgument for graphs that are not valid lowered control flow or that this pass cannot
// rebuild (Note [Functionalize control flow] lists them).
Status FunctionalizeControlFlow(const FunctionLibrary& library, const functionalize::ExternalNodes& external,
                                codec::GraphDefProto* gd, std::vector<FunctionDef>* functions,
                                std::map<std::string, std::string>* moved);

}  // namespace tx
