/* Tests of the host-callback C API (c_api_callback.h) from plain C: a C function registered under
 * a token and called by PyFunc / EagerPyFunc nodes in a session, its failures reported on the run
 * (after which the session still works), registry errors, and the context deleter. */
#include <stdint.h>
#include <string.h>

#include <tensorflux/c/c_api_callback.h>

#include "c_api_test_util.h"

typedef struct Scale {
  float factor;
  int calls;
  int deleted;
} Scale;

/* outputs[0] = inputs[0] * factor (float); fails with TX_OUT_OF_RANGE on a negative first value. */
static void scale_fn(void* ctx, TX_Tensor* const* inputs, int num_inputs, TX_Tensor** outputs, int num_outputs,
                     TX_Status* status) {
  Scale* sc = (Scale*)ctx;
  ++sc->calls;
  if (num_inputs != 1 || num_outputs != 1) {
    TX_SetStatus(status, TX_INVALID_ARGUMENT, "scale_fn wants one input and one output");
    return;
  }
  const float* x = (const float*)TX_TensorData(inputs[0]);
  int64_t n = TX_TensorElementCount(inputs[0]);
  if (n > 0 && x[0] < 0) {
    TX_SetStatus(status, TX_OUT_OF_RANGE, "negative input");
    return;
  }
  int64_t dims[8];
  int nd = TX_NumDims(inputs[0]);
  for (int i = 0; i < nd; ++i) dims[i] = TX_Dim(inputs[0], i);
  TX_Tensor* y = TX_AllocateTensor(TX_FLOAT, dims, nd, (size_t)n * sizeof(float));
  float* out = (float*)TX_TensorData(y);
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * sc->factor;
  outputs[0] = y;
}

/* Sets no output: the engine reports it. */
static void lazy_fn(void* ctx, TX_Tensor* const* inputs, int num_inputs, TX_Tensor** outputs, int num_outputs,
                    TX_Status* status) {
  (void)ctx, (void)inputs, (void)num_inputs, (void)outputs, (void)num_outputs, (void)status;
}

static void delete_scale(void* ctx) { ((Scale*)ctx)->deleted = 1; }

static TX_Operation* host_op(TX_Graph* g, const char* type, const char* name, const char* token, TX_Output in,
                             TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, type, name);
  TX_AddInputList(d, &in, 1);
  TX_SetAttrString(d, "token", token, strlen(token));
  TX_DataType f = TX_FLOAT;
  TX_SetAttrTypeList(d, "Tin", &f, 1);
  TX_SetAttrTypeList(d, "Tout", &f, 1);
  return TX_FinishOperation(d, s);
}

static float run_one(TX_Session* sess, TX_Operation* x, TX_Operation* y, float v, TX_Status* s) {
  int64_t dims[1] = {2};
  float vals[2] = {v, 1.0f};
  TX_Tensor* in = float_tensor(dims, 1, vals);
  TX_Output feed = out0(x), fetch = out0(y);
  TX_Tensor* out = NULL;
  TX_SessionRun(sess, NULL, &feed, &in, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  TX_DeleteTensor(in);
  float r = out != NULL ? ((float*)TX_TensorData(out))[0] : -1.0f;
  TX_DeleteTensor(out);
  return r;
}

static void test_callback_in_session(void) {
  TX_Status* s = TX_NewStatus();
  Scale sc = {3.0f, 0, 0};
  int before = TX_NumHostCallbacks();
  TX_RegisterHostCallback("c_scale", scale_fn, &sc, delete_scale, s);
  CHECK_OK(s);
  CHECK(TX_NumHostCallbacks() == before + 1);
  TX_RegisterHostCallback("c_scale", scale_fn, &sc, NULL, s);
  CHECK_ERR(s, TX_ALREADY_EXISTS, "already registered");
  TX_RegisterHostCallback("c_lazy", lazy_fn, NULL, NULL, s);
  CHECK_OK(s);

  TX_Graph* g = TX_NewGraph();
  int64_t dims[1] = {2};
  TX_Operation* x = placeholder(g, "x", TX_FLOAT, dims, 1, s);
  TX_Operation* y = host_op(g, "PyFunc", "scaled", "c_scale", out0(x), s);
  TX_Operation* e = host_op(g, "EagerPyFunc", "eager_scaled", "c_scale", out0(x), s);
  TX_Operation* lazy = host_op(g, "PyFuncStateless", "lazy", "c_lazy", out0(x), s);
  TX_Operation* missing = host_op(g, "PyFunc", "missing", "c_not_registered", out0(x), s);
  CHECK_OK(s);
  TX_SessionOptions* opts = TX_NewSessionOptions();
  TX_Session* sess = TX_NewSession(g, opts, s);
  CHECK_OK(s);

  CHECK(near(run_one(sess, x, y, 2.0f, s), 6.0f));
  CHECK_OK(s);
  CHECK(near(run_one(sess, x, e, 4.0f, s), 12.0f));
  CHECK_OK(s);
  run_one(sess, x, y, -1.0f, s);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "negative input");
  CHECK_ERR(s, TX_OUT_OF_RANGE, "[scaled]");
  run_one(sess, x, lazy, 1.0f, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "set no value for output 0");
  run_one(sess, x, missing, 1.0f, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "no host callback is registered under token 'c_not_registered'");
  CHECK(near(run_one(sess, x, y, 1.5f, s), 4.5f)); /* the session survives */
  CHECK_OK(s);
  CHECK(sc.calls == 4);

  CHECK(TX_UnregisterHostCallback("c_scale") == 1);
  CHECK(sc.deleted == 1);
  CHECK(TX_UnregisterHostCallback("c_scale") == 0);
  run_one(sess, x, y, 1.0f, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "no host callback");
  CHECK(TX_UnregisterHostCallback("c_lazy") == 1);
  CHECK(TX_NumHostCallbacks() == before);

  TX_RegisterHostCallback("", scale_fn, &sc, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "must not be empty");
  TX_RegisterHostCallback("c_null", NULL, &sc, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "must not be NULL");
  CHECK(TX_UnregisterHostCallback(NULL) == 0);

  TX_DeleteSession(sess, s);
  TX_DeleteSessionOptions(opts);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"callback_in_session", test_callback_in_session},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
