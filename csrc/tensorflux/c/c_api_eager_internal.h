// Internal definitions behind the eager C API's opaque handles, shared by c_api_eager.cc and
// c_api_eager_tape.cc. Nothing here is exported.
#pragma once

#include <memory>
#include <vector>

#include "tensorflux/c/c_api_eager.h"
#include "tensorflux/eager/eager_op.h"

struct TXE_ContextOptions {
  tx::EagerContextOptions opts;
};

struct TXE_Context {
  std::unique_ptr<tx::EagerContext> ctx;
};

struct TXE_TensorHandle {
  tx::EagerTensor t;
  TXE_Context* ctx = nullptr;  // NULL for handles made by TXE_NewTensorHandle (device 0 of any context)
};

struct TXE_Op {
  explicit TXE_Op(TXE_Context* c) : ctx(c), op(c->ctx.get()) {}
  TXE_Context* ctx;
  tx::EagerOp op;
  tx::Status error;  // first error of an attr setter or input, reported by TXE_Execute
  std::vector<const tx::EagerTensor*> list_scratch;
  std::vector<tx::EagerTensor> outputs;  // reused by TXE_Execute
};
