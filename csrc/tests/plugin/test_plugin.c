/* The plugin the tests load (C, Python, Go): a few small ops covering the whole plugin ABI.
 *
 *  PluginScaledSquare  y = scale * x^2 (T in {float, double}, scale: float = 1.0); kernel forwards
 *                      its input buffer and splits work on the intra-op pool; shape: x's; gradient
 *                      dx = dy * 2 * scale * x.
 *  PluginRepeat        y = x repeated `count` times (x 1-D, count a scalar int32); the shape
 *                      function reads the constant `count`; gradient sums dy's `count` blocks.
 *  PluginAccumulate    var += delta for a resource variable (locked, updated in place); stateful,
 *                      declared not differentiable.
 *  PluginBytesIdentity y = x for float x, its OpDef given as serialized bytes; output is the input.
 *  PluginFaulty        y = x, or the failure its `mode` attr asks for: "status" (the kernel sets an
 *                      error), "wrong_shape" (output one element longer than the shape function
 *                      says), "no_output", "shape_error" (the shape function fails).
 *
 * Built with only the public headers; links nothing from Tensorflux. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflux/c/c_api_plugin.h"

static const TX_PluginApi* api;

/* Stops the calling function when `status` holds an error. */
#define RETURN_IF_ERROR(status)                \
  do {                                         \
    if (api->GetCode(status) != TX_OK) return; \
  } while (0)

/* Shape functions ------------------------------------------------------------------------------ */

/* Output 0 has input 0's shape. */
static void SameShape(TX_ShapeInferenceContext* ctx, TX_Status* status) {
  int64_t dims[16];
  int rank = api->ShapeContextInputRank(ctx, 0);
  if (rank > 16) {
    api->SetStatus(status, TX_INVALID_ARGUMENT, "rank above 16 is not supported");
    return;
  }
  for (int d = 0; d < rank; ++d) dims[d] = api->ShapeContextInputDim(ctx, 0, d);
  api->ShapeContextSetOutput(ctx, 0, dims, rank, status);
}

/* y = [x's length * count]; x must be 1-D; count must be a non-negative scalar. */
static void RepeatShape(TX_ShapeInferenceContext* ctx, TX_Status* status) {
  int rank = api->ShapeContextInputRank(ctx, 0);
  if (rank != -1 && rank != 1) {
    char msg[96];
    snprintf(msg, sizeof msg, "PluginRepeat needs a 1-D x, got rank %d", rank);
    api->SetStatus(status, TX_INVALID_ARGUMENT, msg);
    return;
  }
  int64_t out = -1;
  TX_DataType dt;
  int64_t n = 0;
  const void* count = api->ShapeContextInputConstant(ctx, 1, &dt, &n);
  if (count != NULL && dt == TX_INT32 && n == 1) {
    int32_t c = *(const int32_t*)count;
    if (c < 0) {
      api->SetStatus(status, TX_INVALID_ARGUMENT, "PluginRepeat needs count >= 0");
      return;
    }
    int64_t len = rank == 1 ? api->ShapeContextInputDim(ctx, 0, 0) : -1;
    out = len < 0 ? -1 : len * c;
  }
  api->ShapeContextSetOutput(ctx, 0, &out, 1, status);
}

/* PluginFaulty: x's shape, unless mode is "shape_error". */
static void FaultyShape(TX_ShapeInferenceContext* ctx, TX_Status* status) {
  const char* mode;
  size_t len;
  api->AttrsGetString(api->ShapeContextAttrs(ctx), "mode", &mode, &len, status);
  RETURN_IF_ERROR(status);
  if (len == 11 && memcmp(mode, "shape_error", 11) == 0) {
    api->SetStatus(status, TX_INVALID_ARGUMENT, "PluginFaulty was asked to fail shape inference");
    return;
  }
  SameShape(ctx, status);
}

/* Kernels -------------------------------------------------------------------------------------- */

/* The kernel state of PluginScaledSquare: the scale attr, read once at construction. */
typedef struct {
  float scale;
} ScaledSquareState;

static void* ScaledSquareCreate(TX_OpKernelConstruction* ctx, TX_Status* status) {
  ScaledSquareState* s = (ScaledSquareState*)malloc(sizeof *s);
  if (s == NULL) {
    api->SetStatus(status, TX_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  api->AttrsGetFloat(api->KernelConstructionAttrs(ctx), "scale", &s->scale, status);
  return s;
}

static void ScaledSquareDelete(void* state) { free(state); }

typedef struct {
  const void* x;
  void* y;
  double scale;
  TX_DataType dtype;
} ScaledSquareWork;

static void ScaledSquareRange(void* arg, int64_t begin, int64_t end) {
  const ScaledSquareWork* w = (const ScaledSquareWork*)arg;
  if (w->dtype == TX_FLOAT) {
    const float* x = (const float*)w->x;
    float* y = (float*)w->y;
    const float scale = (float)w->scale;
    for (int64_t i = begin; i < end; ++i) y[i] = scale * x[i] * x[i];
  } else {
    const double* x = (const double*)w->x;
    double* y = (double*)w->y;
    for (int64_t i = begin; i < end; ++i) y[i] = w->scale * x[i] * x[i];
  }
}

static void ScaledSquareCompute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  int64_t dims[16];
  int rank = api->KernelContextInputNumDims(ctx, 0);
  if (rank > 16) {
    api->SetStatus(status, TX_INVALID_ARGUMENT, "rank above 16 is not supported");
    return;
  }
  for (int d = 0; d < rank; ++d) dims[d] = api->KernelContextInputDim(ctx, 0, d);
  ScaledSquareWork w;
  w.x = api->KernelContextInputData(ctx, 0);
  w.dtype = api->KernelContextInputType(ctx, 0);
  w.scale = ((const ScaledSquareState*)state)->scale;
  w.y = api->KernelContextForwardInputOrAllocateOutput(ctx, 0, 0, dims, rank, status);
  RETURN_IF_ERROR(status);
  api->KernelContextParallelFor(ctx, api->KernelContextInputNumElements(ctx, 0), 4, ScaledSquareRange, &w);
}

static void RepeatCompute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  (void)state;
  if (api->KernelContextInputNumDims(ctx, 0) != 1 || api->KernelContextInputNumDims(ctx, 1) != 0) {
    api->SetStatus(status, TX_INVALID_ARGUMENT, "PluginRepeat needs a 1-D x and a scalar count");
    return;
  }
  const int32_t count = *(const int32_t*)api->KernelContextInputData(ctx, 1);
  if (count < 0) {
    api->SetStatus(status, TX_INVALID_ARGUMENT, "PluginRepeat needs count >= 0");
    return;
  }
  const int64_t n = api->KernelContextInputDim(ctx, 0, 0);
  const int64_t out_len = n * count;
  char* y = (char*)api->KernelContextAllocateOutput(ctx, 0, &out_len, 1, status);
  RETURN_IF_ERROR(status);
  const size_t bytes = (size_t)n * (api->KernelContextInputType(ctx, 0) == TX_DOUBLE ? 8 : 4);
  for (int32_t k = 0; k < count; ++k) memcpy(y + k * bytes, api->KernelContextInputData(ctx, 0), bytes);
}

static void AccumulateCompute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  (void)state;
  const int var_input = 0;
  TX_VariableLock* lock = api->KernelContextLockVariables(ctx, &var_input, 1, status);
  RETURN_IF_ERROR(status);
  const int64_t n = api->VariableLockNumElements(lock, 0);
  if (api->VariableLockType(lock, 0) != api->KernelContextInputType(ctx, 1) ||
      n != api->KernelContextInputNumElements(ctx, 1)) {
    api->SetStatus(status, TX_INVALID_ARGUMENT, "PluginAccumulate: var and delta differ in dtype or size");
    api->ReleaseVariableLock(lock);
    return;
  }
  if (api->VariableLockType(lock, 0) == TX_FLOAT) {
    float* v = (float*)api->VariableLockData(lock, 0);
    const float* d = (const float*)api->KernelContextInputData(ctx, 1);
    for (int64_t i = 0; i < n; ++i) v[i] += d[i];
  } else {
    double* v = (double*)api->VariableLockData(lock, 0);
    const double* d = (const double*)api->KernelContextInputData(ctx, 1);
    for (int64_t i = 0; i < n; ++i) v[i] += d[i];
  }
  api->ReleaseVariableLock(lock);
}

static void IdentityCompute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  (void)state;
  api->KernelContextSetOutputToInput(ctx, 0, 0, status);
}

static void FaultyCompute(void* state, TX_OpKernelContext* ctx, TX_Status* status) {
  (void)state;
  const char* mode;
  size_t len;
  api->AttrsGetString(api->KernelContextAttrs(ctx), "mode", &mode, &len, status);
  RETURN_IF_ERROR(status);
  if (len == 6 && memcmp(mode, "status", 6) == 0) {
    api->SetStatus(status, TX_OUT_OF_RANGE, "PluginFaulty was asked to fail");
  } else if (len == 11 && memcmp(mode, "wrong_shape", 11) == 0) {
    const int64_t n = api->KernelContextInputNumElements(ctx, 0) + 1;
    float* y = (float*)api->KernelContextAllocateOutput(ctx, 0, &n, 1, status);
    if (y != NULL) memset(y, 0, (size_t)n * sizeof(float));
  } else if (len == 9 && memcmp(mode, "no_output", 9) == 0) {
    /* sets nothing */
  } else {
    api->KernelContextSetOutputToInput(ctx, 0, 0, status);
  }
}

/* Gradients ------------------------------------------------------------------------------------ */

/* The single output of op `type` applied to inputs a and b (no value after an error). */
static TX_GradValue Binary(TX_GradContext* ctx, const char* type, TX_GradValue a, TX_GradValue b, TX_Status* status) {
  TX_GradValue out = {-1};
  TX_GradOp* op = api->GradNewOp(ctx, type);
  api->GradOpAddInput(op, a);
  api->GradOpAddInput(op, b);
  api->GradFinishOp(op, &out, 1, status);
  return out;
}

/* dx = dy * (2 * scale * x). */
static void ScaledSquareGrad(TX_GradContext* ctx, TX_Status* status) {
  float scale;
  TX_DataType dtype;
  api->AttrsGetFloat(api->GradContextAttrs(ctx), "scale", &scale, status);
  RETURN_IF_ERROR(status);
  api->AttrsGetType(api->GradContextAttrs(ctx), "T", &dtype, status);
  RETURN_IF_ERROR(status);
  const float two_scale_f = 2.0f * scale;
  const double two_scale_d = 2.0 * (double)scale;
  TX_GradValue factor = dtype == TX_FLOAT
      ? api->GradConstant(ctx, dtype, NULL, 0, &two_scale_f, sizeof two_scale_f, status)
      : api->GradConstant(ctx, dtype, NULL, 0, &two_scale_d, sizeof two_scale_d, status);
  RETURN_IF_ERROR(status);
  TX_GradValue slope = Binary(ctx, "Mul", api->GradContextInput(ctx, 0), factor, status);
  RETURN_IF_ERROR(status);
  TX_GradValue dx = Binary(ctx, "Mul", api->GradContextOutputGrad(ctx, 0), slope, status);
  RETURN_IF_ERROR(status);
  api->GradContextSetInputGrad(ctx, 0, dx);
}

/* dx = sum over the count blocks of dy: Sum(Reshape(dy, Concat([-1], Shape(x))), 0). */
static void RepeatGrad(TX_GradContext* ctx, TX_Status* status) {
  const int32_t minus_one = -1, zero = 0;
  const int64_t one = 1;
  TX_GradValue parts[2];
  parts[0] = api->GradConstant(ctx, TX_INT32, &one, 1, &minus_one, sizeof minus_one, status);
  RETURN_IF_ERROR(status);
  TX_GradOp* shape = api->GradNewOp(ctx, "Shape");
  api->GradOpAddInput(shape, api->GradContextInput(ctx, 0));
  api->GradFinishOp(shape, &parts[1], 1, status);
  RETURN_IF_ERROR(status);
  TX_GradValue axis = api->GradConstant(ctx, TX_INT32, NULL, 0, &zero, sizeof zero, status);
  RETURN_IF_ERROR(status);
  TX_GradOp* concat = api->GradNewOp(ctx, "ConcatV2");
  api->GradOpAddInputList(concat, parts, 2);
  api->GradOpAddInput(concat, axis);
  TX_GradValue blocks_shape;
  api->GradFinishOp(concat, &blocks_shape, 1, status);
  RETURN_IF_ERROR(status);
  TX_GradValue blocks = Binary(ctx, "Reshape", api->GradContextOutputGrad(ctx, 0), blocks_shape, status);
  RETURN_IF_ERROR(status);
  TX_GradOp* sum = api->GradNewOp(ctx, "Sum");
  api->GradOpAddInput(sum, blocks);
  api->GradOpAddInput(sum, axis);
  api->GradOpSetAttrBool(sum, "keep_dims", 0);
  TX_GradValue dx;
  api->GradFinishOp(sum, &dx, 1, status);
  RETURN_IF_ERROR(status);
  api->GradContextSetInputGrad(ctx, 0, dx);
}

/* Registration --------------------------------------------------------------------------------- */

/* PluginBytesIdentity's OpDef, serialized by hand: name, input x: float, output y: float, summary. */
static const unsigned char kBytesIdentityOpDef[] = {
    0x0a, 19,  'P', 'l',  'u', 'g',  'i', 'n', 'B',  'y', 't',  'e', 's',  'I', 'd', 'e',  'n', 't',
    'i',  't', 'y', 0x12, 5,   0x0a, 1,   'x', 0x18, 1,   0x1a, 5,   0x0a, 1,   'y', 0x18, 1,   0x2a,
    17,   'R', 'e', 't',  'u', 'r',  'n', 's', ' ',  'x', ' ',  'i', 't',  's', 'e', 'l',  'f', '.'};

static void RegisterKernel(TX_PluginRegistrar* reg, const char* op, const char* type_attr, TX_DataType dtype,
                           TX_KernelCreateFn create, TX_KernelComputeFn compute, TX_KernelDeleteFn destroy,
                           TX_Status* status) {
  TX_KernelBuilder* k = api->NewKernelBuilder(op, "CPU", create, compute, destroy);
  if (type_attr != NULL) api->KernelBuilderTypeConstraint(k, type_attr, dtype);
  api->RegisterKernel(reg, k, status);
}

TX_PLUGIN_DEFINE_ABI_VERSION()

TX_PLUGIN_EXPORT void TX_InitPlugin(const TX_PluginApi* core, TX_PluginRegistrar* reg, TX_Status* status) {
  api = core;

  TX_OpDefinitionBuilder* b = api->NewOpDefinitionBuilder("PluginScaledSquare");
  api->OpDefinitionBuilderAddAttr(b, "T: {float, double}");
  api->OpDefinitionBuilderAddAttr(b, "scale: float = 1.0");
  api->OpDefinitionBuilderAddInput(b, "x: T");
  api->OpDefinitionBuilderAddOutput(b, "y: T");
  api->OpDefinitionBuilderSetSummary(b, "Returns scale * x * x elementwise.");
  api->OpDefinitionBuilderSetShapeFunction(b, SameShape);
  api->RegisterOpDefinition(reg, b, status);
  RETURN_IF_ERROR(status);
  RegisterKernel(reg, "PluginScaledSquare", "T", TX_FLOAT, ScaledSquareCreate, ScaledSquareCompute, ScaledSquareDelete,
                 status);
  RETURN_IF_ERROR(status);
  RegisterKernel(reg, "PluginScaledSquare", "T", TX_DOUBLE, ScaledSquareCreate, ScaledSquareCompute, ScaledSquareDelete,
                 status);
  RETURN_IF_ERROR(status);
  api->RegisterGradient(reg, "PluginScaledSquare", ScaledSquareGrad, status);
  RETURN_IF_ERROR(status);

  b = api->NewOpDefinitionBuilder("PluginRepeat");
  api->OpDefinitionBuilderAddAttr(b, "T: {float, double, int32}");
  api->OpDefinitionBuilderAddInput(b, "x: T");
  api->OpDefinitionBuilderAddInput(b, "count: int32");
  api->OpDefinitionBuilderAddOutput(b, "y: T");
  api->OpDefinitionBuilderSetSummary(b, "Returns the 1-D x repeated count times.");
  api->OpDefinitionBuilderSetShapeFunction(b, RepeatShape);
  api->RegisterOpDefinition(reg, b, status);
  RETURN_IF_ERROR(status);
  RegisterKernel(reg, "PluginRepeat", NULL, TX_FLOAT, NULL, RepeatCompute, NULL, status);
  RETURN_IF_ERROR(status);
  api->RegisterGradient(reg, "PluginRepeat", RepeatGrad, status);
  RETURN_IF_ERROR(status);

  b = api->NewOpDefinitionBuilder("PluginAccumulate");
  api->OpDefinitionBuilderAddAttr(b, "T: {float, double}");
  api->OpDefinitionBuilderAddInput(b, "var: resource");
  api->OpDefinitionBuilderAddInput(b, "delta: T");
  api->OpDefinitionBuilderSetIsStateful(b, 1);
  api->OpDefinitionBuilderSetSummary(b, "Adds delta to the variable var in place.");
  api->RegisterOpDefinition(reg, b, status);
  RETURN_IF_ERROR(status);
  RegisterKernel(reg, "PluginAccumulate", NULL, TX_FLOAT, NULL, AccumulateCompute, NULL, status);
  RETURN_IF_ERROR(status);
  api->RegisterGradient(reg, "PluginAccumulate", NULL, status);
  RETURN_IF_ERROR(status);

  api->RegisterOpDef(reg, kBytesIdentityOpDef, sizeof kBytesIdentityOpDef, SameShape, status);
  RETURN_IF_ERROR(status);
  RegisterKernel(reg, "PluginBytesIdentity", NULL, TX_FLOAT, NULL, IdentityCompute, NULL, status);
  RETURN_IF_ERROR(status);

  b = api->NewOpDefinitionBuilder("PluginFaulty");
  api->OpDefinitionBuilderAddAttr(b, "mode: {'ok', 'status', 'wrong_shape', 'no_output', 'shape_error'} = 'ok'");
  api->OpDefinitionBuilderAddInput(b, "x: float");
  api->OpDefinitionBuilderAddOutput(b, "y: float");
  api->OpDefinitionBuilderSetSummary(b, "Returns x, or fails the way mode asks (for tests).");
  api->OpDefinitionBuilderSetShapeFunction(b, FaultyShape);
  api->RegisterOpDefinition(reg, b, status);
  RETURN_IF_ERROR(status);
  RegisterKernel(reg, "PluginFaulty", NULL, TX_FLOAT, NULL, FaultyCompute, NULL, status);
  RETURN_IF_ERROR(status);
  api->RegisterGradient(reg, "PluginFaulty", NULL, status);
}
