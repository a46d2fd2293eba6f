/* The eager C API from plain C: ops executed one at a time, kernel caching, attrs, list inputs,
 * multiple outputs, devices and placement policies, eager variables, removing functions and
 * clearing caches, and the error paths (the context stays usable after each). */
#include <tensorflux/c/c_api_eager.h>

#include "c_api_test_util.h"

static TXE_TensorHandle* f32_handle(const int64_t* dims, int nd, const float* vals, TX_Status* s) {
  TX_Tensor* t = float_tensor(dims, nd, vals);
  TXE_TensorHandle* h = TXE_NewTensorHandle(t, s);
  TX_DeleteTensor(t); /* the handle shares the buffer */
  return h;
}

static TXE_TensorHandle* i32_handle(const int64_t* dims, int nd, const int32_t* vals, TX_Status* s) {
  TX_Tensor* t = int32_tensor(dims, nd, vals);
  TXE_TensorHandle* h = TXE_NewTensorHandle(t, s);
  TX_DeleteTensor(t);
  return h;
}

/* Runs a one-output binary op. */
static TXE_TensorHandle* run_binary(TXE_Context* ctx, const char* op_name, TXE_TensorHandle* a, TXE_TensorHandle* b,
                                    TX_Status* s) {
  TXE_Op* op = TXE_NewOp(ctx, op_name, s);
  if (TX_GetCode(s) != TX_OK) return NULL;
  TXE_OpAddInput(op, a, s);
  TXE_OpAddInput(op, b, s);
  TXE_TensorHandle* out = NULL;
  int n = 1;
  TXE_Execute(op, &out, &n, s);
  TXE_DeleteOp(op);
  return out;
}

static const float* values(TXE_TensorHandle* h, TX_Tensor** keep, TX_Status* s) {
  *keep = TXE_TensorHandleResolve(h, s);
  return *keep ? (const float*)TX_TensorData(*keep) : NULL;
}

static void test_add_and_cache(void) {
  TX_Status* s = TX_NewStatus();
  TXE_ContextOptions* opts = TXE_NewContextOptions();
  TXE_ContextOptionsSetThreads(opts, 2, 2);
  TXE_Context* ctx = TXE_NewContext(opts, s);
  TXE_DeleteContextOptions(opts);
  CHECK_OK(s);
  int64_t d[1] = {4};
  float av[4] = {1, 2, 3, 4}, bv[4] = {10, 20, 30, 40};
  TXE_TensorHandle* a = f32_handle(d, 1, av, s);
  TXE_TensorHandle* b = f32_handle(d, 1, bv, s);
  CHECK(TXE_ContextNumCachedKernels(ctx) == 0);
  TXE_TensorHandle* c = run_binary(ctx, "AddV2", a, b, s);
  CHECK_OK(s);
  CHECK(TXE_TensorHandleDataType(c) == TX_FLOAT);
  CHECK(TXE_TensorHandleNumDims(c, s) == 1 && TXE_TensorHandleDim(c, 0, s) == 4);
  CHECK(strstr(TXE_TensorHandleDeviceName(c, s), "CPU:0") != NULL);
  TX_Tensor* r = NULL;
  const float* cv = values(c, &r, s);
  CHECK(cv && cv[0] == 11 && cv[3] == 44);
  TX_DeleteTensor(r);
  /* The same signature reuses the kernel; another dtype makes a second one. */
  TXE_TensorHandle* c2 = run_binary(ctx, "AddV2", c, b, s);
  CHECK(TXE_ContextNumCachedKernels(ctx) == 1);
  int32_t iv[2] = {1, 2};
  int64_t d2[1] = {2};
  TXE_TensorHandle* ia = i32_handle(d2, 1, iv, s);
  TXE_TensorHandle* ic = run_binary(ctx, "Mul", ia, ia, s);
  CHECK_OK(s);
  CHECK(TXE_ContextNumCachedKernels(ctx) == 2);
  TX_Tensor* ir = TXE_TensorHandleResolve(ic, s);
  CHECK(((int32_t*)TX_TensorData(ir))[1] == 4);
  TX_DeleteTensor(ir);
  TXE_ContextClearCaches(ctx);
  CHECK(TXE_ContextNumCachedKernels(ctx) == 0);

  /* One op object reused: TXE_OpReset. */
  TXE_Op* op = TXE_NewOp(ctx, "AddV2", s);
  for (int k = 0; k < 3; ++k) {
    TXE_OpReset(op, "AddV2", NULL, s);
    TXE_OpAddInput(op, a, s);
    TXE_OpAddInput(op, a, s);
    TXE_TensorHandle* o = NULL;
    int n = 1;
    TXE_Execute(op, &o, &n, s);
    CHECK_OK(s);
    CHECK(n == 1);
    TXE_DeleteTensorHandle(o);
  }
  TXE_DeleteOp(op);
  /* TXE_OpClearInputs keeps the attrs: MatMul's transpose_b holds for the next inputs. */
  int64_t row[2] = {1, 2};
  const float u[2] = {1, 2}, w[2] = {3, 4};
  TXE_TensorHandle* hu = f32_handle(row, 2, u, s);
  TXE_TensorHandle* hw = f32_handle(row, 2, w, s);
  op = TXE_NewOp(ctx, "MatMul", s);
  TXE_OpSetAttrBool(op, "transpose_b", 1);
  for (int k = 0; k < 2; ++k) {
    if (k > 0) TXE_OpClearInputs(op, s);
    CHECK_OK(s);
    TXE_OpAddInput(op, hu, s);
    TXE_OpAddInput(op, k == 0 ? hu : hw, s);
    TXE_TensorHandle* o = NULL;
    int n = 1;
    TXE_Execute(op, &o, &n, s);
    CHECK_OK(s);
    TX_Tensor* r = TXE_TensorHandleResolve(o, s);
    CHECK(r != NULL && ((float*)TX_TensorData(r))[0] == (k == 0 ? 5.0f : 11.0f)); /* u.u, then u.w */
    TX_DeleteTensor(r);
    TXE_DeleteTensorHandle(o);
  }
  /* Inputs are cleared: executing with none is an error naming the op, not a stale run. */
  TXE_OpClearInputs(op, s);
  TXE_TensorHandle* none = NULL;
  int zero = 1;
  TXE_Execute(op, &none, &zero, s);
  CHECK(TX_GetCode(s) != TX_OK && strstr(TX_Message(s), "MatMul") != NULL);
  TXE_DeleteOp(op);
  TXE_DeleteTensorHandle(hu);
  TXE_DeleteTensorHandle(hw);
  TXE_DeleteTensorHandle(a);
  TXE_DeleteTensorHandle(b);
  TXE_DeleteTensorHandle(c);
  TXE_DeleteTensorHandle(c2);
  TXE_DeleteTensorHandle(ia);
  TXE_DeleteTensorHandle(ic);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

static void test_attrs_lists_and_outputs(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  int64_t d[2] = {2, 3};
  float xv[6] = {1, 2, 3, 4, 5, 6};
  TXE_TensorHandle* x = f32_handle(d, 2, xv, s);
  /* MatMul with transpose_b: x @ x^T = [[14, 32], [32, 77]]. */
  TXE_Op* op = TXE_NewOp(ctx, "MatMul", s);
  TXE_OpAddInput(op, x, s);
  TXE_OpAddInput(op, x, s);
  TXE_OpSetAttrBool(op, "transpose_b", 1);
  unsigned char is_list = 9;
  CHECK(TXE_OpGetAttrType(op, "transpose_b", &is_list, s) == TX_ATTR_BOOL && is_list == 0);
  TXE_TensorHandle* m = NULL;
  int n = 1;
  TXE_Execute(op, &m, &n, s);
  CHECK_OK(s);
  TX_Tensor* r = NULL;
  const float* mv = values(m, &r, s);
  CHECK(mv && mv[0] == 14 && mv[1] == 32 && mv[3] == 77);
  TX_DeleteTensor(r);
  TXE_DeleteTensorHandle(m);
  TXE_DeleteOp(op);

  /* A list input (AddN) and an op with several outputs (Unpack along axis 1). */
  TXE_TensorHandle* list[3] = {x, x, x};
  op = TXE_NewOp(ctx, "AddN", s);
  TXE_OpAddInputList(op, list, 3, s);
  TXE_TensorHandle* sum = NULL;
  n = 1;
  TXE_Execute(op, &sum, &n, s);
  CHECK_OK(s);
  const float* sv = values(sum, &r, s);
  CHECK(sv && sv[5] == 18);
  TX_DeleteTensor(r);
  TXE_DeleteOp(op);
  op = TXE_NewOp(ctx, "Unpack", s);
  TXE_OpAddInput(op, sum, s);
  TXE_OpSetAttrInt(op, "num", 3);
  TXE_OpSetAttrInt(op, "axis", 1);
  TXE_TensorHandle* parts[3] = {NULL, NULL, NULL};
  n = 3;
  TXE_Execute(op, parts, &n, s);
  CHECK_OK(s);
  CHECK(n == 3 && TXE_TensorHandleNumElements(parts[2], s) == 2);
  const float* pv = values(parts[2], &r, s);
  CHECK(pv && pv[0] == 9 && pv[1] == 18);
  TX_DeleteTensor(r);
  for (int k = 0; k < 3; ++k) TXE_DeleteTensorHandle(parts[k]);
  /* Too little room for the outputs. */
  n = 2;
  TXE_Execute(op, parts, &n, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "3 outputs");
  TXE_DeleteOp(op);
  TXE_DeleteTensorHandle(sum);
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

static void test_errors_keep_context_usable(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  CHECK(TXE_NewOp(ctx, "NoSuchOp", s) == NULL);
  CHECK_ERR(s, TX_NOT_FOUND, "NoSuchOp");
  int64_t d[1] = {2}, d3[1] = {3};
  float v[3] = {1, 2, 3};
  int32_t iv[2] = {1, 2};
  TXE_TensorHandle* a = f32_handle(d, 1, v, s);
  TXE_TensorHandle* b = f32_handle(d3, 1, v, s);
  TXE_TensorHandle* i = i32_handle(d, 1, iv, s);
  /* Incompatible shapes: the kernel's error, with the eager suffix. */
  CHECK(run_binary(ctx, "AddV2", a, b, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[Op:AddV2]");
  /* Mismatched dtypes: caught by the OpDef check. */
  CHECK(run_binary(ctx, "AddV2", a, i, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "AddV2");
  /* A bad attr value. */
  TXE_Op* op = TXE_NewOp(ctx, "Cast", s);
  TXE_OpAddInput(op, a, s);
  TXE_OpSetAttrType(op, "DstT", (TX_DataType)999);
  TXE_TensorHandle* out = NULL;
  int n = 1;
  TXE_Execute(op, &out, &n, s);
  CHECK(TX_GetCode(s) != TX_OK);
  TXE_DeleteOp(op);
  /* Too few inputs. */
  op = TXE_NewOp(ctx, "AddV2", s);
  TXE_OpAddInput(op, a, s);
  n = 1;
  TXE_Execute(op, &out, &n, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "AddV2");
  TXE_DeleteOp(op);
  /* NULLs. */
  TXE_OpAddInput(NULL, a, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  CHECK(TXE_NewTensorHandle(NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  /* Still usable. */
  TXE_TensorHandle* ok = run_binary(ctx, "AddV2", a, a, s);
  CHECK_OK(s);
  TXE_DeleteTensorHandle(ok);
  TXE_DeleteTensorHandle(a);
  TXE_DeleteTensorHandle(b);
  TXE_DeleteTensorHandle(i);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

static void test_devices_and_policy(void) {
  TX_Status* s = TX_NewStatus();
  TXE_ContextOptions* opts = TXE_NewContextOptions();
  TXE_ContextOptionsSetNumCpuDevices(opts, 2);
  TXE_ContextOptionsSetDevicePlacementPolicy(opts, TXE_DEVICE_PLACEMENT_EXPLICIT);
  TXE_Context* ctx = TXE_NewContext(opts, s);
  TXE_DeleteContextOptions(opts);
  CHECK(TXE_ContextNumDevices(ctx) == 2);
  CHECK(strstr(TXE_ContextDeviceName(ctx, 1, s), "device:CPU:1") != NULL);
  TXE_ContextDeviceName(ctx, 2, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "out of range");
  int64_t d[1] = {2};
  float v[2] = {1, 2};
  TXE_TensorHandle* a = f32_handle(d, 1, v, s);
  TXE_TensorHandle* a1 = TXE_TensorHandleCopyToDevice(a, ctx, "/device:CPU:1", s);
  CHECK_OK(s);
  CHECK(strstr(TXE_TensorHandleDeviceName(a1, s), "CPU:1") != NULL);
  /* Explicit policy: mixing devices is an error naming both. */
  CHECK(run_binary(ctx, "AddV2", a, a1, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "conflicting devices");
  /* Both on CPU:1: runs there. */
  TXE_TensorHandle* c = run_binary(ctx, "AddV2", a1, a1, s);
  CHECK_OK(s);
  CHECK(strstr(TXE_TensorHandleDeviceName(c, s), "CPU:1") != NULL);
  /* An op pinned to a device that does not exist: CPU:0 under soft placement (the default), an
   * error without it. */
  CHECK(TXE_ContextGetSoftDevicePlacement(ctx) == 1);
  TXE_Op* op = TXE_NewOp(ctx, "AddV2", s);
  TXE_OpSetDevice(op, "/device:GPU:0", s);
  CHECK_OK(s);
  TXE_DeleteOp(op);
  TXE_TensorHandle* soft = TXE_TensorHandleCopyToDevice(a, ctx, "/device:CPU:7", s);
  CHECK_OK(s);
  CHECK(strstr(TXE_TensorHandleDeviceName(soft, s), "CPU:0") != NULL);
  TXE_DeleteTensorHandle(soft);
  TXE_ContextSetSoftDevicePlacement(ctx, 0, s);
  CHECK_OK(s);
  op = TXE_NewOp(ctx, "AddV2", s);
  TXE_OpSetDevice(op, "/device:GPU:0", s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "device");
  TXE_DeleteOp(op);
  TXE_TensorHandleCopyToDevice(a, ctx, "/device:CPU:7", s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "CPU:7");
  TXE_ContextSetSoftDevicePlacement(NULL, 1, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  TXE_DeleteTensorHandle(c);
  TXE_DeleteTensorHandle(a1);
  TXE_DeleteTensorHandle(a);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* An eager resource variable: VarHandleOp, reading before assignment fails, assign, read. */
static void test_eager_variable(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  TXE_Op* op = TXE_NewOp(ctx, "VarHandleOp", s);
  TXE_OpSetAttrType(op, "dtype", TX_FLOAT);
  int64_t d[1] = {2};
  TXE_OpSetAttrShape(op, "shape", d, 1, s);
  TXE_OpSetAttrString(op, "shared_name", "v", 1);
  TXE_TensorHandle* h = NULL;
  int n = 1;
  TXE_Execute(op, &h, &n, s);
  CHECK_OK(s);
  CHECK(TXE_TensorHandleDataType(h) == TX_RESOURCE);
  TXE_DeleteOp(op);

  op = TXE_NewOp(ctx, "ReadVariableOp", s);
  TXE_OpAddInput(op, h, s);
  TXE_OpSetAttrType(op, "dtype", TX_FLOAT);
  TXE_TensorHandle* val = NULL;
  n = 1;
  TXE_Execute(op, &val, &n, s);
  CHECK_ERR(s, TX_FAILED_PRECONDITION, "v");
  float v[2] = {3, 4};
  TXE_TensorHandle* init = f32_handle(d, 1, v, s);
  TXE_Op* assign = TXE_NewOp(ctx, "AssignVariableOp", s);
  TXE_OpAddInput(assign, h, s);
  TXE_OpAddInput(assign, init, s);
  TXE_OpSetAttrType(assign, "dtype", TX_FLOAT);
  n = 0;
  TXE_Execute(assign, NULL, &n, s);
  CHECK_OK(s);
  CHECK(n == 0);
  n = 1;
  TXE_Execute(op, &val, &n, s);
  CHECK_OK(s);
  TX_Tensor* r = NULL;
  const float* rv = values(val, &r, s);
  CHECK(rv && rv[0] == 3 && rv[1] == 4);
  TX_DeleteTensor(r);
  TXE_DeleteTensorHandle(val);
  TXE_DeleteTensorHandle(init);
  TXE_DeleteTensorHandle(h);
  TXE_DeleteOp(assign);
  TXE_DeleteOp(op);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* Calls function `name` (float x -> float) on `x` with StatefulPartitionedCall. */
static TXE_TensorHandle* call_function(TXE_Context* ctx, const char* name, TXE_TensorHandle* x, TX_Status* s) {
  TXE_Op* op = TXE_NewOp(ctx, "StatefulPartitionedCall", s);
  TXE_OpAddInputList(op, &x, 1, s);
  const TX_DataType f32[1] = {TX_FLOAT};
  TXE_OpSetAttrTypeList(op, "Tin", f32, 1);
  TXE_OpSetAttrTypeList(op, "Tout", f32, 1);
  TXE_OpSetAttrFunctionName(op, "f", name, strlen(name));
  TXE_TensorHandle* out = NULL;
  int n = 1;
  TXE_Execute(op, &out, &n, s);
  TXE_DeleteOp(op);
  return out;
}

/* TXE_ContextRemoveFunction frees a function with its cached call kernels; TXE_ContextClearCaches
 * drops every cached kernel; calls of a removed function fail, other functions still run. */
static void test_remove_function(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  const char* names[2] = {"twice", "square"};
  for (int k = 0; k < 2; ++k) {
    TX_Graph* g = TX_NewGraph();
    TX_Output x = out0(placeholder(g, "x", TX_FLOAT, NULL, -2, s));
    TX_Output y = out0(binary(g, k == 0 ? "AddV2" : "Mul", "y", x, x, s));
    TX_Function* f = TX_GraphToFunction(g, names[k], 0, -1, NULL, 1, &x, 1, &y, NULL, NULL, NULL, s);
    CHECK_OK(s);
    TXE_ContextAddFunction(ctx, f, s);
    CHECK_OK(s);
    TX_DeleteFunction(f);
    TX_DeleteGraph(g);
  }
  CHECK(TXE_ContextNumFunctions(ctx) == 2);
  const float three = 3;
  TXE_TensorHandle* x = f32_handle(NULL, 0, &three, s);
  TX_Tensor* keep = NULL;
  for (int k = 0; k < 2; ++k) {
    TXE_TensorHandle* y = call_function(ctx, names[k], x, s);
    CHECK_OK(s);
    const float* v = values(y, &keep, s);
    CHECK(v != NULL && *v == (k == 0 ? 6.0f : 9.0f));
    TX_DeleteTensor(keep);
    TXE_DeleteTensorHandle(y);
  }
  const int64_t kernels = TXE_ContextNumCachedKernels(ctx);
  CHECK(kernels >= 2);

  TXE_ContextRemoveFunction(ctx, "twice", s);
  CHECK_OK(s);
  CHECK(!TXE_ContextHasFunction(ctx, "twice") && TXE_ContextHasFunction(ctx, "square"));
  CHECK(TXE_ContextNumFunctions(ctx) == 1);
  CHECK(TXE_ContextNumCachedKernels(ctx) == kernels - 1); /* the call kernel of twice went too */
  TXE_ContextRemoveFunction(ctx, "twice", s);
  CHECK_ERR(s, TX_NOT_FOUND, "function 'twice' is not in the library");
  CHECK(call_function(ctx, "twice", x, s) == NULL);
  CHECK(TX_GetCode(s) != TX_OK);

  TXE_ContextClearCaches(ctx);
  CHECK(TXE_ContextNumCachedKernels(ctx) == 0);
  TXE_TensorHandle* y = call_function(ctx, "square", x, s); /* instantiated again */
  CHECK_OK(s);
  const float* v = values(y, &keep, s);
  CHECK(v != NULL && *v == 9.0f);
  TX_DeleteTensor(keep);
  TXE_DeleteTensorHandle(y);
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* Adds function `name` (float x -> x + x, or x * x with `square`) to ctx. */
static void add_float_function(TXE_Context* ctx, const char* name, int square, TX_Status* s) {
  TX_Graph* g = TX_NewGraph();
  TX_Output x = out0(placeholder(g, "x", TX_FLOAT, NULL, -2, s));
  TX_Output y = out0(binary(g, square ? "Mul" : "AddV2", "y", x, x, s));
  TX_Function* f = TX_GraphToFunction(g, name, 0, -1, NULL, 1, &x, 1, &y, NULL, NULL, NULL, s);
  CHECK_OK(s);
  TXE_ContextAddFunction(ctx, f, s);
  CHECK_OK(s);
  TX_DeleteFunction(f);
  TX_DeleteGraph(g);
}

/* Executes StatefulPartitionedCall of `name` on x through `op` (reset first, as the Python and Go
 * bindings reuse ops) and returns the float result, or -1 on error. */
static float call_with(TXE_Op* op, const char* name, TXE_TensorHandle* x, TX_Status* s) {
  TXE_OpReset(op, "StatefulPartitionedCall", NULL, s);
  TXE_OpAddInputList(op, &x, 1, s);
  const TX_DataType f32[1] = {TX_FLOAT};
  TXE_OpSetAttrTypeList(op, "Tin", f32, 1);
  TXE_OpSetAttrTypeList(op, "Tout", f32, 1);
  TXE_OpSetAttrFunctionName(op, "f", name, strlen(name));
  TXE_TensorHandle* out = NULL;
  int n = 1;
  TXE_Execute(op, &out, &n, s);
  if (TX_GetCode(s) != TX_OK) return -1;
  TX_Tensor* keep = NULL;
  const float* v = values(out, &keep, s);
  float r = v ? *v : -1;
  TX_DeleteTensor(keep);
  TXE_DeleteTensorHandle(out);
  return r;
}

/* A function removed and defined again under its name runs the new definition, also through an
 * op that kept its kernel from the old one (it used to run the removed body). */
static void test_redefine_removed_function(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  const float three = 3;
  TXE_TensorHandle* x = f32_handle(NULL, 0, &three, s);
  TXE_Op* op = TXE_NewOp(ctx, "StatefulPartitionedCall", s);
  add_float_function(ctx, "step", 0, s);
  CHECK(call_with(op, "step", x, s) == 6.0f);
  CHECK(call_with(op, "step", x, s) == 6.0f); /* the kept kernel */
  TXE_ContextRemoveFunction(ctx, "step", s);
  CHECK_OK(s);
  CHECK(call_with(op, "step", x, s) == -1.0f);
  CHECK_ERR(s, -1, "step");
  add_float_function(ctx, "step", 1, s);
  CHECK(call_with(op, "step", x, s) == 9.0f);
  CHECK_OK(s);
  TXE_TensorHandle* y = call_function(ctx, "step", x, s); /* a fresh op agrees */
  TX_Tensor* keep = NULL;
  const float* v = values(y, &keep, s);
  CHECK(v != NULL && *v == 9.0f);
  TX_DeleteTensor(keep);
  TXE_DeleteTensorHandle(y);
  TXE_DeleteOp(op);
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* The kernel cache stays bounded however many distinct signatures run (RandomUniform with a new
 * seed each time), and VarHandleOps of new shared names (every eager variable) are not cached. */
static void test_kernel_cache_is_bounded(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  const int32_t dims[1] = {2};
  const int64_t shape_dims[1] = {1};
  TXE_TensorHandle* shape = i32_handle(shape_dims, 1, dims, s);
  TXE_Op* op = TXE_NewOp(ctx, "RandomUniform", s);
  for (int k = 0; k < 4200; ++k) {
    TXE_OpReset(op, "RandomUniform", NULL, s);
    TXE_OpAddInput(op, shape, s);
    TXE_OpSetAttrType(op, "dtype", TX_FLOAT);
    TXE_OpSetAttrInt(op, "seed", 1 + k);
    TXE_TensorHandle* out = NULL;
    int n = 1;
    TXE_Execute(op, &out, &n, s);
    CHECK_OK(s);
    TXE_DeleteTensorHandle(out);
  }
  CHECK(TXE_ContextNumCachedKernels(ctx) == 4096);
  TXE_ContextClearCaches(ctx);
  for (int k = 0; k < 20; ++k) {
    char name[32];
    snprintf(name, sizeof(name), "v%d", k);
    TXE_OpReset(op, "VarHandleOp", NULL, s);
    TXE_OpSetAttrType(op, "dtype", TX_FLOAT);
    TXE_OpSetAttrShape(op, "shape", NULL, 0, s);
    TXE_OpSetAttrString(op, "shared_name", name, strlen(name));
    TXE_TensorHandle* out = NULL;
    int n = 1;
    TXE_Execute(op, &out, &n, s);
    CHECK_OK(s);
    TXE_DeleteTensorHandle(out);
  }
  CHECK(TXE_ContextNumCachedKernels(ctx) == 0);
  TXE_DeleteOp(op);
  TXE_DeleteTensorHandle(shape);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

int main(void) {
  test_add_and_cache();
  test_remove_function();
  test_redefine_removed_function();
  test_kernel_cache_is_bounded();
  test_attrs_lists_and_outputs();
  test_errors_keep_context_usable();
  test_devices_and_policy();
  test_eager_variable();
  if (g_check_failures) {
    printf("c_api_eager_test: %d check(s) failed\n", g_check_failures);
    return 1;
  }
  printf("c_api_eager_test: all checks passed\n");
  return 0;
}
