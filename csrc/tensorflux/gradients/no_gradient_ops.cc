// Ops through which no gradient flows: their outputs are booleans, indices, shapes, random
// draws or piecewise-constant values (TensorFlow declares the same set not differentiable, or
// gives them None gradients). StopGradient is here too; PreventGradient fails loudly instead.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// PreventGradient: asking for its gradient is an error carrying the op's message.
Status PreventGradientGrad(GradContext& g) {
  const std::string& message = g.attr_string("message");
  return InvalidArgument("Gradient explicitly disabled. Reason: ", message.empty() ? "(no message)" : message);
}

}  // namespace

TX_REGISTER_GRADIENT("PreventGradient", PreventGradientGrad);
TX_REGISTER_NO_GRADIENT("StopGradient");

// Sources and control.
TX_REGISTER_NO_GRADIENT("Const");
TX_REGISTER_NO_GRADIENT("Placeholder");
TX_REGISTER_NO_GRADIENT("NoOp");

// Comparisons, logic and predicates.
TX_REGISTER_NO_GRADIENT("Equal");
TX_REGISTER_NO_GRADIENT("NotEqual");
TX_REGISTER_NO_GRADIENT("Less");
TX_REGISTER_NO_GRADIENT("LessEqual");
TX_REGISTER_NO_GRADIENT("Greater");
TX_REGISTER_NO_GRADIENT("GreaterEqual");
TX_REGISTER_NO_GRADIENT("LogicalAnd");
TX_REGISTER_NO_GRADIENT("LogicalOr");
TX_REGISTER_NO_GRADIENT("LogicalNot");
TX_REGISTER_NO_GRADIENT("IsNan");
TX_REGISTER_NO_GRADIENT("IsFinite");
TX_REGISTER_NO_GRADIENT("InTopKV2");
TX_REGISTER_NO_GRADIENT("All");
TX_REGISTER_NO_GRADIENT("Any");

// Piecewise-constant math (zero gradient almost everywhere; TensorFlow returns None).
TX_REGISTER_NO_GRADIENT("Floor");
TX_REGISTER_NO_GRADIENT("Ceil");
TX_REGISTER_NO_GRADIENT("Round");
TX_REGISTER_NO_GRADIENT("FloorDiv");

// Index, shape and constructor ops.
TX_REGISTER_NO_GRADIENT("ArgMax");
TX_REGISTER_NO_GRADIENT("ArgMin");
TX_REGISTER_NO_GRADIENT("Shape");
TX_REGISTER_NO_GRADIENT("Size");
TX_REGISTER_NO_GRADIENT("Rank");
TX_REGISTER_NO_GRADIENT("Range");
TX_REGISTER_NO_GRADIENT("OneHot");
TX_REGISTER_NO_GRADIENT("Where");
TX_REGISTER_NO_GRADIENT("ZerosLike");
TX_REGISTER_NO_GRADIENT("OnesLike");

// Random draws.
TX_REGISTER_NO_GRADIENT("RandomUniform");
TX_REGISTER_NO_GRADIENT("RandomStandardNormal");
TX_REGISTER_NO_GRADIENT("TruncatedNormal");
TX_REGISTER_NO_GRADIENT("RandomUniformInt");
TX_REGISTER_NO_GRADIENT("RandomShuffle");
TX_REGISTER_NO_GRADIENT("Multinomial");
TX_REGISTER_NO_GRADIENT("StatelessRandomUniformV2");
TX_REGISTER_NO_GRADIENT("StatelessRandomNormalV2");
TX_REGISTER_NO_GRADIENT("StatelessRandomUniformIntV2");
TX_REGISTER_NO_GRADIENT("StatelessRandomUniformFullIntV2");
TX_REGISTER_NO_GRADIENT("StatelessTruncatedNormalV2");
TX_REGISTER_NO_GRADIENT("StatelessRandomGetKeyCounter");

// Assertions check values; nothing flows through them.
TX_REGISTER_NO_GRADIENT("Assert");

// Stacks carry intermediates between a While and its gradient loop; they are not differentiated.
TX_REGISTER_NO_GRADIENT("StackV2");
TX_REGISTER_NO_GRADIENT("StackPushV2");
TX_REGISTER_NO_GRADIENT("StackCloseV2");

// Bitwise ops and truncating division: integer (or piecewise-constant) results; TensorFlow
// declares them not differentiable or gives None gradients.
TX_REGISTER_NO_GRADIENT("BitwiseAnd");
TX_REGISTER_NO_GRADIENT("BitwiseOr");
TX_REGISTER_NO_GRADIENT("BitwiseXor");
TX_REGISTER_NO_GRADIENT("LeftShift");
TX_REGISTER_NO_GRADIENT("RightShift");
TX_REGISTER_NO_GRADIENT("Invert");
TX_REGISTER_NO_GRADIENT("PopulationCount");
TX_REGISTER_NO_GRADIENT("TruncateDiv");
TX_REGISTER_NO_GRADIENT("TruncateMod");

// Lookup tables: keys and values are looked up, not computed (TensorFlow: not differentiable).
TX_REGISTER_NO_GRADIENT("HashTableV2");
TX_REGISTER_NO_GRADIENT("MutableHashTableV2");
TX_REGISTER_NO_GRADIENT("LookupTableFindV2");
TX_REGISTER_NO_GRADIENT("LookupTableInsertV2");
TX_REGISTER_NO_GRADIENT("LookupTableRemoveV2");
TX_REGISTER_NO_GRADIENT("LookupTableSizeV2");
TX_REGISTER_NO_GRADIENT("LookupTableExportV2");
TX_REGISTER_NO_GRADIENT("LookupTableImportV2");
TX_REGISTER_NO_GRADIENT("InitializeTableV2");

}  // namespace tx
