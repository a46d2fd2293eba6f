/* Shared by the C API test programs: a tiny harness, graph-building helpers and a small model.
 * Plain C11 using only <tensorflux/c/c_api.h> and libc. */
#ifndef TENSORFLUX_TESTS_C_API_TEST_UTIL_H_
#define TENSORFLUX_TESTS_C_API_TEST_UTIL_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflux/c/c_api.h>

/* ----------------------------------------------------------------------------------------------
 * A tiny harness */

static int g_check_failures;

#define CHECK(c)                                                     \
  do {                                                               \
    if (!(c)) {                                                      \
      printf("  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
      ++g_check_failures;                                            \
    }                                                                \
  } while (0)

#define CHECK_OK(s)                                                                                        \
  do {                                                                                                     \
    if (TX_GetCode(s) != TX_OK) {                                                                          \
      printf("  %s:%d: expected OK, got %d: %s\n", __FILE__, __LINE__, (int)TX_GetCode(s), TX_Message(s)); \
      ++g_check_failures;                                                                                  \
    }                                                                                                      \
  } while (0)

/* Expects an error with `code` (or any error when code is -1) whose message contains `substr`. */
#define CHECK_ERR(s, code, substr) check_err(s, code, substr, __FILE__, __LINE__)

static inline void check_err(const TX_Status* s, int code, const char* substr, const char* file, int line) {
  int c = (int)TX_GetCode(s);
  if (getenv("TX_TEST_VERBOSE") != NULL) printf("  %s:%d: error %d: %s\n", file, line, c, TX_Message(s));
  if (c == TX_OK || (code >= 0 && c != code) || strstr(TX_Message(s), substr) == NULL) {
    printf("  %s:%d: expected error %d containing \"%s\", got %d: %s\n", file, line, code, substr, c, TX_Message(s));
    ++g_check_failures;
  }
}

static inline int near(float a, float b) { return fabsf(a - b) <= 1e-5f * (1.0f + fabsf(b)); }

/* ----------------------------------------------------------------------------------------------
 * Graph-building helpers */

static inline TX_Output out0(TX_Operation* op) {
  TX_Output o = {op, 0};
  return o;
}

static inline TX_Tensor* float_tensor(const int64_t* dims, int nd, const float* vals) {
  size_t n = 1;
  for (int i = 0; i < nd; ++i) n *= (size_t)dims[i];
  TX_Tensor* t = TX_AllocateTensor(TX_FLOAT, dims, nd, n * sizeof(float));
  if (t != NULL && n > 0) memcpy(TX_TensorData(t), vals, n * sizeof(float));
  return t;
}

static inline TX_Tensor* int32_tensor(const int64_t* dims, int nd, const int32_t* vals) {
  size_t n = 1;
  for (int i = 0; i < nd; ++i) n *= (size_t)dims[i];
  TX_Tensor* t = TX_AllocateTensor(TX_INT32, dims, nd, n * sizeof(int32_t));
  if (t != NULL && n > 0) memcpy(TX_TensorData(t), vals, n * sizeof(int32_t));
  return t;
}

/* A Placeholder; nd == -2 leaves the shape attr at its default (unknown rank). */
static inline TX_Operation* placeholder(TX_Graph* g, const char* name, TX_DataType dt, const int64_t* dims, int nd,
                                        TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, "Placeholder", name);
  TX_SetAttrType(d, "dtype", dt);
  if (nd >= -1) TX_SetAttrShape(d, "shape", dims, nd);
  return TX_FinishOperation(d, s);
}

/* A Const holding `t` (the caller keeps ownership of `t`). */
static inline TX_Operation* constant(TX_Graph* g, const char* name, TX_Tensor* t, TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, "Const", name);
  TX_SetAttrTensor(d, "value", t, s);
  TX_SetAttrType(d, "dtype", TX_TensorType(t));
  return TX_FinishOperation(d, s);
}

static inline TX_Operation* const_f32(TX_Graph* g, const char* name, const int64_t* dims, int nd, const float* vals,
                                      TX_Status* s) {
  TX_Tensor* t = float_tensor(dims, nd, vals);
  TX_Operation* op = constant(g, name, t, s);
  TX_DeleteTensor(t);
  return op;
}

static inline TX_Operation* const_i32(TX_Graph* g, const char* name, const int64_t* dims, int nd, const int32_t* vals,
                                      TX_Status* s) {
  TX_Tensor* t = int32_tensor(dims, nd, vals);
  TX_Operation* op = constant(g, name, t, s);
  TX_DeleteTensor(t);
  return op;
}

static inline TX_Operation* unary(TX_Graph* g, const char* type, const char* name, TX_Output a, TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, type, name);
  TX_AddInput(d, a);
  return TX_FinishOperation(d, s);
}

static inline TX_Operation* binary(TX_Graph* g, const char* type, const char* name, TX_Output a, TX_Output b,
                                   TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, type, name);
  TX_AddInput(d, a);
  TX_AddInput(d, b);
  return TX_FinishOperation(d, s);
}

static inline TX_Operation* reduce(TX_Graph* g, const char* type, const char* name, TX_Output a, TX_Output axes,
                                   int keep_dims, TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, type, name);
  TX_AddInput(d, a);
  TX_AddInput(d, axes);
  TX_SetAttrBool(d, "keep_dims", (unsigned char)keep_dims);
  return TX_FinishOperation(d, s);
}

/* Runs one fetch with up to one feed; returns the fetched tensor (caller frees) or NULL. */
static inline TX_Tensor* run1(TX_Session* sess, TX_Output feed, TX_Tensor* value, TX_Output fetch, TX_Status* s) {
  TX_Tensor* result = NULL;
  TX_SessionRun(sess, NULL, &feed, &value, value ? 1 : 0, &fetch, &result, 1, NULL, 0, NULL, s);
  return result;
}

static inline int shape_is(TX_Graph* g, TX_Output o, int nd, const int64_t* want) {
  TX_Status* s = TX_NewStatus();
  int ok = TX_GraphGetTensorNumDims(g, o, s) == nd && TX_GetCode(s) == TX_OK;
  int64_t dims[8];
  if (ok && nd > 0) {
    TX_GraphGetTensorShape(g, o, dims, nd, s);
    ok = TX_GetCode(s) == TX_OK && memcmp(dims, want, (size_t)nd * sizeof(int64_t)) == 0;
  }
  TX_DeleteStatus(s);
  return ok;
}

/* ----------------------------------------------------------------------------------------------
 * The model used by several tests: softmax(relu(x @ W + b)) for x of shape [?, 3]. */

static const float kW[6] = {0.1f, 0.2f, 0.3f, -0.4f, 0.5f, 0.6f};
static const float kB[2] = {0.1f, -0.2f};

typedef struct Model {
  TX_Graph* g;
  TX_Operation *x, *w, *b, *matmul, *bias_add, *relu, *softmax;
} Model;

static inline void build_model(Model* m, TX_Status* s) {
  static const int64_t xdims[2] = {-1, 3}, wdims[2] = {3, 2}, bdims[1] = {2};
  m->g = TX_NewGraph();
  m->x = placeholder(m->g, "x", TX_FLOAT, xdims, 2, s);
  CHECK_OK(s);
  m->w = const_f32(m->g, "W", wdims, 2, kW, s);
  CHECK_OK(s);
  m->b = const_f32(m->g, "b", bdims, 1, kB, s);
  CHECK_OK(s);
  m->matmul = binary(m->g, "MatMul", "dense/MatMul", out0(m->x), out0(m->w), s);
  CHECK_OK(s);
  m->bias_add = binary(m->g, "BiasAdd", "dense/BiasAdd", out0(m->matmul), out0(m->b), s);
  CHECK_OK(s);
  m->relu = unary(m->g, "Relu", "relu", out0(m->bias_add), s);
  CHECK_OK(s);
  m->softmax = unary(m->g, "Softmax", "softmax", out0(m->relu), s);
  CHECK_OK(s);
}

/* Reference: the model's output for `rows` rows of x. */
static inline void model_ref(const float* x, int rows, float* y) {
  for (int r = 0; r < rows; ++r) {
    float h[2], mx = -1e30f, sum = 0;
    for (int j = 0; j < 2; ++j) {
      float acc = kB[j];
      for (int k = 0; k < 3; ++k) acc += x[r * 3 + k] * kW[k * 2 + j];
      h[j] = acc > 0 ? acc : 0;
      if (h[j] > mx) mx = h[j];
    }
    for (int j = 0; j < 2; ++j) sum += expf(h[j] - mx);
    for (int j = 0; j < 2; ++j) y[r * 2 + j] = expf(h[j] - mx) / sum;
  }
}

/* Runs the model on `rows` rows of x and compares with the reference; returns 1 when equal. */
static inline int run_model_and_check(TX_Session* sess, TX_Output x, TX_Output y, const float* xv, int rows) {
  TX_Status* s = TX_NewStatus();
  int64_t dims[2] = {rows, 3};
  TX_Tensor* in = float_tensor(dims, 2, xv);
  TX_Tensor* out = run1(sess, x, in, y, s);
  int ok =
      TX_GetCode(s) == TX_OK && out != NULL && TX_NumDims(out) == 2 && TX_Dim(out, 0) == rows && TX_Dim(out, 1) == 2;
  if (TX_GetCode(s) != TX_OK) printf("  run failed: %s\n", TX_Message(s));
  if (ok) {
    float want[64];
    const float* got = (const float*)TX_TensorData(out);
    model_ref(xv, rows, want);
    for (int i = 0; i < rows * 2; ++i) ok = ok && near(got[i], want[i]);
  }
  TX_DeleteTensor(in);
  TX_DeleteTensor(out);
  TX_DeleteStatus(s);
  return ok;
}

/* Runs the tests in `tests`, printing "N passed, M failed"; returns the exit code. */
typedef struct TestCase {
  const char* name;
  void (*fn)(void);
} TestCase;

static inline int run_tests(const TestCase* tests, int n) {
  int passed = 0, failed = 0;
  for (int i = 0; i < n; ++i) {
    int before = g_check_failures;
    tests[i].fn();
    if (g_check_failures == before) {
      ++passed;
    } else {
      ++failed;
      printf("FAILED: %s\n", tests[i].name);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

#endif /* TENSORFLUX_TESTS_C_API_TEST_UTIL_H_ */
