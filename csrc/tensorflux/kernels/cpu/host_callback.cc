// CPU kernel for PyFunc, PyFuncStateless and EagerPyFunc: looks up the token's host callback,
// calls it with the inputs and checks its outputs against Tout (Note [Host callbacks]).
#include <string>
#include <vector>

#include "tensorflux/runtime/host_callback.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {
namespace {

class HostCallbackOp : public OpKernel {
 public:
  explicit HostCallbackOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("token", &token_)); }

  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<HostCallbackFn> fn = HostCallbackRegistry::Global()->Lookup(token_);
    if (fn == nullptr)
      return ctx->SetStatus(InvalidArgument("[", name(), "] no host callback is registered under token '", token_,
                                            "' (the function it named was released)"));
    std::vector<Tensor> inputs;
    inputs.reserve(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) inputs.push_back(ctx->input(i));
    std::vector<Tensor> outputs(ctx->num_outputs());
    Status s = (*fn)(inputs, &outputs);
    if (!s.ok()) return ctx->SetStatus(s.WithPrefix("[" + name() + "] " + type_string() + " failed: "));
    if (static_cast<int>(outputs.size()) != ctx->num_outputs())
      return ctx->SetStatus(InvalidArgument("[", name(), "] the host function returned ", outputs.size(),
                                            " values, expected ", ctx->num_outputs(), " (Tout)"));
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      if (outputs[i].dtype() != ctx->output_type(i))
        return ctx->SetStatus(InvalidArgument("[", name(), "] the host function's value ", i, " has type ",
                                              DataTypeString(outputs[i].dtype()), ", expected ",
                                              DataTypeString(ctx->output_type(i)), " (Tout)"));
      ctx->set_output(i, std::move(outputs[i]));
    }
  }

 private:
  std::string token_;
};

TX_REGISTER_KERNEL(KernelDefBuilder("PyFunc"), HostCallbackOp);
TX_REGISTER_KERNEL(KernelDefBuilder("PyFuncStateless"), HostCallbackOp);
TX_REGISTER_KERNEL(KernelDefBuilder("EagerPyFunc"), HostCallbackOp);

}  // namespace
}  // namespace cpu
}  // namespace tx
