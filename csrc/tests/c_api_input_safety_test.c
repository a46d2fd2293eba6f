/* Input safety through the public C API (issue 16): bool tensors whose bytes are not 0/1 (from
 * TX_NewTensor, TX_AllocateTensor, Const attrs, eager handles) read as canonical 0/1 values
 * (Note [Canonical bool]); TX_OperationGetAttrTensor returns a copy; sessions that cannot start
 * their threads fail with TX_RESOURCE_EXHAUSTED. Prints "N passed, M failed". */
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include <tensorflux/c/c_api_eager.h>

#include "c_api_test_util.h"

static const unsigned char kRaw[4] = {0, 1, 2, 255};

static int bytes_are(const TX_Tensor* t, const unsigned char* want, size_t n) {
  return t != NULL && TX_TensorByteSize(t) == n && memcmp(TX_TensorData(t), want, n) == 0;
}

static TX_Tensor* raw_bool_tensor(void) {
  static const int64_t dims[1] = {4};
  TX_Tensor* t = TX_AllocateTensor(TX_BOOL, dims, 1, 4);
  memcpy(TX_TensorData(t), kRaw, 4);
  return t;
}

/* Where, LogicalNot and Equal(x, true) of a bool input x of shape [4]. */
typedef struct BoolOps {
  TX_Operation *where, *lnot, *eq;
} BoolOps;

static BoolOps bool_ops(TX_Graph* g, TX_Operation* x, TX_Status* s) {
  static const unsigned char one = 1;
  BoolOps o;
  TX_Tensor* t = TX_AllocateTensor(TX_BOOL, NULL, 0, 1);
  memcpy(TX_TensorData(t), &one, 1);
  TX_Operation* yes = constant(g, "yes", t, s);
  TX_DeleteTensor(t);
  o.where = unary(g, "Where", "where", out0(x), s);
  o.lnot = unary(g, "LogicalNot", "not", out0(x), s);
  o.eq = binary(g, "Equal", "eq", out0(x), out0(yes), s);
  return o;
}

static void check_bool_results(TX_Session* sess, BoolOps o, TX_Output feed, TX_Tensor* value, TX_Status* s) {
  static const unsigned char kNot[4] = {1, 0, 0, 0}, kTruth[4] = {0, 1, 1, 1};
  static const int64_t kWhere[3] = {1, 2, 3};
  TX_Output fetches[3] = {out0(o.where), out0(o.lnot), out0(o.eq)};
  TX_Tensor* results[3] = {NULL, NULL, NULL};
  TX_SessionRun(sess, NULL, &feed, &value, value ? 1 : 0, fetches, results, 3, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(results[0] != NULL && TX_NumDims(results[0]) == 2 && TX_Dim(results[0], 0) == 3 && TX_Dim(results[0], 1) == 1 &&
        memcmp(TX_TensorData(results[0]), kWhere, sizeof(kWhere)) == 0);
  CHECK(bytes_are(results[1], kNot, 4));
  CHECK(bytes_are(results[2], kTruth, 4));
  for (int i = 0; i < 3; ++i) TX_DeleteTensor(results[i]);
}

static void test_fed_new_tensor_bool(void) {
  static const int64_t dims[1] = {4};
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Operation* x = placeholder(g, "x", TX_BOOL, dims, 1, s);
  BoolOps o = bool_ops(g, x, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  /* TX_NewTensor over caller memory holding 2 and 255: the engine must not write it. */
  unsigned char caller[4];
  memcpy(caller, kRaw, 4);
  TX_Tensor* fed = TX_NewTensor(TX_BOOL, dims, 1, caller, 4, NULL, NULL);
  check_bool_results(sess, o, out0(x), fed, s);
  CHECK(memcmp(caller, kRaw, 4) == 0);
  TX_DeleteTensor(fed);
  /* TX_AllocateTensor written through TX_TensorData. */
  fed = raw_bool_tensor();
  check_bool_results(sess, o, out0(x), fed, s);
  TX_DeleteTensor(fed);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_const_attr_bool(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Tensor* raw = raw_bool_tensor();
  TX_Operation* x = constant(g, "x", raw, s);
  TX_DeleteTensor(raw);
  BoolOps o = bool_ops(g, x, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Output none = {NULL, 0};
  check_bool_results(sess, o, none, NULL, s);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_eager_handle_bool(void) {
  static const unsigned char kNot[4] = {1, 0, 0, 0};
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  CHECK_OK(s);
  TX_Tensor* raw = raw_bool_tensor();
  TXE_TensorHandle* h = TXE_NewTensorHandle(raw, s);
  CHECK_OK(s);
  TX_DeleteTensor(raw);
  TXE_Op* op = TXE_NewOp(ctx, "LogicalNot", s);
  TXE_OpAddInput(op, h, s);
  TXE_TensorHandle* out = NULL;
  int n = 1;
  TXE_Execute(op, &out, &n, s);
  CHECK_OK(s);
  TX_Tensor* r = out ? TXE_TensorHandleResolve(out, s) : NULL;
  CHECK(bytes_are(r, kNot, 4));
  TX_DeleteTensor(r);
  static const unsigned char kTruth[4] = {0, 1, 1, 1};
  r = TXE_TensorHandleResolve(h, s);
  CHECK(bytes_are(r, kTruth, 4));
  TX_DeleteTensor(r);
  TXE_DeleteTensorHandle(out);
  TXE_DeleteOp(op);
  TXE_DeleteTensorHandle(h);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

static void test_attr_tensor_is_a_copy(void) {
  static const int64_t dims[1] = {2};
  static const float vals[2] = {1.0f, 2.0f};
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Operation* c = const_f32(g, "c", dims, 1, vals, s);
  CHECK_OK(s);
  TX_Tensor* attr = NULL;
  TX_OperationGetAttrTensor(c, "value", &attr, s);
  CHECK_OK(s);
  CHECK(attr != NULL && TX_TensorByteSize(attr) == sizeof(vals));
  if (attr != NULL) ((float*)TX_TensorData(attr))[0] = 99.0f;
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Output none = {NULL, 0};
  TX_Tensor* r = run1(sess, none, NULL, out0(c), s);
  CHECK_OK(s);
  CHECK(r != NULL && memcmp(TX_TensorData(r), vals, sizeof(vals)) == 0);
  TX_Tensor* again = NULL;
  TX_OperationGetAttrTensor(c, "value", &again, s);
  CHECK(again != NULL && memcmp(TX_TensorData(again), vals, sizeof(vals)) == 0);
  TX_DeleteTensor(again);
  TX_DeleteTensor(r);
  TX_DeleteTensor(attr);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* The process's address-space size in bytes (0 if unknown). */
static size_t address_space_bytes(void) {
  unsigned long pages = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == NULL) return 0;
  if (fscanf(f, "%lu", &pages) != 1) pages = 0;
  fclose(f);
  return (size_t)pages * 4096;
}

/* With 512 MiB of address space left, 5000 threads (MiB-sized stacks) cannot start: the session
 * and the eager context fail with TX_RESOURCE_EXHAUSTED instead of hanging or aborting. */
static void test_thread_exhaustion(void) {
#if defined(__SANITIZE_ADDRESS__)
  printf("  skipped under ASan (its shadow memory needs an unlimited address space)\n");
  return;
#endif
  struct rlimit old;
  const size_t used = address_space_bytes();
  CHECK(getrlimit(RLIMIT_AS, &old) == 0 && used > 0);
  struct rlimit limited = old;
  limited.rlim_cur = (rlim_t)(used + ((size_t)512 << 20));
  if (old.rlim_max != RLIM_INFINITY && old.rlim_max < limited.rlim_cur) limited.rlim_cur = old.rlim_max;
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_SessionOptions* opts = TX_NewSessionOptions();
  TX_SessionOptionsSetIntraOpThreads(opts, 5000);
  TXE_ContextOptions* eopts = TXE_NewContextOptions();
  TXE_ContextOptionsSetThreads(eopts, 5000, 1);
  CHECK(setrlimit(RLIMIT_AS, &limited) == 0);
  TX_Session* sess = TX_NewSession(g, opts, s);
  CHECK(sess == NULL);
  CHECK_ERR(s, TX_RESOURCE_EXHAUSTED, "cannot start worker thread");
  TXE_Context* ctx = TXE_NewContext(eopts, s);
  CHECK(ctx == NULL);
  CHECK_ERR(s, TX_RESOURCE_EXHAUSTED, "of 4999");
  setrlimit(RLIMIT_AS, &old);
  TX_DeleteSession(sess, s);
  TXE_DeleteContext(ctx);
  TXE_DeleteContextOptions(eopts);
  TX_DeleteSessionOptions(opts);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"fed_new_tensor_bool", test_fed_new_tensor_bool}, {"const_attr_bool", test_const_attr_bool},
      {"eager_handle_bool", test_eager_handle_bool},     {"attr_tensor_is_a_copy", test_attr_tensor_is_a_copy},
      {"thread_exhaustion", test_thread_exhaustion},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
