#define _GNU_SOURCE /* memmem */
/* The plugin ABI from plain C (c_api_plugin.h): loading the test plugin (plugin/test_plugin.c),
 * its ops in graph mode and eagerly, shape functions, kernels, gradients (graph and tape),
 * variables, and every refused load (not a plugin, ABI too new or of another major, duplicate
 * op, failing init, kernel for an unknown op) with the engine unchanged and usable afterwards. */
#include <tensorflux/c/c_api_eager.h>
#include <tensorflux/c/c_api_plugin.h>

#include "c_api_test_util.h"

static int op_registered(const char* name) {
  TX_Buffer* ops = TX_GetAllOpList();
  /* An OpDef's name is field 1: the bytes 0x0a, its length, the name. */
  size_t n = strlen(name);
  int found = 0;
  const unsigned char* p = (const unsigned char*)ops->data;
  for (size_t i = 0; i + n + 2 <= ops->length && !found; ++i)
    found = p[i] == 0x0a && p[i + 1] == n && memcmp(p + i + 2, name, n) == 0;
  TX_DeleteBuffer(ops);
  return found;
}

static TX_Library* load_test_plugin(TX_Status* s) { return TX_LoadLibrary(TX_TEST_PLUGIN, s); }

static void test_load_and_op_list(void) {
  TX_Status* s = TX_NewStatus();
  CHECK(TX_GetPluginAbiVersion() == TX_PLUGIN_ABI_VERSION);
  TX_Library* lib = load_test_plugin(s);
  CHECK_OK(s);
  CHECK(lib != NULL);
  TX_Buffer ops = TX_GetOpList(lib);
  CHECK(ops.length > 0 && ops.data_deallocator == NULL);
  CHECK(memmem(ops.data, ops.length, "PluginScaledSquare", 18) != NULL);
  CHECK(memmem(ops.data, ops.length, "PluginBytesIdentity", 19) != NULL);
  CHECK(memmem(ops.data, ops.length, "MatMul", 6) == NULL);
  CHECK(op_registered("PluginScaledSquare") && op_registered("PluginRepeat") && op_registered("PluginFaulty"));
  CHECK(TX_OpGradientStatus("PluginScaledSquare") == 1 && TX_OpGradientStatus("PluginAccumulate") == 0);
  /* A second load finds the library loaded: same ops, no second initialization. */
  TX_Library* again = load_test_plugin(s);
  CHECK_OK(s);
  TX_Buffer ops2 = TX_GetOpList(again);
  CHECK(ops2.length == ops.length && memcmp(ops2.data, ops.data, ops.length) == 0);
  TX_DeleteLibraryHandle(again);
  TX_DeleteLibraryHandle(lib);
  TX_DeleteLibraryHandle(NULL);
  TX_DeleteStatus(s);
}

/* x (const, float) -> PluginScaledSquare(scale) in a new graph. */
static TX_Operation* scaled_square(TX_Graph* g, const char* name, TX_Output x, float scale, TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, "PluginScaledSquare", name);
  TX_AddInput(d, x);
  TX_SetAttrFloat(d, "scale", scale);
  return TX_FinishOperation(d, s);
}

static void test_graph_mode_and_gradient(void) {
  TX_Status* s = TX_NewStatus();
  TX_DeleteLibraryHandle(load_test_plugin(s));
  TX_Graph* g = TX_NewGraph();
  int64_t d3[1] = {3};
  float xv[3] = {1, -2, 3};
  TX_Operation* x = const_f32(g, "x", d3, 1, xv, s);
  TX_Operation* y = scaled_square(g, "y", out0(x), 2.0f, s);
  CHECK_OK(s);
  CHECK(shape_is(g, out0(y), 1, d3));
  /* The default of the attr is filled in: scale 1. */
  TX_Operation* y1 = unary(g, "PluginScaledSquare", "y1", out0(x), s);
  CHECK_OK(s);
  TX_Output dx;
  TX_Output yo = out0(y);
  TX_Output xo = out0(x);
  TX_AddGradients(g, NULL, &yo, 1, &xo, 1, NULL, &dx, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Output fetches[3] = {out0(y), out0(y1), dx};
  TX_Tensor* got[3] = {NULL, NULL, NULL};
  TX_SessionRun(sess, NULL, NULL, NULL, 0, fetches, got, 3, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (got[0] != NULL) {
    const float* yv = (const float*)TX_TensorData(got[0]);
    const float* y1v = (const float*)TX_TensorData(got[1]);
    const float* dv = (const float*)TX_TensorData(got[2]);
    for (int i = 0; i < 3; ++i) {
      CHECK(near(yv[i], 2 * xv[i] * xv[i]) && near(y1v[i], xv[i] * xv[i]));
      CHECK(near(dv[i], 4 * xv[i])); /* d(2 x^2)/dx */
    }
  }
  for (int i = 0; i < 3; ++i) TX_DeleteTensor(got[i]);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* A large double input: the kernel splits over the intra-op pool and may reuse the fed buffer. */
static void test_parallel_double(void) {
  TX_Status* s = TX_NewStatus();
  TX_DeleteLibraryHandle(load_test_plugin(s));
  TX_Graph* g = TX_NewGraph();
  int64_t n = 1 << 18;
  TX_Operation* p = placeholder(g, "p", TX_DOUBLE, &n, 1, s);
  TX_Operation* y = scaled_square(g, "y", out0(p), 0.5f, s);
  CHECK_OK(s);
  TX_Tensor* in = TX_AllocateTensor(TX_DOUBLE, &n, 1, (size_t)n * sizeof(double));
  double* iv = (double*)TX_TensorData(in);
  for (int64_t i = 0; i < n; ++i) iv[i] = (double)(i % 1000) / 7.0;
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Tensor* out = run1(sess, out0(p), in, out0(y), s);
  CHECK_OK(s);
  int bad = 0;
  if (out != NULL) {
    const double* ov = (const double*)TX_TensorData(out);
    for (int64_t i = 0; i < n; ++i) {
      const double x = (double)(i % 1000) / 7.0;
      bad += fabs(ov[i] - 0.5 * x * x) > 1e-12 * (1 + x * x);
    }
    CHECK(bad == 0 && iv[5] == 5.0 / 7.0); /* the fed tensor is never written */
  }
  TX_DeleteTensor(out);
  TX_DeleteTensor(in);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static TX_Operation* repeat(TX_Graph* g, const char* name, TX_Output x, TX_Output count, TX_Status* s) {
  return binary(g, "PluginRepeat", name, x, count, s);
}

static void test_shape_function_and_list_gradient(void) {
  TX_Status* s = TX_NewStatus();
  TX_DeleteLibraryHandle(load_test_plugin(s));
  TX_Graph* g = TX_NewGraph();
  int64_t d2[1] = {2}, d6[1] = {6}, d22[2] = {2, 2};
  float xv[2] = {1.5f, -1};
  int32_t three = 3, minus = -1;
  TX_Operation* x = const_f32(g, "x", d2, 1, xv, s);
  TX_Operation* c3 = const_i32(g, "three", NULL, 0, &three, s);
  TX_Operation* y = repeat(g, "y", out0(x), out0(c3), s);
  CHECK_OK(s);
  CHECK(shape_is(g, out0(y), 1, d6)); /* the shape function read the constant count */
  /* Shape errors surface when the node is added, naming it; the graph stays usable. */
  TX_Operation* m = const_f32(g, "m", d22, 2, (float[4]){1, 2, 3, 4}, s);
  CHECK(repeat(g, "bad_rank", out0(m), out0(c3), s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[bad_rank] PluginRepeat needs a 1-D x, got rank 2");
  TX_Operation* cm = const_i32(g, "minus", NULL, 0, &minus, s);
  CHECK(repeat(g, "bad_count", out0(x), out0(cm), s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "needs count >= 0");
  /* d(sum(w * repeat(x, 3)))/dx sums the three blocks of w. */
  float wv[6] = {1, 2, 3, 4, 5, 6};
  TX_Operation* w = const_f32(g, "w", d6, 1, wv, s);
  TX_Operation* prod = binary(g, "Mul", "prod", out0(y), out0(w), s);
  CHECK_OK(s);
  TX_Output yo = out0(prod), xo = out0(x), dx;
  TX_AddGradients(g, NULL, &yo, 1, &xo, 1, NULL, &dx, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Output fetches[2] = {out0(y), dx};
  TX_Tensor* got[2] = {NULL, NULL};
  TX_SessionRun(sess, NULL, NULL, NULL, 0, fetches, got, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (got[0] != NULL) {
    const float* yv = (const float*)TX_TensorData(got[0]);
    const float* dv = (const float*)TX_TensorData(got[1]);
    CHECK(yv[0] == 1.5f && yv[1] == -1 && yv[4] == 1.5f && yv[5] == -1);
    CHECK(near(dv[0], 1 + 3 + 5) && near(dv[1], 2 + 4 + 6));
  }
  for (int i = 0; i < 2; ++i) TX_DeleteTensor(got[i]);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static TX_Operation* faulty(TX_Graph* g, const char* name, TX_Output x, const char* mode, TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, "PluginFaulty", name);
  TX_AddInput(d, x);
  TX_SetAttrString(d, "mode", mode, strlen(mode));
  return TX_FinishOperation(d, s);
}

/* Kernel failures are errors of the run, naming the node; the session keeps working. */
static void test_kernel_errors(void) {
  TX_Status* s = TX_NewStatus();
  TX_DeleteLibraryHandle(load_test_plugin(s));
  TX_Graph* g = TX_NewGraph();
  int64_t d3[1] = {3};
  float xv[3] = {1, 2, 3};
  TX_Operation* x = const_f32(g, "x", d3, 1, xv, s);
  TX_Operation* ok = faulty(g, "ok", out0(x), "ok", s);
  TX_Operation* st = faulty(g, "status", out0(x), "status", s);
  TX_Operation* ws = faulty(g, "wrong_shape", out0(x), "wrong_shape", s);
  TX_Operation* no = faulty(g, "no_output", out0(x), "no_output", s);
  TX_Operation* bytes = unary(g, "PluginBytesIdentity", "bytes", out0(x), s);
  CHECK_OK(s);
  CHECK(faulty(g, "shape_error", out0(x), "shape_error", s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[shape_error] PluginFaulty was asked to fail shape inference");
  CHECK(faulty(g, "bad_mode", out0(x), "nonsense", s) == NULL); /* allowed values are checked */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "nonsense");
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Tensor* out = run1(sess, out0(x), NULL, out0(st), s);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "[status] PluginFaulty was asked to fail");
  CHECK(out == NULL);
  run1(sess, out0(x), NULL, out0(ws), s);
  CHECK_ERR(s, TX_INTERNAL, "[wrong_shape] the PluginFaulty kernel of plugin");
  CHECK_ERR(s, TX_INTERNAL, "produced output 0 of shape [4], but the op's shape function gives [3]");
  run1(sess, out0(x), NULL, out0(no), s);
  CHECK_ERR(s, TX_INTERNAL, "set no value for output 0");
  TX_Output fetches[2] = {out0(ok), out0(bytes)};
  TX_Tensor* got[2] = {NULL, NULL};
  TX_SessionRun(sess, NULL, NULL, NULL, 0, fetches, got, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (got[1] != NULL) CHECK(((const float*)TX_TensorData(got[1]))[2] == 3);
  for (int i = 0; i < 2; ++i) TX_DeleteTensor(got[i]);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* PluginAccumulate locks and updates a resource variable in place; before assignment it fails. */
static void test_variable_update(void) {
  TX_Status* s = TX_NewStatus();
  TX_DeleteLibraryHandle(load_test_plugin(s));
  TX_Graph* g = TX_NewGraph();
  int64_t d2[1] = {2};
  TX_OperationDescription* d = TX_NewOperation(g, "VarHandleOp", "v");
  TX_SetAttrType(d, "dtype", TX_FLOAT);
  TX_SetAttrShape(d, "shape", d2, 1);
  TX_SetAttrString(d, "shared_name", "v", 1);
  TX_Operation* v = TX_FinishOperation(d, s);
  TX_Operation* init = const_f32(g, "init", d2, 1, (float[2]){1, 2}, s);
  TX_Operation* delta = const_f32(g, "delta", d2, 1, (float[2]){10, 20}, s);
  d = TX_NewOperation(g, "AssignVariableOp", "assign");
  TX_AddInput(d, out0(v));
  TX_AddInput(d, out0(init));
  TX_Operation* assign = TX_FinishOperation(d, s);
  TX_Operation* acc = binary(g, "PluginAccumulate", "acc", out0(v), out0(delta), s);
  d = TX_NewOperation(g, "ReadVariableOp", "read");
  TX_AddInput(d, out0(v));
  TX_SetAttrType(d, "dtype", TX_FLOAT);
  TX_Operation* read = TX_FinishOperation(d, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TX_Operation* const*)&acc, 1, NULL, s);
  CHECK_ERR(s, TX_FAILED_PRECONDITION, "Error while reading resource variable v");
  TX_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TX_Operation* const*)&assign, 1, NULL, s);
  CHECK_OK(s);
  TX_Tensor* before = run1(sess, out0(v), NULL, out0(read), s); /* a snapshot the update must not change */
  for (int k = 0; k < 2; ++k) {
    TX_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TX_Operation* const*)&acc, 1, NULL, s);
    CHECK_OK(s);
  }
  TX_Tensor* after = run1(sess, out0(v), NULL, out0(read), s);
  CHECK_OK(s);
  if (before != NULL && after != NULL) {
    const float* b = (const float*)TX_TensorData(before);
    const float* a = (const float*)TX_TensorData(after);
    CHECK(b[0] == 1 && b[1] == 2 && a[0] == 21 && a[1] == 42);
  }
  TX_DeleteTensor(before);
  TX_DeleteTensor(after);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static TXE_TensorHandle* eager_op(TXE_Context* ctx, const char* type, TXE_TensorHandle* x, const char* mode,
                                  TX_Status* s) {
  TXE_Op* op = TXE_NewOp(ctx, type, s);
  TXE_OpAddInput(op, x, s);
  if (mode != NULL) TXE_OpSetAttrString(op, "mode", mode, strlen(mode));
  TXE_TensorHandle* out = NULL;
  int n = 1;
  TXE_Execute(op, &out, &n, s);
  TXE_DeleteOp(op);
  return out;
}

/* Eagerly: values, the tape's gradient, and the output check without static shapes. */
static void test_eager_and_tape(void) {
  TX_Status* s = TX_NewStatus();
  TX_DeleteLibraryHandle(load_test_plugin(s));
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  int64_t d3[1] = {3};
  TX_Tensor* t = float_tensor(d3, 1, (float[3]){1, 2, -3});
  TXE_TensorHandle* x = TXE_NewTensorHandle(t, s);
  TX_DeleteTensor(t);
  TXE_Tape* tape = TXE_NewTape(ctx, 0, 1, s);
  TXE_TapeWatch(tape, x, s);
  TXE_TensorHandle* y = eager_op(ctx, "PluginScaledSquare", x, NULL, s);
  CHECK_OK(s);
  TXE_TensorHandle* dx = NULL;
  TXE_TapeGradient(tape, &y, 1, &x, 1, NULL, TX_UNCONNECTED_NONE, &dx, s);
  CHECK_OK(s);
  TX_Tensor* yt = TXE_TensorHandleResolve(y, s);
  TX_Tensor* dt = dx != NULL ? TXE_TensorHandleResolve(dx, s) : NULL;
  if (yt != NULL && dt != NULL) {
    const float* yv = (const float*)TX_TensorData(yt);
    const float* dv = (const float*)TX_TensorData(dt);
    CHECK(yv[0] == 1 && yv[1] == 4 && yv[2] == 9 && dv[0] == 2 && dv[1] == 4 && dv[2] == -6);
  }
  TX_DeleteTensor(yt);
  TX_DeleteTensor(dt);
  TXE_DeleteTensorHandle(dx);
  TXE_DeleteTensorHandle(y);
  TXE_DeleteTape(tape);
  CHECK(eager_op(ctx, "PluginFaulty", x, "wrong_shape", s) == NULL);
  CHECK_ERR(s, TX_INTERNAL, "produced output 0 of shape [4], but the op's shape function gives [3]");
  CHECK(eager_op(ctx, "PluginFaulty", x, "status", s) == NULL);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "PluginFaulty was asked to fail");
  TXE_TensorHandle* ok = eager_op(ctx, "PluginFaulty", x, "ok", s);
  CHECK_OK(s);
  TXE_DeleteTensorHandle(ok);
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* Loads `name` from the bad plugins' directory; expects failure with `code` and `substr`. */
static void expect_refused(const char* name, int code, const char* substr) {
  char path[4096];
  snprintf(path, sizeof path, "%s/libtx_bad_plugin_%s.so", TX_BAD_PLUGIN_DIR, name);
  TX_Status* s = TX_NewStatus();
  TX_Library* lib = TX_LoadLibrary(path, s);
  CHECK(lib == NULL);
  CHECK_ERR(s, code, substr);
  CHECK(!op_registered("PluginOnlyHere"));
  TX_DeleteStatus(s);
}

static void test_refused_loads(void) {
  expect_refused("not_a_plugin", TX_INVALID_ARGUMENT,
                 "is not a Tensorflux plugin: it does not export TX_PluginAbiVersion");
  expect_refused("abi_minor_newer", TX_FAILED_PRECONDITION, "needs plugin ABI 1.1, newer than this core's 1.0");
  expect_refused("abi_major_newer", TX_FAILED_PRECONDITION,
                 "was built for plugin ABI 2.0, but this core serves ABI 1.0");
  expect_refused("abi_major_older", TX_FAILED_PRECONDITION,
                 "was built for plugin ABI 0.9, but this core serves ABI 1.0");
  expect_refused("duplicate", TX_ALREADY_EXISTS, "op 'MatMul' is already registered");
  expect_refused("failing_init", TX_INTERNAL, "TX_InitPlugin failed: this plugin fails on purpose");
  expect_refused("kernel_no_op", TX_NOT_FOUND, "kernel for op 'NoSuchOpAnywhere', which is not registered");
  expect_refused("duplicate_kernel", TX_ALREADY_EXISTS, "a CPU kernel for op 'MatMul' with these type constraints");
  expect_refused("does_not_exist", TX_NOT_FOUND, "no such file");
  TX_Status* s = TX_NewStatus();
  CHECK(TX_LoadLibrary(TX_PLUGIN_SOURCE_DIR "/test_plugin.c", s) == NULL); /* a C source file, not a library */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "not a loadable shared library");
  CHECK(TX_LoadLibrary("", s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "empty");
  /* The engine is unchanged and usable: the good plugin still loads and runs. */
  TX_Library* lib = load_test_plugin(s);
  CHECK_OK(s);
  TX_DeleteLibraryHandle(lib);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"load_and_op_list", test_load_and_op_list},
      {"graph_mode_and_gradient", test_graph_mode_and_gradient},
      {"parallel_double", test_parallel_double},
      {"shape_function_and_list_gradient", test_shape_function_and_list_gradient},
      {"kernel_errors", test_kernel_errors},
      {"variable_update", test_variable_update},
      {"eager_and_tape", test_eager_and_tape},
      {"refused_loads", test_refused_loads},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
