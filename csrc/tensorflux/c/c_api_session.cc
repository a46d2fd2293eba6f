// C API: session options (incl. a serialized ConfigProto) and sessions. TX_SessionRun checks
// every handle it is given, converts them to endpoints and tensors, and calls tx::Session::Run.
#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/c/c_api_profiler.h"
#include "tensorflux/core/canonical_bool.h"
#include "tensorflux/framework/proto_wire.h"
#include "tensorflux/runtime/executor.h"

using namespace tx::capi;

namespace {

// Reads GraphOptions.rewrite_options (field 10).remapping (field 14); other fields are skipped.
tx::Status ParseGraphOptions(tx::wire::Reader& r, tx::SessionOptions* o) {
  while (!r.done()) {
    int field = 0;
    tx::wire::WireType type;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &type));
    if (field != 10) {
      TX_RETURN_IF_ERROR(r.Skip(type));
      continue;
    }
    tx::wire::Reader rewrite("");
    TX_RETURN_IF_ERROR(r.ReadSubMessage(type, &rewrite));
    while (!rewrite.done()) {
      TX_RETURN_IF_ERROR(rewrite.ReadTag(&field, &type));
      TX_RETURN_IF_ERROR(field == 14 ? rewrite.ReadInt32(type, &o->remapping) : rewrite.Skip(type));
    }
  }
  return tx::Status::OK();
}

// Reads the ConfigProto fields the engine uses; other fields are skipped.
tx::Status ParseConfig(const std::string& bytes, tx::SessionOptions* out) {
  tx::SessionOptions o = *out;
  tx::wire::Reader r(bytes);
  while (!r.done()) {
    int field = 0;
    tx::wire::WireType type;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &type));
    if (field == 2 || field == 5) {  // intra_op_parallelism_threads, inter_op_parallelism_threads
      int32_t v = 0;
      TX_RETURN_IF_ERROR(r.ReadInt32(type, &v));
      if (v < 0)
        return tx::InvalidArgument(field == 2 ? "intra" : "inter", "_op_parallelism_threads must be >= 0, got ", v);
      (field == 2 ? o.intra_op_threads : o.inter_op_threads) = v;
    } else if (field == 7) {  // allow_soft_placement
      bool v = false;
      TX_RETURN_IF_ERROR(r.ReadBool(type, &v));
      o.allow_soft_placement = v;
    } else if (field == 10) {  // graph_options
      tx::wire::Reader graph("");
      TX_RETURN_IF_ERROR(r.ReadSubMessage(type, &graph));
      TX_RETURN_IF_ERROR(ParseGraphOptions(graph, &o));
    } else {
      TX_RETURN_IF_ERROR(r.Skip(type));
    }
  }
  *out = o;
  return tx::Status::OK();
}

// Reads the RunOptions fields the engine uses (trace_level, field 1; timeout_in_ms, field 2);
// other fields are skipped.
tx::Status ReadRunOptions(const std::string& bytes, tx::RunOptions* out) {
  tx::wire::Reader r(bytes);
  while (!r.done()) {
    int field = 0;
    tx::wire::WireType type;
    TX_RETURN_IF_ERROR(r.ReadTag(&field, &type));
    if (field == 1) {
      int32_t level = 0;
      TX_RETURN_IF_ERROR(r.ReadInt32(type, &level));
      out->trace_level = level;
    } else {
      TX_RETURN_IF_ERROR(field == 2 ? r.ReadInt64(type, &out->timeout_in_ms) : r.Skip(type));
    }
  }
  return tx::Status::OK();
}

// Parses the run_options buffer of TX_SessionRun (NULL or empty: defaults); INVALID_ARGUMENT when malformed.
tx::Status ParseRunOptions(const TX_Buffer* buf, tx::RunOptions* out) {
  if (buf == nullptr || buf->length == 0) return tx::Status::OK();
  if (buf->data == nullptr) return tx::InvalidArgument("invalid RunOptions: the buffer's data is NULL");
  const std::string bytes(static_cast<const char*>(buf->data), buf->length);  // outlives the reader
  tx::Status s = ReadRunOptions(bytes, out);
  return s.ok() ? s : tx::InvalidArgument("invalid RunOptions: ", s.message());
}

// Checks an endpoint given to TX_SessionRun and converts it.
tx::Status ToEndpoint(const tx::Graph* graph, TX_Output out, const std::string& what, tx::Endpoint* e) {
  TX_RETURN_IF_ERROR(CheckOutput(graph, out, what.c_str()));
  *e = tx::Endpoint{ToNode(out.oper), out.index};
  return tx::Status::OK();
}

tx::Status Run(TX_Session* session, const TX_Buffer* run_options, TX_Cancellation* cancellation,
               const TX_Output* inputs, TX_Tensor* const* input_values, int ninputs, const TX_Output* outputs,
               TX_Tensor** output_values, int noutputs, const TX_Operation* const* target_opers, int ntargets,
               TX_Buffer* run_metadata) {
  if (session == nullptr) return tx::InvalidArgument("session is NULL");
  if (ninputs < 0 || noutputs < 0 || ntargets < 0)
    return tx::InvalidArgument("negative count of inputs, outputs or targets");
  if (ninputs > 0 && (inputs == nullptr || input_values == nullptr))
    return tx::InvalidArgument("inputs or input_values is NULL");
  if (noutputs > 0 && (outputs == nullptr || output_values == nullptr))
    return tx::InvalidArgument("outputs or output_values is NULL");
  if (ntargets > 0 && target_opers == nullptr) return tx::InvalidArgument("target_opers is NULL");
  const tx::Graph* graph = session->session->graph().get();
  tx::RunOptions run_opts;
  TX_RETURN_IF_ERROR(ParseRunOptions(run_options, &run_opts));

  std::vector<std::pair<tx::Endpoint, tx::Tensor>> feeds(static_cast<size_t>(ninputs));
  for (int i = 0; i < ninputs; ++i) {
    TX_RETURN_IF_ERROR(ToEndpoint(graph, inputs[i], "feed " + std::to_string(i), &feeds[i].first));
    if (input_values[i] == nullptr)
      return tx::InvalidArgument(Where(feeds[i].first.node), "value fed to output ", inputs[i].index, " is NULL");
    // Note [Canonical bool]: a fed bool buffer with bytes other than 0/1 is read through a copy.
    TX_RETURN_IF_ERROR(tx::AdoptCallerTensor(input_values[i]->tensor, &feeds[i].second));
  }
  std::vector<tx::Endpoint> fetches(static_cast<size_t>(noutputs));
  for (int i = 0; i < noutputs; ++i)
    TX_RETURN_IF_ERROR(ToEndpoint(graph, outputs[i], "fetch " + std::to_string(i), &fetches[i]));
  std::vector<tx::Node*> targets(static_cast<size_t>(ntargets));
  for (int i = 0; i < ntargets; ++i) {
    if (target_opers[i] == nullptr) return tx::InvalidArgument("target ", i, " is NULL");
    targets[i] = ToNode(target_opers[i]);
    if (targets[i]->graph() != graph) return tx::InvalidArgument(Where(targets[i]), "target belongs to another graph");
  }

  const bool traced = run_metadata != nullptr && run_opts.trace_level > 0;
  if (traced && run_metadata->data != nullptr)
    return tx::InvalidArgument("run_metadata must be an empty buffer (from TX_NewBuffer)");
  std::vector<tx::Tensor> results;
  std::string metadata;
  tx::Status s = session->session->Run(feeds, fetches, targets, &results, run_opts,
                                       cancellation != nullptr ? &cancellation->token : nullptr, &metadata);
  // A traced run's step stats come back also when it failed: they show how far it got.
  if (traced && !metadata.empty()) TX_RETURN_IF_ERROR(FillBuffer(run_metadata, metadata));
  TX_RETURN_IF_ERROR(s);
  if (results.size() != fetches.size())
    return tx::Internal("session returned ", results.size(), " tensors for ", fetches.size(), " fetches");
  // Wrap all results before handing any out, so a failed allocation leaves every output NULL.
  std::vector<std::unique_ptr<TX_Tensor>> wrapped;
  wrapped.reserve(results.size());
  for (tx::Tensor& t : results) wrapped.push_back(std::unique_ptr<TX_Tensor>(new TX_Tensor{std::move(t)}));
  for (int i = 0; i < noutputs; ++i) output_values[i] = wrapped[i].release();
  return tx::Status::OK();
}

}  // namespace

extern "C" {

TX_SessionOptions* TX_NewSessionOptions(void) { return new (std::nothrow) TX_SessionOptions; }

void TX_DeleteSessionOptions(TX_SessionOptions* opts) { delete opts; }

namespace {

// OK when `name` is an option TX_SetOptimizerOption knows.
tx::Status CheckOptimizerOption(const char* name) {
  if (name != nullptr && std::string(name) == "remapping") return tx::Status::OK();
  return tx::InvalidArgument("unknown optimizer option '", name != nullptr ? name : "(null)",
                             "'; the option is 'remapping'");
}

}  // namespace

void TX_SetOptimizerOption(const char* name, unsigned char enabled, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckOptimizerOption(name));
    tx::SetRemappingDefault(enabled != 0);
    return tx::Status::OK();
  });
}

unsigned char TX_GetOptimizerOption(const char* name, TX_Status* status) {
  unsigned char out = 0;
  Guard(status, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckOptimizerOption(name));
    out = tx::RemappingDefault() ? 1 : 0;
    return tx::Status::OK();
  });
  return out;
}

void TX_SetConfig(TX_SessionOptions* opts, const void* proto, size_t proto_len, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (opts == nullptr) return tx::InvalidArgument("session options are NULL");
    if (proto == nullptr && proto_len > 0) return tx::InvalidArgument("ConfigProto bytes are NULL");
    std::string bytes(static_cast<const char*>(proto), proto ? proto_len : 0);
    return ParseConfig(bytes, &opts->opts).WithPrefix("invalid ConfigProto: ");
  });
}

// Negative thread counts (no status to report them) are treated as 0, one per core.
void TX_SessionOptionsSetInterOpThreads(TX_SessionOptions* opts, int num_threads) {
  if (opts != nullptr) opts->opts.inter_op_threads = num_threads < 0 ? 0 : num_threads;
}

void TX_SessionOptionsSetIntraOpThreads(TX_SessionOptions* opts, int num_threads) {
  if (opts != nullptr) opts->opts.intra_op_threads = num_threads < 0 ? 0 : num_threads;
}

TX_Session* TX_NewSession(TX_Graph* graph, const TX_SessionOptions* opts, TX_Status* status) {
  TX_Session* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (graph == nullptr) return tx::InvalidArgument("graph is NULL");
    const tx::SessionOptions defaults;
    auto s = std::make_unique<TX_Session>();
    s->session = std::make_unique<tx::Session>(graph->graph, opts ? opts->opts : defaults);
    out = s.release();
    return tx::Status::OK();
  });
  return out;
}

void TX_SessionRun(TX_Session* session, const TX_Buffer* run_options, const TX_Output* inputs,
                   TX_Tensor* const* input_values, int ninputs, const TX_Output* outputs, TX_Tensor** output_values,
                   int noutputs, const TX_Operation* const* target_opers, int ntargets, TX_Buffer* run_metadata,
                   TX_Status* status) {
  if (output_values != nullptr)
    for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  Guard(status, [&] {
    return Run(session, run_options, nullptr, inputs, input_values, ninputs, outputs, output_values, noutputs,
               target_opers, ntargets, run_metadata);
  });
}

void TX_SessionRunWithCancellation(TX_Session* session, const TX_Buffer* run_options, TX_Cancellation* cancellation,
                                   const TX_Output* inputs, TX_Tensor* const* input_values, int ninputs,
                                   const TX_Output* outputs, TX_Tensor** output_values, int noutputs,
                                   const TX_Operation* const* target_opers, int ntargets, TX_Buffer* run_metadata,
                                   TX_Status* status) {
  if (output_values != nullptr)
    for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  Guard(status, [&] {
    return Run(session, run_options, cancellation, inputs, input_values, ninputs, outputs, output_values, noutputs,
               target_opers, ntargets, run_metadata);
  });
}

TX_Cancellation* TX_NewCancellation(void) { return new (std::nothrow) TX_Cancellation; }

void TX_DeleteCancellation(TX_Cancellation* cancellation) { delete cancellation; }

void TX_Cancel(TX_Cancellation* cancellation) {
  if (cancellation != nullptr) cancellation->token.Cancel(tx::CancellationToken::kCancelled);
}

void TX_ResetCancellation(TX_Cancellation* cancellation) {
  if (cancellation != nullptr) cancellation->token.Reset();
}

unsigned char TX_CancellationIsCancelled(const TX_Cancellation* cancellation) {
  return cancellation != nullptr && cancellation->token.cancelled() ? 1 : 0;
}

void TX_CloseSession(TX_Session* session, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (session == nullptr) return tx::InvalidArgument("session is NULL");
    return session->session->Close();
  });
}

void TX_DeleteSession(TX_Session* session, TX_Status* status) {
  if (session == nullptr) {
    SetOk(status);
    return;
  }
  Guard(status, [&] { return session->session->Close(); });
  delete session;
}

}  // extern "C"
