/* Fuzz target for the tf.train.Example decoder: ParseExampleV2 run on a batch holding the input
 * twice, asking for dense features of every kind (fixed shape with a default, required,
 * variable-length) and sparse ones of every type. */
#include <stdlib.h>
#include <string.h>

#include <tensorflux/c/c_api.h>

#include "fuzz/targets.h"

/* A Const of `n` strings (copied). */
static TX_Output string_const(TX_Graph* g, const char* name, const char* const* s, const size_t* len, int n,
                              TX_Status* st) {
  int64_t dims[1] = {n};
  TX_Tensor* t = TX_AllocateTensor(TX_STRING, dims, 1, (size_t)n * sizeof(TX_TString));
  TX_TString* e = (TX_TString*)TX_TensorData(t);
  for (int i = 0; i < n; ++i) TX_StringCopy(&e[i], s[i], len[i]);
  TX_OperationDescription* d = TX_NewOperation(g, "Const", name);
  TX_SetAttrTensor(d, "value", t, st);
  TX_SetAttrType(d, "dtype", TX_STRING);
  TX_Output out = {TX_FinishOperation(d, st), 0};
  TX_DeleteTensor(t);
  return out;
}

/* A Const of `n` elements of `dtype` taken from `values` (bytes, copied). */
static TX_Output const_of(TX_Graph* g, const char* name, TX_DataType dtype, const void* values, int n, TX_Status* st) {
  int64_t dims[1] = {n};
  TX_Tensor* t = TX_AllocateTensor(dtype, dims, 1, (size_t)n * TX_DataTypeSize(dtype));
  if (n > 0) memcpy(TX_TensorData(t), values, (size_t)n * TX_DataTypeSize(dtype));
  TX_OperationDescription* d = TX_NewOperation(g, "Const", name);
  TX_SetAttrTensor(d, "value", t, st);
  TX_SetAttrType(d, "dtype", dtype);
  TX_Output out = {TX_FinishOperation(d, st), 0};
  TX_DeleteTensor(t);
  return out;
}

int tx_fuzz_example(const uint8_t* data, size_t size) {
  TX_Status* st = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  const char* batch[2] = {(const char*)data, (const char*)data};
  const size_t batch_len[2] = {size, size};
  TX_Output serialized = string_const(g, "serialized", batch, batch_len, 2, st);
  TX_Output names = string_const(g, "names", NULL, NULL, 0, st);
  const char* sparse[3] = {"d", "e", "f"};
  const char* dense[3] = {"a", "b", "c"};
  const size_t one[3] = {1, 1, 1};
  TX_Output sparse_keys = string_const(g, "sparse_keys", sparse, one, 3, st);
  TX_Output dense_keys = string_const(g, "dense_keys", dense, one, 3, st);
  TX_Output ragged_keys = string_const(g, "ragged_keys", NULL, NULL, 0, st);
  const float a_default[2] = {0.5f, -1.0f};
  const char* empty = "";
  const size_t zero = 0;
  TX_Output defaults[3] = {const_of(g, "a_default", TX_FLOAT, a_default, 2, st),
                           const_of(g, "b_default", TX_INT64, NULL, 0, st),
                           string_const(g, "c_default", &empty, &zero, 1, st)};
  TX_OperationDescription* d = TX_NewOperation(g, "ParseExampleV2", "parse");
  TX_AddInput(d, serialized);
  TX_AddInput(d, names);
  TX_AddInput(d, sparse_keys);
  TX_AddInput(d, dense_keys);
  TX_AddInput(d, ragged_keys);
  TX_AddInputList(d, defaults, 3);
  const TX_DataType dense_types[3] = {TX_FLOAT, TX_INT64, TX_STRING};
  const TX_DataType sparse_types[3] = {TX_INT64, TX_STRING, TX_FLOAT};
  TX_SetAttrTypeList(d, "Tdense", dense_types, 3);
  TX_SetAttrInt(d, "num_sparse", 3);
  TX_SetAttrTypeList(d, "sparse_types", sparse_types, 3);
  TX_SetAttrTypeList(d, "ragged_value_types", NULL, 0);
  TX_SetAttrTypeList(d, "ragged_split_types", NULL, 0);
  const int64_t a_shape[1] = {2}, c_shape[1] = {-1};
  const int64_t* shapes[3] = {a_shape, NULL, c_shape};
  const int ranks[3] = {1, 0, 1};
  TX_SetAttrShapeList(d, "dense_shapes", shapes, ranks, 3);
  TX_Operation* parse = TX_FinishOperation(d, st);
  int ok = 0;
  if (TX_GetCode(st) != TX_OK || parse == NULL) abort(); /* the graph itself is valid */
  TX_SessionOptions* opts = TX_NewSessionOptions();
  TX_Session* sess = TX_NewSession(g, opts, st);
  TX_Output fetches[12];
  TX_Tensor* values[12] = {NULL};
  for (int i = 0; i < 12; ++i) fetches[i] = (TX_Output){parse, i};
  TX_SessionRun(sess, NULL, NULL, NULL, 0, fetches, values, 12, NULL, 0, NULL, st);
  ok = TX_GetCode(st) == TX_OK;
  for (int i = 0; i < 12; ++i) TX_DeleteTensor(values[i]);
  TX_CloseSession(sess, st);
  TX_DeleteSession(sess, st);
  TX_DeleteSessionOptions(opts);
  TX_DeleteGraph(g);
  TX_DeleteStatus(st);
  return ok;
}
