/* Misuse of the C API (issue 16): each call below breaks a rule of c_api.h, and each gets the
 * result the header documents for it: an error status with the code and message asserted, or the
 * documented sentinel value (NULL, -1, 0), never a crash. The misuses that cannot be checked
 * (pointers to freed objects) are documented as undefined in c_api.h and are not exercised. */
#include "c_api_test_util.h"

/* ---- Tensors ---- */

static void test_tensor_misuse(void) {
  float v[4] = {0};
  const int64_t dims[2] = {2, 2}, negative[1] = {-1};
  CHECK(TX_NewTensor(TX_FLOAT, dims, -1, v, sizeof(v), NULL, NULL) == NULL); /* negative rank */
  CHECK(TX_NewTensor(TX_FLOAT, NULL, 2, v, sizeof(v), NULL, NULL) == NULL); /* dims missing */
  CHECK(TX_NewTensor(TX_FLOAT, negative, 1, v, 4, NULL, NULL) == NULL); /* negative dim */
  CHECK(TX_NewTensor(TX_FLOAT, dims, 2, v, sizeof(v) - 1, NULL, NULL) == NULL); /* wrong length */
  CHECK(TX_NewTensor(TX_STRING, dims, 2, v, sizeof(v), NULL, NULL) == NULL); /* unstorable dtype */
  CHECK(TX_NewTensor((TX_DataType)99, dims, 2, v, sizeof(v), NULL, NULL) == NULL);
  CHECK(TX_AllocateTensor(TX_FLOAT, dims, 2, 3) == NULL);
  const int64_t huge[2] = {INT64_MAX / 2, 4}; /* the element count overflows */
  CHECK(TX_AllocateTensor(TX_FLOAT, huge, 2, 8) == NULL);
  TX_Tensor* t = TX_AllocateTensor(TX_FLOAT, dims, 2, sizeof(v));
  CHECK(TX_Dim(t, 2) == -1 && TX_Dim(t, -1) == -1); /* out-of-range dim index */
  TX_DeleteTensor(t);
  /* NULL tensors: the documented zero values. */
  CHECK(TX_NumDims(NULL) == 0);
  CHECK(TX_Dim(NULL, 0) == -1);
  CHECK(TX_TensorByteSize(NULL) == 0 && TX_TensorData(NULL) == NULL && TX_TensorElementCount(NULL) == 0);
  TX_DeleteTensor(NULL);
  CHECK(TX_DataTypeSize((TX_DataType)99) == 0);
}

/* ---- Graph building ---- */

static void test_description_misuse(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Graph* other = TX_NewGraph();
  const float one = 1;
  TX_Operation* c = const_f32(g, "c", NULL, 0, &one, s);
  TX_Operation* elsewhere = const_f32(other, "e", NULL, 0, &one, s);
  CHECK_OK(s);

  TX_OperationDescription* d = TX_NewOperation(g, "NoSuchOp", "x");
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_NOT_FOUND, "NoSuchOp");

  d = TX_NewOperation(g, "Neg", "neg_other"); /* an input of another graph */
  TX_AddInput(d, out0(elsewhere));
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");

  TX_Output bad = {c, 3}; /* an output index the producer lacks */
  d = TX_NewOperation(g, "Neg", "neg_index");
  TX_AddInput(d, bad);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "refers to output 3");

  d = TX_NewOperation(g, "Neg", "neg_missing"); /* too few inputs */
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "neg_missing");

  d = TX_NewOperation(g, "Neg", "neg_attr"); /* an attr of the wrong kind */
  TX_AddInput(d, out0(c));
  TX_SetAttrInt(d, "T", 3);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "T");

  d = TX_NewOperation(g, "Neg", "c"); /* a taken name */
  TX_AddInput(d, out0(c));
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, -1, "c");

  d = TX_NewOperation(g, "Neg", "ctl_other"); /* a control input of another graph */
  TX_AddInput(d, out0(c));
  TX_AddControlInput(d, elsewhere);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");

  d = TX_NewOperation(g, "Neg", "abandoned"); /* abandoned: nothing is added */
  TX_DeleteOperationDescription(d);
  TX_DeleteOperationDescription(NULL);
  CHECK(TX_GraphOperationByName(g, "abandoned") == NULL);
  CHECK(TX_GraphOperationByName(g, "neg_attr") == NULL); /* failed operations are not added */
  CHECK(TX_GraphNumOperations(g) == 1);

  /* Shapes: another graph, a bad index, a rank mismatch, an incompatible shape. */
  int64_t dims[2] = {2, 2};
  TX_GraphSetTensorShape(g, out0(elsewhere), dims, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");
  TX_GraphSetTensorShape(g, bad, dims, 0, s);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "refers to output 3");
  TX_GraphSetTensorShape(g, out0(c), dims, 2, s); /* c is a scalar */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_GraphSetTensorShape(g, out0(c), dims, -2, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "num_dims");
  TX_GraphGetTensorShape(g, out0(c), dims, 2, s); /* num_dims must equal the rank (0) */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  CHECK(TX_GraphGetTensorNumDims(g, bad, s) == -1);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "");

  /* Introspection out of range: the documented sentinels. */
  TX_Input bad_in = {c, 0}; /* c has no inputs */
  CHECK(TX_OperationInputType(bad_in) == 0);
  CHECK(TX_OperationInput(bad_in).oper == NULL && TX_OperationInput(bad_in).index == -1);
  CHECK(TX_OperationOutputType(bad) == 0);
  CHECK(TX_OperationOutputNumConsumers(bad) == 0);
  CHECK(TX_OperationOutputConsumers(bad, NULL, 0) == 0);
  CHECK(TX_OperationOutputListLength(c, "nope", s) == -1);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "no output argument named 'nope'");
  CHECK(TX_OperationInputListLength(c, "nope", s) == -1);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "no input argument named 'nope'");
  CHECK(TX_OperationGetAttrName(c, 99, s) == NULL);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "");
  size_t pos = 1000;
  CHECK(TX_GraphNextOperation(g, &pos) == NULL);

  /* Attr getters: a missing attr, the wrong kind, a too-small array. */
  int64_t i64;
  TX_OperationGetAttrInt(c, "nope", &i64, s);
  CHECK_ERR(s, TX_NOT_FOUND, "[c] operation has no attr named 'nope'");
  TX_OperationGetAttrInt(c, "dtype", &i64, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "dtype");
  TX_Tensor* attr = NULL;
  TX_OperationGetAttrTensor(c, "dtype", &attr, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "dtype");
  CHECK(attr == NULL);
  int64_t shape_dims[1];
  TX_OperationGetAttrShape(c, "dtype", shape_dims, 1, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "dtype");

  TX_DeleteGraph(other);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* ---- Sessions ---- */

static void test_session_misuse(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Graph* other = TX_NewGraph();
  const float one = 1;
  TX_Operation* x = placeholder(g, "x", TX_FLOAT, NULL, 0, s);
  TX_Operation* y = unary(g, "Neg", "y", out0(x), s);
  TX_Operation* elsewhere = const_f32(other, "e", NULL, 0, &one, s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  TX_Tensor* fed = float_tensor(NULL, 0, &one);
  TX_Tensor* out = (TX_Tensor*)1;
  TX_Output feed = out0(x), fetch = out0(y);

  /* Negative counts, NULL arrays with a count, NULL tensors. */
  TX_SessionRun(sess, NULL, &feed, &fed, -1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  CHECK(out == NULL); /* on error every output is NULL */
  TX_SessionRun(sess, NULL, NULL, NULL, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_Tensor* null_value = NULL;
  TX_SessionRun(sess, NULL, &feed, &null_value, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  /* Fetches and feeds of another graph, bad output indices, the wrong dtype, a missing feed. */
  TX_Output foreign = out0(elsewhere), bad = {y, 5};
  TX_SessionRun(sess, NULL, NULL, NULL, 0, &foreign, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");
  TX_SessionRun(sess, NULL, &foreign, &fed, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");
  TX_SessionRun(sess, NULL, &feed, &fed, 1, &bad, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "refers to output 5");
  const int32_t i = 1;
  TX_Tensor* wrong = int32_tensor(NULL, 0, &i);
  TX_SessionRun(sess, NULL, &feed, &wrong, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "x");
  TX_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "x");
  const TX_Operation* target = elsewhere;
  TX_SessionRun(sess, NULL, &feed, &fed, 1, NULL, NULL, 0, &target, 1, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");
  /* Garbage RunOptions. */
  TX_Buffer* garbage = TX_NewBufferFromString("\xff\xff\xff", 3);
  TX_SessionRun(sess, garbage, &feed, &fed, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "RunOptions");
  TX_DeleteBuffer(garbage);

  /* The session still works after all that. */
  TX_SessionRun(sess, NULL, &feed, &fed, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  CHECK(out != NULL && *(float*)TX_TensorData(out) == -1.0f);
  TX_DeleteTensor(out);

  /* Closing twice is fine; runs after closing are CANCELLED. */
  TX_CloseSession(sess, s);
  CHECK_OK(s);
  TX_CloseSession(sess, s);
  CHECK_OK(s);
  TX_SessionRun(sess, NULL, &feed, &fed, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_CANCELLED, "closed");
  TX_DeleteSession(sess, s);
  CHECK_OK(s);
  TX_DeleteSession(NULL, s);

  /* Options: a garbage ConfigProto, negative thread counts. */
  TX_SessionOptions* opts = TX_NewSessionOptions();
  TX_SetConfig(opts, "\xff\xff", 2, s);
  CHECK_ERR(s, TX_DATA_LOSS, "invalid ConfigProto");
  TX_SessionOptionsSetIntraOpThreads(opts, -3); /* negative: the default, one per core */
  TX_SessionOptionsSetInterOpThreads(opts, -3);
  TX_Session* neg = TX_NewSession(g, opts, s);
  CHECK_OK(s);
  TX_SessionRun(neg, NULL, &feed, &fed, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  TX_DeleteTensor(out);
  TX_DeleteSession(neg, s);
  TX_DeleteSessionOptions(opts);

  TX_DeleteTensor(wrong);
  TX_DeleteTensor(fed);
  TX_DeleteGraph(other);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* ---- Cancellation flags, checkpoints, functions, gradients ---- */

static void test_other_misuse(void) {
  TX_Status* s = TX_NewStatus();
  TX_Cancel(NULL);
  TX_ResetCancellation(NULL);
  CHECK(TX_CancellationIsCancelled(NULL) == 0);
  TX_DeleteCancellation(NULL);

  /* Checkpoints: bad arguments leave the file alone. */
  const float one = 1;
  TX_Tensor* t = float_tensor(NULL, 0, &one);
  const char* dup[2] = {"a", "a"};
  TX_Tensor* two[2] = {t, t};
  TX_SaveSafetensors("/tmp/tx-misuse.safetensors", dup, two, 2, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "a");
  const char* empty[1] = {""};
  TX_SaveSafetensors("/tmp/tx-misuse.safetensors", empty, two, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_Tensor* null_tensor[1] = {NULL};
  const char* name[1] = {"a"};
  TX_SaveSafetensors("/tmp/tx-misuse.safetensors", name, null_tensor, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_SaveSafetensors("/tmp/tx-misuse.safetensors", name, two, -1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_SaveSafetensors(NULL, name, two, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  CHECK(TX_LoadSafetensors("/tmp/tx-misuse-absent.safetensors", s) == NULL);
  CHECK_ERR(s, TX_NOT_FOUND, "tx-misuse-absent");
  CHECK(TX_LoadSafetensors("/tmp", s) == NULL); /* a directory */
  CHECK_ERR(s, -1, "/tmp");
  CHECK(TX_SafetensorsNumTensors(NULL) == 0 && TX_SafetensorsName(NULL, 0, NULL) == NULL);
  CHECK(TX_SafetensorsTensorNumDims(NULL, 0) == -1 && TX_SafetensorsTensorDim(NULL, 0, 0) == -1);
  TX_DeleteSafetensors(NULL);

  /* Functions: garbage bytes, NULL arguments, options that must be NULL. */
  CHECK(TX_FunctionImportFunctionDef("\xff\xff", 2, s) == NULL);
  CHECK_ERR(s, TX_DATA_LOSS, "malformed FunctionDef");
  CHECK(TX_FunctionImportFunctionDef(NULL, 0, s) == NULL);
  CHECK(TX_GetCode(s) != TX_OK);
  TX_Graph* g = TX_NewGraph();
  TX_GraphCopyFunction(g, NULL, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_Output x = out0(placeholder(g, "x", TX_FLOAT, NULL, 0, s));
  TX_Output y = out0(unary(g, "Neg", "y", x, s));
  CHECK(TX_GraphToFunction(g, "f", 0, -1, NULL, 1, &x, 1, &y, NULL, (const TX_FunctionOptions*)1, NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  CHECK(TX_GraphToFunction(g, "f", 0, -1, NULL, -1, &x, 1, &y, NULL, NULL, NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");

  /* Gradients: negative counts, NULL arrays, an unknown unconnected mode. */
  TX_Output dx;
  TX_AddGradients(g, NULL, &y, -1, &x, 1, NULL, &dx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_AddGradients(g, NULL, NULL, 1, &x, 1, NULL, &dx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  TX_AddGradientsWithOptions(g, NULL, &y, 1, &x, 1, NULL, NULL, 0, 7, &dx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "");
  CHECK(TX_OpGradientStatus(NULL) == -1 && TX_OpGradientStatus("NoSuchOp") == -1);

  /* Import options of another graph's operations fail at import. */
  TX_Graph* other = TX_NewGraph();
  TX_Output foreign = out0(const_f32(other, "e", NULL, 0, &one, s));
  TX_ImportGraphDefOptions* o = TX_NewImportGraphDefOptions();
  TX_ImportGraphDefOptionsAddInputMapping(o, "x", 0, foreign);
  TX_Buffer* def = TX_NewBuffer();
  TX_GraphToGraphDef(g, def, s);
  CHECK_OK(s);
  TX_Graph* dst = TX_NewGraph();
  TX_GraphImportGraphDef(dst, def, o, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");
  CHECK(TX_GraphNumOperations(dst) == 0);
  TX_DeleteGraph(dst);
  TX_DeleteBuffer(def);
  TX_DeleteImportGraphDefOptions(o);
  TX_DeleteGraph(other);
  TX_DeleteGraph(g);
  TX_DeleteTensor(t);
  TX_DeleteStatus(s);
}

static const TestCase kTests[] = {
    {"tensor_misuse", test_tensor_misuse},
    {"description_misuse", test_description_misuse},
    {"session_misuse", test_session_misuse},
    {"other_misuse", test_other_misuse},
};

int main(void) { return run_tests(kTests, (int)(sizeof(kTests) / sizeof(kTests[0]))); }
