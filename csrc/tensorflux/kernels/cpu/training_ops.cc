// CPU kernels for the fused optimizer updates ResourceApplyGradientDescent, ResourceApplyMomentum,
// ResourceApplyAdam, ResourceApplyRMSProp and ResourceApplyAdagradV2 (TensorFlow's formulas).
// Each is one pass over the elements, split over the intra-op pool for large variables, writing
// the variables' buffers in place under their locks (Note [Variable snapshots]: copy-on-write
// when a snapshot of the old value is still held).
#include <cmath>
#include <string>
#include <vector>

#include "tensorflux/core/complex.h"
#include "tensorflux/kernels/cpu/kernel_util.h"
#include "tensorflux/kernels/cpu/resource_util.h"

namespace tx {
namespace cpu {
namespace {

// Functors: constructed from the scalar inputs in OpDef order (all inputs other than the
// variables and the gradient) and the op's bool attr kFlag; operator() updates [b, e).
template <typename T>
struct GradientDescentUpdate {
  static constexpr const char* kFlag = nullptr;
  static constexpr int kCost = 2;
  T alpha;
  GradientDescentUpdate(const T* s, bool) : alpha(s[0]) {}
  void operator()(T* const* v, const T* __restrict g, int64_t b, int64_t e) const {
    T* __restrict var = v[0];
    for (int64_t i = b; i < e; ++i) var[i] -= alpha * g[i];
  }
};

template <typename T>
struct MomentumUpdate {
  static constexpr const char* kFlag = "use_nesterov";
  static constexpr int kCost = 4;
  T lr, momentum;
  bool nesterov;
  MomentumUpdate(const T* s, bool flag) : lr(s[0]), momentum(s[1]), nesterov(flag) {}
  void operator()(T* const* v, const T* __restrict g, int64_t b, int64_t e) const {
    T* __restrict var = v[0];
    T* __restrict accum = v[1];
    if (nesterov) {
      for (int64_t i = b; i < e; ++i) {
        const T a = accum[i] * momentum + g[i];
        accum[i] = a;
        var[i] -= g[i] * lr + a * momentum * lr;
      }
    } else {
      for (int64_t i = b; i < e; ++i) {
        const T a = accum[i] * momentum + g[i];
        accum[i] = a;
        var[i] -= lr * a;
      }
    }
  }
};

template <typename T>
struct AdamUpdate {
  static constexpr const char* kFlag = "use_nesterov";
  static constexpr int kCost = 12;
  T alpha, beta1, beta2, epsilon;
  bool nesterov;
  // s: beta1_power, beta2_power, lr, beta1, beta2, epsilon.
  AdamUpdate(const T* s, bool flag)
      : alpha(s[2] * std::sqrt(T(1) - s[1]) / (T(1) - s[0])), beta1(s[3]), beta2(s[4]), epsilon(s[5]), nesterov(flag) {}
  void operator()(T* const* v, const T* __restrict g, int64_t b, int64_t e) const {
    T* __restrict var = v[0];
    T* __restrict m = v[1];
    T* __restrict vv = v[2];
    const T one_minus_b1 = T(1) - beta1, one_minus_b2 = T(1) - beta2;
    for (int64_t i = b; i < e; ++i) {
      const T gi = g[i];
      const T mi = m[i] + (gi - m[i]) * one_minus_b1;
      const T vi = vv[i] + (gi * gi - vv[i]) * one_minus_b2;
      m[i] = mi;
      vv[i] = vi;
      const T num = nesterov ? (gi * one_minus_b1 + beta1 * mi) : mi;
      var[i] -= num * alpha / (std::sqrt(vi) + epsilon);
    }
  }
};

template <typename T>
struct RMSPropUpdate {
  static constexpr const char* kFlag = nullptr;
  static constexpr int kCost = 10;
  T lr, rho, momentum, epsilon;
  // s: lr, rho, momentum, epsilon.
  RMSPropUpdate(const T* s, bool) : lr(s[0]), rho(s[1]), momentum(s[2]), epsilon(s[3]) {}
  void operator()(T* const* v, const T* __restrict g, int64_t b, int64_t e) const {
    T* __restrict var = v[0];
    T* __restrict ms = v[1];
    T* __restrict mom = v[2];
    const T one_minus_rho = T(1) - rho;
    for (int64_t i = b; i < e; ++i) {
      const T gi = g[i];
      const T msi = ms[i] + (gi * gi - ms[i]) * one_minus_rho;
      ms[i] = msi;
      const T mi = mom[i] * momentum + lr * gi / std::sqrt(msi + epsilon);
      mom[i] = mi;
      var[i] -= mi;
    }
  }
};

template <typename T>
struct AdagradV2Update {
  static constexpr const char* kFlag = "update_slots";
  static constexpr int kCost = 8;
  T lr, epsilon;
  bool update_slots;
  AdagradV2Update(const T* s, bool flag) : lr(s[0]), epsilon(s[1]), update_slots(flag) {}
  void operator()(T* const* v, const T* __restrict g, int64_t b, int64_t e) const {
    T* __restrict var = v[0];
    T* __restrict accum = v[1];
    if (update_slots)
      for (int64_t i = b; i < e; ++i) accum[i] += g[i] * g[i];
    for (int64_t i = b; i < e; ++i) var[i] -= g[i] * lr / (std::sqrt(accum[i]) + epsilon);
  }
};

constexpr int kMaxVars = 3, kMaxScalars = 6;

// The shared kernel: validates the variables (initialized, dtype T, equal shapes), the gradient
// and the scalars, then runs Update over the elements with every variable locked.
template <typename T, template <typename> class Update>
class ApplyOp : public OpKernel {
 public:
  explicit ApplyOp(OpKernelConstruction* c) : OpKernel(c) {
    if (Update<T>::kFlag != nullptr) c->SetStatus(c->GetAttr(Update<T>::kFlag, &flag_));
    const std::vector<ArgDef>& args = c->node().op_def().input_arg;
    for (int i = 0; i < static_cast<int>(args.size()); ++i) {
      if (args[i].type == DT_RESOURCE) {
        vars_.push_back(i);
      } else if (args[i].name == "grad" || args[i].name == "delta") {
        grad_ = i;
      } else {
        scalars_.push_back(i);
      }
      names_.push_back(args[i].name);
    }
    if (vars_.size() > kMaxVars || scalars_.size() > kMaxScalars || grad_ < 0)
      c->SetStatus(Internal("unexpected inputs for ", c->op_type()));
  }

  void Compute(OpKernelContext* ctx) override {
    T s[kMaxScalars];
    for (size_t k = 0; k < scalars_.size(); ++k) {
      const int i = scalars_[k];
      TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, i, DataTypeOf<T>::value));
      if (ctx->input(i).rank() != 0) {
        ctx->SetStatus(InvalidArgument(names_[i], " is not a scalar: ", ctx->input(i).shape().ToString()));
        return;
      }
      s[k] = *ctx->input(i).data<T>();
    }
    TX_CTX_RETURN_IF_ERROR(ctx, CheckInput(ctx, grad_, DataTypeOf<T>::value));
    std::vector<RefPtr<Var>> refs(vars_.size());
    std::vector<Var*> vars(vars_.size());
    std::vector<const ResourceHandle*> handles(vars_.size());
    for (size_t k = 0; k < vars_.size(); ++k) {
      TX_CTX_RETURN_IF_ERROR(ctx, LookupVar(ctx, vars_[k], &refs[k], &handles[k]));
      vars[k] = refs[k].get();
    }
    VarsLock lock(vars);
    T* slots[kMaxVars] = {nullptr, nullptr, nullptr};
    for (size_t k = 0; k < vars.size(); ++k) {
      Var* v = vars[k];
      if (!v->initialized) return ctx->SetStatus(UninitializedError(*handles[k]));
      if (v->dtype != DataTypeOf<T>::value)
        return ctx->SetStatus(InvalidArgument(names_[vars_[k]], " is a variable of dtype ", DataTypeString(v->dtype),
                                              " but T is ", DataTypeString(DataTypeOf<T>::value)));
      if (v->value.shape() != vars[0]->value.shape())
        return ctx->SetStatus(InvalidArgument(names_[vars_[0]], " and ", names_[vars_[k]],
                                              " do not have the same shape: ", vars[0]->value.shape().ToString(),
                                              " vs ", v->value.shape().ToString()));
    }
    const Tensor& grad = ctx->input(grad_);
    if (grad.shape() != vars[0]->value.shape())
      return ctx->SetStatus(InvalidArgument(names_[vars_[0]], " and ", names_[grad_], " do not have the same shape: ",
                                            vars[0]->value.shape().ToString(), " vs ", grad.shape().ToString()));
    for (size_t k = 0; k < vars.size(); ++k) { TX_CTX_RETURN_IF_ERROR(ctx, PrepareToUpdate(vars[k])); }
    for (size_t k = 0; k < vars.size(); ++k) slots[k] = vars[k]->value.template data<T>();
    const Update<T> update(s, flag_);
    const T* g = grad.data<T>();
    ParallelRange(ctx->intra_op_pool(), grad.num_elements(), Update<T>::kCost,
                  [&](int64_t b, int64_t e) { update(slots, g, b, e); });
  }

 private:
  std::vector<int> vars_, scalars_;
  std::vector<std::string> names_;
  int grad_ = -1;
  bool flag_ = false;
};

#define TX_REGISTER_APPLY(OP, UPDATE)                                                          \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<float>("T"), ApplyOp<float, UPDATE>); \
  TX_REGISTER_KERNEL(KernelDefBuilder(OP).TypeConstraint<double>("T"), ApplyOp<double, UPDATE>)
TX_REGISTER_APPLY("ResourceApplyGradientDescent", GradientDescentUpdate);
TX_REGISTER_APPLY("ResourceApplyMomentum", MomentumUpdate);
TX_REGISTER_APPLY("ResourceApplyAdam", AdamUpdate);
TX_REGISTER_APPLY("ResourceApplyRMSProp", RMSPropUpdate);
TX_REGISTER_APPLY("ResourceApplyAdagradV2", AdagradV2Update);
// Complex block: plain and momentum SGD train complex variables (the other updates take square
// roots of second moments, which TensorFlow's complex kernels define but no optimizer here uses).
TX_REGISTER_KERNEL(KernelDefBuilder("ResourceApplyGradientDescent").TypeConstraint<complex64>("T"),
                   ApplyOp<complex64, GradientDescentUpdate>);
TX_REGISTER_KERNEL(KernelDefBuilder("ResourceApplyGradientDescent").TypeConstraint<complex128>("T"),
                   ApplyOp<complex128, GradientDescentUpdate>);
TX_REGISTER_KERNEL(KernelDefBuilder("ResourceApplyMomentum").TypeConstraint<complex64>("T"),
                   ApplyOp<complex64, MomentumUpdate>);
TX_REGISTER_KERNEL(KernelDefBuilder("ResourceApplyMomentum").TypeConstraint<complex128>("T"),
                   ApplyOp<complex128, MomentumUpdate>);
#undef TX_REGISTER_APPLY

}  // namespace
}  // namespace cpu
}  // namespace tx
