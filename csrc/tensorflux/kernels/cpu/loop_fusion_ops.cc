// The table of fusible elementwise ops. Built with the flags unary.cc and elementwise_grad.cc use
// (no errno, no trapping math), so the functors compile to the same code here as there.
#pragma GCC optimize("no-math-errno", "no-trapping-math")
#include "tensorflux/kernels/cpu/loop_fusion_ops.h"

#include <unordered_map>

#include "tensorflux/kernels/cpu/activation_functors.h"
#include "tensorflux/kernels/cpu/binary_op.h"
#include "tensorflux/kernels/cpu/elementwise_grad_functors.h"
#include "tensorflux/kernels/cpu/unary_functors.h"

namespace tx {
namespace cpu {
namespace {

// Unary functors with Run(x, z, n) (unary.cc's Map<> and vec_math maps).
template <typename T, typename Fn>
void RunUnary(const T* a, const T*, T* z, int64_t n, T) {
  Fn::Run(a, z, n);
}
template <typename T, typename Fn>
FusedOp<T> Unary() {
  return FusedOp<T>{FusedShapeRule::kUnary, Fn::kCost, &RunUnary<T, Fn>};
}

// Activation functors with operator()(x) (activations.cc's per-element loop).
template <typename T, typename Fn>
void RunActivation(const T* a, const T*, T* z, int64_t n, T) {
  const Fn fn;
  for (int64_t i = 0; i < n; ++i) z[i] = fn(a[i]);
}
template <typename T, typename Fn>
FusedOp<T> Activation(int64_t cost) {
  return FusedOp<T>{FusedShapeRule::kUnary, cost, &RunActivation<T, Fn>};
}
template <typename T>
void RunLeakyRelu(const T* a, const T*, T* z, int64_t n, T alpha) {
  const LeakyReluFn<T> fn{alpha};
  for (int64_t i = 0; i < n; ++i) z[i] = fn(a[i]);
}

// Broadcasting binary functors (binary_op.h's loops).
template <typename T, typename Fn>
void RunVV(const T* a, const T* b, T* z, int64_t n, T) {
  ApplyVV<T, Fn>(a, b, z, n);
}
template <typename T, typename Fn>
void RunVS(const T* a, const T* b, T* z, int64_t n, T) {
  ApplyVS<T, Fn>(a, *b, z, n);
}
template <typename T, typename Fn>
void RunSV(const T* a, const T* b, T* z, int64_t n, T) {
  ApplySV<T, Fn>(*a, b, z, n);
}
template <typename T, typename Fn>
FusedOp<T> Binary() {
  return FusedOp<T>{FusedShapeRule::kBroadcast, BinaryCost<T, Fn>(), &RunVV<T, Fn>, &RunVS<T, Fn>, &RunSV<T, Fn>};
}

// Gradient functors with Run(a, b, z, n) (elementwise_grad.cc), alpha from `attr` where they have one.
template <typename T, typename Fn>
void RunGrad(const T* a, const T* b, T* z, int64_t n, T attr) {
  Fn fn;
  if constexpr (std::is_same_v<Fn, LeakyReluGradFn>) fn.alpha = static_cast<float>(attr);
  fn.Run(a, b, z, n);
}
template <typename T, typename Fn>
FusedOp<T> Grad() {
  return FusedOp<T>{FusedShapeRule::kEqual, Fn::kCost, &RunGrad<T, Fn>};
}

template <typename T>
std::unordered_map<std::string, FusedOp<T>> MakeTable() {
  std::unordered_map<std::string, FusedOp<T>> t = {
      {"Add", Binary<T, AddFn>()},
      {"AddV2", Binary<T, AddFn>()},
      {"Sub", Binary<T, SubFn>()},
      {"Mul", Binary<T, MulFn>()},
      {"RealDiv", Binary<T, DivFn>()},
      {"Div", Binary<T, DivFn>()},
      {"FloorDiv", Binary<T, FloorDivFn>()},
      {"FloorMod", Binary<T, FloorModFn>()},
      {"Pow", Binary<T, PowFn>()},
      {"Maximum", Binary<T, MaximumFn>()},
      {"Minimum", Binary<T, MinimumFn>()},
      {"SquaredDifference", Binary<T, SquaredDifferenceFn>()},
      {"Relu", Unary<T, ReluFn>()},
      {"Neg", Unary<T, NegFn>()},
      {"Abs", Unary<T, AbsFn>()},
      {"Sign", Unary<T, SignFn>()},
      {"Square", Unary<T, SquareFn>()},
      {"Reciprocal", Unary<T, ReciprocalFn>()},
      {"Floor", Unary<T, FloorFn>()},
      {"Ceil", Unary<T, CeilFn>()},
      {"Round", Unary<T, RoundFn>()},
      {"Sqrt", Unary<T, SqrtFn>()},
      {"Rsqrt", Unary<T, RsqrtFn>()},
      {"Exp", Unary<T, ExpFn>()},
      {"Expm1", Unary<T, Expm1Fn>()},
      {"Log", Unary<T, LogFn>()},
      {"Log1p", Unary<T, Log1pFn>()},
      {"Sin", Unary<T, SinFn>()},
      {"Cos", Unary<T, CosFn>()},
      {"Tan", Unary<T, TanFn>()},
      {"Tanh", Unary<T, TanhFn>()},
      {"Sigmoid", Unary<T, SigmoidFn>()},
      {"Erf", Unary<T, ErfFn>()},
      {"Erfc", Unary<T, ErfcFn>()},
      {"Relu6", Activation<T, Relu6Fn>(1)},
      {"Elu", Activation<T, EluFn>(16)},
      {"Selu", Activation<T, SeluFn>(16)},
      {"Softplus", Activation<T, SoftplusFn>(32)},
      {"Softsign", Activation<T, SoftsignFn>(4)},
      {"ReluGrad", Grad<T, ReluGradFn>()},
      {"Relu6Grad", Grad<T, Relu6GradFn>()},
      {"LeakyReluGrad", Grad<T, LeakyReluGradFn>()},
      {"EluGrad", Grad<T, EluGradFn>()},
      {"SeluGrad", Grad<T, SeluGradFn>()},
      {"SoftplusGrad", Grad<T, SoftplusGradFn>()},
      {"SoftsignGrad", Grad<T, SoftsignGradFn>()},
      {"SigmoidGrad", Grad<T, SigmoidGradFn>()},
      {"TanhGrad", Grad<T, TanhGradFn>()},
      {"SqrtGrad", Grad<T, SqrtGradFn>()},
      {"RsqrtGrad", Grad<T, RsqrtGradFn>()},
      {"ReciprocalGrad", Grad<T, ReciprocalGradFn>()},
  };
  FusedOp<T> leaky{FusedShapeRule::kUnary, 1, &RunLeakyRelu<T>};
  leaky.attr = "alpha";
  t.emplace("LeakyRelu", leaky);
  t["LeakyReluGrad"].attr = "alpha";
  FusedOp<T> add_n{FusedShapeRule::kEqual, 1, &RunVV<T, AddFn>};  // AddN's own order: ((x0 + x1) + x2) + ...
  add_n.n_ary = true;
  t.emplace("AddN", add_n);
  return t;
}

}  // namespace

template <typename T>
const FusedOp<T>* FindFusedOp(const std::string& op_type) {
  static const auto* table = new std::unordered_map<std::string, FusedOp<T>>(MakeTable<T>());
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : &it->second;
}

template const FusedOp<float>* FindFusedOp<float>(const std::string&);
template const FusedOp<double>* FindFusedOp<double>(const std::string&);

}  // namespace cpu
}  // namespace tx
