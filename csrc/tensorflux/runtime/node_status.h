// How a failure of a node's kernel names the node.
#pragma once

#include <string>

#include "tensorflux/core/status.h"

namespace tx {

// `s` as runs report a failure of node `name`: prefixed "[name] " unless it already starts so.
inline Status NamedForNode(const std::string& name, const Status& s) {
  const std::string prefix = "[" + name + "]";
  return s.message().rfind(prefix, 0) == 0 ? s : s.WithPrefix(prefix + " ");
}

}  // namespace tx
