/* Stopping runs from plain C (Note [Cancellation]): a While that never ends is stopped by a
 * RunOptions deadline (DEADLINE_EXCEEDED, the session still usable), by TX_Cancel from another
 * thread, by TX_CloseSession and by TX_DeleteSession (CANCELLED, the call returning only once the
 * run has ended); malformed RunOptions are refused; an eager While (TXE_ExecuteWithCancellation)
 * stops on TX_Cancel and the context stays usable. An alarm turns a run that cannot be stopped into
 * a failed test instead of a hang. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <tensorflux/c/c_api_eager.h>

#include "c_api_test_util.h"

enum { kHangSeconds = 120 };

/* A graph whose output "forever" is a While over an int32 that never ends: cond(i) = |i| >= 0,
 * body(i) = |i|; and "finite" = 2 + 3 for checking that the session still runs. */
static TX_Graph* forever_graph(TX_Status* s) {
  TX_Graph* g = TX_NewGraph();
  TX_Graph* c = TX_NewGraph();
  TX_Output i = out0(placeholder(c, "i", TX_INT32, NULL, 0, s));
  const int32_t zero = 0;
  TX_Output z = out0(const_i32(c, "zero", NULL, 0, &zero, s));
  TX_Output ge = out0(binary(c, "GreaterEqual", "ge", out0(unary(c, "Abs", "abs", i, s)), z, s));
  CHECK_OK(s);
  TX_Function* cond = TX_GraphToFunction(c, "forever_cond", 0, -1, NULL, 1, &i, 1, &ge, NULL, NULL, NULL, s);
  CHECK_OK(s);
  TX_Graph* b = TX_NewGraph();
  TX_Output bi = out0(placeholder(b, "i", TX_INT32, NULL, 0, s));
  TX_Output next = out0(unary(b, "Abs", "next", bi, s));
  TX_Function* body = TX_GraphToFunction(b, "forever_body", 0, -1, NULL, 1, &bi, 1, &next, NULL, NULL, NULL, s);
  CHECK_OK(s);
  TX_GraphCopyFunction(g, cond, NULL, s);
  TX_GraphCopyFunction(g, body, NULL, s);
  CHECK_OK(s);
  TX_DeleteFunction(cond);
  TX_DeleteFunction(body);
  TX_DeleteGraph(c);
  TX_DeleteGraph(b);

  TX_Output init = out0(const_i32(g, "init", NULL, 0, &zero, s));
  const TX_DataType t[1] = {TX_INT32};
  TX_OperationDescription* d = TX_NewOperation(g, "While", "forever");
  TX_AddInputList(d, &init, 1);
  TX_SetAttrTypeList(d, "T", t, 1);
  TX_SetAttrFuncName(d, "cond", "forever_cond", strlen("forever_cond"));
  TX_SetAttrFuncName(d, "body", "forever_body", strlen("forever_body"));
  TX_FinishOperation(d, s);
  CHECK_OK(s);
  const int32_t two = 2, three = 3;
  binary(g, "AddV2", "finite", out0(const_i32(g, "two", NULL, 0, &two, s)),
         out0(const_i32(g, "three", NULL, 0, &three, s)), s);
  CHECK_OK(s);
  return g;
}

static TX_Output named(TX_Graph* g, const char* name) { return out0(TX_GraphOperationByName(g, name)); }

/* Runs "finite" and checks that it yields 5. */
static void check_finite(TX_Session* sess, TX_Graph* g, TX_Status* s) {
  TX_Output f = named(g, "finite");
  TX_Tensor* out = NULL;
  TX_SessionRun(sess, NULL, NULL, NULL, 0, &f, &out, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(out != NULL && *(const int32_t*)TX_TensorData(out) == 5);
  TX_DeleteTensor(out);
}

/* A run of "forever" on another thread, with an optional flag. */
typedef struct Runner {
  TX_Session* sess;
  TX_Graph* g;
  TX_Cancellation* flag;
  TX_Status* status;
  TX_Tensor* out;
  pthread_t thread;
} Runner;

static void* run_forever(void* arg) {
  Runner* r = (Runner*)arg;
  TX_Output w = named(r->g, "forever");
  TX_SessionRunWithCancellation(r->sess, NULL, r->flag, NULL, NULL, 0, &w, &r->out, 1, NULL, 0, NULL, r->status);
  return NULL;
}

static void start(Runner* r, TX_Session* sess, TX_Graph* g, TX_Cancellation* flag) {
  r->sess = sess;
  r->g = g;
  r->flag = flag;
  r->status = TX_NewStatus();
  r->out = NULL;
  CHECK(pthread_create(&r->thread, NULL, run_forever, r) == 0);
  usleep(50 * 1000); /* let the loop start; the outcome is the same if it has not yet */
}

static void finish(Runner* r, int code, const char* message) {
  pthread_join(r->thread, NULL);
  CHECK_ERR(r->status, code, message);
  CHECK(r->out == NULL);
  TX_DeleteStatus(r->status);
}

static void test_deadline(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = forever_graph(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  /* RunOptions{timeout_in_ms: 30}: field 2, varint. */
  const unsigned char opts[2] = {0x10, 30};
  TX_Buffer buf = {opts, sizeof(opts), NULL};
  TX_Output w = named(g, "forever");
  TX_Tensor* out = NULL;
  for (int k = 0; k < 2; ++k) { /* twice: the session stays usable after a deadline */
    TX_SessionRun(sess, &buf, NULL, NULL, 0, &w, &out, 1, NULL, 0, NULL, s);
    CHECK_ERR(s, TX_DEADLINE_EXCEEDED, "the run exceeded its deadline of 30 ms (RunOptions.timeout_in_ms)");
    CHECK(out == NULL);
    check_finite(sess, g, s);
  }
  /* A deadline that is not reached changes nothing. */
  const unsigned char long_opts[4] = {0x10, 0xa0, 0x8d, 0x06}; /* 100000 ms */
  TX_Buffer long_buf = {long_opts, sizeof(long_opts), NULL};
  TX_Output f = named(g, "finite");
  TX_SessionRun(sess, &long_buf, NULL, NULL, 0, &f, &out, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(out != NULL && *(const int32_t*)TX_TensorData(out) == 5);
  TX_DeleteTensor(out);
  /* The largest deadline is no deadline in practice (not an overflow into the past). */
  const unsigned char max_opts[10] = {0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  TX_Buffer max_buf = {max_opts, sizeof(max_opts), NULL};
  TX_SessionRun(sess, &max_buf, NULL, NULL, 0, &f, &out, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(out != NULL && *(const int32_t*)TX_TensorData(out) == 5);
  TX_DeleteTensor(out);
  /* Malformed RunOptions: a truncated varint. */
  const unsigned char bad[2] = {0x10, 0x80};
  TX_Buffer bad_buf = {bad, sizeof(bad), NULL};
  out = NULL;
  TX_SessionRun(sess, &bad_buf, NULL, NULL, 0, &f, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "invalid RunOptions");
  CHECK(out == NULL);
  TX_DeleteSession(sess, s);
  CHECK_OK(s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_cancel(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = forever_graph(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Cancellation* flag = TX_NewCancellation();
  CHECK(flag != NULL && !TX_CancellationIsCancelled(flag));
  Runner r;
  start(&r, sess, g, flag);
  TX_Cancel(flag);
  finish(&r, TX_CANCELLED, "the run was cancelled");
  CHECK(TX_CancellationIsCancelled(flag));
  /* A cancelled flag stops the next run at once; after a reset it runs normally. */
  TX_Output f = named(g, "finite");
  TX_Tensor* out = NULL;
  TX_SessionRunWithCancellation(sess, NULL, flag, NULL, NULL, 0, &f, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_CANCELLED, "the run was cancelled");
  TX_ResetCancellation(flag);
  TX_SessionRunWithCancellation(sess, NULL, flag, NULL, NULL, 0, &f, &out, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(out != NULL && *(const int32_t*)TX_TensorData(out) == 5);
  TX_DeleteTensor(out);
  TX_DeleteCancellation(flag);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_close_stops_runs(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = forever_graph(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  Runner r[2];
  start(&r[0], sess, g, NULL);
  start(&r[1], sess, g, NULL);
  TX_CloseSession(sess, s);
  CHECK_OK(s);
  finish(&r[0], TX_CANCELLED, "the session was closed during the run");
  finish(&r[1], TX_CANCELLED, "the session was closed during the run");
  TX_Output f = named(g, "finite");
  TX_Tensor* out = NULL;
  TX_SessionRun(sess, NULL, NULL, NULL, 0, &f, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_CANCELLED, "session is closed");
  TX_DeleteSession(sess, s);
  CHECK_OK(s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_delete_waits_for_runs(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = forever_graph(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  Runner r;
  start(&r, sess, g, NULL);
  TX_DeleteSession(sess, s); /* cancels the run and frees the session once it has ended */
  CHECK_OK(s);
  finish(&r, TX_CANCELLED, "the session was closed during the run");
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* An eager While over forever_cond / forever_body on `init`, run on another thread with a flag. */
typedef struct EagerRunner {
  TXE_Op* op;
  TX_Cancellation* flag;
  TX_Status* status;
  TXE_TensorHandle* out;
  pthread_t thread;
} EagerRunner;

static void* run_eager(void* arg) {
  EagerRunner* r = (EagerRunner*)arg;
  int n = 1;
  TXE_ExecuteWithCancellation(r->op, &r->out, &n, r->flag, r->status);
  return NULL;
}

static TXE_Op* eager_while(TXE_Context* ctx, TXE_TensorHandle* init, TX_Status* s) {
  TXE_Op* op = TXE_NewOp(ctx, "While", s);
  TXE_OpAddInputList(op, &init, 1, s);
  const TX_DataType t[1] = {TX_INT32};
  TXE_OpSetAttrTypeList(op, "T", t, 1);
  TXE_OpSetAttrFunctionName(op, "cond", "forever_cond", strlen("forever_cond"));
  TXE_OpSetAttrFunctionName(op, "body", "forever_body", strlen("forever_body"));
  return op;
}

static void test_eager_cancel(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = forever_graph(s); /* only for its functions */
  TXE_Context* ctx = TXE_NewContext(NULL, s);
  CHECK_OK(s);
  TX_Function* fns[2];
  int nf = TX_GraphGetFunctions(g, fns, 2, s);
  CHECK_OK(s);
  CHECK(nf == 2);
  for (int k = 0; k < nf; ++k) {
    TXE_ContextAddFunction(ctx, fns[k], s);
    CHECK_OK(s);
    TX_DeleteFunction(fns[k]);
  }
  const int32_t zero = 0, minus = -1;
  TX_Tensor* zt = int32_tensor(NULL, 0, &zero);
  TX_Tensor* mt = int32_tensor(NULL, 0, &minus);
  TXE_TensorHandle* z = TXE_NewTensorHandle(zt, s);
  TXE_TensorHandle* m = TXE_NewTensorHandle(mt, s);
  CHECK_OK(s);

  EagerRunner r = {eager_while(ctx, z, s), TX_NewCancellation(), TX_NewStatus(), NULL, 0};
  CHECK_OK(s);
  CHECK(pthread_create(&r.thread, NULL, run_eager, &r) == 0);
  usleep(50 * 1000);
  TX_Cancel(r.flag);
  pthread_join(r.thread, NULL);
  CHECK_ERR(r.status, TX_CANCELLED, "the run was cancelled");
  CHECK(r.out == NULL);

  /* A flag that is already cancelled stops a loop before it runs; the context still runs ops. */
  TXE_Op* again = eager_while(ctx, m, s);
  TXE_TensorHandle* out = NULL;
  int n = 1;
  TXE_ExecuteWithCancellation(again, &out, &n, r.flag, s);
  CHECK_ERR(s, TX_CANCELLED, "the run was cancelled");
  TXE_Op* add = TXE_NewOp(ctx, "AddV2", s);
  TXE_OpAddInput(add, m, s);
  TXE_OpAddInput(add, m, s);
  n = 1;
  TXE_ExecuteWithCancellation(add, &out, &n, NULL, s);
  CHECK_OK(s);
  CHECK(n == 1 && out != NULL);
  TX_Tensor* v = TXE_TensorHandleResolve(out, s);
  CHECK_OK(s);
  CHECK(v != NULL && *(const int32_t*)TX_TensorData(v) == -2);
  TX_DeleteTensor(v);
  TXE_DeleteTensorHandle(out);
  TXE_DeleteOp(add);
  TXE_DeleteOp(again);
  TXE_DeleteOp(r.op);
  TX_DeleteStatus(r.status);
  TX_DeleteCancellation(r.flag);
  TXE_DeleteTensorHandle(z);
  TXE_DeleteTensorHandle(m);
  TX_DeleteTensor(zt);
  TX_DeleteTensor(mt);
  TXE_DeleteContext(ctx);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

int main(void) {
  alarm(kHangSeconds); /* a run that cannot be stopped fails the test (SIGALRM) instead of hanging */
  static const TestCase tests[] = {
      {"deadline", test_deadline},
      {"cancel", test_cancel},
      {"close_stops_runs", test_close_stops_runs},
      {"delete_waits_for_runs", test_delete_waits_for_runs},
      {"eager_cancel", test_eager_cancel},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
