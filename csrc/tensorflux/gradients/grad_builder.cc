#include "tensorflux/gradients/grad_builder.h"

#include "tensorflux/framework/op_registry.h"

namespace tx {

Status GradientOpDef(const std::string& type, size_t num_groups, const OpDef** def) {
  const OpRegistration* reg = OpRegistry::Global()->LookUp(type);
  if (reg == nullptr) return Internal("a gradient function uses op ", type, ", which is not registered");
  if (num_groups != reg->def.input_arg.size())
    return Internal("a gradient function gave ", type, " ", num_groups, " input groups; its OpDef has ",
                    reg->def.input_arg.size(), " input arguments");
  *def = &reg->def;
  return Status::OK();
}

}  // namespace tx
