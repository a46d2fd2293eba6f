/* Tests of the public C API (plain C11, public header and libc only): status, buffers, tensors,
 * graph building, static shapes, attrs, names, iteration, the registry and introspection.
 * Prints "N passed, M failed". Sessions, GraphDef import and error paths: c_api_session_test.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "c_api_test_util.h"

/* ----------------------------------------------------------------------------------------------
 * Status, buffers, data types, tensors */

static void test_status(void) {
  CHECK(strcmp(TX_Version(), "0.1.0") == 0);
  TX_Status* s = TX_NewStatus();
  CHECK(TX_GetCode(s) == TX_OK);
  CHECK(strcmp(TX_Message(s), "") == 0);
  TX_SetStatus(s, TX_INVALID_ARGUMENT, "bad thing");
  CHECK(TX_GetCode(s) == TX_INVALID_ARGUMENT);
  CHECK(strcmp(TX_Message(s), "bad thing") == 0);
  TX_SetStatus(s, TX_OK, "ignored");
  CHECK(TX_GetCode(s) == TX_OK && strcmp(TX_Message(s), "") == 0);
  TX_SetStatus(s, TX_DATA_LOSS, NULL);
  CHECK(TX_GetCode(s) == TX_DATA_LOSS && strcmp(TX_Message(s), "") == 0);
  TX_SetStatus(NULL, TX_ABORTED, "x"); /* NULL-safe */
  CHECK(strcmp(TX_Message(NULL), "") == 0);
  TX_DeleteStatus(s);
  TX_DeleteStatus(NULL);
}

static int g_buffer_frees;
static void count_buffer_free(void* data, size_t len) {
  (void)len;
  free(data);
  ++g_buffer_frees;
}

static void test_buffers(void) {
  char src[5] = "abcd";
  TX_Buffer* b = TX_NewBufferFromString(src, 4);
  src[0] = 'z';
  CHECK(b != NULL && b->length == 4 && memcmp(b->data, "abcd", 4) == 0);
  TX_Buffer copy = TX_GetBuffer(b);
  CHECK(copy.data == b->data && copy.length == 4);
  TX_DeleteBuffer(b);
  TX_Buffer* e = TX_NewBuffer();
  CHECK(e != NULL && e->data == NULL && e->length == 0 && e->data_deallocator == NULL);
  e->data = malloc(8);
  e->length = 8;
  e->data_deallocator = count_buffer_free;
  g_buffer_frees = 0;
  TX_DeleteBuffer(e);
  CHECK(g_buffer_frees == 1);
  TX_DeleteBuffer(NULL);
  CHECK(TX_GetBuffer(NULL).data == NULL);
}

static void test_datatype_sizes(void) {
  CHECK(TX_DataTypeSize(TX_FLOAT) == 4);
  CHECK(TX_DataTypeSize(TX_DOUBLE) == 8);
  CHECK(TX_DataTypeSize(TX_INT64) == 8);
  CHECK(TX_DataTypeSize(TX_BOOL) == 1);
  CHECK(TX_DataTypeSize(TX_HALF) == 2);
  CHECK(TX_DataTypeSize(TX_COMPLEX128) == 16);
  CHECK(TX_DataTypeSize(TX_STRING) == sizeof(TX_TString) && sizeof(TX_TString) == 24);
  CHECK(TX_DataTypeSize(TX_RESOURCE) == 0);
  CHECK(TX_DataTypeSize((TX_DataType)999) == 0);
}

static int g_deallocs;
static void* g_dealloc_ptr;
static void count_dealloc(void* data, size_t len, void* arg) {
  (void)len;
  ++g_deallocs;
  g_dealloc_ptr = data;
  *(int*)arg += 1;
}

static void test_tensors(void) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[2] = {2, 3};
  int arg = 0;
  g_deallocs = 0;
  TX_Tensor* t = TX_NewTensor(TX_FLOAT, dims, 2, data, sizeof(data), count_dealloc, &arg);
  CHECK(t != NULL);
  CHECK(TX_TensorType(t) == TX_FLOAT && TX_NumDims(t) == 2 && TX_Dim(t, 0) == 2 && TX_Dim(t, 1) == 3);
  CHECK(TX_Dim(t, 2) == -1 && TX_Dim(t, -1) == -1);
  CHECK(TX_TensorByteSize(t) == sizeof(data) && TX_TensorElementCount(t) == 6);
  CHECK(TX_TensorData(t) == data); /* zero-copy */
  CHECK(g_deallocs == 0);
  TX_DeleteTensor(t);
  CHECK(g_deallocs == 1 && arg == 1 && g_dealloc_ptr == data);

  /* Length mismatch and negative dims: NULL, deallocator called once. */
  g_deallocs = 0;
  CHECK(TX_NewTensor(TX_FLOAT, dims, 2, data, sizeof(data) - 4, count_dealloc, &arg) == NULL);
  CHECK(g_deallocs == 1);
  int64_t neg[2] = {2, -3};
  CHECK(TX_NewTensor(TX_FLOAT, neg, 2, data, sizeof(data), count_dealloc, &arg) == NULL);
  CHECK(g_deallocs == 2);
  CHECK(TX_NewTensor(TX_RESOURCE, dims, 2, data, sizeof(data), count_dealloc, &arg) == NULL);
  CHECK(g_deallocs == 3);
  CHECK(TX_NewTensor(TX_FLOAT, dims, 2, data, sizeof(data) - 4, NULL, NULL) == NULL);

  /* Engine allocation is 64-byte aligned; scalars and empty tensors work. */
  int64_t big[1] = {1000};
  TX_Tensor* a = TX_AllocateTensor(TX_DOUBLE, big, 1, 8000);
  CHECK(a != NULL && TX_TensorIsAligned(a) && ((uintptr_t)TX_TensorData(a) % 64) == 0);
  CHECK(TX_TensorElementCount(a) == 1000 && TX_TensorByteSize(a) == 8000);
  TX_DeleteTensor(a);
  CHECK(TX_AllocateTensor(TX_DOUBLE, big, 1, 7999) == NULL);
  TX_Tensor* sc = TX_AllocateTensor(TX_INT64, NULL, 0, 8);
  CHECK(sc != NULL && TX_NumDims(sc) == 0 && TX_TensorElementCount(sc) == 1);
  TX_DeleteTensor(sc);
  int64_t zero[2] = {0, 5};
  TX_Tensor* z = TX_AllocateTensor(TX_FLOAT, zero, 2, 0);
  CHECK(z != NULL && TX_TensorElementCount(z) == 0 && TX_TensorByteSize(z) == 0);
  TX_DeleteTensor(z);
  TX_DeleteTensor(NULL);
  CHECK(TX_NumDims(NULL) == 0 && TX_TensorData(NULL) == NULL && TX_TensorIsAligned(NULL) == 0);
}

/* ----------------------------------------------------------------------------------------------
 * Graph building and static shapes */

static void test_build_model(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  static const int64_t q3[2] = {-1, 3}, q2[2] = {-1, 2};
  CHECK(shape_is(m.g, out0(m.x), 2, q3));
  CHECK(shape_is(m.g, out0(m.matmul), 2, q2));
  CHECK(shape_is(m.g, out0(m.softmax), 2, q2));
  CHECK(TX_OperationOutputType(out0(m.softmax)) == TX_FLOAT);
  CHECK(TX_GraphNumOperations(m.g) == 7);
  CHECK(TX_GraphOperationByName(m.g, "dense/MatMul") == m.matmul);
  CHECK(TX_GraphOperationByName(m.g, "nope") == NULL);
  CHECK(strcmp(TX_OperationOpType(m.bias_add), "BiasAdd") == 0);

  TX_Session* sess = TX_NewSession(m.g, NULL, s);
  CHECK_OK(s);
  float xv[6] = {1, 2, 3, -1, 0, 1};
  CHECK(run_model_and_check(sess, out0(m.x), out0(m.softmax), xv, 2));
  TX_DeleteSession(sess, s);
  CHECK_OK(s);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

static void test_set_tensor_shape(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_Operation* p = placeholder(g, "p", TX_FLOAT, NULL, -2, s);
  CHECK_OK(s);
  CHECK(TX_GraphGetTensorNumDims(g, out0(p), s) == -1);
  CHECK_OK(s);
  int64_t a[2] = {-1, 3}, b[2] = {2, -1}, c[2] = {4, 3}, got[2];
  TX_GraphSetTensorShape(g, out0(p), a, 2, s);
  CHECK_OK(s);
  TX_GraphSetTensorShape(g, out0(p), b, 2, s);
  CHECK_OK(s);
  static const int64_t want[2] = {2, 3};
  CHECK(shape_is(g, out0(p), 2, want));
  TX_GraphSetTensorShape(g, out0(p), c, 2, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[p]");
  TX_GraphGetTensorShape(g, out0(p), got, 3, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[p]");
  TX_Output bad = {p, 1};
  CHECK(TX_GraphGetTensorNumDims(g, bad, s) == -1);
  CHECK_ERR(s, -1, "[p]");
  TX_Output null_out = {NULL, 0};
  TX_GraphSetTensorShape(g, null_out, a, 2, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* Runs a graph output with no feeds and compares it with `want` (n floats). */
static int fetch_equals(TX_Graph* g, TX_Operation* op, const float* want, int n, const int64_t* dims, int nd) {
  TX_Status* s = TX_NewStatus();
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Output none = {NULL, 0};
  TX_Tensor* t = run1(sess, none, NULL, out0(op), s);
  int ok = TX_GetCode(s) == TX_OK && t != NULL && TX_TensorElementCount(t) == n && TX_NumDims(t) == nd;
  if (TX_GetCode(s) != TX_OK) printf("  run of %s failed: %s\n", TX_OperationName(op), TX_Message(s));
  for (int i = 0; ok && i < nd; ++i) ok = TX_Dim(t, i) == dims[i];
  for (int i = 0; ok && i < n; ++i) {
    float v = TX_TensorType(t) == TX_INT32 ? (float)((int32_t*)TX_TensorData(t))[i] : ((float*)TX_TensorData(t))[i];
    ok = near(v, want[i]);
  }
  TX_DeleteTensor(t);
  TX_DeleteSession(sess, s);
  TX_DeleteStatus(s);
  return ok;
}

static void test_reductions(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  int64_t d23[2] = {2, 3}, d1[1] = {1};
  float v[6] = {1, 2, 3, 4, 5, 6};
  int32_t axis1[1] = {1};
  TX_Operation* a = const_f32(g, "a", d23, 2, v, s);
  TX_Operation* ax = const_i32(g, "axis", d1, 1, axis1, s);
  TX_Operation* sum_k = reduce(g, "Sum", "sum_keep", out0(a), out0(ax), 1, s);
  CHECK_OK(s);
  TX_Operation* mean_k = reduce(g, "Mean", "mean_keep", out0(a), out0(ax), 1, s);
  CHECK_OK(s);
  TX_Operation* sum = reduce(g, "Sum", "sum", out0(a), out0(ax), 0, s);
  CHECK_OK(s);
  static const int64_t k21[2] = {2, 1}, k2[1] = {2};
  CHECK(shape_is(g, out0(sum_k), 2, k21));
  CHECK(shape_is(g, out0(mean_k), 2, k21));
  CHECK(shape_is(g, out0(sum), 1, k2));
  float want_sum[2] = {6, 15}, want_mean[2] = {2, 5};
  CHECK(fetch_equals(g, sum_k, want_sum, 2, k21, 2));
  CHECK(fetch_equals(g, mean_k, want_mean, 2, k21, 2));
  CHECK(fetch_equals(g, sum, want_sum, 2, k2, 1));
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_broadcasting_binary_ops(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  int64_t d23[2] = {2, 3}, d3[1] = {3};
  float av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {10, 20, 40};
  TX_Operation* a = const_f32(g, "a", d23, 2, av, s);
  TX_Operation* b = const_f32(g, "b", d3, 1, bv, s);
  const char* ops[4] = {"AddV2", "Sub", "Mul", "RealDiv"};
  for (int k = 0; k < 4; ++k) {
    TX_Operation* op = binary(g, ops[k], ops[k], out0(a), out0(b), s);
    CHECK_OK(s);
    CHECK(shape_is(g, out0(op), 2, d23));
    float want[6];
    for (int i = 0; i < 6; ++i) {
      float x = av[i], y = bv[i % 3];
      want[i] = k == 0 ? x + y : k == 1 ? x - y : k == 2 ? x * y : x / y;
    }
    CHECK(fetch_equals(g, op, want, 6, d23, 2));
  }
  /* [2,1] + [3] -> [2,3] */
  int64_t d21[2] = {2, 1};
  float cv[2] = {100, 200};
  TX_Operation* c = const_f32(g, "c", d21, 2, cv, s);
  TX_Operation* add = binary(g, "Add", "add_21_3", out0(c), out0(b), s);
  CHECK_OK(s);
  float want[6] = {110, 120, 140, 210, 220, 240};
  CHECK(fetch_equals(g, add, want, 6, d23, 2));
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_reshape_and_cast(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  int64_t d23[2] = {2, 3}, d2[1] = {2}, d32[2] = {3, 2};
  float av[6] = {1.5f, -2.5f, 3.7f, 4, 5, 6};
  int32_t shape[2] = {3, -1};
  TX_Operation* a = const_f32(g, "a", d23, 2, av, s);
  TX_Operation* sh = const_i32(g, "shape", d2, 1, shape, s);
  TX_Operation* r = binary(g, "Reshape", "reshape", out0(a), out0(sh), s);
  CHECK_OK(s);
  CHECK(shape_is(g, out0(r), 2, d32));
  CHECK(fetch_equals(g, r, av, 6, d32, 2));

  TX_OperationDescription* d = TX_NewOperation(g, "Cast", "cast");
  TX_AddInput(d, out0(r));
  TX_SetAttrType(d, "DstT", TX_INT32);
  TX_Operation* cast = TX_FinishOperation(d, s);
  CHECK_OK(s);
  CHECK(TX_OperationOutputType(out0(cast)) == TX_INT32);
  TX_DataType src;
  TX_OperationGetAttrType(cast, "SrcT", &src, s); /* inferred from the input */
  CHECK_OK(s);
  CHECK(src == TX_FLOAT);
  float want[6] = {1, -2, 3, 4, 5, 6};
  CHECK(fetch_equals(g, cast, want, 6, d32, 2));
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Attrs: every setter kind, the getters and metadata. Attrs named "_..." are internal and pass
 * through without an OpDef entry, which lets one NoOp carry every kind. */

static void test_attrs(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  TX_OperationDescription* d = TX_NewOperation(g, "NoOp", "attrs");
  const void* strs[2] = {"ab", "cde"};
  size_t lens[2] = {2, 3};
  int64_t ints[3] = {1, 2, 3}, sh[3] = {2, -1, 4}, s0[2] = {1, 2}, s2[1] = {3};
  const int64_t* shapes[3] = {s0, NULL, s2};
  int ndims[3] = {2, -1, 1};
  float floats[2] = {0.5f, 2.5f};
  unsigned char bools[3] = {1, 0, 1};
  TX_DataType types[2] = {TX_FLOAT, TX_INT32};
  int64_t tdims[1] = {2};
  float tv[2] = {7, 8};
  TX_Tensor* t = float_tensor(tdims, 1, tv);
  TX_Tensor* ts[2] = {t, t};
  const unsigned char proto[2] = {0x18, 0x2A}; /* AttrValue{i: 42} */
  TX_SetAttrString(d, "_s", "hello", 5);
  TX_SetAttrStringList(d, "_sl", strs, lens, 2);
  TX_SetAttrInt(d, "_i", 42);
  TX_SetAttrIntList(d, "_il", ints, 3);
  TX_SetAttrFloat(d, "_f", 1.5f);
  TX_SetAttrFloatList(d, "_fl", floats, 2);
  TX_SetAttrBool(d, "_b", 1);
  TX_SetAttrBoolList(d, "_bl", bools, 3);
  TX_SetAttrType(d, "_t", TX_DOUBLE);
  TX_SetAttrTypeList(d, "_tl", types, 2);
  TX_SetAttrShape(d, "_sh", sh, 3);
  TX_SetAttrShape(d, "_shu", NULL, -1);
  TX_SetAttrShapeList(d, "_shl", shapes, ndims, 3);
  TX_SetAttrTensor(d, "_tensor", t, s);
  CHECK_OK(s);
  TX_SetAttrTensorList(d, "_tensors", ts, 2, s);
  CHECK_OK(s);
  TX_SetAttrFuncName(d, "_fn", "my_fn", 5);
  TX_SetAttrValueProto(d, "_vp", proto, 2, s);
  CHECK_OK(s);
  TX_Operation* op = TX_FinishOperation(d, s);
  CHECK_OK(s);
  TX_DeleteTensor(t);
  if (op == NULL) goto done;

  CHECK(TX_OperationGetNumAttrs(op) == 17);
  CHECK(strcmp(TX_OperationGetAttrName(op, 0, s), "_b") == 0);
  CHECK(strcmp(TX_OperationGetAttrName(op, 16, s), "_vp") == 0);
  CHECK(TX_OperationGetAttrName(op, 17, s) == NULL);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "[attrs]");

  TX_AttrMetadata m = TX_OperationGetAttrMetadata(op, "_s", s);
  CHECK(m.is_list == 0 && m.type == TX_ATTR_STRING && m.total_size == 5);
  m = TX_OperationGetAttrMetadata(op, "_sl", s);
  CHECK(m.is_list == 1 && m.list_size == 2 && m.type == TX_ATTR_STRING && m.total_size == 5);
  m = TX_OperationGetAttrMetadata(op, "_il", s);
  CHECK(m.is_list == 1 && m.list_size == 3 && m.type == TX_ATTR_INT && m.total_size == -1);
  m = TX_OperationGetAttrMetadata(op, "_sh", s);
  CHECK(m.is_list == 0 && m.type == TX_ATTR_SHAPE && m.total_size == 3);
  m = TX_OperationGetAttrMetadata(op, "_shu", s);
  CHECK(m.type == TX_ATTR_SHAPE && m.total_size == -1);
  m = TX_OperationGetAttrMetadata(op, "_shl", s);
  CHECK(m.is_list == 1 && m.list_size == 3 && m.type == TX_ATTR_SHAPE && m.total_size == 3);
  m = TX_OperationGetAttrMetadata(op, "_tensors", s);
  CHECK(m.is_list == 1 && m.list_size == 2 && m.type == TX_ATTR_TENSOR);
  m = TX_OperationGetAttrMetadata(op, "_fn", s);
  CHECK(m.is_list == 0 && m.type == TX_ATTR_FUNC);
  m = TX_OperationGetAttrMetadata(op, "_tl", s);
  CHECK(m.is_list == 1 && m.type == TX_ATTR_TYPE && m.list_size == 2);
  CHECK_OK(s);

  char buf[16] = {0};
  TX_OperationGetAttrString(op, "_s", buf, sizeof(buf), s);
  CHECK_OK(s);
  CHECK(strcmp(buf, "hello") == 0);
  void* vals[2];
  size_t got_lens[2];
  char storage[8];
  TX_OperationGetAttrStringList(op, "_sl", vals, got_lens, 2, storage, sizeof(storage), s);
  CHECK_OK(s);
  CHECK(got_lens[0] == 2 && got_lens[1] == 3 && memcmp(vals[0], "ab", 2) == 0 && memcmp(vals[1], "cde", 3) == 0);
  TX_OperationGetAttrStringList(op, "_sl", vals, got_lens, 2, storage, 3, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[attrs]");

  int64_t i = 0, il[3] = {0};
  TX_OperationGetAttrInt(op, "_i", &i, s);
  CHECK(i == 42);
  TX_OperationGetAttrIntList(op, "_il", il, 3, s);
  CHECK(il[0] == 1 && il[1] == 2 && il[2] == 3);
  TX_OperationGetAttrInt(op, "_vp", &i, s);
  CHECK(i == 42);
  float f = 0, fl[2] = {0};
  TX_OperationGetAttrFloat(op, "_f", &f, s);
  CHECK(f == 1.5f);
  TX_OperationGetAttrFloatList(op, "_fl", fl, 2, s);
  CHECK(fl[0] == 0.5f && fl[1] == 2.5f);
  unsigned char b = 0, bl[3] = {0};
  TX_OperationGetAttrBool(op, "_b", &b, s);
  CHECK(b == 1);
  TX_OperationGetAttrBoolList(op, "_bl", bl, 3, s);
  CHECK(bl[0] == 1 && bl[1] == 0 && bl[2] == 1);
  TX_DataType ty = TX_FLOAT, tl[2];
  TX_OperationGetAttrType(op, "_t", &ty, s);
  CHECK(ty == TX_DOUBLE);
  TX_OperationGetAttrTypeList(op, "_tl", tl, 2, s);
  CHECK(tl[0] == TX_FLOAT && tl[1] == TX_INT32);
  int64_t shv[3];
  TX_OperationGetAttrShape(op, "_sh", shv, 3, s);
  CHECK(shv[0] == 2 && shv[1] == -1 && shv[2] == 4);
  TX_OperationGetAttrShape(op, "_shu", NULL, -1, s);
  CHECK_OK(s);
  TX_Tensor* tget = NULL;
  TX_OperationGetAttrTensor(op, "_tensor", &tget, s);
  CHECK_OK(s);
  CHECK(tget != NULL && TX_TensorElementCount(tget) == 2 && ((float*)TX_TensorData(tget))[1] == 8);
  TX_DeleteTensor(tget);
  TX_Buffer* vp = TX_NewBuffer();
  TX_OperationGetAttrValueProto(op, "_vp", vp, s);
  CHECK_OK(s);
  CHECK(vp->length == 2 && memcmp(vp->data, proto, 2) == 0);
  TX_DeleteBuffer(vp);

  /* Errors name the node and the attr. */
  TX_OperationGetAttrInt(op, "_nope", &i, s);
  CHECK_ERR(s, TX_NOT_FOUND, "[attrs] operation has no attr named '_nope'");
  TX_OperationGetAttrInt(op, "_s", &i, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[attrs]");
  TX_OperationGetAttrIntList(op, "_fl", il, 3, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "'_fl'");
  TX_OperationGetAttrShape(op, "_sh", shv, 2, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[attrs]");
  TX_OperationGetAttrMetadata(op, "_nope", s);
  CHECK_ERR(s, TX_NOT_FOUND, "_nope");
done:
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_op_attrs_of_real_ops(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_AttrMetadata md = TX_OperationGetAttrMetadata(m.x, "shape", s);
  CHECK_OK(s);
  CHECK(md.type == TX_ATTR_SHAPE && md.total_size == 2);
  int64_t dims[2];
  TX_OperationGetAttrShape(m.x, "shape", dims, 2, s);
  CHECK_OK(s);
  CHECK(dims[0] == -1 && dims[1] == 3);
  unsigned char ta = 1;
  TX_OperationGetAttrBool(m.matmul, "transpose_a", &ta, s); /* filled from the OpDef default */
  CHECK_OK(s);
  CHECK(ta == 0);
  TX_DataType t;
  TX_OperationGetAttrType(m.matmul, "T", &t, s); /* inferred from the inputs */
  CHECK(t == TX_FLOAT);
  TX_Tensor* w = NULL;
  TX_OperationGetAttrTensor(m.w, "value", &w, s);
  CHECK_OK(s);
  CHECK(w != NULL && TX_Dim(w, 0) == 3 && TX_Dim(w, 1) == 2 && ((float*)TX_TensorData(w))[3] == kW[3]);
  TX_DeleteTensor(w);

  /* A string attr with allowed values. */
  char fmt[8] = {0};
  TX_OperationGetAttrString(m.bias_add, "data_format", fmt, sizeof(fmt), s);
  CHECK_OK(s);
  CHECK(strcmp(fmt, "NHWC") == 0);
  TX_OperationDescription* d = TX_NewOperation(m.g, "BiasAdd", "bias_nchw");
  TX_AddInput(d, out0(m.matmul));
  TX_AddInput(d, out0(m.b));
  TX_SetAttrString(d, "data_format", "XYZW", 4);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[bias_nchw]");
  int n = TX_OperationGetNumAttrs(m.bias_add);
  CHECK(n == 2);
  for (int i = 0; i < n; ++i) {
    const char* name = TX_OperationGetAttrName(m.bias_add, i, s);
    CHECK(name != NULL && strcmp(name, i == 0 ? "T" : "data_format") == 0);
  }
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Names, iteration, registry, introspection */

static void test_unique_names_and_iteration(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  CHECK(strcmp(TX_GraphUniqueName(m.g, "fresh"), "fresh") == 0);
  CHECK(strcmp(TX_GraphUniqueName(m.g, "fresh"), "fresh_1") == 0);
  const char* x1 = TX_GraphUniqueName(m.g, "x");
  CHECK(strcmp(x1, "x_1") == 0);
  CHECK(strcmp(TX_GraphUniqueName(m.g, "x"), "x_2") == 0);
  CHECK(strcmp(TX_GraphUniqueName(m.g, "X"), "X_3") == 0); /* case-insensitive */
  CHECK(strcmp(x1, "x_1") == 0); /* still valid */

  const char* order[7] = {"x", "W", "b", "dense/MatMul", "dense/BiasAdd", "relu", "softmax"};
  size_t pos = 0;
  int n = 0;
  TX_Operation* op;
  while ((op = TX_GraphNextOperation(m.g, &pos)) != NULL) {
    CHECK(n < 7 && strcmp(TX_OperationName(op), order[n]) == 0);
    ++n;
  }
  CHECK(n == 7 && n == TX_GraphNumOperations(m.g));
  CHECK(TX_GraphNextOperation(m.g, &pos) == NULL);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

/* A KernelList of every kernel holds well over one small KernelDef per registered op. */
enum { ops_min_kernel_bytes = 10000 };

/* 1 when the buffer's bytes contain `text`. */
static int buffer_contains(const TX_Buffer* b, const char* text) {
  size_t len = strlen(text);
  for (size_t i = 0; b != NULL && i + len <= b->length; ++i)
    if (memcmp((const char*)b->data + i, text, len) == 0) return 1;
  return 0;
}

static void test_registry_and_export_buffers(void) {
  TX_Status* s = TX_NewStatus();
  TX_Buffer* ops = TX_GetAllOpList();
  CHECK(ops != NULL && ops->length > 100);
  const char* names[6] = {"MatMul", "Softmax", "Placeholder", "Const", "Reshape", "Cast"};
  for (int k = 0; k < 6 && ops != NULL; ++k) {
    int found = 0;
    size_t len = strlen(names[k]);
    for (size_t i = 0; i + len <= ops->length && !found; ++i)
      found = memcmp((const char*)ops->data + i, names[k], len) == 0;
    CHECK(found);
  }
  TX_DeleteBuffer(ops);

  /* The kernel registry: every kernel, or one op's (KernelList bytes naming the op and "CPU"). */
  TX_Buffer* kernels = TX_GetAllRegisteredKernels(s);
  CHECK_OK(s);
  CHECK(kernels != NULL && kernels->length > ops_min_kernel_bytes);
  TX_DeleteBuffer(kernels);
  kernels = TX_GetRegisteredKernelsForOp("BitwiseAnd", s);
  CHECK_OK(s);
  CHECK(buffer_contains(kernels, "BitwiseAnd") && buffer_contains(kernels, "CPU"));
  TX_DeleteBuffer(kernels);
  kernels = TX_GetRegisteredKernelsForOp("NoSuchOp", s);
  CHECK_OK(s);
  CHECK(kernels != NULL && kernels->length == 0);
  TX_DeleteBuffer(kernels);
  CHECK(TX_GetRegisteredKernelsForOp(NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "op name is NULL");

  TX_Graph* g = TX_NewGraph();
  TX_Buffer* od = TX_NewBuffer();
  TX_GraphGetOpDef(g, "MatMul", od, s);
  CHECK_OK(s);
  CHECK(od->length > 10);
  TX_DeleteBuffer(od);
  od = TX_NewBuffer();
  TX_GraphGetOpDef(g, "NoSuchOp", od, s);
  CHECK_ERR(s, TX_NOT_FOUND, "NoSuchOp");
  TX_DeleteBuffer(od);
  TX_Buffer* vd = TX_NewBuffer();
  TX_GraphVersions(g, vd, s);
  CHECK_OK(s);
  CHECK(vd->length >= 2 && ((const unsigned char*)vd->data)[0] == 0x08); /* producer = field 1 */
  TX_DeleteBuffer(vd);
  TX_Buffer* full = TX_NewBufferFromString("x", 1);
  TX_GraphVersions(g, full, s); /* output buffers must be empty */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "empty");
  TX_DeleteBuffer(full);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_introspection(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  CHECK(TX_OperationNumInputs(m.matmul) == 2 && TX_OperationNumOutputs(m.matmul) == 1);
  TX_Input in1 = {m.matmul, 1};
  CHECK(TX_OperationInputType(in1) == TX_FLOAT);
  TX_Output src = TX_OperationInput(in1);
  CHECK(src.oper == m.w && src.index == 0);
  TX_Output all[2];
  TX_OperationAllInputs(m.matmul, all, 2);
  CHECK(all[0].oper == m.x && all[1].oper == m.w);
  CHECK(TX_OperationOutputListLength(m.matmul, "product", s) == 1);
  CHECK(TX_OperationInputListLength(m.matmul, "b", s) == 1);
  CHECK_OK(s);
  CHECK(TX_OperationOutputListLength(m.matmul, "nope", s) == -1);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[dense/MatMul]");
  CHECK(TX_OperationInputListLength(m.matmul, "nope", s) == -1);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "nope");

  TX_OperationDescription* d = TX_NewOperation(m.g, "Identity", "x_id");
  TX_AddInput(d, out0(m.x));
  TX_SetDevice(d, "/device:CPU:0");
  TX_Operation* xid = TX_FinishOperation(d, s);
  CHECK_OK(s);
  CHECK(strcmp(TX_OperationDevice(xid), "/device:CPU:0") == 0);
  CHECK(strcmp(TX_OperationDevice(m.x), "") == 0);
  CHECK(TX_OperationOutputNumConsumers(out0(m.x)) == 2);
  TX_Input cons[4];
  CHECK(TX_OperationOutputConsumers(out0(m.x), cons, 4) == 2);
  CHECK(cons[0].oper == m.matmul && cons[0].index == 0 && cons[1].oper == xid);
  CHECK(TX_OperationOutputConsumers(out0(m.x), cons, 1) == 2); /* total even when truncated */

  d = TX_NewOperation(m.g, "NoOp", "init");
  TX_AddControlInput(d, m.w);
  TX_AddControlInput(d, m.b);
  TX_Operation* init = TX_FinishOperation(d, s);
  CHECK_OK(s);
  CHECK(TX_OperationNumControlInputs(init) == 2 && TX_OperationNumOutputs(init) == 0);
  TX_Operation* ctl[4];
  CHECK(TX_OperationGetControlInputs(init, ctl, 4) == 2 && ctl[0] == m.w && ctl[1] == m.b);
  CHECK(TX_OperationNumControlOutputs(m.w) == 1);
  CHECK(TX_OperationGetControlOutputs(m.w, ctl, 4) == 1 && ctl[0] == init);
  CHECK(TX_OperationNumControlOutputs(m.x) == 0);

  TX_Buffer* nd = TX_NewBuffer();
  TX_OperationToNodeDef(m.matmul, nd, s);
  CHECK_OK(s);
  CHECK(nd->length > 10);
  TX_DeleteBuffer(nd);
  /* NULL handles give neutral values, never crashes. */
  CHECK(TX_OperationNumInputs(NULL) == 0 && strcmp(TX_OperationName(NULL), "") == 0);
  TX_Output null_out = {NULL, 0};
  CHECK(TX_OperationOutputNumConsumers(null_out) == 0);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"status", test_status},
      {"buffers", test_buffers},
      {"datatype_sizes", test_datatype_sizes},
      {"tensors", test_tensors},
      {"build_model", test_build_model},
      {"set_tensor_shape", test_set_tensor_shape},
      {"reductions", test_reductions},
      {"broadcasting_binary_ops", test_broadcasting_binary_ops},
      {"reshape_and_cast", test_reshape_and_cast},
      {"attrs", test_attrs},
      {"op_attrs_of_real_ops", test_op_attrs_of_real_ops},
      {"unique_names_and_iteration", test_unique_names_and_iteration},
      {"registry_and_export_buffers", test_registry_and_export_buffers},
      {"introspection", test_introspection},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
