// Host callbacks: functions of the embedding program (a Python callable, a Go closure) registered
// under a string token and called by the PyFunc / PyFuncStateless / EagerPyFunc kernels with the
// op's input tensors (Note [Host callbacks]).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"

namespace tx {

// Computes `outputs` from `inputs` (read-only; they share the op's input buffers). `outputs` holds
// one empty tensor per op output on entry and the callback sets each; returns the failure to
// report on the run.
using HostCallbackFn = std::function<Status(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs)>;

// Note [Host callbacks]
// The registry maps tokens to callbacks. A kernel takes a shared reference to the entry before it
// calls, so unregistering a token while a run is using it is safe: the callback (and whatever
// context it owns) is destroyed when its last call returns. Callbacks may run on any engine
// thread and concurrently; a front end with a global lock (Python's GIL) takes it inside its
// callback and releases it around the calls that may run one (session runs, eager calls).
class HostCallbackRegistry {
 public:
  static HostCallbackRegistry* Global();

  // Registers `fn` under `token`; AlreadyExists when the token is taken.
  Status Register(const std::string& token, std::shared_ptr<HostCallbackFn> fn);
  // Removes `token`'s entry; returns false when there was none.
  bool Unregister(const std::string& token);
  // The callback registered under `token`, or nullptr.
  std::shared_ptr<HostCallbackFn> Lookup(const std::string& token) const;
  // Number of registered callbacks.
  size_t size() const;
};

}  // namespace tx
