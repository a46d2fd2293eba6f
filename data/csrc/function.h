// A traced function the engine calls: a function of its context, with captured values appended.
#ifndef TENSORFLUX_DATA_FUNCTION_H_
#define TENSORFLUX_DATA_FUNCTION_H_

#include <mutex>
#include <string>
#include <vector>

#include "engine.h"

namespace txd {

// A function registered in the engine's context (TXE_ContextAddFunctionDef), called through
// PartitionedCall with an element's components followed by its captured values. Safe to call from several threads.
class Function {
 public:
  Function(std::string name, std::vector<Tensor> captures, std::vector<TX_DataType> output_dtypes)
      : name_(std::move(name)), captures_(std::move(captures)), output_dtypes_(std::move(output_dtypes)) {}
  ~Function();
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;
  // Runs the function on `args` (borrowed); its outputs in `*outs`.
  Status Call(const std::vector<const TX_Tensor*>& args, std::vector<Tensor>* outs) const;

 private:
  // The C API objects of one call; kept after it for a later call (TXE_OpReset skips the op's
  // allocations and its kernel lookup when the signature repeats, as it does call after call).
  struct CallObjects {
    TXE_Op* op = nullptr;
    TX_Status* status = nullptr;
    bool ready = false;  // op has its type and attrs from a call that ran: only inputs change
  };
  CallObjects Take() const;
  void Give(CallObjects c) const;
  Status Run(TXE_Context* ctx, CallObjects* call, const std::vector<const TX_Tensor*>& args,
             std::vector<Tensor>* outs) const;

  std::string name_;
  std::vector<Tensor> captures_;
  std::vector<TX_DataType> output_dtypes_;
  mutable std::mutex mu_;
  mutable std::vector<CallObjects> idle_;  // one per call that ran at once, at most
};

}  // namespace txd

#endif  // TENSORFLUX_DATA_FUNCTION_H_
