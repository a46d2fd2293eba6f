/* Tests of the public C API (plain C11, public header, libc and pthreads only): GraphDef export
 * and import with options, sessions (feeds, fetches, targets, config, concurrent runs, nodes
 * added after the session) and error paths, after each of which the session must still work.
 * Prints "N passed, M failed". */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "c_api_test_util.h"
#include "tensorflux/c/c_api_profiler.h"

/* ----------------------------------------------------------------------------------------------
 * A minimal protobuf writer for hand-made GraphDefs and ConfigProtos */

typedef struct Bytes {
  unsigned char d[512];
  size_t n;
} Bytes;

static void put_varint(Bytes* b, uint64_t v) {
  while (v >= 0x80) {
    b->d[b->n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  b->d[b->n++] = (unsigned char)v;
}

static void put_bytes(Bytes* b, int field, const void* p, size_t n) {
  put_varint(b, (uint64_t)field << 3 | 2);
  put_varint(b, n);
  memcpy(b->d + b->n, p, n);
  b->n += n;
}

static void put_str(Bytes* b, int field, const char* s) { put_bytes(b, field, s, strlen(s)); }

/* Appends NodeDef{name, op: "Identity", input, attr {T: float}} to a GraphDef. */
static void put_identity_node(Bytes* graph, const char* name, const char* input) {
  Bytes value = {{0}, 0}, entry = {{0}, 0}, node = {{0}, 0};
  put_varint(&value, 6 << 3 | 0); /* AttrValue.type */
  put_varint(&value, TX_FLOAT);
  put_str(&entry, 1, "T");
  put_bytes(&entry, 2, value.d, value.n);
  put_str(&node, 1, name);
  put_str(&node, 2, "Identity");
  put_str(&node, 3, input);
  put_bytes(&node, 5, entry.d, entry.n);
  put_bytes(graph, 1, node.d, node.n);
}

static void import_bytes(TX_Graph* g, const void* data, size_t len, TX_Status* s) {
  TX_Buffer* b = TX_NewBufferFromString(data, len);
  TX_ImportGraphDefOptions* o = TX_NewImportGraphDefOptions();
  TX_GraphImportGraphDef(g, b, o, s);
  TX_DeleteImportGraphDefOptions(o);
  TX_DeleteBuffer(b);
}

/* ----------------------------------------------------------------------------------------------
 * GraphDef export and import */

static void test_graphdef_round_trip(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_Buffer* gd = TX_NewBuffer();
  TX_GraphToGraphDef(m.g, gd, s);
  CHECK_OK(s);
  CHECK(gd->length > 50);

  TX_Graph* g2 = TX_NewGraph();
  static const int64_t q3[2] = {-1, 3};
  TX_Operation* feed = placeholder(g2, "feed", TX_FLOAT, q3, 2, s);
  TX_ImportGraphDefOptions* o = TX_NewImportGraphDefOptions();
  TX_ImportGraphDefOptionsSetPrefix(o, "imported");
  TX_ImportGraphDefOptionsAddInputMapping(o, "x", 0, out0(feed));
  TX_ImportGraphDefOptionsAddInputMapping(o, "unused", 0, out0(feed));
  TX_ImportGraphDefOptionsAddReturnOutput(o, "softmax", 0);
  TX_ImportGraphDefOptionsAddReturnOperation(o, "dense/MatMul");
  CHECK(TX_ImportGraphDefOptionsNumReturnOutputs(o) == 1 && TX_ImportGraphDefOptionsNumReturnOperations(o) == 1);
  TX_ImportGraphDefResults* r = TX_GraphImportGraphDefWithResults(g2, gd, o, s);
  CHECK_OK(s);
  CHECK(r != NULL);
  int n = 0;
  TX_Output* outs = NULL;
  TX_ImportGraphDefResultsReturnOutputs(r, &n, &outs);
  CHECK(n == 1 && outs != NULL && strcmp(TX_OperationName(outs[0].oper), "imported/softmax") == 0);
  TX_Operation** opers = NULL;
  TX_ImportGraphDefResultsReturnOperations(r, &n, &opers);
  CHECK(n == 1 && opers != NULL && strcmp(TX_OperationName(opers[0]), "imported/dense/MatMul") == 0);
  if (n == 1 && opers != NULL) {
    TX_Input in0 = {opers[0], 0};
    CHECK(TX_OperationInput(in0).oper == feed); /* the input mapping applied */
  }
  const char** names = NULL;
  int* idx = NULL;
  TX_ImportGraphDefResultsMissingUnusedInputMappings(r, &n, &names, &idx);
  CHECK(n == 1 && names != NULL && strcmp(names[0], "unused") == 0 && idx[0] == 0);

  if (outs != NULL) {
    TX_Session* sess = TX_NewSession(g2, NULL, s);
    float xv[9] = {0.5f, -1, 2, 3, 3, 3, -2, -2, 1};
    CHECK(run_model_and_check(sess, out0(feed), outs[0], xv, 3));
    TX_DeleteSession(sess, s);
  }
  TX_DeleteImportGraphDefResults(r);

  /* A clashing import fails and leaves the graph unchanged; uniquify_prefix avoids the clash. */
  int before = TX_GraphNumOperations(g2);
  TX_GraphImportGraphDef(g2, gd, o, s);
  CHECK_ERR(s, -1, "imported/");
  CHECK(TX_GraphNumOperations(g2) == before);
  TX_ImportGraphDefOptionsSetUniquifyPrefix(o, 1);
  TX_GraphImportGraphDef(g2, gd, o, s);
  CHECK_OK(s);
  CHECK(TX_GraphOperationByName(g2, "imported_1/softmax") != NULL);
  TX_DeleteImportGraphDefOptions(o);

  /* uniquify_names renames clashing nodes when importing into the source graph itself. */
  o = TX_NewImportGraphDefOptions();
  TX_ImportGraphDefOptionsSetUniquifyNames(o, 1);
  TX_GraphImportGraphDef(m.g, gd, o, s);
  CHECK_OK(s);
  CHECK(TX_GraphNumOperations(m.g) == 14 && TX_GraphOperationByName(m.g, "softmax_1") != NULL);
  TX_DeleteImportGraphDefOptions(o);

  /* NULL options mean defaults; versions travel with the GraphDef. */
  TX_Graph* g3 = TX_NewGraph();
  TX_GraphImportGraphDef(g3, gd, NULL, s);
  CHECK_OK(s);
  CHECK(TX_GraphNumOperations(g3) == 7);
  TX_Buffer *v1 = TX_NewBuffer(), *v3 = TX_NewBuffer();
  TX_GraphVersions(m.g, v1, s);
  TX_GraphVersions(g3, v3, s);
  CHECK(v1->length == v3->length && memcmp(v1->data, v3->data, v1->length) == 0);
  TX_DeleteBuffer(v1);
  TX_DeleteBuffer(v3);

  TX_DeleteBuffer(gd);
  TX_DeleteGraph(g3);
  TX_DeleteGraph(g2);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Sessions */

static void test_session_run(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_SessionOptions* opts = TX_NewSessionOptions();
  /* intra_op = 2, an unknown field 3, inter_op = 2, allow_soft_placement = true */
  const unsigned char config[8] = {0x10, 0x02, 0x18, 0x05, 0x28, 0x02, 0x38, 0x01};
  TX_SetConfig(opts, config, sizeof(config), s);
  CHECK_OK(s);
  const unsigned char truncated[1] = {0x10};
  TX_SetConfig(opts, truncated, 1, s);
  CHECK_ERR(s, -1, "ConfigProto");
  TX_SessionOptionsSetInterOpThreads(opts, 2);
  TX_SessionOptionsSetIntraOpThreads(opts, 1);
  TX_Session* sess = TX_NewSession(m.g, opts, s);
  CHECK_OK(s);
  TX_DeleteSessionOptions(opts);

  /* Two fetches, one feed, one target. */
  TX_OperationDescription* d = TX_NewOperation(m.g, "NoOp", "init");
  TX_AddControlInput(d, m.w);
  TX_Operation* init = TX_FinishOperation(d, s);
  CHECK_OK(s);
  int64_t dims[2] = {1, 3};
  float xv[3] = {1, 1, 1};
  TX_Tensor* x = float_tensor(dims, 2, xv);
  TX_Output feeds[1] = {out0(m.x)};
  TX_Output fetches[3] = {out0(m.matmul), out0(m.softmax), out0(m.softmax)};
  TX_Tensor* results[3] = {NULL, NULL, NULL};
  const TX_Operation* targets[1] = {init};
  TX_SessionRun(sess, NULL, feeds, &x, 1, fetches, results, 3, targets, 1, NULL, s);
  CHECK_OK(s);
  if (results[0] != NULL && results[1] != NULL && results[2] != NULL) {
    const float* mm = (const float*)TX_TensorData(results[0]);
    CHECK(near(mm[0], 0.9f) && near(mm[1], 0.4f));
    float want[2];
    model_ref(xv, 1, want);
    const float* sm = (const float*)TX_TensorData(results[1]);
    CHECK(near(sm[0], want[0]) && near(sm[1], want[1]));
    CHECK(memcmp(TX_TensorData(results[1]), TX_TensorData(results[2]), 8) == 0);
  }
  for (int i = 0; i < 3; ++i) TX_DeleteTensor(results[i]);

  /* Targets only; then a fetch needing no feed. */
  TX_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  CHECK_OK(s);
  TX_Output none = {NULL, 0};
  TX_Tensor* w = run1(sess, none, NULL, out0(m.w), s);
  CHECK_OK(s);
  CHECK(w != NULL && TX_TensorElementCount(w) == 6 && ((float*)TX_TensorData(w))[5] == kW[5]);
  TX_DeleteTensor(w);

  /* Feeding an intermediate tensor replaces its computation. */
  int64_t d12[2] = {1, 2};
  float hv[2] = {0.5f, -1};
  TX_Tensor* h = float_tensor(d12, 2, hv);
  TX_Tensor* relu = run1(sess, out0(m.matmul), h, out0(m.relu), s);
  CHECK_OK(s);
  CHECK(relu != NULL && near(((float*)TX_TensorData(relu))[0], 0.6f) && ((float*)TX_TensorData(relu))[1] == 0);
  TX_DeleteTensor(relu);
  TX_DeleteTensor(h);

  /* Nodes added after the session was created run in later calls. */
  int64_t scalar_dims[1] = {0};
  float two = 2;
  TX_Operation* c2 = const_f32(m.g, "two", scalar_dims, 0, &two, s);
  TX_Operation* late = binary(m.g, "Mul", "late", out0(m.softmax), out0(c2), s);
  CHECK_OK(s);
  TX_Tensor* lt = run1(sess, out0(m.x), x, out0(late), s);
  CHECK_OK(s);
  if (lt != NULL) {
    float want[2];
    model_ref(xv, 1, want);
    CHECK(near(((float*)TX_TensorData(lt))[0], 2 * want[0]) && near(((float*)TX_TensorData(lt))[1], 2 * want[1]));
  }
  TX_DeleteTensor(lt);
  TX_DeleteTensor(x);

  /* The graph handle may go first: the session keeps the graph alive. */
  TX_DeleteGraph(m.g);
  float xv2[6] = {4, 5, 6, -7, 8, 0.25f};
  CHECK(run_model_and_check(sess, out0(m.x), out0(m.softmax), xv2, 2));
  TX_CloseSession(sess, s);
  CHECK_OK(s);
  float xv1[3] = {1, 2, 3};
  TX_Tensor* xt = float_tensor(dims, 2, xv1);
  TX_Tensor* r = run1(sess, out0(m.x), xt, out0(m.softmax), s);
  CHECK_ERR(s, TX_CANCELLED, "closed");
  CHECK(r == NULL);
  TX_DeleteTensor(xt);
  TX_DeleteSession(sess, s);
  TX_DeleteSession(NULL, s);
  TX_DeleteStatus(s);
}

/* A traced run (RunOptions.trace_level = FULL_TRACE, field 1) fills an empty run_metadata buffer with a
 * RunMetadata naming the nodes that ran; an untraced run leaves it empty; a used buffer is refused. */
static void test_traced_run(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_Session* sess = TX_NewSession(m.g, NULL, s);
  CHECK_OK(s);
  int64_t dims[2] = {1, 3};
  float xv[3] = {1, 2, 3};
  TX_Tensor* x = float_tensor(dims, 2, xv);
  TX_Output feeds[1] = {out0(m.x)};
  TX_Output fetches[1] = {out0(m.softmax)};
  TX_Tensor* result = NULL;
  const unsigned char full_trace[2] = {0x08, 0x03};
  TX_Buffer* options = TX_NewBufferFromString(full_trace, sizeof(full_trace));
  TX_Buffer* meta = TX_NewBuffer();
  TX_SessionRun(sess, options, feeds, &x, 1, fetches, &result, 1, NULL, 0, meta, s);
  CHECK_OK(s);
  CHECK(result != NULL && meta->length > 0);
  /* The wire bytes hold the fetched node's name (NodeExecStats.node_name) and the CPU device. */
  const char* names[2] = {"softmax", "device:CPU:0"};
  for (int k = 0; k < 2; ++k) {
    int found = 0;
    size_t n = strlen(names[k]);
    for (size_t i = 0; meta->length >= n && i + n <= meta->length && !found; ++i)
      found = memcmp((const char*)meta->data + i, names[k], n) == 0;
    CHECK(found);
  }
  TX_DeleteTensor(result);
  result = NULL;
  TX_SessionRun(sess, options, feeds, &x, 1, fetches, &result, 1, NULL, 0, meta, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "empty buffer");
  CHECK(result == NULL);
  TX_Buffer* untraced = TX_NewBuffer();
  TX_SessionRun(sess, NULL, feeds, &x, 1, fetches, &result, 1, NULL, 0, untraced, s);
  CHECK_OK(s);
  CHECK(untraced->length == 0);
  TX_DeleteTensor(result);
  TX_DeleteBuffer(untraced);
  TX_DeleteBuffer(meta);
  TX_DeleteBuffer(options);
  TX_DeleteTensor(x);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

typedef struct ThreadArg {
  TX_Session* sess;
  Model* m;
  int id;
  int failures;
} ThreadArg;

static void* run_thread(void* p) {
  ThreadArg* a = (ThreadArg*)p;
  for (int it = 0; it < 50; ++it) {
    int rows = 1 + (a->id + it) % 4;
    float xv[12];
    for (int i = 0; i < rows * 3; ++i) xv[i] = (float)((a->id * 7 + it * 3 + i) % 11) - 5.0f;
    if (!run_model_and_check(a->sess, out0(a->m->x), out0(a->m->softmax), xv, rows)) ++a->failures;
  }
  return NULL;
}

static void test_concurrent_runs(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_Session* sess = TX_NewSession(m.g, NULL, s);
  CHECK_OK(s);
  pthread_t threads[4];
  ThreadArg args[4];
  for (int i = 0; i < 4; ++i) {
    args[i].sess = sess;
    args[i].m = &m;
    args[i].id = i;
    args[i].failures = 0;
    CHECK(pthread_create(&threads[i], NULL, run_thread, &args[i]) == 0);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    CHECK(args[i].failures == 0);
  }
  TX_DeleteSession(sess, s);
  CHECK_OK(s);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Error paths: each yields an error naming the node, and the session keeps working. */

static const float kX[6] = {1, 2, 3, -1, 0, 1};

/* Feeds `t` to x and fetches softmax; expects an error containing `substr`. */
static void expect_run_error(TX_Session* sess, Model* m, TX_Output feed, TX_Tensor* t, TX_Output fetch,
                             const char* substr, int line) {
  TX_Status* s = TX_NewStatus();
  TX_Tensor* result = (TX_Tensor*)(uintptr_t)0x1; /* must be reset to NULL */
  TX_SessionRun(sess, NULL, &feed, &t, 1, &fetch, &result, 1, NULL, 0, NULL, s);
  check_err(s, -1, substr, __FILE__, line);
  if (result != NULL) {
    printf("  line %d: output not NULL after an error\n", line);
    ++g_check_failures;
  }
  if (!run_model_and_check(sess, out0(m->x), out0(m->softmax), kX, 2)) {
    printf("  line %d: session broken after an error\n", line);
    ++g_check_failures;
  }
  TX_DeleteStatus(s);
}

static void test_run_errors(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_Session* sess = TX_NewSession(m.g, NULL, s);
  CHECK_OK(s);
  int64_t d23[2] = {2, 3}, d24[2] = {2, 4};
  int32_t iv[6] = {1, 2, 3, 4, 5, 6};
  float fv[8] = {0};
  TX_Tensor* ints = int32_tensor(d23, 2, iv);
  TX_Tensor* wide = float_tensor(d24, 2, fv);
  TX_Tensor* good = float_tensor(d23, 2, kX);
  TX_Output bad_index = {m.x, 5};
  expect_run_error(sess, &m, out0(m.x), ints, out0(m.softmax), "[x]", __LINE__); /* wrong dtype */
  expect_run_error(sess, &m, out0(m.x), wide, out0(m.softmax), "[x]", __LINE__); /* bad shape */
  expect_run_error(sess, &m, out0(m.x), good, bad_index, "[x]", __LINE__); /* no output 5 */
  expect_run_error(sess, &m, bad_index, good, out0(m.softmax), "[x]", __LINE__); /* feed output 5 */
  expect_run_error(sess, &m, out0(m.x), NULL, out0(m.softmax), "NULL", __LINE__); /* NULL tensor */
  TX_Output null_out = {NULL, 0};
  expect_run_error(sess, &m, out0(m.x), good, null_out, "NULL", __LINE__); /* NULL fetch */

  /* A node of another graph. */
  TX_Graph* other = TX_NewGraph();
  TX_Operation* o = placeholder(other, "other", TX_FLOAT, d23, 2, s);
  expect_run_error(sess, &m, out0(m.x), good, out0(o), "[other]", __LINE__);

  /* A fetch that needs an unfed placeholder. */
  TX_Tensor* result = NULL;
  TX_Output fetch = out0(m.softmax);
  TX_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &result, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, -1, "[x]");
  CHECK(result == NULL);
  TX_SessionRun(NULL, NULL, NULL, NULL, 0, &fetch, &result, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "session");
  const TX_Operation* null_target[1] = {NULL};
  TX_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, null_target, 1, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  CHECK(run_model_and_check(sess, out0(m.x), out0(m.softmax), kX, 2));

  TX_DeleteTensor(ints);
  TX_DeleteTensor(wide);
  TX_DeleteTensor(good);
  TX_DeleteGraph(other);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

static void test_build_errors(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_Session* sess = TX_NewSession(m.g, NULL, s);
  int before = TX_GraphNumOperations(m.g);

  TX_OperationDescription* d = TX_NewOperation(m.g, "NoSuchOp", "bogus");
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_NOT_FOUND, "[bogus]");

  d = TX_NewOperation(m.g, "Placeholder", "no_dtype"); /* missing required attr */
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[no_dtype]");
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "dtype");

  d = TX_NewOperation(m.g, "Placeholder", "int_dtype"); /* attr of the wrong kind */
  TX_SetAttrInt(d, "dtype", 1);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[int_dtype]");

  d = TX_NewOperation(m.g, "Placeholder", "bad_proto"); /* garbage AttrValue bytes */
  const unsigned char garbage[3] = {0xff, 0xff, 0xff};
  TX_SetAttrValueProto(d, "dtype", garbage, 3, s);
  CHECK_ERR(s, -1, "[bad_proto]");
  TX_SetAttrType(d, "dtype", TX_FLOAT); /* does not clear the recorded error */
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, -1, "[bad_proto]");

  d = TX_NewOperation(m.g, "Placeholder", "unknown_attr");
  TX_SetAttrType(d, "dtype", TX_FLOAT);
  TX_SetAttrInt(d, "foo", 3);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[unknown_attr]");

  CHECK(binary(m.g, "MatMul", "bad_matmul", out0(m.w), out0(m.w), s) == NULL); /* [3,2] x [3,2] */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[bad_matmul]");

  int64_t d1[1] = {1};
  int32_t one = 1;
  TX_Operation* ci = const_i32(m.g, "int_one", d1, 1, &one, s);
  CHECK_OK(s);
  before += 1;
  CHECK(binary(m.g, "AddV2", "bad_add", out0(m.x), out0(ci), s) == NULL); /* float + int32 */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[bad_add]");

  CHECK(unary(m.g, "Identity", "relu", out0(m.x), s) == NULL); /* duplicate name */
  CHECK_ERR(s, TX_ALREADY_EXISTS, "[relu]");

  TX_Output bad_index = {m.x, 3};
  CHECK(unary(m.g, "Identity", "bad_index", bad_index, s) == NULL);
  CHECK_ERR(s, -1, "[bad_index]");

  TX_Output null_out = {NULL, 0};
  CHECK(unary(m.g, "Identity", "null_input", null_out, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[null_input]");

  d = TX_NewOperation(m.g, "MatMul", "one_input"); /* too few inputs */
  TX_AddInput(d, out0(m.x));
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[one_input]");

  TX_Graph* other = TX_NewGraph();
  int64_t d3[2] = {-1, 3};
  TX_Operation* o = placeholder(other, "other", TX_FLOAT, d3, 2, s);
  CHECK(unary(m.g, "Identity", "cross", out0(o), s) == NULL); /* input from another graph */
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[cross]");
  d = TX_NewOperation(m.g, "NoOp", "cross_ctl");
  TX_AddControlInput(d, o);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[cross_ctl]");

  CHECK(TX_FinishOperation(NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  TX_DeleteOperationDescription(TX_NewOperation(m.g, "NoOp", "abandoned"));
  TX_DeleteOperationDescription(NULL);

  CHECK(TX_GraphNumOperations(m.g) == before);
  CHECK(TX_GraphOperationByName(m.g, "abandoned") == NULL);
  CHECK(run_model_and_check(sess, out0(m.x), out0(m.softmax), kX, 2));
  TX_DeleteGraph(other);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

static void test_import_errors(void) {
  TX_Status* s = TX_NewStatus();
  Model m;
  build_model(&m, s);
  TX_Session* sess = TX_NewSession(m.g, NULL, s);
  TX_Buffer* gd = TX_NewBuffer();
  TX_GraphToGraphDef(m.g, gd, s);
  CHECK_OK(s);
  TX_Graph* g = TX_NewGraph();

  const unsigned char garbage[6] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
  import_bytes(g, garbage, sizeof(garbage), s);
  CHECK_ERR(s, -1, "");
  CHECK(TX_GraphNumOperations(g) == 0);

  import_bytes(g, gd->data, gd->length / 2, s); /* truncated */
  CHECK_ERR(s, -1, "");
  CHECK(TX_GraphNumOperations(g) == 0);

  Bytes cyc = {{0}, 0};
  put_identity_node(&cyc, "a", "b");
  put_identity_node(&cyc, "b", "a");
  import_bytes(g, cyc.d, cyc.n, s);
  CHECK_ERR(s, -1, "cycle");
  CHECK(strstr(TX_Message(s), "'a'") || strstr(TX_Message(s), "'b'") || strstr(TX_Message(s), "[a]") ||
        strstr(TX_Message(s), "[b]"));
  CHECK(TX_GraphNumOperations(g) == 0);

  Bytes dangling = {{0}, 0};
  put_identity_node(&dangling, "a", "missing");
  import_bytes(g, dangling.d, dangling.n, s);
  CHECK_ERR(s, -1, "missing");
  CHECK(TX_GraphNumOperations(g) == 0);

  /* Handles in the options must belong to the target graph. */
  TX_ImportGraphDefOptions* o = TX_NewImportGraphDefOptions();
  TX_ImportGraphDefOptionsAddInputMapping(o, "x", 0, out0(m.x));
  TX_GraphImportGraphDef(g, gd, o, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[x]");
  TX_DeleteImportGraphDefOptions(o);
  o = TX_NewImportGraphDefOptions();
  TX_ImportGraphDefOptionsAddControlDependency(o, NULL);
  TX_GraphImportGraphDef(g, gd, o, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  TX_DeleteImportGraphDefOptions(o);
  CHECK(TX_GraphNumOperations(g) == 0);
  CHECK(TX_GraphImportGraphDefWithResults(g, NULL, NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");

  /* Importing into the session's graph after a failure still works. */
  import_bytes(m.g, garbage, sizeof(garbage), s);
  CHECK(TX_GetCode(s) != TX_OK);
  CHECK(run_model_and_check(sess, out0(m.x), out0(m.softmax), kX, 2));

  TX_DeleteBuffer(gd);
  TX_DeleteGraph(g);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

/* Builds the test model, runs its softmax once on [1, 1, 1] in a session made with `config`
 * (a serialized ConfigProto; NULL: defaults) and checks the result sums to 1. */
static void run_softmax_once(const unsigned char* config, size_t config_len, TX_Status* s) {
  Model m;
  build_model(&m, s);
  TX_SessionOptions* opts = TX_NewSessionOptions();
  if (config != NULL) {
    TX_SetConfig(opts, config, config_len, s);
    CHECK_OK(s);
  }
  TX_Session* sess = TX_NewSession(m.g, opts, s);
  CHECK_OK(s);
  TX_DeleteSessionOptions(opts);
  int64_t dims[2] = {1, 3};
  float xv[3] = {1, 1, 1};
  TX_Tensor* x = float_tensor(dims, 2, xv);
  TX_Output feeds[1] = {out0(m.x)};
  TX_Output fetches[1] = {out0(m.softmax)};
  TX_Tensor* results[1] = {NULL};
  TX_SessionRun(sess, NULL, feeds, &x, 1, fetches, results, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (results[0] != NULL) {
    const float* p = (const float*)TX_TensorData(results[0]);
    CHECK(near(p[0] + p[1], 1.0f));
    TX_DeleteTensor(results[0]);
  }
  TX_DeleteTensor(x);
  TX_DeleteSession(sess, s);
  CHECK_OK(s);
  TX_DeleteGraph(m.g);
}

/* The process-wide "remapping" option and a session's ConfigProto override of it give the same
 * values (fusion never changes results); unknown names are rejected. */
static void test_optimizer_options(void) {
  TX_Status* s = TX_NewStatus();
  CHECK(TX_GetOptimizerOption("remapping", s) == 1);
  CHECK_OK(s);
  TX_SetOptimizerOption("constant_folding", 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "unknown optimizer option 'constant_folding'");
  CHECK(TX_GetOptimizerOption(NULL, s) == 0);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "unknown optimizer option");
  for (int pass = 0; pass < 3; ++pass) {
    TX_SetOptimizerOption("remapping", pass == 1 ? 0 : 1, s);
    CHECK_OK(s);
    CHECK(TX_GetOptimizerOption("remapping", s) == (pass == 1 ? 0 : 1));
    /* graph_options { rewrite_options { remapping: OFF } } on the last pass */
    const unsigned char config[6] = {0x52, 0x04, 0x52, 0x02, 0x70, 0x02};
    run_softmax_once(pass == 2 ? config : NULL, sizeof(config), s);
  }
  TX_DeleteStatus(s);
}

/* A profile traces a session run into Chrome trace-event JSON; starting twice, stopping without a
 * profile and a used buffer are errors that leave the profiler usable. */
static void test_profiler(void) {
  TX_Status* s = TX_NewStatus();
  TX_Buffer* json = TX_NewBuffer();
  TX_ProfilerStop(json, s);
  CHECK_ERR(s, TX_FAILED_PRECONDITION, "no profiling session");
  CHECK(TX_ProfilerIsActive() == 0);
  TX_ProfilerStart(s);
  CHECK_OK(s);
  CHECK(TX_ProfilerIsActive() == 1);
  TX_ProfilerStart(s);
  CHECK_ERR(s, TX_FAILED_PRECONDITION, "already recording");
  run_softmax_once(NULL, 0, s);
  TX_Buffer* used = TX_NewBuffer();
  const char kUsed[] = "x";
  used->data = kUsed;
  used->length = 1;
  TX_ProfilerStop(used, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "must be empty");
  used->data = NULL;
  used->length = 0;
  TX_DeleteBuffer(used);
  CHECK(TX_ProfilerIsActive() == 1);
  TX_ProfilerStop(json, s);
  CHECK_OK(s);
  CHECK(TX_ProfilerIsActive() == 0);
  char* text = (char*)calloc(json->length + 1, 1); /* the buffer's bytes are not NUL-terminated */
  memcpy(text, json->data, json->length);
  CHECK(json->length > 0 && strstr(text, "\"traceEvents\"") != NULL);
  CHECK(strstr(text, "\"name\":\"Softmax\"") != NULL && strstr(text, "\"ph\":\"X\"") != NULL);
  free(text);
  TX_DeleteBuffer(json);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"graphdef_round_trip", test_graphdef_round_trip},
      {"session_run", test_session_run},
      {"traced_run", test_traced_run},
      {"concurrent_runs", test_concurrent_runs},
      {"run_errors", test_run_errors},
      {"build_errors", test_build_errors},
      {"import_errors", test_import_errors},
      {"optimizer_options", test_optimizer_options},
      {"profiler", test_profiler},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
