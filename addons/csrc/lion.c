/* AddonsResourceApplyLion: one fused pass of the Lion update (Chen et al. 2023, "Symbolic
 * Discovery of Optimization Algorithms", Algorithm 2) over a variable and its momentum slot:
 *
 *     c   = beta_1 * m + (1 - beta_1) * g
 *     var = var - lr * (sign(c) + weight_decay * var)
 *     m   = beta_2 * m + (1 - beta_2) * g
 *
 * written in place under the variables' locks, split over the intra-op pool. The element order of
 * each expression is that of the composed twin (tensorflux_addons.optimizers.lion), so both agree
 * to rounding. */
#include <math.h>
#include <stdint.h>

#include "plugin.h"

enum { kVar, kM, kLr, kBeta1, kBeta2, kWeightDecay, kGrad, kNumInputs };
static const char* const kNames[kNumInputs] = {"var", "m", "lr", "beta_1", "beta_2", "weight_decay", "grad"};

typedef struct {
  void* var;
  void* m;
  const void* grad;
  double lr, beta_1, beta_2, weight_decay;
} LionWork;

#define LION_LOOP(T)                                                                           \
  do {                                                                                         \
    T* restrict var = (T*)w->var;                                                              \
    T* restrict m = (T*)w->m;                                                                  \
    const T* restrict g = (const T*)w->grad;                                                   \
    const T neg_lr = -(T)w->lr, b1 = (T)w->beta_1, b2 = (T)w->beta_2, wd = (T)w->weight_decay; \
    const T one_minus_b1 = (T)1 - b1, one_minus_b2 = (T)1 - b2;                                \
    for (int64_t i = begin; i < end; ++i) {                                                    \
      const T c = m[i] * b1 + g[i] * one_minus_b1;                                             \
      const T s = (T)((c > 0) - (c < 0));                                                      \
      var[i] = var[i] + (s + var[i] * wd) * neg_lr;                                            \
      m[i] = m[i] * b2 + g[i] * one_minus_b2;                                                  \
    }                                                                                          \
  } while (0)

static void LionFloat(void* arg, int64_t begin, int64_t end) {
  const LionWork* w = (const LionWork*)arg;
  LION_LOOP(float);
}

static void LionDouble(void* arg, int64_t begin, int64_t end) {
  const LionWork* w = (const LionWork*)arg;
  LION_LOOP(double);
}

static void LionCompute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  (void)state;
  const TX_PluginApi* api = txa_api;
  const TX_DataType dtype = api->KernelContextInputType(ctx, kGrad);
  LionWork w;
  double* scalars[4] = {&w.lr, &w.beta_1, &w.beta_2, &w.weight_decay};
  for (int i = kLr; i <= kWeightDecay; ++i)
    if (!txa_read_scalar(ctx, i, kNames[i], dtype, scalars[i - kLr], status)) return;
  const int vars[2] = {kVar, kM};
  TX_VariableLock* lock = api->KernelContextLockVariables(ctx, vars, 2, status);
  if (api->GetCode(status) != TX_OK) return;
  if (txa_same_as_grad(ctx, lock, 0, "var", kGrad, status) && txa_same_as_grad(ctx, lock, 1, "m", kGrad, status)) {
    w.var = api->VariableLockData(lock, 0);
    w.m = api->VariableLockData(lock, 1);
    w.grad = api->KernelContextInputData(ctx, kGrad);
    api->KernelContextParallelFor(ctx, api->KernelContextInputNumElements(ctx, kGrad), 12,
                                  dtype == TX_FLOAT ? LionFloat : LionDouble, &w);
  }
  api->ReleaseVariableLock(lock);
}

void txa_register_lion(TX_PluginRegistrar* reg, TX_Status* status) {
  const TX_PluginApi* api = txa_api;
  TX_OpDefinitionBuilder* b = api->NewOpDefinitionBuilder("AddonsResourceApplyLion");
  api->OpDefinitionBuilderAddAttr(b, "T: {float, double}");
  api->OpDefinitionBuilderAddInput(b, "var: resource");
  api->OpDefinitionBuilderAddInput(b, "m: resource");
  api->OpDefinitionBuilderAddInput(b, "lr: T");
  api->OpDefinitionBuilderAddInput(b, "beta_1: T");
  api->OpDefinitionBuilderAddInput(b, "beta_2: T");
  api->OpDefinitionBuilderAddInput(b, "weight_decay: T");
  api->OpDefinitionBuilderAddInput(b, "grad: T");
  api->OpDefinitionBuilderSetIsStateful(b, 1);
  api->OpDefinitionBuilderSetSummary(b, "Updates var and m in place by one step of Lion (Chen et al. 2023).");
  api->RegisterOpDefinition(reg, b, status);
  if (api->GetCode(status) != TX_OK) return;
  const TX_DataType types[2] = {TX_FLOAT, TX_DOUBLE};
  for (int k = 0; k < 2; ++k) {
    TX_KernelBuilder* kb = api->NewKernelBuilder("AddonsResourceApplyLion", "CPU", NULL, LionCompute, NULL);
    api->KernelBuilderTypeConstraint(kb, "T", types[k]);
    api->RegisterKernel(reg, kb, status);
    if (api->GetCode(status) != TX_OK) return;
  }
  api->RegisterGradient(reg, "AddonsResourceApplyLion", NULL, status);
}
