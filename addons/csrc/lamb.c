/* AddonsResourceApplyLamb: the LAMB update (You et al. 2019, "Large Batch Optimization for Deep
 * Learning: Training BERT in 76 minutes", Algorithm 2) of one variable in two fused passes:
 *
 *     pass 1:  m = beta_1 m + (1 - beta_1) g,   v = beta_2 v + (1 - beta_2) g^2       (in place)
 *              r = m / (1 - beta_1^t) / (sqrt(v / (1 - beta_2^t)) + eps) + weight_decay * var
 *              accumulate ||var||^2 and ||r||^2
 *     pass 2:  var = var + r * ratio * -lr,   ratio = ||var|| / ||r|| (1 if either norm is 0)
 *
 * The bias corrections are applied as multiplications by their reciprocals (the composed chain
 * divides: the two agree to rounding). r is recomputed in pass 2 from the updated m and v instead of being stored. The passes run over
 * fixed chunks on the intra-op pool; each chunk's partial sums (in double) are added in chunk
 * order, so results do not depend on the thread count. Each expression's order is that of the
 * composed twin (tensorflux_addons.optimizers.lamb): both agree to rounding. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"

enum { kVar, kM, kV, kBeta1Power, kBeta2Power, kLr, kBeta1, kBeta2, kEpsilon, kWeightDecay, kGrad, kNumInputs };
static const char* const kNames[kNumInputs] = {"var",    "m",      "v",       "beta1_power",  "beta2_power", "lr",
                                               "beta_1", "beta_2", "epsilon", "weight_decay", "grad"};
enum { kMaxChunks = 256, kMinChunk = 4096 };

typedef struct {
  void* var;
  void* m;
  void* v;
  const void* grad;
  double beta1_power, beta2_power, lr, beta_1, beta_2, epsilon, weight_decay;
  double scale; /* pass 2: ratio * -lr */
  int64_t n, chunk;
  double var_sq[kMaxChunks], r_sq[kMaxChunks];
} LambWork;

/* r of element i; SQRT is sqrtf or sqrt (a float sqrt keeps the float loop vectorisable). */
#define LAMB_R(T, SQRT) (m[i] * inv_bc1) / (SQRT(v[i] * inv_bc2) + eps) + var[i] * wd

#define LAMB_PASS1(T, SQRT)                                                                          \
  do {                                                                                               \
    T* restrict var = (T*)w->var;                                                                    \
    T* restrict m = (T*)w->m;                                                                        \
    T* restrict v = (T*)w->v;                                                                        \
    const T* restrict g = (const T*)w->grad;                                                         \
    const T b1 = (T)w->beta_1, b2 = (T)w->beta_2, eps = (T)w->epsilon, wd = (T)w->weight_decay;      \
    const T one_minus_b1 = (T)1 - b1, one_minus_b2 = (T)1 - b2;                                      \
    const T inv_bc1 = (T)(1 / (1 - w->beta1_power)), inv_bc2 = (T)(1 / (1 - w->beta2_power));        \
    for (int64_t c = first; c < last; ++c) {                                                         \
      const int64_t end = (c + 1) * w->chunk < w->n ? (c + 1) * w->chunk : w->n;                     \
      double var_sq = 0, r_sq = 0;                                                                   \
      _Pragma("omp simd reduction(+ : var_sq, r_sq)") for (int64_t i = c * w->chunk; i < end; ++i) { \
        m[i] = m[i] * b1 + g[i] * one_minus_b1;                                                      \
        v[i] = v[i] * b2 + (g[i] * g[i]) * one_minus_b2;                                             \
        const T r = LAMB_R(T, SQRT);                                                                 \
        var_sq += (double)var[i] * var[i];                                                           \
        r_sq += (double)r * r;                                                                       \
      }                                                                                              \
      w->var_sq[c] = var_sq;                                                                         \
      w->r_sq[c] = r_sq;                                                                             \
    }                                                                                                \
  } while (0)

#define LAMB_PASS2(T, SQRT)                                                                        \
  do {                                                                                             \
    T* restrict var = (T*)w->var;                                                                  \
    const T* restrict m = (const T*)w->m;                                                          \
    const T* restrict v = (const T*)w->v;                                                          \
    const T eps = (T)w->epsilon, wd = (T)w->weight_decay, scale = (T)w->scale;                     \
    const T inv_bc1 = (T)(1 / (1 - w->beta1_power)), inv_bc2 = (T)(1 / (1 - w->beta2_power));      \
    const int64_t begin = first * w->chunk, end = last * w->chunk < w->n ? last * w->chunk : w->n; \
    for (int64_t i = begin; i < end; ++i) {                                                        \
      const T r = LAMB_R(T, SQRT);                                                                 \
      var[i] = var[i] + r * scale;                                                                 \
    }                                                                                              \
  } while (0)

static void Pass1Float(void* arg, int64_t first, int64_t last) {
  LambWork* w = (LambWork*)arg;
  LAMB_PASS1(float, sqrtf);
}
static void Pass1Double(void* arg, int64_t first, int64_t last) {
  LambWork* w = (LambWork*)arg;
  LAMB_PASS1(double, sqrt);
}
static void Pass2Float(void* arg, int64_t first, int64_t last) {
  LambWork* w = (LambWork*)arg;
  LAMB_PASS2(float, sqrtf);
}
static void Pass2Double(void* arg, int64_t first, int64_t last) {
  LambWork* w = (LambWork*)arg;
  LAMB_PASS2(double, sqrt);
}

static void LambCompute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  (void)state;
  const TX_PluginApi* api = txa_api;
  const TX_DataType dtype = api->KernelContextInputType(ctx, kGrad);
  LambWork work;
  memset(&work, 0, sizeof work);
  double* scalars[7] = {&work.beta1_power, &work.beta2_power, &work.lr,          &work.beta_1,
                        &work.beta_2,      &work.epsilon,     &work.weight_decay};
  for (int i = kBeta1Power; i <= kWeightDecay; ++i)
    if (!txa_read_scalar(ctx, i, kNames[i], dtype, scalars[i - kBeta1Power], status)) return;
  const int vars[3] = {kVar, kM, kV};
  TX_VariableLock* lock = api->KernelContextLockVariables(ctx, vars, 3, status);
  if (api->GetCode(status) != TX_OK) return;
  if (txa_same_as_grad(ctx, lock, 0, "var", kGrad, status) && txa_same_as_grad(ctx, lock, 1, "m", kGrad, status) &&
      txa_same_as_grad(ctx, lock, 2, "v", kGrad, status)) {
    work.var = api->VariableLockData(lock, 0);
    work.m = api->VariableLockData(lock, 1);
    work.v = api->VariableLockData(lock, 2);
    work.grad = api->KernelContextInputData(ctx, kGrad);
    work.n = api->KernelContextInputNumElements(ctx, kGrad);
    int64_t chunks = (work.n + kMinChunk - 1) / kMinChunk;
    if (chunks > kMaxChunks) chunks = kMaxChunks;
    if (chunks < 1) chunks = 1;
    work.chunk = (work.n + chunks - 1) / chunks;
    if (work.chunk < 1) work.chunk = 1;
    const int is_float = dtype == TX_FLOAT;
    api->KernelContextParallelFor(ctx, chunks, 20 * work.chunk, is_float ? Pass1Float : Pass1Double, &work);
    double var_sq = 0, r_sq = 0;
    for (int64_t c = 0; c < chunks; ++c) {
      var_sq += work.var_sq[c];
      r_sq += work.r_sq[c];
    }
    const double ratio = var_sq > 0 && r_sq > 0 ? sqrt(var_sq) / sqrt(r_sq) : 1.0;
    work.scale = ratio * -work.lr;
    api->KernelContextParallelFor(ctx, chunks, 12 * work.chunk, is_float ? Pass2Float : Pass2Double, &work);
  }
  api->ReleaseVariableLock(lock);
}

void txa_register_lamb(TX_PluginRegistrar* reg, TX_Status* status) {
  const TX_PluginApi* api = txa_api;
  TX_OpDefinitionBuilder* b = api->NewOpDefinitionBuilder("AddonsResourceApplyLamb");
  api->OpDefinitionBuilderAddAttr(b, "T: {float, double}");
  for (int i = kVar; i <= kV; ++i) {
    char spec[64];
    snprintf(spec, sizeof spec, "%s: resource", kNames[i]);
    api->OpDefinitionBuilderAddInput(b, spec);
  }
  for (int i = kBeta1Power; i < kNumInputs; ++i) {
    char spec[64];
    snprintf(spec, sizeof spec, "%s: T", kNames[i]);
    api->OpDefinitionBuilderAddInput(b, spec);
  }
  api->OpDefinitionBuilderSetIsStateful(b, 1);
  api->OpDefinitionBuilderSetSummary(b, "Updates var, m and v in place by one step of LAMB (You et al. 2019).");
  api->RegisterOpDefinition(reg, b, status);
  if (api->GetCode(status) != TX_OK) return;
  const TX_DataType types[2] = {TX_FLOAT, TX_DOUBLE};
  for (int k = 0; k < 2; ++k) {
    TX_KernelBuilder* kb = api->NewKernelBuilder("AddonsResourceApplyLamb", "CPU", NULL, LambCompute, NULL);
    api->KernelBuilderTypeConstraint(kb, "T", types[k]);
    api->RegisterKernel(reg, kb, status);
    if (api->GetCode(status) != TX_OK) return;
  }
  api->RegisterGradient(reg, "AddonsResourceApplyLamb", NULL, status);
}
