// Helpers shared by the string kernels: elementwise maps over DT_STRING tensors with per-element
// errors, and the out-of-memory status of a string that cannot grow.
#pragma once

#include <mutex>
#include <string_view>

#include "tensorflux/core/tstring.h"
#include "tensorflux/kernels/cpu/broadcast.h"
#include "tensorflux/kernels/cpu/kernel_util.h"

namespace tx {
namespace cpu {

// The status of a string that could not be given `bytes` bytes.
inline Status StringTooLarge(size_t bytes) {
  return ResourceExhausted("out of memory for a string of ", bytes, " bytes");
}

// Sets *dst to `s`; ResourceExhausted when out of memory.
inline Status AssignString(std::string_view s, TString* dst) {
  return dst->Assign(s) ? Status::OK() : StringTooLarge(s.size());
}

// Calls f(i) -> Status for every i < n (in parallel for large n, each costing about `cost`
// units); the status of the first failing element (the lowest index) becomes the kernel's.
template <typename F>
void ForEachElement(OpKernelContext* ctx, int64_t n, int64_t cost, const F& f) {
  std::mutex mu;
  int64_t first_bad = n;
  Status first;
  ParallelRange(ctx->intra_op_pool(), n, cost, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      Status s = f(i);
      if (!s.ok()) {
        std::lock_guard<std::mutex> l(mu);
        if (i < first_bad) {
          first_bad = i;
          first = std::move(s);
        }
        return;
      }
    }
  });
  if (first_bad < n) ctx->SetStatus(first);
}

// The bytes of scalar string input `i`; InvalidArgument(`not_scalar` + its shape) when it is not
// a scalar (each op words the message as TensorFlow does).
inline Status ScalarStringInput(const OpKernelContext* ctx, int i, const char* not_scalar, std::string_view* out) {
  TX_RETURN_IF_ERROR(CheckInput(ctx, i, DT_STRING));
  if (ctx->input(i).rank() != 0) return InvalidArgument(not_scalar, ctx->input(i).shape().ToString());
  *out = ctx->input(i).data<TString>()[0].view();
  return Status::OK();
}

// Reads the "unit" attr: true for "UTF8_CHAR" (characters), false for "BYTE".
inline bool CountsUtf8Chars(OpKernelConstruction* c) {
  std::string unit;
  c->SetStatus(c->GetAttr("unit", &unit));
  return unit == "UTF8_CHAR";
}

// Calls f(z, xi, yi) -> Status for every element z of a broadcast output with the two input
// elements it reads (ForEachElement's rules for parallelism and the first error).
template <typename F>
void ForEachBroadcast(const BroadcastPlan& plan, OpKernelContext* ctx, int64_t cost, const F& f) {
  const int r = static_cast<int>(plan.dims.size());
  ForEachElement(ctx, plan.out_shape.num_elements(), cost, [&](int64_t z) {
    int64_t rest = z, xi = 0, yi = 0;
    for (int d = r - 1; d >= 0; --d) {
      const int64_t k = rest % plan.dims[d];
      rest /= plan.dims[d];
      xi += k * plan.x_strides[d];
      yi += k * plan.y_strides[d];
    }
    return f(z, xi, yi);
  });
}

// A kernel mapping each string of input 0 to one element of output 0 (same shape):
// map(in, &out) returns a status. `Out` is the output element type (TString, int32_t, ...).
template <typename Out, typename Map>
void MapStrings(OpKernelContext* ctx, const Map& map) {
  TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, 0, DT_STRING));
  const Tensor& in = ctx->input(0);
  Tensor* out = nullptr;
  TX_CTX_RETURN_IF_ERROR(ctx, ctx->allocate_output(0, in.shape(), &out));
  const TString* s = in.data<TString>();
  Out* o = out->data<Out>();
  ForEachElement(ctx, in.num_elements(), 64, [&](int64_t i) { return map(s[i], &o[i]); });
}

}  // namespace cpu
}  // namespace tx
