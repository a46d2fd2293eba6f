/* Every function of the public C API called with NULL objects and zero arguments (c_api.h's rule
 * "NULL arguments"): each returns its documented zero value (NULL, 0, -1, "", a zero struct) and,
 * where it takes a status, sets an error; none crashes. core/tests/test_c_api_headers.py checks
 * that every TX_/TXE_ function declared in the headers is called here. */
#include <tensorflux/c/c_api_callback.h>
#include <tensorflux/c/c_api_eager.h>
#include <tensorflux/c/c_api_profiler.h>

#include "c_api_test_util.h"

static TX_Status* s;

/* Runs `call` with a status reset to OK; it must leave an error. */
#define ERR(call)                                                       \
  do {                                                                  \
    TX_SetStatus(s, TX_OK, "");                                         \
    call;                                                               \
    if (TX_GetCode(s) == TX_OK) {                                       \
      printf("  %s:%d: no error from %s\n", __FILE__, __LINE__, #call); \
      ++g_check_failures;                                               \
    }                                                                   \
  } while (0)

static void test_core(void) {
  CHECK(TX_Version() != NULL);
  CHECK(TX_GetCode(NULL) == TX_OK && strcmp(TX_Message(NULL), "") == 0);
  TX_SetStatus(NULL, TX_INTERNAL, "x");
  TX_DeleteStatus(NULL);
  TX_Buffer* b = TX_NewBufferFromString(NULL, 0);
  CHECK(b != NULL && b->length == 0);
  TX_DeleteBuffer(b);
  TX_DeleteBuffer(NULL);
  CHECK(TX_GetBuffer(NULL).data == NULL && TX_GetBuffer(NULL).length == 0);
  CHECK(TX_DataTypeSize((TX_DataType)0) == 0);
  CHECK(TX_NewTensor(TX_FLOAT, NULL, 1, NULL, 4, NULL, NULL) == NULL);
  CHECK(TX_AllocateTensor(TX_FLOAT, NULL, 1, 4) == NULL);
  CHECK(TX_AllocateStringTensor(NULL, 1, 4, NULL) == NULL);
  TX_DeleteTensor(NULL);
  CHECK(TX_TensorType(NULL) == 0 && TX_NumDims(NULL) == 0 && TX_Dim(NULL, 0) == -1);
  CHECK(TX_TensorByteSize(NULL) == 0 && TX_TensorData(NULL) == NULL && TX_TensorElementCount(NULL) == 0);
  CHECK(TX_TensorIsAligned(NULL) == 0);
  TX_StringInit(NULL);
  CHECK(TX_StringCopy(NULL, "x", 1) == 0);
  TX_StringAssignView(NULL, "x", 1);
  CHECK(TX_StringGetDataPointer(NULL) == NULL && TX_StringGetType(NULL) == TX_TSTR_SMALL);
  CHECK(TX_StringGetSize(NULL) == 0 && TX_StringGetCapacity(NULL) == 0);
  TX_StringDealloc(NULL);
  /* The constructors without arguments cannot be misused; they are here for completeness. */
  TXE_DeleteContextOptions(TXE_NewContextOptions());
  TX_DeleteSessionOptions(TX_NewSessionOptions());
  TX_DeleteImportGraphDefOptions(TX_NewImportGraphDefOptions());
}

static void test_graph(void) {
  TX_Output none = {NULL, 0};
  TX_Input no_in = {NULL, 0};
  int64_t dims[1] = {1};
  size_t pos = 0;
  TX_DeleteGraph(NULL);
  ERR(TX_GraphSetTensorShape(NULL, none, dims, 1, s));
  ERR(CHECK(TX_GraphGetTensorNumDims(NULL, none, s) == -1));
  ERR(TX_GraphGetTensorShape(NULL, none, dims, 1, s));
  CHECK(TX_GraphOperationByName(NULL, "x") == NULL);
  CHECK(TX_GraphNextOperation(NULL, &pos) == NULL);
  CHECK(TX_GraphNumOperations(NULL) == 0);
  CHECK(TX_GraphUniqueName(NULL, "x") == NULL);
  TX_Buffer* out = TX_NewBuffer();
  ERR(TX_GraphToGraphDef(NULL, out, s));
  ERR(TX_GraphGetOpDef(NULL, "Neg", out, s));
  ERR(TX_GraphVersions(NULL, out, s));
  TX_Graph* g = TX_NewGraph();
  ERR(TX_GraphToGraphDef(g, NULL, s));
  ERR(TX_GraphGetOpDef(g, NULL, out, s));

  /* A description of a NULL graph, and NULL descriptions: nothing happens until Finish fails. */
  TX_OperationDescription* d = TX_NewOperation(NULL, "Neg", "x");
  ERR(CHECK(TX_FinishOperation(d, s) == NULL));
  ERR(CHECK(TX_FinishOperation(NULL, s) == NULL));
  d = TX_NewOperation(g, NULL, NULL);
  ERR(CHECK(TX_FinishOperation(d, s) == NULL));
  TX_DeleteOperationDescription(NULL);
  TX_SetDevice(NULL, "x");
  TX_AddInput(NULL, none);
  TX_AddInputList(NULL, NULL, 1);
  TX_AddControlInput(NULL, NULL);
  TX_SetAttrString(NULL, "a", NULL, 1);
  TX_SetAttrStringList(NULL, "a", NULL, NULL, 1);
  TX_SetAttrInt(NULL, "a", 1);
  TX_SetAttrIntList(NULL, "a", NULL, 1);
  TX_SetAttrFloat(NULL, "a", 1);
  TX_SetAttrFloatList(NULL, "a", NULL, 1);
  TX_SetAttrBool(NULL, "a", 1);
  TX_SetAttrBoolList(NULL, "a", NULL, 1);
  TX_SetAttrType(NULL, "a", TX_FLOAT);
  TX_SetAttrTypeList(NULL, "a", NULL, 1);
  TX_SetAttrShape(NULL, "a", NULL, 1);
  TX_SetAttrShapeList(NULL, "a", NULL, NULL, 1);
  ERR(TX_SetAttrTensor(NULL, "a", NULL, s));
  ERR(TX_SetAttrTensorList(NULL, "a", NULL, 1, s));
  TX_SetAttrFuncName(NULL, "a", NULL, 1);
  TX_SetAttrFuncNameList(NULL, "a", NULL, NULL, 1);
  ERR(TX_SetAttrValueProto(NULL, "a", NULL, 1, s));
  /* NULL values and names on a real description: the error comes from Finish, naming the op. */
  d = TX_NewOperation(g, "Neg", "y");
  TX_AddInput(d, none);
  TX_AddInputList(d, NULL, 1);
  TX_AddControlInput(d, NULL);
  TX_SetAttrString(d, NULL, NULL, 1);
  TX_SetAttrIntList(d, "a", NULL, 1);
  TX_SetAttrShape(d, "a", NULL, 1);
  ERR(TX_SetAttrTensor(d, "a", NULL, s));
  ERR(TX_SetAttrValueProto(d, "a", NULL, 1, s));
  ERR(CHECK(TX_FinishOperation(d, s) == NULL));
  CHECK(strstr(TX_Message(s), "[y]") != NULL);

  /* Introspection of a NULL operation. */
  CHECK(strcmp(TX_OperationName(NULL), "") == 0 && strcmp(TX_OperationOpType(NULL), "") == 0);
  CHECK(strcmp(TX_OperationDevice(NULL), "") == 0);
  CHECK(TX_OperationNumOutputs(NULL) == 0 && TX_OperationNumInputs(NULL) == 0);
  CHECK(TX_OperationOutputType(none) == 0 && TX_OperationInputType(no_in) == 0);
  ERR(CHECK(TX_OperationOutputListLength(NULL, "y", s) == -1));
  ERR(CHECK(TX_OperationInputListLength(NULL, "x", s) == -1));
  CHECK(TX_OperationInput(no_in).oper == NULL);
  TX_OperationAllInputs(NULL, NULL, 1);
  CHECK(TX_OperationOutputNumConsumers(none) == 0 && TX_OperationOutputConsumers(none, NULL, 1) == 0);
  CHECK(TX_OperationNumControlInputs(NULL) == 0 && TX_OperationGetControlInputs(NULL, NULL, 1) == 0);
  CHECK(TX_OperationNumControlOutputs(NULL) == 0 && TX_OperationGetControlOutputs(NULL, NULL, 1) == 0);
  ERR(TX_OperationToNodeDef(NULL, out, s));
  TX_AttrMetadata m;
  ERR(m = TX_OperationGetAttrMetadata(NULL, "a", s));
  CHECK(TX_OperationGetNumAttrs(NULL) == 0);
  ERR(CHECK(TX_OperationGetAttrName(NULL, 0, s) == NULL));
  char buf[8];
  void* vals[1];
  size_t lens[1];
  int64_t i64[1];
  float f[1];
  unsigned char u8[1];
  TX_DataType dt[1];
  TX_Tensor* t = NULL;
  ERR(TX_OperationGetAttrString(NULL, "a", buf, sizeof(buf), s));
  ERR(TX_OperationGetAttrStringList(NULL, "a", vals, lens, 1, buf, sizeof(buf), s));
  ERR(TX_OperationGetAttrInt(NULL, "a", i64, s));
  ERR(TX_OperationGetAttrIntList(NULL, "a", i64, 1, s));
  ERR(TX_OperationGetAttrFloat(NULL, "a", f, s));
  ERR(TX_OperationGetAttrFloatList(NULL, "a", f, 1, s));
  ERR(TX_OperationGetAttrBool(NULL, "a", u8, s));
  ERR(TX_OperationGetAttrBoolList(NULL, "a", u8, 1, s));
  ERR(TX_OperationGetAttrType(NULL, "a", dt, s));
  ERR(TX_OperationGetAttrTypeList(NULL, "a", dt, 1, s));
  ERR(TX_OperationGetAttrShape(NULL, "a", i64, 1, s));
  ERR(TX_OperationGetAttrTensor(NULL, "a", &t, s));
  CHECK(t == NULL);
  ERR(TX_OperationGetAttrValueProto(NULL, "a", out, s));
  ERR(TX_OperationGetAttrFuncName(NULL, "a", buf, sizeof(buf), s));
  ERR(TX_OperationGetAttrFuncNameList(NULL, "a", vals, lens, 1, buf, sizeof(buf), s));
  /* NULL out-pointers on a real operation. */
  const float one = 1;
  TX_Operation* c = const_f32(g, "c", NULL, 0, &one, s);
  CHECK_OK(s);
  ERR(TX_OperationGetAttrInt(c, "dtype", NULL, s));
  ERR(TX_OperationGetAttrTensor(c, "value", NULL, s));
  ERR(TX_OperationGetAttrValueProto(c, "value", NULL, s));
  ERR(TX_OperationGetAttrString(c, NULL, buf, sizeof(buf), s));
  TX_DeleteBuffer(out);
  TX_DeleteGraph(g);
}

static void test_import_gradients_session(void) {
  TX_Output none = {NULL, 0};
  int n = 1;
  TX_Output* outs = NULL;
  TX_Operation** ops = NULL;
  const char** names = NULL;
  int* idx = NULL;
  TX_DeleteImportGraphDefOptions(NULL);
  TX_ImportGraphDefOptionsSetPrefix(NULL, "p");
  TX_ImportGraphDefOptionsSetDefaultDevice(NULL, "d");
  TX_ImportGraphDefOptionsSetUniquifyNames(NULL, 1);
  TX_ImportGraphDefOptionsSetUniquifyPrefix(NULL, 1);
  TX_ImportGraphDefOptionsAddInputMapping(NULL, "x", 0, none);
  TX_ImportGraphDefOptionsRemapControlDependency(NULL, "x", NULL);
  TX_ImportGraphDefOptionsAddControlDependency(NULL, NULL);
  TX_ImportGraphDefOptionsAddReturnOutput(NULL, "x", 0);
  CHECK(TX_ImportGraphDefOptionsNumReturnOutputs(NULL) == 0);
  TX_ImportGraphDefOptionsAddReturnOperation(NULL, "x");
  CHECK(TX_ImportGraphDefOptionsNumReturnOperations(NULL) == 0);
  TX_ImportGraphDefResultsReturnOutputs(NULL, &n, &outs);
  CHECK(n == 0 && outs == NULL);
  n = 1;
  TX_ImportGraphDefResultsReturnOperations(NULL, &n, &ops);
  CHECK(n == 0 && ops == NULL);
  n = 1;
  TX_ImportGraphDefResultsMissingUnusedInputMappings(NULL, &n, &names, &idx);
  CHECK(n == 0 && names == NULL && idx == NULL);
  TX_DeleteImportGraphDefResults(NULL);
  TX_Graph* g = TX_NewGraph();
  TX_Buffer* empty = TX_NewBuffer();
  ERR(CHECK(TX_GraphImportGraphDefWithResults(NULL, empty, NULL, s) == NULL));
  ERR(TX_GraphImportGraphDef(g, NULL, NULL, s));
  TX_GraphImportGraphDef(g, empty, NULL, s); /* NULL options: the defaults */
  CHECK_OK(s);
  TX_Output dx;
  ERR(TX_AddGradients(NULL, NULL, NULL, 0, NULL, 0, NULL, &dx, s));
  ERR(TX_AddGradientsWithOptions(NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, 0, 0, &dx, s));
  CHECK(TX_OpGradientStatus(NULL) == -1);
  TX_Buffer* ops_list = TX_GetAllOpList();
  CHECK(ops_list != NULL && ops_list->length > 0);
  TX_DeleteBuffer(ops_list);
  ERR(CHECK(TX_GetRegisteredKernelsForOp(NULL, s) == NULL));
  TX_Buffer* kernel_list = TX_GetAllRegisteredKernels(s);
  CHECK_OK(s);
  CHECK(kernel_list != NULL && kernel_list->length > 0);
  TX_DeleteBuffer(kernel_list);

  TX_DeleteSessionOptions(NULL);
  ERR(TX_SetConfig(NULL, NULL, 1, s));
  ERR(TX_SetOptimizerOption(NULL, 1, s));
  CHECK(TX_ProfilerIsActive() == 0);
  TX_ProfilerStart(s);
  CHECK_OK(s);
  ERR(TX_ProfilerStop(NULL, s));
  CHECK(TX_ProfilerIsActive() == 1);
  TX_Buffer* trace = TX_NewBuffer();
  TX_ProfilerStop(trace, s);
  CHECK_OK(s);
  TX_DeleteBuffer(trace);
  ERR(CHECK(TX_GetOptimizerOption(NULL, s) == 0));
  TX_SessionOptionsSetInterOpThreads(NULL, 1);
  TX_SessionOptionsSetIntraOpThreads(NULL, 1);
  ERR(CHECK(TX_NewSession(NULL, NULL, s) == NULL));
  ERR(TX_SessionRun(NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, s));
  ERR(TX_SessionRunWithCancellation(NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, s));
  ERR(TX_CloseSession(NULL, s));
  TX_DeleteSession(NULL, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s); /* NULL options: the defaults */
  CHECK_OK(s);
  TX_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, s); /* nothing to do */
  CHECK_OK(s);
  ERR(TX_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 1, NULL, 0, NULL, s)); /* outputs missing */
  TX_DeleteSession(sess, s);
  CHECK_OK(s);
  TX_Cancellation* flag = TX_NewCancellation();
  CHECK(flag != NULL && !TX_CancellationIsCancelled(flag));
  TX_Cancel(flag);
  CHECK(TX_CancellationIsCancelled(flag));
  TX_ResetCancellation(flag);
  TX_DeleteCancellation(flag);
  TX_Cancel(NULL);
  TX_ResetCancellation(NULL);
  CHECK(TX_CancellationIsCancelled(NULL) == 0);
  TX_DeleteCancellation(NULL);
  TX_DeleteBuffer(empty);
  TX_DeleteGraph(g);
}

static void test_checkpoints_functions(void) {
  ERR(TX_SaveSafetensors(NULL, NULL, NULL, 0, NULL, NULL, 0, s));
  ERR(TX_SaveSafetensors("/tmp/tx-null.safetensors", NULL, NULL, 1, NULL, NULL, 0, s));
  ERR(CHECK(TX_LoadSafetensors(NULL, s) == NULL));
  TX_DeleteSafetensors(NULL);
  size_t len = 7;
  CHECK(TX_SafetensorsNumTensors(NULL) == 0 && TX_SafetensorsName(NULL, 0, &len) == NULL);
  CHECK(TX_SafetensorsTensorType(NULL, 0) == 0 && TX_SafetensorsTensorNumDims(NULL, 0) == -1);
  CHECK(TX_SafetensorsTensorDim(NULL, 0, 0) == -1);
  ERR(CHECK(TX_SafetensorsTensor(NULL, 0, s) == NULL));
  CHECK(TX_SafetensorsNumMetadata(NULL) == 0);
  CHECK(TX_SafetensorsMetadataKey(NULL, 0, &len) == NULL && TX_SafetensorsMetadataValue(NULL, 0, &len) == NULL);

  ERR(CHECK(TX_GraphToFunction(NULL, "f", 0, -1, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, s) == NULL));
  ERR(CHECK(TX_GraphToFunctionWithControlOutputs(NULL, "f", 0, -1, NULL, 0, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL,
                                                 NULL, s) == NULL));
  TX_Graph* g = TX_NewGraph();
  ERR(CHECK(TX_GraphToFunction(g, NULL, 0, -1, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, s) == NULL));
  CHECK(TX_FunctionName(NULL) == NULL);
  TX_Buffer* out = TX_NewBuffer();
  ERR(TX_FunctionToFunctionDef(NULL, out, s));
  ERR(CHECK(TX_FunctionImportFunctionDef(NULL, 1, s) == NULL));
  TX_DeleteFunction(NULL);
  ERR(TX_GraphCopyFunction(NULL, NULL, NULL, s));
  CHECK(TX_GraphNumFunctions(NULL) == 0);
  TX_Function* fs[1];
  ERR(CHECK(TX_GraphGetFunctions(NULL, fs, 1, s) == 0));
  ERR(CHECK(TX_GraphGetFunctions(g, NULL, 1, s) == 0));
  TX_DeleteBuffer(out);
  TX_DeleteGraph(g);

  ERR(TX_RegisterHostCallback(NULL, NULL, NULL, NULL, s));
  CHECK(TX_UnregisterHostCallback(NULL) == 0 && TX_UnregisterHostCallback("absent") == 0);
  CHECK(TX_NumHostCallbacks() >= 0);
}

static void test_eager(void) {
  TXE_DeleteContextOptions(NULL);
  TXE_ContextOptionsSetDevicePlacementPolicy(NULL, TXE_DEVICE_PLACEMENT_SILENT);
  TXE_ContextOptionsSetThreads(NULL, 1, 1);
  TXE_ContextOptionsSetNumCpuDevices(NULL, 1);
  TXE_DeleteContext(NULL);
  ERR(TXE_ContextSetSoftDevicePlacement(NULL, 1, s));
  CHECK(TXE_ContextGetSoftDevicePlacement(NULL) == 0 && TXE_ContextNumDevices(NULL) == 0);
  ERR(CHECK(TXE_ContextDeviceName(NULL, 0, s) == NULL));
  TXE_ContextClearCaches(NULL);
  CHECK(TXE_ContextNumCachedKernels(NULL) == 0);
  ERR(TXE_ContextAddFunction(NULL, NULL, s));
  ERR(TXE_ContextAddFunctionWithGradient(NULL, NULL, NULL, s));
  ERR(TXE_ContextAddFunctionDef(NULL, NULL, 1, s));
  ERR(TXE_ContextRemoveFunction(NULL, "f", s));
  CHECK(TXE_ContextNumFunctions(NULL) == 0 && TXE_ContextHasFunction(NULL, "f") == 0);

  ERR(CHECK(TXE_NewTensorHandle(NULL, s) == NULL));
  TXE_DeleteTensorHandle(NULL);
  CHECK(TXE_TensorHandleDataType(NULL) == 0);
  ERR(CHECK(TXE_TensorHandleNumDims(NULL, s) == -1));
  ERR(TXE_TensorHandleNumElements(NULL, s));
  ERR(TXE_TensorHandleDim(NULL, 0, s));
  int64_t dims[1];
  ERR(CHECK(TXE_TensorHandleShape(NULL, dims, 1, s) == -1));
  ERR(CHECK(TXE_TensorHandleDeviceName(NULL, s) == NULL));
  ERR(CHECK(TXE_TensorHandleBackingDeviceName(NULL, s) == NULL));
  ERR(CHECK(TXE_TensorHandleCopySharingTensor(NULL, s) == NULL));
  ERR(CHECK(TXE_TensorHandleResolve(NULL, s) == NULL));
  ERR(CHECK(TXE_TensorHandleCopyToDevice(NULL, NULL, "/cpu:0", s) == NULL));
  CHECK(TXE_TensorHandleId(NULL) == 0);

  ERR(CHECK(TXE_NewOp(NULL, "Neg", s) == NULL));
  TXE_DeleteOp(NULL);
  ERR(TXE_OpReset(NULL, "Neg", NULL, s));
  ERR(TXE_OpClearInputs(NULL, s));
  ERR(CHECK(TXE_OpGetName(NULL, s) == NULL));
  ERR(CHECK(TXE_OpGetContext(NULL, s) == NULL));
  ERR(TXE_OpSetDevice(NULL, "/cpu:0", s));
  ERR(CHECK(TXE_OpGetDevice(NULL, s) == NULL));
  ERR(TXE_OpAddInput(NULL, NULL, s));
  ERR(TXE_OpAddInputList(NULL, NULL, 1, s));
  ERR(CHECK(TXE_OpGetFlatInputCount(NULL, s) == -1));
  unsigned char is_list;
  ERR(TXE_OpGetAttrType(NULL, "T", &is_list, s));
  TXE_OpSetAttrString(NULL, "a", NULL, 1);
  TXE_OpSetAttrInt(NULL, "a", 1);
  TXE_OpSetAttrFloat(NULL, "a", 1);
  TXE_OpSetAttrBool(NULL, "a", 1);
  TXE_OpSetAttrType(NULL, "a", TX_FLOAT);
  ERR(TXE_OpSetAttrShape(NULL, "a", NULL, 1, s));
  TXE_OpSetAttrFunctionName(NULL, "a", NULL, 1);
  TXE_OpSetAttrFunctionNameList(NULL, "a", NULL, NULL, 1);
  ERR(TXE_OpSetAttrTensor(NULL, "a", NULL, s));
  TXE_OpSetAttrStringList(NULL, "a", NULL, NULL, 1);
  TXE_OpSetAttrIntList(NULL, "a", NULL, 1);
  TXE_OpSetAttrFloatList(NULL, "a", NULL, 1);
  TXE_OpSetAttrBoolList(NULL, "a", NULL, 1);
  TXE_OpSetAttrTypeList(NULL, "a", NULL, 1);
  ERR(TXE_OpSetAttrShapeList(NULL, "a", NULL, NULL, 1, s));
  int n = 1;
  TXE_TensorHandle* out = NULL;
  ERR(TXE_Execute(NULL, &out, &n, s));
  ERR(TXE_ExecuteWithCancellation(NULL, &out, &n, NULL, s));
  ERR(CHECK(TXE_OpGetOutputLength(NULL, "y", s) == -1));

  ERR(CHECK(TXE_NewTape(NULL, 0, 1, s) == NULL));
  TXE_DeleteTape(NULL);
  ERR(TXE_TapeWatch(NULL, NULL, s));
  TXE_TapeSetRecording(NULL, 1);
  CHECK(TXE_TapeIsRecording(NULL) == 0 && TXE_TapeNumWatchedVariables(NULL) == 0);
  ERR(TXE_TapeGradient(NULL, NULL, 1, NULL, 1, NULL, 0, NULL, s));
  ERR(CHECK(TXE_TapeWatchedVariable(NULL, 0, s) == NULL));
  ERR(TXE_TapeRecordCustomGradient(NULL, NULL, 0, NULL, 0, NULL, NULL, NULL, s));

  /* A real context and op with NULL arguments. */
  TXE_Context* ctx = TXE_NewContext(NULL, s); /* NULL options: the defaults */
  CHECK_OK(s);
  ERR(CHECK(TXE_NewOp(ctx, NULL, s) == NULL));
  TXE_Op* op = TXE_NewOp(ctx, "Neg", s);
  CHECK_OK(s);
  ERR(TXE_OpAddInput(op, NULL, s));
  ERR(TXE_OpAddInputList(op, NULL, 1, s));
  ERR(TXE_Execute(op, NULL, &n, s));
  ERR(TXE_Execute(op, &out, NULL, s));
  ERR(TXE_ContextRemoveFunction(ctx, NULL, s));
  CHECK(TXE_ContextHasFunction(ctx, NULL) == 0);
  TXE_DeleteOp(op);
  TXE_DeleteContext(ctx);
}

static const TestCase kTests[] = {
    {"core", test_core},
    {"graph", test_graph},
    {"import_gradients_session", test_import_gradients_session},
    {"checkpoints_functions", test_checkpoints_functions},
    {"eager", test_eager},
};

int main(void) {
  s = TX_NewStatus();
  int rc = run_tests(kTests, (int)(sizeof(kTests) / sizeof(kTests[0])));
  TX_DeleteStatus(s);
  return rc;
}
