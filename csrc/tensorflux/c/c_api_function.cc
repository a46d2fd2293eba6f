// C API: functions (graph -> function, FunctionDef import/export, graph libraries, func attrs).
#include <cstring>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/framework/graph_to_function.h"

using namespace tx::capi;

namespace {

tx::Status MakeFunction(const TX_Graph* fn_body, const char* fn_name, unsigned char append_hash, int num_opers,
                        const TX_Operation* const* opers, int ninputs, const TX_Output* inputs, int noutputs,
                        const TX_Output* outputs, const char* const* output_names, int ncontrol_outputs,
                        const TX_Operation* const* control_outputs, const char* const* control_output_names,
                        const TX_FunctionOptions* opts, const char* description, TX_Function** out) {
  if (fn_body == nullptr) return tx::InvalidArgument("graph is NULL");
  if (fn_name == nullptr) return tx::InvalidArgument("function name is NULL");
  if (opts != nullptr) return tx::InvalidArgument("TX_FunctionOptions must be NULL");
  if (num_opers < -1 || (num_opers > 0 && opers == nullptr))
    return tx::InvalidArgument("num_opers must be -1 or the length of opers, got ", num_opers);
  if (ninputs < 0 || (ninputs > 0 && inputs == nullptr)) return tx::InvalidArgument("inputs are NULL or ninputs < 0");
  if (noutputs < 0 || (noutputs > 0 && outputs == nullptr))
    return tx::InvalidArgument("outputs are NULL or noutputs < 0");
  if (ncontrol_outputs < 0 || (ncontrol_outputs > 0 && control_outputs == nullptr))
    return tx::InvalidArgument("control outputs are NULL or ncontrol_outputs < 0");
  const tx::Graph& g = *fn_body->graph;
  tx::GraphToFunctionSpec spec;
  spec.name = fn_name;
  spec.append_hash = append_hash != 0;
  spec.use_body_nodes = num_opers >= 0;
  for (int i = 0; i < num_opers; ++i) {
    if (opers[i] == nullptr) return tx::InvalidArgument("operation ", i, " of the body is NULL");
    spec.body_nodes.push_back(ToNode(opers[i]));
  }
  for (int i = 0; i < ninputs; ++i) {
    TX_RETURN_IF_ERROR(CheckOutput(&g, inputs[i], "input"));
    spec.inputs.push_back({ToNode(inputs[i].oper), inputs[i].index});
  }
  for (int i = 0; i < noutputs; ++i) {
    TX_RETURN_IF_ERROR(CheckOutput(&g, outputs[i], "output"));
    spec.outputs.push_back({ToNode(outputs[i].oper), outputs[i].index});
    if (output_names != nullptr) {
      if (output_names[i] == nullptr) return tx::InvalidArgument("output name ", i, " is NULL");
      spec.output_names.push_back(output_names[i]);
    }
  }
  for (int i = 0; i < ncontrol_outputs; ++i) {
    if (control_outputs[i] == nullptr) return tx::InvalidArgument("control output ", i, " is NULL");
    spec.control_outputs.push_back(ToNode(control_outputs[i]));
    if (control_output_names != nullptr) {
      if (control_output_names[i] == nullptr) return tx::InvalidArgument("control output name ", i, " is NULL");
      spec.control_output_names.push_back(control_output_names[i]);
    }
  }
  spec.description = description ? description : "";
  auto func = std::make_unique<TX_Function>();
  TX_RETURN_IF_ERROR(tx::GraphToFunctionDef(g, spec, &func->def));
  *out = func.release();
  return tx::Status::OK();
}

}  // namespace

extern "C" {

TX_Function* TX_GraphToFunction(const TX_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name,
                                int num_opers, const TX_Operation* const* opers, int ninputs, const TX_Output* inputs,
                                int noutputs, const TX_Output* outputs, const char* const* output_names,
                                const TX_FunctionOptions* opts, const char* description, TX_Status* status) {
  return TX_GraphToFunctionWithControlOutputs(fn_body, fn_name, append_hash_to_fn_name, num_opers, opers, ninputs,
                                              inputs, noutputs, outputs, output_names, 0, nullptr, nullptr, opts,
                                              description, status);
}

TX_Function* TX_GraphToFunctionWithControlOutputs(
    const TX_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name, int num_opers,
    const TX_Operation* const* opers, int ninputs, const TX_Output* inputs, int noutputs, const TX_Output* outputs,
    const char* const* output_names, int ncontrol_outputs, const TX_Operation* const* control_outputs,
    const char* const* control_output_names, const TX_FunctionOptions* opts, const char* description,
    TX_Status* status) {
  TX_Function* out = nullptr;
  Guard(status, [&] {
    return MakeFunction(fn_body, fn_name, append_hash_to_fn_name, num_opers, opers, ninputs, inputs, noutputs, outputs,
                        output_names, ncontrol_outputs, control_outputs, control_output_names, opts, description, &out);
  });
  return out;
}

const char* TX_FunctionName(TX_Function* func) { return func ? func->def.name().c_str() : nullptr; }

void TX_FunctionToFunctionDef(TX_Function* func, TX_Buffer* output_func_def, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (func == nullptr) return tx::InvalidArgument("function is NULL");
    return FillBuffer(output_func_def, tx::SerializeFunctionDef(func->def));
  });
}

TX_Function* TX_FunctionImportFunctionDef(const void* proto, size_t proto_len, TX_Status* status) {
  TX_Function* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (proto == nullptr && proto_len > 0) return tx::InvalidArgument("proto is NULL");
    auto func = std::make_unique<TX_Function>();
    std::string_view bytes(static_cast<const char*>(proto), proto ? proto_len : 0);
    TX_RETURN_IF_ERROR(tx::ParseFunctionDef(bytes, &func->def));
    TX_RETURN_IF_ERROR(tx::ValidateFunctionDef(func->def));
    out = func.release();
    return tx::Status::OK();
  });
  return out;
}

void TX_DeleteFunction(TX_Function* func) { delete func; }

void TX_GraphCopyFunction(TX_Graph* g, const TX_Function* func, const TX_Function* grad, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (g == nullptr) return tx::InvalidArgument("graph is NULL");
    if (func == nullptr) return tx::InvalidArgument("function is NULL");
    tx::FunctionDefLibraryProto lib;
    lib.function.push_back(func->def);
    if (grad != nullptr) {
      lib.function.push_back(grad->def);
      lib.gradient.emplace_back(func->def.name(), grad->def.name());
    }
    return g->graph->library().MergeFrom(lib);
  });
}

int TX_GraphNumFunctions(TX_Graph* g) { return g ? g->graph->library().size() : 0; }

int TX_GraphGetFunctions(TX_Graph* g, TX_Function** funcs, int max_func, TX_Status* status) {
  int stored = 0;
  Guard(status, [&]() -> tx::Status {
    if (g == nullptr) return tx::InvalidArgument("graph is NULL");
    if (max_func < 0 || (max_func > 0 && funcs == nullptr)) return tx::InvalidArgument("funcs is NULL or max_func < 0");
    const tx::FunctionLibrary& lib = g->graph->library();
    for (const std::string& name : lib.Names()) {
      if (stored == max_func) break;
      std::shared_ptr<const tx::FunctionDef> def = lib.Find(name);
      if (def == nullptr) continue;
      funcs[stored++] = new TX_Function{*def};
    }
    return tx::Status::OK();
  });
  return stored;
}

void TX_OperationGetAttrFuncName(TX_Operation* oper, const char* attr_name, void* value, size_t max_length,
                                 TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (oper == nullptr) return tx::InvalidArgument("operation is NULL");
    const tx::Node* n = ToNode(oper);
    if (attr_name == nullptr) return tx::InvalidArgument(Where(n), "attr name is NULL");
    const tx::AttrValue* v = n->attr(attr_name);
    if (v == nullptr) return tx::NotFound(Where(n), "operation has no attr named '", attr_name, "'");
    if (v->kind != tx::AttrValue::Kind::kFunc || !v->func)
      return tx::InvalidArgument(Where(n), "attr '", attr_name, "' is not a func attr");
    if (max_length > 0 && value == nullptr) return tx::InvalidArgument(Where(n), "value is NULL");
    if (max_length > 0) std::memcpy(value, v->func->name.data(), std::min(max_length, v->func->name.size()));
    return tx::Status::OK();
  });
}

}  // extern "C"
