// C API: the kernel registry as serialized KernelList protos (TensorFlow's kernel_def.proto).
#include <string>
#include <vector>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/framework/proto_wire.h"
#include "tensorflux/runtime/op_kernel.h"

namespace {

// KernelList bytes of the registrations for which keep(r) holds, in registration order.
template <typename Keep>
std::string SerializeKernels(const Keep& keep) {
  tx::wire::Writer list;
  for (const tx::KernelRegistration& r : tx::KernelRegistry::Global()->All()) {
    if (!keep(r)) continue;
    tx::wire::Writer def;
    def.WriteBytesField(1, r.op);
    def.WriteBytesField(2, r.device);
    for (const auto& [attr, type] : r.type_constraints) {
      tx::wire::Writer types;  // AttrValue.ListValue: repeated DataType type = 6 (packed)
      types.WritePackedVarints(6, {static_cast<uint64_t>(type)});
      tx::wire::Writer allowed;  // AttrValue: ListValue list = 1
      allowed.WriteBytesField(1, types.data());
      tx::wire::Writer constraint;
      constraint.WriteBytesField(1, attr);
      constraint.WriteBytesField(2, allowed.data());
      def.WriteBytesField(3, constraint.data());
    }
    list.WriteBytesField(1, def.data());
  }
  return list.Release();
}

}  // namespace

extern "C" {

TX_Buffer* TX_GetAllRegisteredKernels(TX_Status* status) {
  TX_Buffer* out = nullptr;
  tx::capi::Guard(status, [&] {
    const std::string bytes = SerializeKernels([](const tx::KernelRegistration&) { return true; });
    out = TX_NewBufferFromString(bytes.data(), bytes.size());
    return tx::Status::OK();
  });
  return out;
}

TX_Buffer* TX_GetRegisteredKernelsForOp(const char* name, TX_Status* status) {
  TX_Buffer* out = nullptr;
  tx::capi::Guard(status, [&] {
    if (name == nullptr) return tx::InvalidArgument("op name is NULL");
    const std::string op(name);
    const std::string bytes = SerializeKernels([&](const tx::KernelRegistration& r) { return r.op == op; });
    out = TX_NewBufferFromString(bytes.data(), bytes.size());
    return tx::Status::OK();
  });
  return out;
}

}  // extern "C"
