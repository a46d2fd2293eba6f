// Internal definitions behind the C API's opaque handles, plus helpers shared by the c_api_*.cc
// files. Nothing here is exported: the library is built with -fvisibility=hidden.
#pragma once

#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "tensorflux/c/c_api.h"
#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/framework/function.h"
#include "tensorflux/framework/graph.h"
#include "tensorflux/framework/graph_def_io.h"
#include "tensorflux/runtime/session.h"

struct TX_Status {
  tx::Status status;
};

struct TX_Tensor {
  tx::Tensor tensor;
};

// The caller's reference to a graph; sessions hold their own references to the tx::Graph.
struct TX_Graph {
  std::shared_ptr<tx::Graph> graph;
  // Strings returned by TX_GraphUniqueName; a deque never moves its elements.
  std::mutex names_mu;
  std::deque<std::string> unique_names;
};

// TX_Operation has no definition: a TX_Operation* is a tx::Node* (see ToNode / ToOper).

struct TX_OperationDescription {
  TX_Graph* graph = nullptr;
  tx::NodeSpec spec;
  tx::Status error;  // the first error recorded while building; reported by TX_FinishOperation
};

struct TX_ImportGraphDefOptions {
  tx::ImportOptions opts;
};

struct TX_ImportGraphDefResults {
  std::vector<TX_Output> return_outputs;
  std::vector<TX_Operation*> return_operations;
  std::vector<std::string> missing_names;
  std::vector<const char*> missing_name_ptrs;
  std::vector<int> missing_indexes;
};

struct TX_Function {
  tx::FunctionDef def;
};

struct TX_SessionOptions {
  tx::SessionOptions opts;
};

struct TX_Session {
  std::unique_ptr<tx::Session> session;
};

struct TX_Cancellation {
  tx::CancellationToken token;
};

namespace tx {
namespace capi {

inline Node* ToNode(TX_Operation* op) { return reinterpret_cast<Node*>(op); }
inline Node* ToNode(const TX_Operation* op) { return reinterpret_cast<Node*>(const_cast<TX_Operation*>(op)); }
inline TX_Operation* ToOper(Node* n) { return reinterpret_cast<TX_Operation*>(n); }
inline TX_Operation* ToOper(const Node* n) { return reinterpret_cast<TX_Operation*>(const_cast<Node*>(n)); }

// Stores `s` in `status` when `status` is non-NULL.
inline void Set(TX_Status* status, Status s) {
  if (status != nullptr) status->status = std::move(s);
}
inline void SetOk(TX_Status* status) {
  if (status != nullptr) status->status = Status::OK();
}

// Converts an exception escaping C++ code into a status (never rethrows).
inline Status FromException(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) { return ResourceExhausted("out of memory"); } catch (const std::system_error& ex) {
    // Thread creation fails with EAGAIN (thread or process limit, address space); see ThreadPool.
    if (ex.code() == std::errc::resource_unavailable_try_again || ex.code() == std::errc::not_enough_memory)
      return ResourceExhausted(ex.what());
    return Internal("unexpected exception: ", ex.what());
  } catch (const std::exception& ex) { return Internal("unexpected exception: ", ex.what()); } catch (...) {
    return Internal("unexpected exception");
  }
}

// Runs `fn` (returning Status); any exception becomes an error status.
template <typename F>
void Guard(TX_Status* status, F&& fn) {
  Status s;
  try {
    s = fn();
  } catch (...) { s = FromException(std::current_exception()); }
  Set(status, std::move(s));
}

// Runs `fn` and returns its value, or `fallback` if it throws.
template <typename R, typename F>
R GuardValue(R fallback, F&& fn) {
  try {
    return fn();
  } catch (...) { return fallback; }
}

// "[name] " for messages about a node.
inline std::string Where(const Node* n) { return "[" + n->name() + "] "; }

// Checks that `out` names an existing output of a node of `graph`.
Status CheckOutput(const Graph* graph, TX_Output out, const char* what);

// Builds a PartialShape from C arguments (num_dims -1: unknown rank; dims -1: unknown dim).
Status MakePartialShape(const int64_t* dims, int num_dims, PartialShape* out);

// Copies `bytes` into an empty caller buffer (INVALID_ARGUMENT if it already holds data).
Status FillBuffer(TX_Buffer* buf, const std::string& bytes);

// Reads a caller buffer's bytes (NULL data with zero length is an empty message).
Status BufferBytes(const TX_Buffer* buf, const char* what, std::string* out);

}  // namespace capi
}  // namespace tx
