// A traced function the engine calls: a function of its context, with captured values appended.
#ifndef TENSORFLUX_DATA_FUNCTION_H_
#define TENSORFLUX_DATA_FUNCTION_H_

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
  // Runs the function on `args` (borrowed); its outputs in `*outs`.
  Status Call(const std::vector<const TX_Tensor*>& args, std::vector<Tensor>* outs) const;

 private:
  std::string name_;
  std::vector<Tensor> captures_;
  std::vector<TX_DataType> output_dtypes_;
};

}  // namespace txd

#endif  // TENSORFLUX_DATA_FUNCTION_H_
