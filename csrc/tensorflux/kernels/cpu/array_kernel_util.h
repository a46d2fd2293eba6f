// Helpers for the array (data movement) kernels: registration for every stored dtype, and
// reading integer index inputs.
#pragma once

#include <vector>

#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/ops/array_util.h"
#include "tensorflux/runtime/op_kernel.h"

namespace tx {
namespace cpu {

// Every dtype the engine can store; array kernels move elements, so each one is registered for
// all of them (plain copies are instantiated per element size and strings are copied as objects,
// see index_copy.h).
inline const std::vector<DataType>& AllStorageTypes() {
  static const std::vector<DataType> types = {DT_FLOAT,    DT_DOUBLE,    DT_INT32,      DT_UINT8,  DT_INT16,  DT_INT8,
                                              DT_INT64,    DT_BOOL,      DT_UINT16,     DT_UINT32, DT_UINT64, DT_HALF,
                                              DT_BFLOAT16, DT_COMPLEX64, DT_COMPLEX128, DT_STRING};
  return types;
}

// Registers `factory` for `op` on CPU once per stored dtype of type attr `attr`.
struct AllTypesRegistrar {
  AllTypesRegistrar(const char* op, const char* attr, KernelFactory factory) {
    for (DataType t : AllStorageTypes())
      KernelRegistry::Global()->Register(KernelDefBuilder(op).TypeConstraint(attr, t).Build(factory));
  }
};

// Reads input `i` (an integer tensor of rank <= `max_rank`) as int64 values.
inline Status ReadIndexInput(const OpKernelContext* ctx, int i, const char* what, int max_rank,
                             std::vector<int64_t>* out) {
  const Tensor& t = ctx->input(i);
  if (t.rank() > max_rank)
    return InvalidArgument(what, " must be ", max_rank == 0 ? "a scalar" : "1-D", ", got shape ", t.shape().ToString());
  return array_util::ReadInts(t, what, out);
}

}  // namespace cpu
}  // namespace tx

// TX_REGISTER_ARRAY_KERNEL("Transpose", TransposeOp): one CPU registration per stored dtype of T.
#define TX_REGISTER_ARRAY_KERNEL(op, ...)                                                        \
  static ::tx::cpu::AllTypesRegistrar TX_KERNEL_CONCAT(tx_array_kernel_registrar_, __COUNTER__)( \
      op, "T", [](::tx::OpKernelConstruction* c) -> ::tx::OpKernel* { return new __VA_ARGS__(c); })
