// OpKernel: the per-(op, device, dtype) implementation of an op, instantiated once per node
// in a session's plan and then called for every run.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/cancellation.h"

namespace tx {

class ResourceMgr;

// Device type names used in kernel registrations and device requests.
inline constexpr const char* kDeviceCPU = "CPU";
inline constexpr const char* kDeviceGPU = "GPU";

// What a kernel sees while it is being constructed: the node's attrs and types.
class OpKernelConstruction {
 public:
  OpKernelConstruction(const Node* node, std::string device_type) : node_(node), device_type_(std::move(device_type)) {}

  const Node& node() const { return *node_; }
  const std::string& name() const { return node_->name(); }
  const std::string& op_type() const { return node_->op_type(); }
  const std::string& device_type() const { return device_type_; }
  int num_inputs() const { return node_->num_inputs(); }
  int num_outputs() const { return node_->num_outputs(); }
  DataType input_type(int i) const { return node_->input_type(i); }
  DataType output_type(int i) const { return node_->output_type(i); }

  // Typed attr getters; an error (naming the attr) if missing or of another kind.
  Status GetAttr(const std::string& name, bool* out) const;
  Status GetAttr(const std::string& name, int64_t* out) const;
  Status GetAttr(const std::string& name, float* out) const;
  Status GetAttr(const std::string& name, DataType* out) const;
  Status GetAttr(const std::string& name, std::string* out) const;
  Status GetAttr(const std::string& name, Tensor* out) const;
  Status GetAttr(const std::string& name, PartialShape* out) const;
  Status GetAttr(const std::string& name, std::vector<int64_t>* out) const;

  // Records a construction failure; the first one wins.
  void SetStatus(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

 private:
  const Node* node_;
  std::string device_type_;
  Status status_;
};

// What a kernel sees while it runs: inputs, output slots, the intra-op pool, a status.
class OpKernelContext {
 public:
  // `inputs` holds num_inputs tensors the kernel may read (and whose buffers it may reuse
  // when it holds the only reference); `outputs` has num_outputs empty slots to fill.
  OpKernelContext(const Node* node, Tensor* inputs, Tensor* outputs, ThreadPool* intra_op)
      : node_(node), inputs_(inputs), outputs_(outputs), intra_op_(intra_op) {}

  const std::string& name() const { return node_->name(); }
  int num_inputs() const { return node_->num_inputs(); }
  int num_outputs() const { return node_->num_outputs(); }
  const Tensor& input(int i) const { return inputs_[i]; }
  // Input `i` for a kernel that reads it no more: moved out of the context (which then reads it
  // as empty) when the caller allowed it (set_inputs_releasable: the graph executor, whose input
  // array is the kernel's alone), a copy otherwise (eager execution keeps its inputs for the
  // tape). A kernel handing its inputs to a function run uses it, so the run may hold the only
  // reference (Note [Loop variables move into the body] in kernels/cpu/control_flow.cc).
  Tensor release_input(int i) { return inputs_releasable_ ? std::move(inputs_[i]) : inputs_[i]; }
  void set_inputs_releasable(bool releasable) { inputs_releasable_ = releasable; }
  DataType output_type(int i) const { return node_->output_type(i); }

  // Allocates output `i` with the node's output dtype.
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // Reuses input `in`'s buffer for output `out` when the input is held only here, is
  // engine-owned and has the same dtype and byte size; otherwise allocates (Note [Buffer forwarding]).
  Status forward_input_or_allocate_output(int in, int out, const TensorShape& shape, Tensor** result);
  // Sets output `i` to `t` (sharing its buffer); `t` must have the node's output dtype.
  void set_output(int i, Tensor t) { outputs_[i] = std::move(t); }
  Tensor* mutable_output(int i) { return &outputs_[i]; }

  // Pool for splitting large kernels; never null.
  ThreadPool* intra_op_pool() const { return intra_op_; }
  // The inter-op pool of the running plan (call kernels run their function's plan on it), or
  // nullptr when the plan runs without one.
  ThreadPool* inter_op_pool() const { return inter_op_; }
  void set_inter_op_pool(ThreadPool* p) { inter_op_ = p; }
  // The running session's resource variables; nullptr when run outside a session.
  ResourceMgr* resource_manager() const { return resources_; }
  void set_resource_manager(ResourceMgr* r) { resources_ = r; }
  // The running run's cancellation token (Note [Cancellation]), or nullptr when it cannot be cancelled.
  const CancellationToken* cancellation() const { return cancellation_; }
  void set_cancellation(const CancellationToken* c) { cancellation_ = c; }
  // True when the run was cancelled: loop kernels check it at every iteration.
  bool cancelled() const { return cancellation_ != nullptr && cancellation_->cancelled(); }

  // Records a failure; the first one wins. Kernels return right after setting it.
  void SetStatus(const Status& s) {
    if (status_.ok()) status_ = s;
  }
  const Status& status() const { return status_; }

 private:
  const Node* node_;
  Tensor* inputs_;
  Tensor* outputs_;
  ThreadPool* intra_op_;
  ThreadPool* inter_op_ = nullptr;
  ResourceMgr* resources_ = nullptr;
  const CancellationToken* cancellation_ = nullptr;
  bool inputs_releasable_ = false;
  Status status_;
};

// Base class of all kernels. Compute may run concurrently from several threads (one session
// serving many run calls), so kernels keep no mutable per-call state in members.
class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* c) : name_(c->name()), type_(c->op_type()) {}
  virtual ~OpKernel() = default;
  virtual void Compute(OpKernelContext* ctx) = 0;
  // Expensive kernels may be dispatched to the inter-op pool; cheap ones run inline.
  virtual bool IsExpensive() const { return true; }
  const std::string& name() const { return name_; }
  const std::string& type_string() const { return type_; }

 private:
  std::string name_;
  std::string type_;
};

// Creates a kernel; report construction errors through c->SetStatus.
using KernelFactory = std::function<OpKernel*(OpKernelConstruction* c)>;

// One kernel registration: (op, device, type constraints) -> factory.
struct KernelRegistration {
  std::string op;
  std::string device;
  std::vector<std::pair<std::string, DataType>> type_constraints;  // attr name -> required type
  KernelFactory factory;
};

// Process-wide kernel registry.
class KernelRegistry {
 public:
  static KernelRegistry* Global();
  void Register(KernelRegistration reg);
  // Instantiates the kernel for `node` on `device_type`. When no registration matches, NotFound
  // says "[node] Op has no CPU kernel for half" (Note [Missing kernel message]); construction
  // errors are returned too.
  Status CreateKernel(const Node* node, const std::string& device_type, std::unique_ptr<OpKernel>* out) const;
  // True when some kernel for `node` exists on `device_type`.
  bool HasKernel(const Node* node, const std::string& device_type) const;
  // All registrations (for introspection and tests).
  std::vector<KernelRegistration> All() const;

 private:
  const KernelRegistration* Find(const Node* node, const std::string& device_type) const;
  std::string MissingKernelMessage(const Node* node, const std::string& device_type) const;
  mutable std::mutex mu_;
  // A deque: Find's pointers stay valid while plugins register more kernels (TX_LoadLibrary).
  std::deque<KernelRegistration> regs_;
};

// Fluent description of a kernel registration.
class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op) {
    reg_.op = std::move(op);
    reg_.device = kDeviceCPU;
  }
  KernelDefBuilder& Device(std::string d) {
    reg_.device = std::move(d);
    return *this;
  }
  KernelDefBuilder& TypeConstraint(std::string attr, DataType t) {
    reg_.type_constraints.emplace_back(std::move(attr), t);
    return *this;
  }
  template <typename T>
  KernelDefBuilder& TypeConstraint(std::string attr) {
    return TypeConstraint(std::move(attr), DataTypeOf<T>::value);
  }
  KernelRegistration Build(KernelFactory f) const {
    KernelRegistration r = reg_;
    r.factory = std::move(f);
    return r;
  }

 private:
  KernelRegistration reg_;
};

// Registers a kernel class at static-initialization time.
struct KernelRegistrar {
  KernelRegistrar(KernelRegistration r) { KernelRegistry::Global()->Register(std::move(r)); }  // NOLINT
};

}  // namespace tx

#define TX_KERNEL_CONCAT_INNER(a, b) a##b
#define TX_KERNEL_CONCAT(a, b) TX_KERNEL_CONCAT_INNER(a, b)
// TX_REGISTER_KERNEL(KernelDefBuilder("MatMul").TypeConstraint<float>("T"), MatMulOp<float>);
#define TX_REGISTER_KERNEL(builder, ...)                                            \
  static ::tx::KernelRegistrar TX_KERNEL_CONCAT(tx_kernel_registrar_, __COUNTER__)( \
      (builder).Build([](::tx::OpKernelConstruction* c) -> ::tx::OpKernel* { return new __VA_ARGS__(c); }))
