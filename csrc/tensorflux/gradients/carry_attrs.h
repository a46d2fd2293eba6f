// Attrs a gradient function passes from the forward op to the op computing its gradient.
#pragma once

#include <initializer_list>

#include "tensorflux/gradients/gradient_registry.h"

namespace tx {

// The forward op's attrs named in `names` (those it has), for the op that computes its gradient.
inline AttrMap CarryAttrs(GradContext& g, std::initializer_list<const char*> names) {
  AttrMap attrs;
  for (const char* n : names) {
    auto it = g.attrs().find(n);
    if (it != g.attrs().end()) attrs[n] = it->second;
  }
  return attrs;
}

}  // namespace tx
