// C API: gradient tapes and custom gradients (the tape section of c_api_eager.h) over tx::Tape.
#include <optional>

#include "tensorflux/c/c_api_eager.h"
#include "tensorflux/c/c_api_eager_internal.h"
#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/eager/tape.h"

using namespace tx::capi;

struct TXE_Tape {
  TXE_Context* ctx;
  std::unique_ptr<tx::Tape> tape;
};

namespace {

tx::Status CheckTape(const TXE_Tape* tape) {
  return tape == nullptr ? tx::InvalidArgument("tape is NULL") : tx::Status::OK();
}

// Reads `n` borrowed handles (`what` names the argument in errors).
tx::Status ReadHandles(TXE_TensorHandle** hs, int n, const char* what, std::vector<tx::EagerTensor>* out) {
  if (n < 0 || (n > 0 && hs == nullptr)) return tx::InvalidArgument(what, " is NULL or its count is negative");
  out->clear();
  for (int i = 0; i < n; ++i) {
    if (hs[i] == nullptr) return tx::InvalidArgument(what, "[", i, "] is NULL");
    out->push_back(hs[i]->t);
  }
  return tx::Status::OK();
}

TXE_TensorHandle* NewHandle(const tx::EagerTensor& t, TXE_Context* ctx) { return new TXE_TensorHandle{t, ctx}; }

// A custom gradient calling a C function; frees `arg` with `deleter` when the last tape drops it.
class CCustomGradient : public tx::CustomGradientFn {
 public:
  CCustomGradient(TXE_Context* ctx, TXE_CustomGradientFn fn, void* arg, void (*deleter)(void*))
      : ctx_(ctx), fn_(fn), arg_(arg), deleter_(deleter) {}
  ~CCustomGradient() override {
    if (deleter_ != nullptr) deleter_(arg_);
  }

  tx::Status Compute(tx::EagerContext*, const std::vector<const tx::EagerTensor*>& output_grads,
                     std::vector<std::optional<tx::EagerTensor>>* input_grads) override {
    std::vector<std::unique_ptr<TXE_TensorHandle>> owned;
    std::vector<TXE_TensorHandle*> dys;
    for (const tx::EagerTensor* g : output_grads) {
      if (g != nullptr) owned.emplace_back(NewHandle(*g, ctx_));
      dys.push_back(g != nullptr ? owned.back().get() : nullptr);
    }
    std::vector<TXE_TensorHandle*> dxs(input_grads->size(), nullptr);
    TX_Status status;
    fn_(arg_, dys.data(), static_cast<int>(dys.size()), dxs.data(), static_cast<int>(dxs.size()), &status);
    for (size_t j = 0; j < dxs.size(); ++j) {
      std::unique_ptr<TXE_TensorHandle> dx(dxs[j]);
      if (dx != nullptr && status.status.ok()) (*input_grads)[j] = dx->t;
    }
    return status.status;
  }

 private:
  TXE_Context* ctx_;
  TXE_CustomGradientFn fn_;
  void* arg_;
  void (*deleter_)(void*);
};

}  // namespace

TXE_Tape* TXE_NewTape(TXE_Context* ctx, unsigned char persistent, unsigned char watch_accessed_variables,
                      TX_Status* status) {
  TXE_Tape* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (ctx == nullptr) return tx::InvalidArgument("context is NULL");
    tx::TapeOptions opts;
    opts.persistent = persistent != 0;
    opts.watch_accessed_variables = watch_accessed_variables != 0;
    out = new TXE_Tape{ctx, std::make_unique<tx::Tape>(ctx->ctx.get(), opts)};
    return tx::Status::OK();
  });
  return out;
}

void TXE_DeleteTape(TXE_Tape* tape) { delete tape; }

void TXE_TapeWatch(TXE_Tape* tape, const TXE_TensorHandle* handle, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckTape(tape));
    if (handle == nullptr) return tx::InvalidArgument("TXE_TapeWatch: handle is NULL");
    tape->tape->Watch(handle->t);
    return tx::Status::OK();
  });
}

void TXE_TapeSetRecording(TXE_Tape* tape, unsigned char recording) {
  if (tape != nullptr) tape->tape->SetRecording(recording != 0);
}

unsigned char TXE_TapeIsRecording(const TXE_Tape* tape) { return tape != nullptr && tape->tape->recording() ? 1 : 0; }

void TXE_TapeGradient(TXE_Tape* tape, TXE_TensorHandle** targets, int ntargets, TXE_TensorHandle** sources,
                      int nsources, TXE_TensorHandle** output_gradients, int unconnected, TXE_TensorHandle** results,
                      TX_Status* status) {
  if (results != nullptr)
    for (int i = 0; i < nsources; ++i) results[i] = nullptr;
  Guard(status, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckTape(tape));
    if (unconnected != TX_UNCONNECTED_NONE && unconnected != TX_UNCONNECTED_ZERO)
      return tx::InvalidArgument(
          "TXE_TapeGradient: unconnected must be TX_UNCONNECTED_NONE or TX_UNCONNECTED_ZERO, got ", unconnected);
    if (nsources > 0 && results == nullptr) return tx::InvalidArgument("TXE_TapeGradient: results is NULL");
    std::vector<tx::EagerTensor> ys, xs;
    TX_RETURN_IF_ERROR(ReadHandles(targets, ntargets, "targets", &ys));
    TX_RETURN_IF_ERROR(ReadHandles(sources, nsources, "sources", &xs));
    std::vector<const tx::EagerTensor*> dys;
    if (output_gradients != nullptr)
      for (int i = 0; i < ntargets; ++i) dys.push_back(output_gradients[i] ? &output_gradients[i]->t : nullptr);
    std::vector<std::optional<tx::EagerTensor>> dxs;
    TX_RETURN_IF_ERROR(tape->tape->Gradient(ys, xs, dys, unconnected == TX_UNCONNECTED_ZERO, &dxs));
    for (int i = 0; i < nsources; ++i) results[i] = dxs[i] ? NewHandle(*dxs[i], tape->ctx) : nullptr;
    return tx::Status::OK();
  });
}

int TXE_TapeNumWatchedVariables(const TXE_Tape* tape) {
  return tape != nullptr ? static_cast<int>(tape->tape->WatchedVariables().size()) : 0;
}

TXE_TensorHandle* TXE_TapeWatchedVariable(const TXE_Tape* tape, int index, TX_Status* status) {
  TXE_TensorHandle* out = nullptr;
  Guard(status, [&]() -> tx::Status {
    TX_RETURN_IF_ERROR(CheckTape(tape));
    std::vector<tx::EagerTensor> vars = tape->tape->WatchedVariables();
    if (index < 0 || index >= static_cast<int>(vars.size()))
      return tx::InvalidArgument("TXE_TapeWatchedVariable: index ", index, " out of range [0, ", vars.size(), ")");
    out = NewHandle(vars[index], tape->ctx);
    return tx::Status::OK();
  });
  return out;
}

int64_t TXE_TensorHandleId(const TXE_TensorHandle* h) { return h != nullptr ? h->t.id : 0; }

void TXE_TapeRecordCustomGradient(TXE_Context* ctx, TXE_TensorHandle** inputs, int nin, TXE_TensorHandle** outputs,
                                  int nout, TXE_CustomGradientFn fn, void* arg, void (*deleter)(void*),
                                  TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    // Owned from here: the deleter runs when the last holder lets go (at once on error).
    auto grad = std::make_shared<CCustomGradient>(ctx, fn, arg, deleter);
    if (ctx == nullptr || fn == nullptr) return tx::InvalidArgument("TXE_TapeRecordCustomGradient: ctx or fn is NULL");
    std::vector<tx::EagerTensor> xs, ys;
    TX_RETURN_IF_ERROR(ReadHandles(inputs, nin, "inputs", &xs));
    TX_RETURN_IF_ERROR(ReadHandles(outputs, nout, "outputs", &ys));
    for (int i = 0; i < nout; ++i)
      for (int j = 0; j < nin; ++j)
        if (ys[i].id == xs[j].id)
          return tx::InvalidArgument("TXE_TapeRecordCustomGradient: outputs[", i, "] is inputs[", j,
                                     "]; an output must be a new value (pass it through Identity)");
    tx::RecordCustomGradient(ctx->ctx.get(), xs, ys, std::move(grad));
    return tx::Status::OK();
  });
}
