/* TX_AddGradients from plain C: a least-squares loss differentiated by the engine, checked
 * against its closed form; fan-out, initial gradients, stop gradients, unconnected inputs,
 * second order, and the error paths. */
#include "c_api_test_util.h"

/* loss = sum((x @ w - t)^2) with x [2,3] fed, w [3,1] and t [2,1] constants. */
typedef struct LsqGraph {
  TX_Graph* g;
  TX_Output x, w, t, loss;
} LsqGraph;

static void build_lsq(LsqGraph* m, TX_Status* s) {
  m->g = TX_NewGraph();
  int64_t xd[2] = {2, 3}, wd[2] = {3, 1}, td[2] = {2, 1}, ad[1] = {2};
  float wv[3] = {0.5f, -1.0f, 2.0f}, tv[2] = {1.0f, -1.0f};
  int32_t axes[2] = {0, 1};
  m->x = out0(placeholder(m->g, "x", TX_FLOAT, xd, 2, s));
  m->w = out0(const_f32(m->g, "w", wd, 2, wv, s));
  m->t = out0(const_f32(m->g, "t", td, 2, tv, s));
  TX_Output pred = out0(binary(m->g, "MatMul", "pred", m->x, m->w, s));
  TX_Output r = out0(binary(m->g, "Sub", "r", pred, m->t, s));
  TX_Output sq = out0(binary(m->g, "Mul", "sq", r, r, s));
  m->loss = out0(reduce(m->g, "Sum", "loss", sq, out0(const_i32(m->g, "axes", ad, 1, axes, s)), 0, s));
}

static void test_least_squares_gradient(void) {
  TX_Status* s = TX_NewStatus();
  LsqGraph m;
  build_lsq(&m, s);
  CHECK_OK(s);
  TX_Output xs[2] = {m.x, m.w}, dx[2];
  TX_AddGradients(m.g, NULL, &m.loss, 1, xs, 2, NULL, dx, s);
  CHECK_OK(s);
  CHECK(dx[0].oper != NULL && dx[1].oper != NULL);
  CHECK(strncmp(TX_OperationName(dx[1].oper), "gradients/", 10) == 0);

  TX_Session* sess = TX_NewSession(m.g, NULL, s);
  CHECK_OK(s);
  int64_t xd[2] = {2, 3};
  float xv[6] = {1, 2, 3, -1, 0, 4};
  TX_Tensor* feed = float_tensor(xd, 2, xv);
  TX_Tensor* out[2] = {NULL, NULL};
  TX_SessionRun(sess, NULL, &m.x, &feed, 1, dx, out, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  /* r = x @ w - t; dL/dw = 2 x^T r; dL/dx = 2 r w^T. */
  const float w[3] = {0.5f, -1.0f, 2.0f}, t[2] = {1.0f, -1.0f};
  float r[2];
  for (int i = 0; i < 2; ++i) r[i] = xv[3 * i] * w[0] + xv[3 * i + 1] * w[1] + xv[3 * i + 2] * w[2] - t[i];
  if (out[0] != NULL && out[1] != NULL) {
    const float* gx = (const float*)TX_TensorData(out[0]);
    const float* gw = (const float*)TX_TensorData(out[1]);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) CHECK(near(gx[3 * i + j], 2 * r[i] * w[j]));
    for (int j = 0; j < 3; ++j) CHECK(near(gw[j], 2 * (xv[j] * r[0] + xv[3 + j] * r[1])));
  }
  for (int i = 0; i < 2; ++i) TX_DeleteTensor(out[i]);
  TX_DeleteTensor(feed);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

/* d/dx of (x * x) with initial gradient dy, then the second derivative. */
static void test_initial_gradients_and_second_order(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  int64_t d[1] = {2};
  float xv[2] = {3, -2}, dyv[2] = {1, 10};
  TX_Output x = out0(const_f32(g, "x", d, 1, xv, s));
  TX_Output y = out0(binary(g, "Mul", "y", x, x, s));
  TX_Output dy = out0(const_f32(g, "dy", d, 1, dyv, s));
  TX_Output dx, ddx;
  TX_AddGradients(g, "first", &y, 1, &x, 1, &dy, &dx, s);
  CHECK_OK(s);
  TX_AddGradients(g, "second", &dx, 1, &x, 1, NULL, &ddx, s);
  CHECK_OK(s);
  TX_AddGradients(g, "first", &y, 1, &x, 1, NULL, &ddx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "prefix 'first' is already used");
  TX_Session* sess = TX_NewSession(g, NULL, s);
  TX_Output fetch[2] = {dx, ddx};
  TX_Tensor* out[2] = {NULL, NULL};
  TX_SessionRun(sess, NULL, NULL, NULL, 0, fetch, out, 2, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (out[0] != NULL && out[1] != NULL) {
    const float* a = (const float*)TX_TensorData(out[0]);
    const float* b = (const float*)TX_TensorData(out[1]);
    CHECK(near(a[0], 6.0f) && near(a[1], -40.0f));
    /* d/dx sum(2 x dy) = 2 dy. */
    CHECK(near(b[0], 2.0f) && near(b[1], 20.0f));
  }
  for (int i = 0; i < 2; ++i) TX_DeleteTensor(out[i]);
  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

static void test_options_and_errors(void) {
  TX_Status* s = TX_NewStatus();
  LsqGraph m;
  build_lsq(&m, s);
  /* t is unconnected from x; with stop_gradients at pred, w gets nothing either. */
  TX_Output pred = {TX_GraphOperationByName(m.g, "pred"), 0};
  TX_Output xs[2] = {m.w, m.t}, dx[2];
  TX_AddGradientsWithOptions(m.g, NULL, &pred, 1, xs, 2, NULL, NULL, 0, TX_UNCONNECTED_NONE, dx, s);
  CHECK_OK(s);
  CHECK(dx[0].oper != NULL && dx[1].oper == NULL);
  TX_AddGradientsWithOptions(m.g, NULL, &m.loss, 1, xs, 1, NULL, &pred, 1, TX_UNCONNECTED_ZERO, dx, s);
  CHECK_OK(s);
  CHECK(dx[0].oper != NULL && strcmp(TX_OperationOpType(dx[0].oper), "ZerosLike") == 0);
  /* An integer y contributes nothing, as in TensorFlow (Note [Integer targets]); its dy is unchecked. */
  TX_Output axes = {TX_GraphOperationByName(m.g, "axes"), 0};
  TX_AddGradients(m.g, NULL, &axes, 1, &m.w, 1, NULL, dx, s);
  CHECK_OK(s);
  CHECK(dx[0].oper == NULL);
  TX_Output ys[2] = {axes, m.loss}, dys[2] = {m.loss, axes};
  TX_AddGradients(m.g, NULL, ys, 2, &m.w, 1, NULL, dx, s);
  CHECK_OK(s);
  CHECK(dx[0].oper != NULL);
  TX_AddGradientsWithOptions(m.g, NULL, ys, 1, &m.w, 1, dys, NULL, 0, TX_UNCONNECTED_ZERO, dx, s);
  CHECK_OK(s);
  CHECK(dx[0].oper != NULL && strcmp(TX_OperationOpType(dx[0].oper), "ZerosLike") == 0);
  /* dy of the wrong dtype, outputs from another graph, a bad index, bad options. */
  TX_AddGradients(m.g, NULL, &m.loss, 1, &m.w, 1, &axes, dx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "grad_ys[0]");
  TX_Graph* other = TX_NewGraph();
  int64_t d[1] = {1};
  float v[1] = {1};
  TX_Output foreign = out0(const_f32(other, "c", d, 1, v, s));
  TX_AddGradients(m.g, NULL, &m.loss, 1, &foreign, 1, NULL, dx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "another graph");
  TX_Output bad = {m.w.oper, 3};
  TX_AddGradients(m.g, NULL, &m.loss, 1, &bad, 1, NULL, dx, s);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "output 3");
  TX_AddGradientsWithOptions(m.g, NULL, &m.loss, 1, &m.w, 1, NULL, NULL, 0, 7, dx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "unconnected");
  TX_AddGradients(NULL, NULL, &m.loss, 1, &m.w, 1, NULL, dx, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "graph is NULL");
  /* The registry's view of ops. */
  CHECK(TX_OpGradientStatus("MatMul") == 1);
  CHECK(TX_OpGradientStatus("Equal") == 0);
  CHECK(TX_OpGradientStatus("NoSuchOp") == -1);
  /* The graph still works for gradients after the errors. */
  TX_AddGradients(m.g, NULL, &m.loss, 1, &m.w, 1, NULL, dx, s);
  CHECK_OK(s);
  TX_DeleteGraph(other);
  TX_DeleteGraph(m.g);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"least_squares_gradient", test_least_squares_gradient},
      {"initial_gradients_and_second_order", test_initial_gradients_and_second_order},
      {"options_and_errors", test_options_and_errors},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
