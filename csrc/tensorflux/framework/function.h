// Functions: TensorFlow's FunctionDef (a named, typed graph body) and the FunctionLibrary a
// Graph owns. Call ops (PartitionedCall, StatefulPartitionedCall) run a library function as
// one node; the kernels live in kernels/cpu/function.cc, instantiation in
// function_instantiate.cc, the conversion from a graph in graph_to_function.cc.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/attr_value.h"
#include "tensorflux/framework/op_def.h"
#include "tensorflux/framework/proto_codec.h"

namespace tx {

struct FunctionBody;

// A function, field for field TensorFlow's FunctionDef proto (Note [Function body naming]).
struct FunctionDef {
  // name, input_arg / output_arg (the function's typed arguments), attr (the attrs a caller
  // binds: "$T"-style placeholders in the body), description, is_stateful, control_output.
  OpDef signature;
  AttrMap attr;  // attrs of the function itself (field 5)
  std::map<uint32_t, AttrMap> arg_attr;  // per input index (field 7)
  std::map<uint32_t, uint32_t> resource_arg_unique_id;  // field 8
  std::vector<codec::NodeDefProto> node_def;  // the body
  std::map<std::string, std::string> ret;  // output arg name -> "node:out_arg:index" or an input arg name
  std::map<std::string, std::string> control_ret;  // control output name -> body node name

  const std::string& name() const { return signature.name; }
};

// Note [Function body naming]
// A body NodeDef names its inputs as TensorFlow's function bodies do: a bare name is a function
// input argument ("x"), "node:out_arg:k" is element k of output argument `out_arg` of body node
// `node` (e.g. "mul:z:0", "split:output:1"), "^node" a control input. `ret` maps each output
// argument to such a tensor name (or to an input argument, for pass-through outputs) and
// `control_ret` names body nodes that must run even when no output depends on them.

// One input or ret string of a body, parsed: "^node" (control), "node:out_arg:k", "name" or
// "name:k" (an input argument, or output 0 / k of a node in graph naming).
struct FunctionTensorRef {
  std::string node;  // node or argument name
  std::string output_arg;  // empty for the one- and two-part forms
  int index = 0;
  bool control = false;
};
// Parses `s`; InvalidArgument when malformed.
Status ParseFunctionTensorRef(const std::string& s, FunctionTensorRef* out);

// Decodes a serialized FunctionDef; InvalidArgument/DataLoss naming the function on bad input.
Status ParseFunctionDef(std::string_view bytes, FunctionDef* out);
// Serializes `f` canonically: fields in number order, map entries sorted by key (TensorFlow's
// deterministic serialization), so equal functions serialize to equal bytes.
std::string SerializeFunctionDef(const FunctionDef& f);
// Checks the structure of `f`: a valid name, unique argument and node names, resolvable body
// inputs, ret entries for exactly the output args, control_ret naming body nodes.
Status ValidateFunctionDef(const FunctionDef& f);

// A FunctionDefLibrary decoded: functions in order, and GradientDef (function -> gradient).
struct FunctionDefLibraryProto {
  std::vector<FunctionDef> function;
  std::vector<std::pair<std::string, std::string>> gradient;
};
Status ParseFunctionDefLibrary(std::string_view bytes, FunctionDefLibraryProto* out);

// The functions a Graph may call, by name. Thread-safe. Functions are immutable once added:
// adding a different body under a taken name fails, adding an identical one does nothing, so a
// name always means one body and anything derived from it can be cached (Note [Library caches]).
class FunctionLibrary {
 public:
  FunctionLibrary() = default;
  FunctionLibrary(const FunctionLibrary&) = delete;
  FunctionLibrary& operator=(const FunctionLibrary&) = delete;

  // Validates and adds `f`; InvalidArgument when a different function already has its name
  // (or when the name is a registered op type); OK and no change when an equal one is there.
  Status Add(FunctionDef f);
  // Records `grad` as the gradient function of `fn` (TensorFlow's GradientDef); both names are
  // free-form until used; InvalidArgument when `fn` already has another gradient.
  Status AddGradient(const std::string& fn, const std::string& grad);
  // Adds every function and gradient of `other` (all or nothing); InvalidArgument naming the
  // first conflict. `added` (may be null) receives what was new, for Remove.
  struct Added {
    std::vector<std::string> functions, gradients;
  };
  Status MergeFrom(const FunctionDefLibraryProto& other, Added* added = nullptr);
  // Removes what a MergeFrom added (functions, gradient entries) and empties the body cache. Only a
  // failed ImportGraphDef uses this, before any node has called the functions.
  void Remove(const Added& added);

  // Removes function `name`, its gradient entry and the bodies instantiated from it (kernels keep
  // the bodies they hold); NotFound when absent. Functions that call it must be removed first.
  Status RemoveFunction(const std::string& name);
  // Empties the body cache (Note [Library caches]); kernels keep the bodies they hold.
  void ClearBodies();

  // The function named `name`, or nullptr.
  std::shared_ptr<const FunctionDef> Find(const std::string& name) const;
  // The gradient function recorded for `fn`, or "".
  std::string FindGradient(const std::string& fn) const;
  // Number of functions, and their names in sorted order.
  int size() const;
  std::vector<std::string> Names() const;
  // Serialized FunctionDefLibrary (functions sorted by name, then gradients); "" when empty.
  std::string Serialize() const;

  // The instantiated body cached under `key` (Note [Library caches]), or nullptr.
  std::shared_ptr<const FunctionBody> FindBody(const std::string& key) const;
  // Caches `body` under `key` unless a body is already there; returns the cached one.
  std::shared_ptr<const FunctionBody> AddBody(const std::string& key, std::shared_ptr<const FunctionBody> body);

 private:
  Status CheckAddable(const FunctionDef& f, const std::string& bytes) const;  // under mu_

  mutable std::mutex mu_;
  struct Entry {
    std::shared_ptr<const FunctionDef> def;
    std::string bytes;  // canonical serialization, for equality checks
  };
  std::map<std::string, Entry> functions_;
  std::map<std::string, std::string> gradients_;
  std::map<std::string, std::shared_ptr<const FunctionBody>> bodies_;
};

// Note [Library caches]
// Because a library entry never changes, results derived from a (name, attrs, input shapes) key
// stay valid for the library's lifetime: GetFunctionBody (function_instantiate.h) caches
// instantiated bodies here (FindBody/AddBody), the call op's shape function and its kernel share
// one body, and each call kernel builds its plan once. A body graph borrows the library through a
// non-owning pointer: the library owns the cache, so it outlives every cached body, and a
// library -> body -> library cycle of owning pointers never forms. The one removal (a failed
// import taking its functions out again) empties the cache.

// 64-bit FNV-1a of `bytes` (stable across runs and platforms; used for generated names).
uint64_t Fingerprint64(std::string_view bytes);

}  // namespace tx
