/* Functions from plain C: f(x, y) = x * y + x built from a graph with TX_GraphToFunction, copied
 * into a second graph, called through PartitionedCall in a session, and differentiated with
 * TX_AddGradients against the closed form; FunctionDef export/import, library listing, func
 * attrs read back, and the error paths. */
#include "c_api_test_util.h"

/* Builds f(x, y) = x * y + x in a graph of its own; NULL on error. */
static TX_Function* make_mul_add(const char* name, unsigned char append_hash, TX_Status* s) {
  TX_Graph* body = TX_NewGraph();
  TX_Output x = out0(placeholder(body, "x", TX_FLOAT, NULL, -2, s));
  TX_Output y = out0(placeholder(body, "y", TX_FLOAT, NULL, -2, s));
  TX_Output mul = out0(binary(body, "Mul", "mul", x, y, s));
  TX_Output add = out0(binary(body, "AddV2", "add", mul, x, s));
  TX_Output inputs[2] = {x, y};
  const char* names[1] = {"z"};
  TX_Function* f =
      TX_GraphToFunction(body, name, append_hash, -1, NULL, 2, inputs, 1, &add, names, NULL, "x * y + x", s);
  TX_DeleteGraph(body);
  return f;
}

/* PartitionedCall(f) on `args`, returning one float. */
static TX_Operation* call(TX_Graph* g, const char* name, const char* fn, const TX_Output* args, int nargs,
                          TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, "PartitionedCall", name);
  TX_AddInputList(d, args, nargs);
  TX_SetAttrFuncName(d, "f", fn, strlen(fn));
  TX_DataType tout[1] = {TX_FLOAT};
  TX_SetAttrTypeList(d, "Tout", tout, 1);
  return TX_FinishOperation(d, s);
}

static void test_call_and_gradient(void) {
  TX_Status* s = TX_NewStatus();
  TX_Function* f = make_mul_add("mul_add", 0, s);
  CHECK_OK(s);
  CHECK(f != NULL && strcmp(TX_FunctionName(f), "mul_add") == 0);

  TX_Graph* g = TX_NewGraph();
  TX_GraphCopyFunction(g, f, NULL, s);
  CHECK_OK(s);
  TX_GraphCopyFunction(g, f, NULL, s); /* the same definition again: no-op */
  CHECK_OK(s);
  CHECK(TX_GraphNumFunctions(g) == 1);
  int64_t dims[1] = {3};
  TX_Output args[2] = {out0(placeholder(g, "a", TX_FLOAT, dims, 1, s)),
                       out0(placeholder(g, "b", TX_FLOAT, dims, 1, s))};
  TX_Operation* c = call(g, "call", "mul_add", args, 2, s);
  CHECK_OK(s);
  CHECK(shape_is(g, out0(c), 1, dims)); /* static shape through the call */

  /* The func attr reads back. */
  TX_AttrMetadata meta = TX_OperationGetAttrMetadata(c, "f", s);
  CHECK_OK(s);
  CHECK(meta.type == TX_ATTR_FUNC && meta.is_list == 0 && meta.total_size == 7);
  char fname[16] = {0};
  TX_OperationGetAttrFuncName(c, "f", fname, sizeof(fname) - 1, s);
  CHECK_OK(s);
  CHECK(strcmp(fname, "mul_add") == 0);
  TX_OperationGetAttrFuncName(c, "Tout", fname, sizeof(fname), s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[call] attr 'Tout' is not a func attr");

  /* Gradients of the call: d/da = b + 1, d/db = a. */
  TX_Output dx[2];
  TX_AddGradients(g, NULL, (TX_Output[]){out0(c)}, 1, args, 2, NULL, dx, s);
  CHECK_OK(s);
  CHECK(dx[0].oper != NULL && strcmp(TX_OperationOpType(dx[0].oper), "PartitionedCall") == 0);
  CHECK(TX_GraphNumFunctions(g) == 2); /* + the generated gradient function */

  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  const float av[3] = {1, 2, -3}, bv[3] = {4, 0.5f, 2};
  TX_Tensor* feeds[2] = {float_tensor(dims, 1, av), float_tensor(dims, 1, bv)};
  TX_Output fetches[3] = {out0(c), dx[0], dx[1]};
  TX_Tensor* out[3] = {NULL, NULL, NULL};
  TX_SessionRun(sess, NULL, args, feeds, 2, fetches, out, 3, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (out[0] && out[1] && out[2]) {
    const float* z = (const float*)TX_TensorData(out[0]);
    const float* da = (const float*)TX_TensorData(out[1]);
    const float* db = (const float*)TX_TensorData(out[2]);
    for (int i = 0; i < 3; ++i) {
      CHECK(near(z[i], av[i] * bv[i] + av[i]));
      CHECK(near(da[i], bv[i] + 1));
      CHECK(near(db[i], av[i]));
    }
  }
  for (int i = 0; i < 3; ++i) TX_DeleteTensor(out[i]);
  for (int i = 0; i < 2; ++i) TX_DeleteTensor(feeds[i]);
  TX_DeleteSession(sess, s);
  TX_DeleteFunction(f);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_function_defs_and_library(void) {
  TX_Status* s = TX_NewStatus();
  TX_Function* f = make_mul_add("mul_add", 1, s);
  CHECK_OK(s);
  CHECK(f != NULL && strncmp(TX_FunctionName(f), "mul_add_", 8) == 0 && strlen(TX_FunctionName(f)) == 8 + 16);
  TX_Buffer* buf = TX_NewBuffer();
  TX_FunctionToFunctionDef(f, buf, s);
  CHECK_OK(s);
  TX_Function* back = TX_FunctionImportFunctionDef(buf->data, buf->length, s);
  CHECK_OK(s);
  TX_Buffer* again = TX_NewBuffer();
  TX_FunctionToFunctionDef(back, again, s);
  CHECK(again->length == buf->length && memcmp(again->data, buf->data, buf->length) == 0);
  CHECK(strcmp(TX_FunctionName(back), TX_FunctionName(f)) == 0);

  TX_Graph* g = TX_NewGraph();
  TX_Function* plain = make_mul_add("plain", 0, s);
  TX_GraphCopyFunction(g, back, NULL, s);
  CHECK_OK(s);
  TX_GraphCopyFunction(g, plain, NULL, s);
  CHECK_OK(s);
  TX_Function* listed[4] = {NULL, NULL, NULL, NULL};
  CHECK(TX_GraphGetFunctions(g, listed, 4, s) == 2);
  CHECK_OK(s);
  CHECK(listed[0] != NULL && listed[1] != NULL && strcmp(TX_FunctionName(listed[1]), "plain") == 0);
  CHECK(TX_GraphGetFunctions(g, listed + 2, 1, s) == 1);
  for (int i = 0; i < 4; ++i) TX_DeleteFunction(listed[i]);

  /* The library travels with the GraphDef. */
  TX_Buffer* gd = TX_NewBuffer();
  TX_GraphToGraphDef(g, gd, s);
  CHECK_OK(s);
  TX_Graph* h = TX_NewGraph();
  TX_GraphImportGraphDef(h, gd, NULL, s);
  CHECK_OK(s);
  CHECK(TX_GraphNumFunctions(h) == 2);

  /* Errors: a different body under a taken name, malformed bytes, bad arguments. */
  TX_Graph* other = TX_NewGraph();
  TX_Output x = out0(placeholder(other, "x", TX_FLOAT, NULL, -2, s));
  TX_Output neg = out0(unary(other, "Neg", "neg", x, s));
  TX_Function* clash = TX_GraphToFunction(other, "plain", 0, -1, NULL, 1, &x, 1, &neg, NULL, NULL, NULL, s);
  CHECK_OK(s);
  TX_GraphCopyFunction(g, clash, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "cannot add function 'plain': the library already has a different function");
  /* An explicit body: just the Neg operation. */
  const TX_Operation* body_ops[1] = {neg.oper};
  TX_Function* negf = TX_GraphToFunction(other, "negf", 0, 1, body_ops, 1, &x, 1, &neg, NULL, NULL, NULL, s);
  CHECK_OK(s);
  CHECK(negf != NULL && strcmp(TX_FunctionName(negf), "negf") == 0);
  TX_DeleteFunction(negf);
  CHECK(TX_GraphToFunction(other, "negf", 0, 0, NULL, 1, &x, 1, &neg, NULL, NULL, NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "output 0 ('neg:0') is neither a function input nor computed in the function body");
  CHECK(TX_FunctionImportFunctionDef("\x0a\x05\x0a", 3, s) == NULL);
  CHECK_ERR(s, TX_DATA_LOSS, "malformed FunctionDef");
  CHECK(TX_GraphToFunction(other, "f", 0, -1, NULL, 0, NULL, 1, &neg, NULL, NULL, NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT,
            "[x] Placeholder is reached from the function's outputs but is not one of its inputs");
  TX_Output twice[2] = {x, x};
  CHECK(TX_GraphToFunction(other, "f", 0, -1, NULL, 2, twice, 1, &neg, NULL, NULL, NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "listed twice");
  CHECK(TX_GraphToFunction(other, "f", 0, -1, NULL, 1, &x, 1, &neg, NULL, (const TX_FunctionOptions*)g, NULL, s) ==
        NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "TX_FunctionOptions must be NULL");
  TX_Output in_g = out0(placeholder(g, "gx", TX_FLOAT, NULL, -2, s));
  CHECK(TX_GraphToFunction(other, "f", 0, -1, NULL, 1, &in_g, 1, &neg, NULL, NULL, NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "belongs to another graph");
  TX_Operation* bad = call(g, "bad", "missing", &in_g, 1, s);
  CHECK(bad == NULL);
  CHECK_ERR(s, TX_NOT_FOUND, "[bad] function 'missing' is not in the graph's function library");

  TX_DeleteFunction(clash);
  TX_DeleteGraph(other);
  TX_DeleteGraph(h);
  TX_DeleteBuffer(gd);
  TX_DeleteFunction(plain);
  TX_DeleteGraph(g);
  TX_DeleteBuffer(again);
  TX_DeleteBuffer(buf);
  TX_DeleteFunction(back);
  TX_DeleteFunction(f);
  TX_DeleteFunction(NULL);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"call_and_gradient", test_call_and_gradient},
      {"function_defs_and_library", test_function_defs_and_library},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
