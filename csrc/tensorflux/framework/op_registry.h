// OpRegistry: every op is registered once, with its OpDef and its shape function.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/framework/op_def.h"

namespace tx {

class InferenceContext;

// Computes output shapes from input shapes, attrs and constant inputs; no device needed. A
// closure, so plugins' C shape functions fit (c/plugin_api_ops.cc).
using ShapeFn = std::function<Status(InferenceContext* c)>;

// What the registry keeps per op.
struct OpRegistration {
  OpDef def;
  ShapeFn shape_fn = nullptr;  // nullptr: outputs get unknown shapes
};

// Process-wide op registry; safe for concurrent lookups and registrations.
class OpRegistry {
 public:
  static OpRegistry* Global();

  // Adds an op; AlreadyExists if the name is taken, InvalidArgument if the OpDef is malformed.
  Status Register(std::unique_ptr<OpRegistration> reg);
  // The registration for `op_type`, or nullptr. Registrations are never removed.
  const OpRegistration* LookUp(const std::string& op_type) const;
  // All registrations, sorted by op name.
  std::vector<const OpRegistration*> All() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<OpRegistration>> ops_;
};

// Checks the references inside an OpDef (a name starting with an uppercase letter or '_', unique
// attr names, each arg typed by exactly one source, attrs named by args existing with the right kind).
Status ValidateOpDef(const OpDef& def);

// Builds an OpRegistration from TensorFlow-style spec strings:
//   Input("a: T"), Input("values: N * T"), Output("z: float"),
//   Attr("T: {float, double}"), Attr("transpose_a: bool = false"), Attr("N: int >= 1"),
//   Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'"), Attr("shape: shape = { unknown_rank: true }").
class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& SetIsDistributedCommunication();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& Summary(std::string s);
  OpDefBuilder& Description(std::string s);

  // Parses the specs; InvalidArgument naming the op and the bad spec on error.
  Status Finalize(OpRegistration* out) const;

 private:
  OpRegistration reg_;
  std::vector<std::string> inputs_, outputs_, attrs_;
};

// Registers a builder at static-initialization time; a malformed built-in op aborts with
// a message (a programming error in this library, never caused by user input).
struct OpRegistrar {
  OpRegistrar(const OpDefBuilder& b);  // NOLINT: implicit by design
};

}  // namespace tx

#define TX_OP_CONCAT_INNER(a, b) a##b
#define TX_OP_CONCAT(a, b) TX_OP_CONCAT_INNER(a, b)
// Registers an op: TX_REGISTER_OP("MatMul").Input("a: T")...;
#define TX_REGISTER_OP(name) \
  static ::tx::OpRegistrar TX_OP_CONCAT(tx_op_registrar_, __COUNTER__) = ::tx::OpDefBuilder(name)
// Registers an op from a builder expression (a helper returning an OpDefBuilder):
// TX_REGISTER_OP_FROM(UnaryOp("Exp", "..."));
#define TX_REGISTER_OP_FROM(builder) static ::tx::OpRegistrar TX_OP_CONCAT(tx_op_registrar_, __COUNTER__) = (builder)
