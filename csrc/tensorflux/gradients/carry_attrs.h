// Attrs a gradient function passes from the forward op to an op computing its gradient.
#pragma once

#include <string>
#include <unordered_set>

#include "tensorflux/framework/op_registry.h"
#include "tensorflux/gradients/gradient_registry.h"

namespace tx {

// The forward op's attrs that op `to` declares in its OpDef, except those `to` infers from its
// inputs (type and number attrs of its input args): what the gradient op needs of the forward
// op's configuration (strides, padding, data_format, alpha, ...), read from the OpDef so no list
// is written by hand. An unregistered `to` fails the gradient scope.
inline AttrMap CarryAttrs(GradContext& g, const char* to) {
  AttrMap attrs;
  const OpRegistration* reg = OpRegistry::Global()->LookUp(to);
  if (reg == nullptr) {
    g.ops().Fail(Internal("a gradient builds ", to, ", which is not a registered op"));
    return attrs;
  }
  std::unordered_set<std::string> inferred;
  for (const ArgDef& arg : reg->def.input_arg)
    for (const std::string* a : {&arg.type_attr, &arg.number_attr, &arg.type_list_attr})
      if (!a->empty()) inferred.insert(*a);
  for (const AttrDef& def : reg->def.attr) {
    if (inferred.count(def.name)) continue;
    auto it = g.attrs().find(def.name);
    if (it != g.attrs().end()) attrs[def.name] = it->second;
  }
  return attrs;
}

}  // namespace tx
