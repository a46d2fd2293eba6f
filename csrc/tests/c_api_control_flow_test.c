/* Functional control flow from plain C: loop conditions, loop bodies and branches are built as
 * graphs, turned into functions with TX_GraphToFunction, copied into a main graph, and called by
 * While, StatelessIf and Case nodes (func, list(func) and list(type) attrs) that run in a session
 * against closed forms; a branch that itself runs a loop; the attrs read back; and the error
 * paths (mistyped loop body, missing branch function, unusable predicates), after which the
 * session still runs. */
#include "c_api_test_util.h"

/* A scalar int32 constant. */
static TX_Operation* scalar_i32(TX_Graph* g, const char* name, int32_t v, TX_Status* s) {
  return const_i32(g, name, NULL, 0, &v, s);
}

static TX_Operation* cast(TX_Graph* g, const char* name, TX_Output x, TX_DataType to, TX_Status* s) {
  TX_OperationDescription* d = TX_NewOperation(g, "Cast", name);
  TX_AddInput(d, x);
  TX_SetAttrType(d, "DstT", to);
  return TX_FinishOperation(d, s);
}

/* Makes a function of `fn_body` (then deleted) from `n_in` inputs to `n_out` outputs; NULL on error. */
static TX_Function* to_function(TX_Graph* fn_body, const char* name, const TX_Output* in, int n_in,
                                const TX_Output* out, int n_out, TX_Status* s) {
  TX_Function* f = TX_GraphToFunction(fn_body, name, 0, -1, NULL, n_in, in, n_out, out, NULL, NULL, NULL, s);
  TX_DeleteGraph(fn_body);
  return f;
}

/* Copies `f` into `g` and frees it. */
static void copy_into(TX_Graph* g, TX_Function* f, TX_Status* s) {
  CHECK(f != NULL);
  if (f == NULL) return;
  TX_GraphCopyFunction(g, f, NULL, s);
  CHECK_OK(s);
  TX_DeleteFunction(f);
}

/* The loop variables (i, n, sum, fact): int32, int32, int32, float. */
static const TX_DataType kLoopTypes[4] = {TX_INT32, TX_INT32, TX_INT32, TX_FLOAT};

/* Four placeholders of kLoopTypes (scalars) in `g`, named i, n, sum, fact. */
static void loop_args(TX_Graph* g, TX_Output* v, TX_Status* s) {
  static const char* const names[4] = {"i", "n", "sum", "fact"};
  for (int k = 0; k < 4; ++k) v[k] = out0(placeholder(g, names[k], kLoopTypes[k], NULL, 0, s));
}

/* Adds to `g` the functions loop_cond(i, n, sum, fact) = i <= n and
 * loop_body(i, n, sum, fact) = (i + 1, n, sum + i, fact * float(i)); with `bad_body` also
 * bad_body, which returns float(i + 1) where an int32 is expected. */
static void add_loop_functions(TX_Graph* g, int bad_body, TX_Status* s) {
  TX_Graph* c = TX_NewGraph();
  TX_Output v[4];
  loop_args(c, v, s);
  TX_Output le = out0(binary(c, "LessEqual", "le", v[0], v[1], s));
  CHECK_OK(s);
  copy_into(g, to_function(c, "loop_cond", v, 4, &le, 1, s), s);

  for (int bad = 0; bad <= bad_body; ++bad) {
    TX_Graph* b = TX_NewGraph();
    loop_args(b, v, s);
    TX_Output one = out0(scalar_i32(b, "one", 1, s));
    TX_Output next[4] = {out0(binary(b, "AddV2", "inc", v[0], one, s)), v[1],
                         out0(binary(b, "AddV2", "acc", v[2], v[0], s)),
                         out0(binary(b, "Mul", "prod", v[3], out0(cast(b, "fi", v[0], TX_FLOAT, s)), s))};
    if (bad) next[0] = out0(cast(b, "finc", next[0], TX_FLOAT, s));
    CHECK_OK(s);
    copy_into(g, to_function(b, bad ? "bad_body" : "loop_body", v, 4, next, 4, s), s);
  }
}

/* A While over the four loop variables starting at (1, n, 0, 1) with `body` as its body. */
static TX_Operation* add_while(TX_Graph* g, const char* name, const char* op_type, TX_Output n, const char* body,
                               TX_Status* s) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%s/one", name);
  TX_Output one = out0(scalar_i32(g, buf, 1, s));
  snprintf(buf, sizeof(buf), "%s/zero", name);
  TX_Output zero = out0(scalar_i32(g, buf, 0, s));
  snprintf(buf, sizeof(buf), "%s/fone", name);
  const float f1 = 1.0f;
  TX_Output fone = out0(const_f32(g, buf, NULL, 0, &f1, s));
  TX_Output init[4] = {one, n, zero, fone};
  TX_OperationDescription* d = TX_NewOperation(g, op_type, name);
  TX_AddInputList(d, init, 4);
  TX_SetAttrTypeList(d, "T", kLoopTypes, 4);
  TX_SetAttrFuncName(d, "cond", "loop_cond", strlen("loop_cond"));
  TX_SetAttrFuncName(d, "body", body, strlen(body));
  return TX_FinishOperation(d, s);
}

/* Adds the float -> float functions twice (x + x), square (x * x) and negate (-x) to `g`. */
static void add_branch_functions(TX_Graph* g, TX_Status* s) {
  static const char* const names[3] = {"twice", "square", "negate"};
  for (int k = 0; k < 3; ++k) {
    TX_Graph* b = TX_NewGraph();
    TX_Output x = out0(placeholder(b, "x", TX_FLOAT, NULL, -2, s));
    TX_Output y = k == 0 ? out0(binary(b, "AddV2", "y", x, x, s))
        : k == 1         ? out0(binary(b, "Mul", "y", x, x, s))
                         : out0(unary(b, "Neg", "y", x, s));
    CHECK_OK(s);
    copy_into(g, to_function(b, names[k], &x, 1, &y, 1, s), s);
  }
}

/* A Case (or StatelessCase) on `index` over the functions `names` (n of them), float x -> float. */
static TX_Operation* add_case(TX_Graph* g, const char* name, TX_Output index, TX_Output x, const char* const* names,
                              int n, TX_Status* s) {
  const void* values[4];
  size_t lengths[4];
  for (int k = 0; k < n; ++k) {
    values[k] = names[k];
    lengths[k] = strlen(names[k]);
  }
  const TX_DataType f32[1] = {TX_FLOAT};
  TX_OperationDescription* d = TX_NewOperation(g, "Case", name);
  TX_AddInput(d, index);
  TX_AddInputList(d, &x, 1);
  TX_SetAttrTypeList(d, "Tin", f32, 1);
  TX_SetAttrTypeList(d, "Tout", f32, 1);
  TX_SetAttrFuncNameList(d, "branches", values, lengths, n);
  return TX_FinishOperation(d, s);
}

/* A StatelessIf on `pred` (any dtype) running twice(x) or square(x). */
static TX_Operation* add_if(TX_Graph* g, const char* name, TX_Output pred, TX_Output x, TX_Status* s) {
  const TX_DataType f32[1] = {TX_FLOAT};
  TX_OperationDescription* d = TX_NewOperation(g, "StatelessIf", name);
  TX_AddInput(d, pred);
  TX_AddInputList(d, &x, 1);
  TX_SetAttrType(d, "Tcond", TX_OperationOutputType(pred));
  TX_SetAttrTypeList(d, "Tin", f32, 1);
  TX_SetAttrTypeList(d, "Tout", f32, 1);
  TX_SetAttrFuncName(d, "then_branch", "twice", 5);
  TX_SetAttrFuncName(d, "else_branch", "square", 6);
  return TX_FinishOperation(d, s);
}

/* Runs `fetch` with one feed and returns its first element as a double (NAN on error). */
static double run_scalar(TX_Session* sess, TX_Output feed, TX_Tensor* value, TX_Output fetch, TX_Status* s) {
  TX_Tensor* out = run1(sess, feed, value, fetch, s);
  double v = NAN;
  if (out != NULL && TX_TensorElementCount(out) > 0) {
    switch (TX_TensorType(out)) {
      case TX_INT32: v = *(const int32_t*)TX_TensorData(out); break;
      case TX_FLOAT: v = *(const float*)TX_TensorData(out); break;
      default: break;
    }
  }
  TX_DeleteTensor(out);
  return v;
}

static TX_Tensor* scalar_i32_tensor(int32_t v) { return int32_tensor(NULL, 0, &v); }

/* Runs `fetch` feeding `av` to `a` and `bv` to `b`; returns the fetched tensor (caller frees) or NULL. */
static TX_Tensor* run2(TX_Session* sess, TX_Output a, TX_Tensor* av, TX_Output b, TX_Tensor* bv, TX_Output fetch,
                       TX_Status* s) {
  TX_Output feeds[2] = {a, b};
  TX_Tensor* values[2] = {av, bv};
  TX_Tensor* out = NULL;
  TX_SessionRun(sess, NULL, feeds, values, 2, &fetch, &out, 1, NULL, 0, NULL, s);
  return out;
}

/* Element i of float tensor `t` (NAN when t is NULL), then frees `t`. */
static float float_at_and_free(TX_Tensor* t, int i) {
  float v = t != NULL ? ((const float*)TX_TensorData(t))[i] : NAN;
  TX_DeleteTensor(t);
  return v;
}

static void test_while_loop(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  add_loop_functions(g, 0, s);
  CHECK(TX_GraphNumFunctions(g) == 2);
  TX_Output n = out0(placeholder(g, "n", TX_INT32, NULL, 0, s));
  for (int stateless = 0; stateless <= 1; ++stateless) {
    const char* name = stateless ? "swhile" : "while";
    TX_Operation* w = add_while(g, name, stateless ? "StatelessWhile" : "While", n, "loop_body", s);
    CHECK_OK(s);
    if (w == NULL) continue;
    CHECK(TX_OperationNumOutputs(w) == 4 && TX_OperationOutputType((TX_Output){w, 3}) == TX_FLOAT);
    CHECK(shape_is(g, (TX_Output){w, 2}, 0, NULL)); /* the body keeps the scalars' shapes */
    TX_DataType t[4];
    TX_OperationGetAttrTypeList(w, "T", t, 4, s);
    CHECK_OK(s);
    CHECK(memcmp(t, kLoopTypes, sizeof(t)) == 0);

    TX_Session* sess = TX_NewSession(g, NULL, s);
    CHECK_OK(s);
    double fact = 1;
    for (int32_t k = 0; k <= 10; ++k) {
      if (k > 0) fact *= k;
      TX_Tensor* nv = scalar_i32_tensor(k);
      TX_Output fetches[4] = {{w, 0}, {w, 1}, {w, 2}, {w, 3}};
      TX_Tensor* out[4] = {NULL, NULL, NULL, NULL};
      TX_SessionRun(sess, NULL, &n, &nv, 1, fetches, out, 4, NULL, 0, NULL, s);
      CHECK_OK(s);
      if (out[0] && out[1] && out[2] && out[3]) {
        CHECK(*(const int32_t*)TX_TensorData(out[0]) == k + 1);
        CHECK(*(const int32_t*)TX_TensorData(out[1]) == k);
        CHECK(*(const int32_t*)TX_TensorData(out[2]) == k * (k + 1) / 2);
        CHECK(near(*(const float*)TX_TensorData(out[3]), (float)fact));
      }
      for (int j = 0; j < 4; ++j) TX_DeleteTensor(out[j]);
      TX_DeleteTensor(nv);
    }
    TX_DeleteSession(sess, s);
  }
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_if_and_case(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  add_branch_functions(g, s);
  const int64_t dims[1] = {3};
  TX_Output x = out0(placeholder(g, "x", TX_FLOAT, dims, 1, s));
  TX_Output p = out0(placeholder(g, "p", TX_BOOL, NULL, 0, s));
  TX_Output k = out0(placeholder(g, "k", TX_INT32, NULL, 0, s));
  TX_Output m = out0(placeholder(g, "m", TX_FLOAT, NULL, -1, s)); /* a float predicate of any shape */
  TX_Operation* if_b = add_if(g, "if_bool", p, x, s);
  CHECK_OK(s);
  TX_Operation* if_f = add_if(g, "if_float", m, x, s);
  CHECK_OK(s);
  static const char* const branches[3] = {"twice", "square", "negate"};
  TX_Operation* c = add_case(g, "case", k, x, branches, 3, s);
  CHECK_OK(s);
  CHECK(shape_is(g, out0(c), 1, dims) && shape_is(g, out0(if_b), 1, dims));

  /* The list(func) attr reads back. */
  TX_AttrMetadata meta = TX_OperationGetAttrMetadata(c, "branches", s);
  CHECK_OK(s);
  CHECK(meta.is_list == 1 && meta.list_size == 3 && meta.type == TX_ATTR_FUNC && meta.total_size == 5 + 6 + 6);
  void* values[3];
  size_t lengths[3];
  char storage[17];
  TX_OperationGetAttrFuncNameList(c, "branches", values, lengths, 3, storage, sizeof(storage), s);
  CHECK_OK(s);
  for (int b = 0; b < 3; ++b)
    CHECK(lengths[b] == strlen(branches[b]) && memcmp(values[b], branches[b], lengths[b]) == 0);
  TX_OperationGetAttrFuncNameList(c, "branches", values, lengths, 3, storage, 16, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[case] storage of 16 bytes is too small for the strings of attr 'branches'");
  TX_OperationGetAttrFuncNameList(c, "Tout", values, lengths, 3, storage, sizeof(storage), s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[case] attr 'Tout' is of type list(type), expected list(func)");
  meta = TX_OperationGetAttrMetadata(if_b, "then_branch", s);
  CHECK_OK(s);
  CHECK(meta.is_list == 0 && meta.type == TX_ATTR_FUNC && meta.total_size == 5);

  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  const float xv[3] = {1.5f, -2, 3};
  TX_Tensor* xt = float_tensor(dims, 1, xv);
  /* Case: index 0..2, and out-of-range indices run the last branch. */
  const int32_t indices[5] = {0, 1, 2, 7, -1};
  for (int j = 0; j < 5; ++j) {
    TX_Tensor* kt = scalar_i32_tensor(indices[j]);
    const int b = indices[j] >= 0 && indices[j] < 3 ? indices[j] : 2;
    for (int i = 0; i < 3; ++i) {
      const float want = b == 0 ? xv[i] + xv[i] : b == 1 ? xv[i] * xv[i] : -xv[i];
      CHECK(near(float_at_and_free(run2(sess, x, xt, k, kt, out0(c), s), i), want));
      CHECK_OK(s);
    }
    TX_DeleteTensor(kt);
  }
  /* StatelessIf: a bool scalar, and TensorFlow's truth of other predicates (a number is true
   * when non-zero, a non-scalar when non-empty). */
  const unsigned char truth[2] = {1, 0};
  for (int j = 0; j < 2; ++j) {
    TX_Tensor* pt = TX_AllocateTensor(TX_BOOL, NULL, 0, 1);
    memcpy(TX_TensorData(pt), &truth[j], 1);
    CHECK(near(float_at_and_free(run2(sess, x, xt, p, pt, out0(if_b), s), 1), truth[j] ? -4.0f : 4.0f));
    CHECK_OK(s);
    TX_DeleteTensor(pt);
  }
  const int64_t mdims[4][1] = {{0}, {0}, {0}, {2}};
  const int mnd[4] = {0, 0, 1, 1};
  const float mval[4][2] = {{0, 0}, {-0.5f, 0}, {0, 0}, {0, 0}};
  const int mtrue[4] = {0, 1, 0, 1};
  for (int j = 0; j < 4; ++j) {
    TX_Tensor* mt = float_tensor(mdims[j], mnd[j], mval[j]);
    CHECK(near(float_at_and_free(run2(sess, x, xt, m, mt, out0(if_f), s), 2), mtrue[j] ? 6.0f : 9.0f));
    CHECK_OK(s);
    TX_DeleteTensor(mt);
  }
  TX_DeleteTensor(xt);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

/* A branch that runs a loop: Case(k, n) picks sum(1..n) (a function holding a While) or n itself. */
static void test_loop_inside_a_branch(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* sum_graph = TX_NewGraph();
  add_loop_functions(sum_graph, 0, s);
  TX_Output n = out0(placeholder(sum_graph, "n", TX_INT32, NULL, 0, s));
  TX_Operation* w = add_while(sum_graph, "loop", "While", n, "loop_body", s);
  CHECK_OK(s);
  TX_Output sum = {w, 2};
  TX_Function* sum_to = TX_GraphToFunction(sum_graph, "sum_to", 0, -1, NULL, 1, &n, 1, &sum, NULL, NULL, NULL, s);
  CHECK_OK(s);
  TX_Graph* id_graph = TX_NewGraph();
  TX_Output a = out0(placeholder(id_graph, "a", TX_INT32, NULL, 0, s));
  TX_Output id = out0(unary(id_graph, "Identity", "id", a, s));

  /* The main graph needs sum_to and the loop's functions. */
  TX_Graph* g = TX_NewGraph();
  TX_Function* fs[3] = {NULL, NULL, NULL};
  CHECK(TX_GraphGetFunctions(sum_graph, fs, 2, s) == 2);
  for (int j = 0; j < 2; ++j) copy_into(g, fs[j], s);
  copy_into(g, sum_to, s);
  copy_into(g, to_function(id_graph, "ident", &a, 1, &id, 1, s), s);
  TX_DeleteGraph(sum_graph);

  TX_Output k = out0(placeholder(g, "k", TX_INT32, NULL, 0, s));
  TX_Output m = out0(placeholder(g, "m", TX_INT32, NULL, 0, s));
  const void* names[2] = {"sum_to", "ident"};
  const size_t lengths[2] = {6, 5};
  const TX_DataType i32[1] = {TX_INT32};
  TX_OperationDescription* d = TX_NewOperation(g, "StatelessCase", "pick");
  TX_AddInput(d, k);
  TX_AddInputList(d, &m, 1);
  TX_SetAttrTypeList(d, "Tin", i32, 1);
  TX_SetAttrTypeList(d, "Tout", i32, 1);
  TX_SetAttrFuncNameList(d, "branches", names, lengths, 2);
  TX_Operation* pick = TX_FinishOperation(d, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  for (int32_t branch = 0; branch <= 1; ++branch) {
    TX_Tensor* fv[2] = {scalar_i32_tensor(branch), scalar_i32_tensor(100)};
    TX_Tensor* out = run2(sess, k, fv[0], m, fv[1], out0(pick), s);
    CHECK_OK(s);
    CHECK(out != NULL && *(const int32_t*)TX_TensorData(out) == (branch == 0 ? 5050 : 100));
    TX_DeleteTensor(out);
    for (int j = 0; j < 2; ++j) TX_DeleteTensor(fv[j]);
  }
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_errors_leave_the_session_usable(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  add_loop_functions(g, 1, s);
  add_branch_functions(g, s);
  TX_Output n = out0(placeholder(g, "n", TX_INT32, NULL, 0, s));
  TX_Operation* w = add_while(g, "while", "While", n, "loop_body", s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);
  TX_Tensor* four = scalar_i32_tensor(4);
  CHECK(run_scalar(sess, n, four, (TX_Output){w, 2}, s) == 10);
  CHECK_OK(s);

  /* A loop body returning a float where the loop variable is an int32. */
  CHECK(add_while(g, "bad_while", "While", n, "bad_body", s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT,
            "[bad_while] body: function 'bad_body' returns [float, int32, int32, float] but the call expects "
            "[int32, int32, int32, float]");
  /* A branch list naming a function the library lacks. */
  const int64_t dims[1] = {2};
  TX_Output x = out0(placeholder(g, "x", TX_FLOAT, dims, 1, s));
  TX_Output k = out0(placeholder(g, "k", TX_INT32, NULL, 0, s));
  static const char* const missing[2] = {"twice", "no_such_function"};
  CHECK(add_case(g, "bad_case", k, x, missing, 2, s) == NULL);
  CHECK_ERR(s, TX_NOT_FOUND,
            "[bad_case] branches[1]: function 'no_such_function' is not in the graph's function library");
  /* A list(func) attr with a NULL name. */
  const void* null_name[1] = {NULL};
  const size_t one[1] = {1};
  TX_OperationDescription* d = TX_NewOperation(g, "Case", "null_case");
  TX_SetAttrFuncNameList(d, "branches", null_name, one, 1);
  CHECK(TX_FinishOperation(d, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[null_case] attr 'branches': function name 0 is NULL");
  CHECK(add_case(g, "no_branches", k, x, missing, 0, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[no_branches] attr 'branches' must have at least 1 elements, got 0");

  /* Predicates that have no truth value here. A non-scalar string predicate builds (TensorFlow's
   * OpDef takes any Tcond); a run that needs it but does not feed it fails naming its producer. */
  TX_Output str = out0(placeholder(g, "str", TX_STRING, dims, 1, s));
  CHECK_OK(s);
  TX_Operation* if_str = add_if(g, "if_str", str, x, s);
  CHECK_OK(s);
  const float xv[2] = {1, 2};
  TX_Tensor* xt = float_tensor(dims, 1, xv);
  CHECK(isnan(run_scalar(sess, x, xt, out0(if_str), s)));
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[str] You must feed a value for placeholder tensor 'str' with dtype string");
  /* A scalar half predicate: TensorFlow has no truth value for it either. */
  TX_Output h = out0(placeholder(g, "h", TX_HALF, NULL, 0, s));
  TX_Operation* if_half = add_if(g, "if_half", h, x, s);
  CHECK_OK(s);
  TX_Tensor* ht = TX_AllocateTensor(TX_HALF, NULL, 0, 2);
  memset(TX_TensorData(ht), 0, 2);
  CHECK(run2(sess, x, xt, h, ht, out0(if_half), s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "[if_half] cond: a scalar half cannot be converted to a boolean");

  /* The session and the good loop still work. */
  CHECK(run_scalar(sess, n, four, (TX_Output){w, 2}, s) == 10);
  CHECK_OK(s);
  TX_DeleteTensor(ht);
  TX_DeleteTensor(xt);
  TX_DeleteTensor(four);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"while_loop", test_while_loop},
      {"if_and_case", test_if_and_case},
      {"loop_inside_a_branch", test_loop_inside_a_branch},
      {"errors_leave_the_session_usable", test_errors_leave_the_session_usable},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
