// Helpers for kernel and shape-function tests: build a one-op graph fed by Placeholders or
// Consts, and run the op's CPU kernel directly (no executor).
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tensorflux/core/tensor.h"
#include "tensorflux/core/thread_pool.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx_test {

// A tensor of `shape` holding `values` (row-major); aborts the test binary on a size mismatch.
template <typename T>
tx::Tensor MakeTensor(const tx::TensorShape& shape, const std::vector<T>& values) {
  tx::Tensor t;
  tx::Status s = tx::Tensor::Allocate(tx::DataTypeOf<T>::value, shape, &t);
  if (!s.ok() || static_cast<int64_t>(values.size()) != shape.num_elements()) {
    std::printf("MakeTensor: bad test tensor %s\n", shape.ToString().c_str());
    std::abort();
  }
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

// The elements of `t` as a vector (empty when t is not of type T).
template <typename T>
std::vector<T> Values(const tx::Tensor& t) {
  if (t.dtype() != tx::DataTypeOf<T>::value || !t.initialized()) return {};
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

// One input of a test node: a Placeholder of a dtype and static shape, or a Const value.
struct InputSpec {
  tx::DataType dtype = tx::DT_FLOAT;
  tx::PartialShape shape;  // for Placeholders
  tx::Tensor value;  // set for Consts
};
inline InputSpec Ph(tx::DataType dt, tx::PartialShape shape = tx::PartialShape()) { return {dt, std::move(shape), {}}; }
inline InputSpec Cst(tx::Tensor v) { return {v.dtype(), tx::PartialShape(v.shape()), v}; }

// A graph plus an intra-op pool for running single kernels.
class OpTester {
 public:
  explicit OpTester(int intra_threads = 2) : pool_(intra_threads) {}

  // Adds node "op" of type `op` with one input per spec (fresh Placeholder or Const nodes).
  tx::Status AddOp(const std::string& op, const std::vector<InputSpec>& inputs, tx::AttrMap attrs, tx::Node** node) {
    tx::NodeSpec spec;
    spec.name = graph_.UniqueName("op");
    spec.op_type = op;
    spec.attrs = std::move(attrs);
    for (const InputSpec& in : inputs) {
      tx::NodeSpec src;
      src.name = graph_.UniqueName("in");
      if (in.value.initialized()) {
        src.op_type = "Const";
        src.attrs["value"] = tx::AttrValue::FromTensor(in.value);
        src.attrs["dtype"] = tx::AttrValue::Type(in.dtype);
      } else {
        src.op_type = "Placeholder";
        src.attrs["dtype"] = tx::AttrValue::Type(in.dtype);
        src.attrs["shape"] = tx::AttrValue::Shape(in.shape);
      }
      tx::Node* n = nullptr;
      TX_RETURN_IF_ERROR(graph_.AddNode(std::move(src), &n));
      tx::NodeSpec::InputArg arg;
      arg.values.push_back({n, 0});
      spec.inputs.push_back(arg);
    }
    return graph_.AddNode(std::move(spec), node);
  }

  // Creates `node`'s CPU kernel and runs it once on `inputs`; outputs land in *outputs.
  tx::Status Run(const tx::Node* node, std::vector<tx::Tensor> inputs, std::vector<tx::Tensor>* outputs) {
    std::unique_ptr<tx::OpKernel> kernel;
    TX_RETURN_IF_ERROR(tx::KernelRegistry::Global()->CreateKernel(node, tx::kDeviceCPU, &kernel));
    outputs->assign(node->num_outputs(), tx::Tensor());
    tx::OpKernelContext ctx(node, inputs.data(), outputs->data(), &pool_);
    kernel->Compute(&ctx);
    return ctx.status();
  }

  // AddOp over Placeholders of the inputs' dtypes (unknown shapes), then Run.
  tx::Status RunOp(const std::string& op, std::vector<tx::Tensor> inputs, tx::AttrMap attrs,
                   std::vector<tx::Tensor>* outputs) {
    std::vector<InputSpec> specs;
    for (const tx::Tensor& t : inputs) specs.push_back(Ph(t.dtype()));
    tx::Node* node = nullptr;
    TX_RETURN_IF_ERROR(AddOp(op, specs, std::move(attrs), &node));
    return Run(node, std::move(inputs), outputs);
  }

  tx::Graph& graph() { return graph_; }
  tx::ThreadPool* pool() { return &pool_; }

 private:
  tx::Graph graph_;
  tx::ThreadPool pool_;
};

}  // namespace tx_test
