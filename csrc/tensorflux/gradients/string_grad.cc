// Gradients of the string, regex, file and printing ops: none flows through text (TensorFlow
// declares these ops not differentiable), except Print, which passes input 0's gradient on.
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {
namespace {

// Print is Identity on input 0 (its data inputs get no gradient).
Status PrintGrad(GradContext& g) {
  g.set_grad(0, g.grad(0));
  return Status::OK();
}

}  // namespace

TX_REGISTER_GRADIENT("Print", PrintGrad);
TX_REGISTER_NO_GRADIENT("PrintV2");
TX_REGISTER_NO_GRADIENT("StringFormat");

TX_REGISTER_NO_GRADIENT("StringJoin");
TX_REGISTER_NO_GRADIENT("StringSplitV2");
TX_REGISTER_NO_GRADIENT("StringLength");
TX_REGISTER_NO_GRADIENT("Substr");
TX_REGISTER_NO_GRADIENT("StringStrip");
TX_REGISTER_NO_GRADIENT("StringLower");
TX_REGISTER_NO_GRADIENT("StringUpper");
TX_REGISTER_NO_GRADIENT("ReduceJoin");
TX_REGISTER_NO_GRADIENT("StringToNumber");
TX_REGISTER_NO_GRADIENT("AsString");
TX_REGISTER_NO_GRADIENT("StringToHashBucketFast");
TX_REGISTER_NO_GRADIENT("StringToHashBucketStrong");
TX_REGISTER_NO_GRADIENT("StringToHashBucket");
TX_REGISTER_NO_GRADIENT("EncodeBase64");
TX_REGISTER_NO_GRADIENT("DecodeBase64");
TX_REGISTER_NO_GRADIENT("DecodeRaw");
TX_REGISTER_NO_GRADIENT("ParseExampleV2");
TX_REGISTER_NO_GRADIENT("RegexReplace");
TX_REGISTER_NO_GRADIENT("StaticRegexReplace");
TX_REGISTER_NO_GRADIENT("RegexFullMatch");
TX_REGISTER_NO_GRADIENT("StaticRegexFullMatch");
TX_REGISTER_NO_GRADIENT("ReadFile");
TX_REGISTER_NO_GRADIENT("WriteFile");

}  // namespace tx
