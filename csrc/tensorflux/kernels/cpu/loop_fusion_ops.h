// The elementwise ops the loop-fusion kernel computes, each as block functions that call the
// functor of the op's own kernel (Note [Loop fusion] in passes/loop_fusion.cc).
#pragma once

#include <cstdint>
#include <string>

namespace tx {
namespace cpu {

// z[0..n) = op(a, b) for a block; an operand in scalar form points at one value. Unary ops ignore
// b; `attr` carries a float attr (LeakyRelu's alpha). z may alias a vector operand.
template <typename T>
using FusedFn = void (*)(const T* a, const T* b, T* z, int64_t n, T attr);

// How an op's output shape follows from its inputs' shapes.
enum class FusedShapeRule : uint8_t {
  kUnary,  // the input's shape
  kBroadcast,  // NumPy broadcasting of two inputs
  kEqual,  // all inputs of one shape, which the output has (gradient ops, AddN)
};

template <typename T>
struct FusedOp {
  FusedShapeRule rule;
  int64_t cost;  // relative work per element (as the op's kernel states it)
  FusedFn<T> vv;  // every operand a vector (unary ops: the only form)
  FusedFn<T> vs = nullptr;  // b in scalar form (broadcasting ops)
  FusedFn<T> sv = nullptr;  // a in scalar form (broadcasting ops)
  const char* attr = nullptr;  // the float attr passed as `attr`, if any
  bool n_ary = false;  // AddN: one vv step per input after the first
};

// The fused form of op `op_type` on T (float or double), or nullptr when it has none.
template <typename T>
const FusedOp<T>* FindFusedOp(const std::string& op_type);

}  // namespace cpu
}  // namespace tx
