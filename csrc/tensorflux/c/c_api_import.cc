// C API: GraphDef import options and results, mapped onto tx::ImportOptions / tx::ImportResults.
// Handles given in the options are validated here, so the importer only sees nodes of the target
// graph.
#include "tensorflux/c/c_api_internal.h"

using namespace tx::capi;

namespace {

// Runs `fn` on non-NULL options; a failed allocation inside leaves the options unchanged.
template <typename F>
void Edit(TX_ImportGraphDefOptions* opts, F&& fn) {
  if (opts == nullptr) return;
  try {
    fn(opts->opts);
  } catch (...) {}
}

// Checks that every handle in the options is non-NULL and belongs to `graph`.
tx::Status CheckOptions(const tx::ImportOptions& o, const tx::Graph* graph) {
  for (const auto& kv : o.input_map) {
    const std::string src = kv.first.first + ":" + std::to_string(kv.first.second);
    TX_Output out{ToOper(kv.second.node), kv.second.index};
    TX_RETURN_IF_ERROR(CheckOutput(graph, out, ("input mapping for '" + src + "'").c_str()));
  }
  for (const auto& kv : o.control_map) {
    if (kv.second == nullptr) return tx::InvalidArgument("control mapping for '^", kv.first, "' has a NULL operation");
    if (kv.second->graph() != graph)
      return tx::InvalidArgument(Where(kv.second), "control mapping for '^", kv.first, "' belongs to another graph");
  }
  for (const tx::Node* n : o.control_dependencies) {
    if (n == nullptr) return tx::InvalidArgument("control dependency is NULL");
    if (n->graph() != graph) return tx::InvalidArgument(Where(n), "control dependency belongs to another graph");
  }
  return tx::Status::OK();
}

}  // namespace

extern "C" {

TX_ImportGraphDefOptions* TX_NewImportGraphDefOptions(void) { return new (std::nothrow) TX_ImportGraphDefOptions; }

void TX_DeleteImportGraphDefOptions(TX_ImportGraphDefOptions* opts) { delete opts; }

void TX_ImportGraphDefOptionsSetPrefix(TX_ImportGraphDefOptions* opts, const char* prefix) {
  Edit(opts, [&](tx::ImportOptions& o) { o.prefix = prefix ? prefix : ""; });
}

void TX_ImportGraphDefOptionsSetDefaultDevice(TX_ImportGraphDefOptions* opts, const char* device) {
  Edit(opts, [&](tx::ImportOptions& o) { o.default_device = device ? device : ""; });
}

void TX_ImportGraphDefOptionsSetUniquifyNames(TX_ImportGraphDefOptions* opts, unsigned char uniquify_names) {
  Edit(opts, [&](tx::ImportOptions& o) { o.uniquify_names = uniquify_names != 0; });
}

void TX_ImportGraphDefOptionsSetUniquifyPrefix(TX_ImportGraphDefOptions* opts, unsigned char uniquify_prefix) {
  Edit(opts, [&](tx::ImportOptions& o) { o.uniquify_prefix = uniquify_prefix != 0; });
}

void TX_ImportGraphDefOptionsAddInputMapping(TX_ImportGraphDefOptions* opts, const char* src_name, int src_index,
                                             TX_Output dst) {
  if (src_name == nullptr) return;
  Edit(opts,
       [&](tx::ImportOptions& o) { o.input_map[{src_name, src_index}] = tx::Endpoint{ToNode(dst.oper), dst.index}; });
}

void TX_ImportGraphDefOptionsRemapControlDependency(TX_ImportGraphDefOptions* opts, const char* src_name,
                                                    TX_Operation* dst) {
  if (src_name == nullptr) return;
  Edit(opts, [&](tx::ImportOptions& o) { o.control_map[src_name] = ToNode(dst); });
}

void TX_ImportGraphDefOptionsAddControlDependency(TX_ImportGraphDefOptions* opts, TX_Operation* oper) {
  Edit(opts, [&](tx::ImportOptions& o) { o.control_dependencies.push_back(ToNode(oper)); });
}

void TX_ImportGraphDefOptionsAddReturnOutput(TX_ImportGraphDefOptions* opts, const char* oper_name, int index) {
  if (oper_name == nullptr) return;
  Edit(opts, [&](tx::ImportOptions& o) { o.return_outputs.emplace_back(oper_name, index); });
}

int TX_ImportGraphDefOptionsNumReturnOutputs(const TX_ImportGraphDefOptions* opts) {
  return opts ? static_cast<int>(opts->opts.return_outputs.size()) : 0;
}

void TX_ImportGraphDefOptionsAddReturnOperation(TX_ImportGraphDefOptions* opts, const char* oper_name) {
  if (oper_name == nullptr) return;
  Edit(opts, [&](tx::ImportOptions& o) { o.return_operations.emplace_back(oper_name); });
}

int TX_ImportGraphDefOptionsNumReturnOperations(const TX_ImportGraphDefOptions* opts) {
  return opts ? static_cast<int>(opts->opts.return_operations.size()) : 0;
}

void TX_ImportGraphDefResultsReturnOutputs(TX_ImportGraphDefResults* results, int* num_outputs, TX_Output** outputs) {
  if (num_outputs) *num_outputs = results ? static_cast<int>(results->return_outputs.size()) : 0;
  if (outputs) *outputs = results && !results->return_outputs.empty() ? results->return_outputs.data() : nullptr;
}

void TX_ImportGraphDefResultsReturnOperations(TX_ImportGraphDefResults* results, int* num_opers,
                                              TX_Operation*** opers) {
  if (num_opers) *num_opers = results ? static_cast<int>(results->return_operations.size()) : 0;
  if (opers) *opers = results && !results->return_operations.empty() ? results->return_operations.data() : nullptr;
}

void TX_ImportGraphDefResultsMissingUnusedInputMappings(TX_ImportGraphDefResults* results, int* num_missing,
                                                        const char*** src_names, int** src_indexes) {
  const bool any = results != nullptr && !results->missing_indexes.empty();
  if (num_missing) *num_missing = any ? static_cast<int>(results->missing_indexes.size()) : 0;
  if (src_names) *src_names = any ? results->missing_name_ptrs.data() : nullptr;
  if (src_indexes) *src_indexes = any ? results->missing_indexes.data() : nullptr;
}

void TX_DeleteImportGraphDefResults(TX_ImportGraphDefResults* results) { delete results; }

TX_ImportGraphDefResults* TX_GraphImportGraphDefWithResults(TX_Graph* graph, const TX_Buffer* graph_def,
                                                            const TX_ImportGraphDefOptions* options,
                                                            TX_Status* status) {
  TX_ImportGraphDefResults* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return tx::InvalidArgument("graph is NULL");
    std::string bytes;
    TX_RETURN_IF_ERROR(BufferBytes(graph_def, "GraphDef", &bytes));
    const tx::ImportOptions defaults;
    const tx::ImportOptions& opts = options ? options->opts : defaults;
    TX_RETURN_IF_ERROR(CheckOptions(opts, graph->graph.get()));
    // Allocate everything up front: once the import succeeded nothing below may throw.
    auto results = std::make_unique<TX_ImportGraphDefResults>();
    results->return_outputs.reserve(opts.return_outputs.size());
    results->return_operations.reserve(opts.return_operations.size());
    results->missing_names.reserve(opts.input_map.size());
    results->missing_name_ptrs.reserve(opts.input_map.size());
    results->missing_indexes.reserve(opts.input_map.size());
    tx::ImportResults r;
    TX_RETURN_IF_ERROR(tx::ImportGraphDef(bytes, opts, graph->graph.get(), &r));
    for (const tx::Endpoint& e : r.return_outputs)
      results->return_outputs.push_back(TX_Output{ToOper(e.node), e.index});
    for (tx::Node* n : r.return_operations) results->return_operations.push_back(ToOper(n));
    for (auto& m : r.missing_unused_input_mappings) {
      results->missing_names.push_back(std::move(m.first));
      results->missing_indexes.push_back(m.second);
    }
    for (const std::string& s : results->missing_names) results->missing_name_ptrs.push_back(s.c_str());
    out = results.release();
    return tx::Status::OK();
  });
  return out;
}

void TX_GraphImportGraphDef(TX_Graph* graph, const TX_Buffer* graph_def, const TX_ImportGraphDefOptions* options,
                            TX_Status* status) {
  TX_DeleteImportGraphDefResults(TX_GraphImportGraphDefWithResults(graph, graph_def, options, status));
}

}  // extern "C"
