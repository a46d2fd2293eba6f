/* The eager gradient tape from plain C: an MLP loss against finite differences, persistent and
 * non-persistent tapes, nested tapes (higher derivatives), variables (auto-watch, gradients to the
 * handle, watched_variables), stop recording, output gradients, unconnected sources, integer
 * sources and targets, gradients across devices, an op whose gradient is an error, custom gradients
 * through the C callback, and the error paths (the context stays usable after each). */
#include <tensorflux/c/c_api_eager.h>

#include "c_api_test_util.h"

/* ----------------------------------------------------------------------------------------------
 * Helpers */

static TXE_Context* new_ctx(int ncpu, TXE_ContextDevicePlacementPolicy policy) {
  TX_Status* s = TX_NewStatus();
  TXE_ContextOptions* opts = TXE_NewContextOptions();
  TXE_ContextOptionsSetThreads(opts, 2, 2);
  TXE_ContextOptionsSetNumCpuDevices(opts, ncpu);
  TXE_ContextOptionsSetDevicePlacementPolicy(opts, policy);
  TXE_Context* ctx = TXE_NewContext(opts, s);
  CHECK_OK(s);
  TXE_DeleteContextOptions(opts);
  TX_DeleteStatus(s);
  return ctx;
}

/* A handle holding `n` bytes of `vals` as a tensor of type `dt`. */
static TXE_TensorHandle* handle_of(TX_DataType dt, const int64_t* dims, int nd, const void* vals, size_t elem) {
  TX_Status* s = TX_NewStatus();
  size_t n = 1;
  for (int i = 0; i < nd; ++i) n *= (size_t)dims[i];
  TX_Tensor* t = TX_AllocateTensor(dt, dims, nd, n * elem);
  if (n > 0) memcpy(TX_TensorData(t), vals, n * elem);
  TXE_TensorHandle* h = TXE_NewTensorHandle(t, s);
  CHECK_OK(s);
  TX_DeleteTensor(t);
  TX_DeleteStatus(s);
  return h;
}

static TXE_TensorHandle* f64(const int64_t* dims, int nd, const double* v) {
  return handle_of(TX_DOUBLE, dims, nd, v, 8);
}
static TXE_TensorHandle* f32(const int64_t* dims, int nd, const float* v) {
  return handle_of(TX_FLOAT, dims, nd, v, 4);
}
static TXE_TensorHandle* i32(const int64_t* dims, int nd, const int32_t* v) {
  return handle_of(TX_INT32, dims, nd, v, 4);
}
static TXE_TensorHandle* scalar64(double v) { return f64(NULL, 0, &v); }

/* Element i of a float64 (or, with `is_f32`, float32) handle; NaN on error. */
static double elem(TXE_TensorHandle* h, int i) {
  if (h == NULL) return NAN;
  TX_Status* s = TX_NewStatus();
  TX_Tensor* t = TXE_TensorHandleResolve(h, s);
  double v = NAN;
  if (t != NULL && i < TX_TensorElementCount(t)) {
    if (TX_TensorType(t) == TX_DOUBLE)
      v = ((const double*)TX_TensorData(t))[i];
    else if (TX_TensorType(t) == TX_FLOAT)
      v = ((const float*)TX_TensorData(t))[i];
    else if (TX_TensorType(t) == TX_INT32)
      v = ((const int32_t*)TX_TensorData(t))[i];
  }
  TX_DeleteTensor(t);
  TX_DeleteStatus(s);
  return v;
}

static int close_to(double a, double b, double tol) { return fabs(a - b) <= tol * (1.0 + fabs(b)); }

/* Runs op `name` on single inputs; `setup` (may be NULL) sets attrs. Returns output 0 (caller owns)
 * and stores output 1 in `*second` when given. NULL on error (in `s`). */
typedef void (*setup_fn)(TXE_Op* op);
static TXE_TensorHandle* run2(TXE_Context* ctx, const char* name, TXE_TensorHandle** in, int nin, setup_fn setup,
                              TXE_TensorHandle** second, TX_Status* s) {
  TXE_Op* op = TXE_NewOp(ctx, name, s);
  if (op == NULL) return NULL;
  for (int i = 0; i < nin; ++i) TXE_OpAddInput(op, in[i], s);
  if (setup) setup(op);
  TXE_TensorHandle* out[2] = {NULL, NULL};
  int n = 2;
  TXE_Execute(op, out, &n, s);
  TXE_DeleteOp(op);
  if (second != NULL)
    *second = out[1];
  else if (out[1] != NULL)
    TXE_DeleteTensorHandle(out[1]);
  return out[0];
}

static TXE_TensorHandle* run(TXE_Context* ctx, const char* name, TXE_TensorHandle** in, int nin, TX_Status* s) {
  return run2(ctx, name, in, nin, NULL, NULL, s);
}

static TXE_TensorHandle* bin(TXE_Context* ctx, const char* name, TXE_TensorHandle* a, TXE_TensorHandle* b,
                             TX_Status* s) {
  TXE_TensorHandle* in[2] = {a, b};
  return run(ctx, name, in, 2, s);
}

/* Sum of all elements of a rank-1 or rank-2 tensor (axes given as an int32 handle). */
static TXE_TensorHandle* sum_all(TXE_Context* ctx, TXE_TensorHandle* x, TX_Status* s) {
  int32_t axes[2] = {0, 1};
  int64_t n = x != NULL ? TXE_TensorHandleNumDims(x, s) : -1;
  if (n < 1 || n > 2) return NULL;
  TXE_TensorHandle* a = i32(&n, 1, axes);
  TXE_TensorHandle* r = bin(ctx, "Sum", x, a, s);
  TXE_DeleteTensorHandle(a);
  return r;
}

static void dtype_f32(TXE_Op* op) { TXE_OpSetAttrType(op, "dtype", TX_FLOAT); }
static void dst_f32(TXE_Op* op) { TXE_OpSetAttrType(op, "DstT", TX_FLOAT); }

/* One gradient with the default options; returns the result for the single source. */
static TXE_TensorHandle* grad1(TXE_Tape* tape, TXE_TensorHandle* y, TXE_TensorHandle* x, TX_Status* s) {
  TXE_TensorHandle* r = NULL;
  TXE_TapeGradient(tape, &y, 1, &x, 1, NULL, TX_UNCONNECTED_NONE, &r, s);
  return r;
}

static void free_all(TXE_TensorHandle** hs, int n) {
  for (int i = 0; i < n; ++i) TXE_DeleteTensorHandle(hs[i]);
}

/* ----------------------------------------------------------------------------------------------
 * An MLP loss: mean(softmax_xent(tanh(x @ W1 + b1) @ W2 + b2, labels)), in float64. */

enum { kRows = 4, kIn = 3, kHidden = 5, kOut = 2 };

static TXE_TensorHandle* mlp_loss(TXE_Context* ctx, TXE_TensorHandle* x, TXE_TensorHandle** p, TXE_TensorHandle* labels,
                                  TX_Status* s) {
  TXE_TensorHandle* h[6] = {NULL};
  h[0] = bin(ctx, "MatMul", x, p[0], s);
  h[1] = bin(ctx, "BiasAdd", h[0], p[1], s);
  h[2] = run(ctx, "Tanh", &h[1], 1, s);
  h[3] = bin(ctx, "MatMul", h[2], p[2], s);
  h[4] = bin(ctx, "BiasAdd", h[3], p[3], s);
  TXE_TensorHandle* in[2] = {h[4], labels};
  TXE_TensorHandle* backprop = NULL;
  h[5] = run2(ctx, "SoftmaxCrossEntropyWithLogits", in, 2, NULL, &backprop, s);
  int32_t zero = 0;
  int64_t one = 1;
  TXE_TensorHandle* axes = i32(&one, 1, &zero);
  TXE_TensorHandle* loss = bin(ctx, "Mean", h[5], axes, s);
  TXE_DeleteTensorHandle(axes);
  TXE_DeleteTensorHandle(backprop);
  free_all(h, 6);
  return loss;
}

static void test_mlp_matches_finite_differences(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  static const int64_t xd[2] = {kRows, kIn}, w1d[2] = {kIn, kHidden}, b1d[1] = {kHidden}, w2d[2] = {kHidden, kOut},
                       b2d[1] = {kOut}, ld[2] = {kRows, kOut};
  double xv[kRows * kIn], w1[kIn * kHidden], b1[kHidden], w2[kHidden * kOut], b2[kOut];
  double lv[kRows * kOut] = {1, 0, 0, 1, 0, 1, 1, 0};
  for (int i = 0; i < kRows * kIn; ++i) xv[i] = sin(0.7 * i + 0.3);
  for (int i = 0; i < kIn * kHidden; ++i) w1[i] = 0.5 * cos(1.3 * i);
  for (int i = 0; i < kHidden; ++i) b1[i] = 0.1 * i - 0.2;
  for (int i = 0; i < kHidden * kOut; ++i) w2[i] = 0.4 * sin(0.9 * i + 1.0);
  for (int i = 0; i < kOut; ++i) b2[i] = 0.05 * (i + 1);
  double* pv[4] = {w1, b1, w2, b2};
  const int64_t* pd[4] = {w1d, b1d, w2d, b2d};
  const int pn[4] = {2, 1, 2, 1}, pcount[4] = {kIn * kHidden, kHidden, kHidden * kOut, kOut};
  TXE_TensorHandle* x = f64(xd, 2, xv);
  TXE_TensorHandle* labels = f64(ld, 2, lv);
  TXE_TensorHandle* p[4];
  for (int k = 0; k < 4; ++k) p[k] = f64(pd[k], pn[k], pv[k]);

  TXE_Tape* tape = TXE_NewTape(ctx, 0, 1, s);
  CHECK_OK(s);
  for (int k = 0; k < 4; ++k) TXE_TapeWatch(tape, p[k], s);
  TXE_TensorHandle* loss = mlp_loss(ctx, x, p, labels, s);
  CHECK_OK(s);
  TXE_TensorHandle* g[4] = {NULL};
  TXE_TapeGradient(tape, &loss, 1, p, 4, NULL, TX_UNCONNECTED_NONE, g, s);
  CHECK_OK(s);
  TXE_DeleteTape(tape);

  /* Central differences of the loss, run with no tape. */
  const double eps = 1e-6;
  int bad = 0;
  for (int k = 0; k < 4; ++k) {
    CHECK(g[k] != NULL && TXE_TensorHandleNumElements(g[k], s) == pcount[k]);
    for (int e = 0; e < pcount[k]; ++e) {
      double saved = pv[k][e], l[2];
      for (int side = 0; side < 2; ++side) {
        pv[k][e] = saved + (side ? -eps : eps);
        TXE_TensorHandle* q[4] = {p[0], p[1], p[2], p[3]};
        q[k] = f64(pd[k], pn[k], pv[k]);
        TXE_TensorHandle* lh = mlp_loss(ctx, x, q, labels, s);
        l[side] = elem(lh, 0);
        TXE_DeleteTensorHandle(lh);
        TXE_DeleteTensorHandle(q[k]);
      }
      pv[k][e] = saved;
      const double fd = (l[0] - l[1]) / (2 * eps);
      if (!close_to(elem(g[k], e), fd, 1e-7)) {
        printf("  param %d elem %d: tape %.10g, finite differences %.10g\n", k, e, elem(g[k], e), fd);
        ++bad;
      }
    }
  }
  CHECK(bad == 0);
  free_all(g, 4);
  free_all(p, 4);
  TXE_DeleteTensorHandle(loss);
  TXE_DeleteTensorHandle(labels);
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Persistent and non-persistent tapes; higher derivatives. */

static void test_persistent_and_used_tapes(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  TXE_TensorHandle* x = scalar64(1.5);
  for (int persistent = 0; persistent < 2; ++persistent) {
    TXE_Tape* tape = TXE_NewTape(ctx, (unsigned char)persistent, 1, s);
    TXE_TapeWatch(tape, x, s);
    TXE_TensorHandle* y = bin(ctx, "Mul", x, x, s);
    TXE_TensorHandle* z = bin(ctx, "Mul", y, x, s);
    TXE_TensorHandle* dz = grad1(tape, z, x, s);
    CHECK_OK(s);
    CHECK(close_to(elem(dz, 0), 3 * 1.5 * 1.5, 1e-12));
    CHECK(TXE_TapeIsRecording(tape) == persistent);
    TXE_TensorHandle* dy = grad1(tape, y, x, s);
    if (persistent) {
      CHECK_OK(s);
      CHECK(close_to(elem(dy, 0), 3.0, 1e-12));
    } else {
      CHECK_ERR(s, TX_FAILED_PRECONDITION, "already used");
      CHECK(dy == NULL);
    }
    TXE_DeleteTensorHandle(dy);
    TXE_DeleteTensorHandle(dz);
    TXE_DeleteTensorHandle(z);
    TXE_DeleteTensorHandle(y);
    TXE_DeleteTape(tape);
  }
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* d/dx x^3 = 3x^2, d2 = 6x, d3 = 6: three nested tapes, each differentiating what the inner one
 * computed; and a persistent tape differentiating its own gradient. */
static void test_higher_derivatives(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  const double xv = 1.5;
  TXE_TensorHandle* x = scalar64(xv);
  TXE_Tape* t[3];
  for (int k = 0; k < 3; ++k) {
    t[k] = TXE_NewTape(ctx, 0, 1, s);
    TXE_TapeWatch(t[k], x, s);
  }
  TXE_TensorHandle* x2 = bin(ctx, "Mul", x, x, s);
  TXE_TensorHandle* y = bin(ctx, "Mul", x2, x, s);
  TXE_TensorHandle* d1 = grad1(t[2], y, x, s);
  TXE_DeleteTape(t[2]);
  TXE_TensorHandle* d2 = grad1(t[1], d1, x, s);
  TXE_DeleteTape(t[1]);
  TXE_TensorHandle* d3 = grad1(t[0], d2, x, s);
  TXE_DeleteTape(t[0]);
  CHECK_OK(s);
  CHECK(close_to(elem(d1, 0), 3 * xv * xv, 1e-12));
  CHECK(close_to(elem(d2, 0), 6 * xv, 1e-12));
  CHECK(close_to(elem(d3, 0), 6, 1e-12));
  TXE_TensorHandle* hs[5] = {x2, y, d1, d2, d3};
  free_all(hs, 5);

  /* One persistent tape records its own gradient computation. */
  TXE_Tape* p = TXE_NewTape(ctx, 1, 1, s);
  TXE_TapeWatch(p, x, s);
  TXE_TensorHandle* th = run(ctx, "Tanh", &x, 1, s);
  TXE_TensorHandle* g1 = grad1(p, th, x, s);
  TXE_TensorHandle* g2 = grad1(p, g1, x, s);
  CHECK_OK(s);
  const double tv = tanh(xv);
  CHECK(close_to(elem(g1, 0), 1 - tv * tv, 1e-12));
  CHECK(close_to(elem(g2, 0), -2 * tv * (1 - tv * tv), 1e-12));
  TXE_TensorHandle* more[3] = {th, g1, g2};
  free_all(more, 3);
  TXE_DeleteTape(p);
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Variables. */

static TXE_TensorHandle* new_variable(TXE_Context* ctx, const char* name, const int64_t* dims, int nd,
                                      const float* init, TX_Status* s) {
  TXE_Op* op = TXE_NewOp(ctx, "VarHandleOp", s);
  TXE_OpSetAttrType(op, "dtype", TX_FLOAT);
  TXE_OpSetAttrString(op, "shared_name", name, strlen(name));
  TXE_OpSetAttrShape(op, "shape", dims, nd, s);
  TXE_TensorHandle* h = NULL;
  int n = 1;
  TXE_Execute(op, &h, &n, s);
  TXE_DeleteOp(op);
  TXE_TensorHandle* v = f32(dims, nd, init);
  TXE_Op* assign = TXE_NewOp(ctx, "AssignVariableOp", s);
  TXE_OpAddInput(assign, h, s);
  TXE_OpAddInput(assign, v, s);
  TXE_OpSetAttrType(assign, "dtype", TX_FLOAT);
  n = 0;
  TXE_Execute(assign, NULL, &n, s);
  TXE_DeleteOp(assign);
  TXE_DeleteTensorHandle(v);
  return h;
}

static TXE_TensorHandle* read_var(TXE_Context* ctx, TXE_TensorHandle* h, TX_Status* s) {
  return run2(ctx, "ReadVariableOp", &h, 1, dtype_f32, NULL, s);
}

static void test_variables(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  int64_t d[1] = {2}, d32[2] = {3, 2};
  float init[2] = {3, 4}, table[6] = {1, 2, 3, 4, 5, 6};
  TXE_TensorHandle* v = new_variable(ctx, "v", d, 1, init, s);
  TXE_TensorHandle* emb = new_variable(ctx, "emb", d32, 2, table, s);
  CHECK_OK(s);

  /* Auto-watch: loss = sum(r1) + sum(r2 * r2) reads v twice; d loss / d v = 1 + 2v. */
  TXE_Tape* tape = TXE_NewTape(ctx, 1, 1, s);
  TXE_TensorHandle* r1 = read_var(ctx, v, s);
  TXE_TensorHandle* r2 = read_var(ctx, v, s);
  TXE_TensorHandle* sq = bin(ctx, "Mul", r2, r2, s);
  TXE_TensorHandle* s1 = sum_all(ctx, r1, s);
  TXE_TensorHandle* s2 = sum_all(ctx, sq, s);
  TXE_TensorHandle* loss = bin(ctx, "AddV2", s1, s2, s);
  /* ResourceGather rows 0, 2, 0 of the table: d sum / d table = row counts. */
  int32_t idx[3] = {0, 2, 0};
  int64_t d3[1] = {3};
  TXE_TensorHandle* indices = i32(d3, 1, idx);
  TXE_TensorHandle* gin[2] = {emb, indices};
  TXE_TensorHandle* rows = run2(ctx, "ResourceGather", gin, 2, dtype_f32, NULL, s);
  TXE_TensorHandle* gsum = sum_all(ctx, rows, s);
  CHECK_OK(s);
  CHECK(TXE_TapeNumWatchedVariables(tape) == 2);
  TXE_TensorHandle* w0 = TXE_TapeWatchedVariable(tape, 0, s);
  CHECK(w0 != NULL && TXE_TensorHandleId(w0) == TXE_TensorHandleId(v) && TXE_TensorHandleDataType(w0) == TX_RESOURCE);
  TXE_DeleteTensorHandle(w0);
  TXE_TapeWatchedVariable(tape, 2, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "out of range");
  TXE_TensorHandle* dv = grad1(tape, loss, v, s);
  CHECK_OK(s);
  CHECK(TXE_TensorHandleDataType(dv) == TX_FLOAT && TXE_TensorHandleNumElements(dv, s) == 2);
  CHECK(elem(dv, 0) == 7 && elem(dv, 1) == 9);
  TXE_TensorHandle* demb = grad1(tape, gsum, emb, s);
  CHECK_OK(s);
  const double want[6] = {2, 2, 0, 0, 1, 1};
  for (int i = 0; i < 6; ++i) CHECK(elem(demb, i) == want[i]);
  /* A handle copy is the same variable for the tape. */
  TXE_TensorHandle* vcopy = TXE_TensorHandleCopySharingTensor(v, s);
  TXE_TensorHandle* dcopy = grad1(tape, s1, vcopy, s);
  CHECK(elem(dcopy, 0) == 1 && elem(dcopy, 1) == 1);
  TXE_TensorHandle* hs[12] = {r1, r2, sq, s1, s2, loss, indices, rows, gsum, dv, demb, dcopy};
  free_all(hs, 12);
  TXE_DeleteTensorHandle(vcopy);
  TXE_DeleteTape(tape);

  /* watch_accessed_variables = 0: reads are not watched; explicit watches still work. */
  tape = TXE_NewTape(ctx, 1, 0, s);
  r1 = read_var(ctx, v, s);
  s1 = sum_all(ctx, r1, s);
  TXE_TensorHandle* res[2] = {NULL, NULL};
  TXE_TensorHandle* srcs[2] = {v, emb};
  TXE_TapeGradient(tape, &s1, 1, srcs, 2, NULL, TX_UNCONNECTED_NONE, res, s);
  CHECK_OK(s);
  CHECK(res[0] == NULL && res[1] == NULL && TXE_TapeNumWatchedVariables(tape) == 0);
  TXE_TapeGradient(tape, &s1, 1, srcs, 2, NULL, TX_UNCONNECTED_ZERO, res, s);
  CHECK_OK(s);
  CHECK(TXE_TensorHandleNumElements(res[0], s) == 2 && elem(res[0], 1) == 0);
  CHECK(TXE_TensorHandleNumDims(res[1], s) == 2 && TXE_TensorHandleDim(res[1], 0, s) == 3 && elem(res[1], 5) == 0);
  free_all(res, 2);
  TXE_TapeWatch(tape, v, s);
  CHECK(TXE_TapeNumWatchedVariables(tape) == 1);
  TXE_TensorHandle* r3 = read_var(ctx, v, s);
  TXE_TensorHandle* s3 = sum_all(ctx, r3, s);
  TXE_TensorHandle* g3 = grad1(tape, s3, v, s);
  CHECK(elem(g3, 0) == 1 && elem(g3, 1) == 1);
  TXE_TensorHandle* more[5] = {r1, s1, r3, s3, g3};
  free_all(more, 5);
  TXE_DeleteTape(tape);
  TXE_DeleteTensorHandle(v);
  TXE_DeleteTensorHandle(emb);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Recording control, output gradients, unconnected and integer values, devices. */

static void test_stop_recording(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  TXE_TensorHandle* x = scalar64(2.0);
  TXE_Tape* tape = TXE_NewTape(ctx, 1, 1, s);
  TXE_TapeWatch(tape, x, s);
  TXE_TensorHandle* y = bin(ctx, "Mul", x, x, s);
  TXE_TapeSetRecording(tape, 0);
  CHECK(TXE_TapeIsRecording(tape) == 0);
  TXE_TensorHandle* z = bin(ctx, "Mul", y, x, s); /* not recorded */
  TXE_TapeSetRecording(tape, 1);
  TXE_TensorHandle* w = bin(ctx, "AddV2", y, z, s); /* recorded: only y's path reaches x */
  TXE_TensorHandle* dz = grad1(tape, z, x, s);
  CHECK_OK(s);
  CHECK(dz == NULL);
  TXE_TensorHandle* dw = grad1(tape, w, x, s);
  CHECK(close_to(elem(dw, 0), 4.0, 1e-12));
  TXE_TensorHandle* hs[5] = {x, y, z, w, dw};
  free_all(hs, 5);
  TXE_DeleteTape(tape);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

static void test_output_gradients_and_targets(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  int64_t d[1] = {3}, d2[1] = {2};
  double xv[3] = {1, 2, 3}, ov[3] = {1, 10, 100};
  float fv[3] = {1, 1, 1};
  TXE_TensorHandle* x = f64(d, 1, xv);
  TXE_TensorHandle* og = f64(d, 1, ov);
  TXE_TensorHandle* og_short = f64(d2, 1, ov);
  TXE_TensorHandle* og_f32 = f32(d, 1, fv);
  TXE_Tape* tape = TXE_NewTape(ctx, 0, 1, s);
  TXE_TapeWatch(tape, x, s);
  TXE_TensorHandle* y = bin(ctx, "Mul", x, x, s);
  TXE_TensorHandle* y2 = bin(ctx, "AddV2", x, x, s);
  TXE_TensorHandle* r = NULL;
  /* Argument errors leave the non-persistent tape usable. */
  TXE_TapeGradient(tape, &y, 1, &x, 1, &og_short, TX_UNCONNECTED_NONE, &r, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "shape");
  TXE_TapeGradient(tape, &y, 1, &x, 1, &og_f32, TX_UNCONNECTED_NONE, &r, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "type");
  TXE_TapeGradient(tape, &y, 1, &x, 1, NULL, 7, &r, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "unconnected");
  TXE_TapeGradient(tape, &y, 1, NULL, 1, NULL, TX_UNCONNECTED_NONE, &r, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "sources");
  /* Two targets: y weighted by og, y2 by ones (a NULL entry): 2x * og + 2. */
  TXE_TensorHandle* ys[2] = {y, y2};
  TXE_TensorHandle* ogs[2] = {og, NULL};
  TXE_TapeGradient(tape, ys, 2, &x, 1, ogs, TX_UNCONNECTED_NONE, &r, s);
  CHECK_OK(s);
  for (int i = 0; i < 3; ++i) CHECK(close_to(elem(r, i), 2 * xv[i] * ov[i] + 2, 1e-12));
  TXE_TensorHandle* hs[7] = {x, og, og_short, og_f32, y, y2, r};
  free_all(hs, 7);
  TXE_DeleteTape(tape);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

static void test_unconnected_and_integers(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  int64_t d[1] = {2};
  int32_t iv[2] = {3, 5};
  TXE_TensorHandle* x = scalar64(2.0);
  TXE_TensorHandle* u = f64(d, 1, (double[]){1, 1});
  TXE_TensorHandle* k = i32(d, 1, iv);
  TXE_Tape* tape = TXE_NewTape(ctx, 1, 1, s);
  TXE_TapeWatch(tape, x, s);
  TXE_TapeWatch(tape, u, s);
  TXE_TapeWatch(tape, k, s);
  TXE_TensorHandle* y = bin(ctx, "Mul", x, x, s);
  TXE_TensorHandle* kf = run2(ctx, "Cast", &k, 1, dst_f32, NULL, s);
  TXE_TensorHandle* ksum = sum_all(ctx, kf, s);
  TXE_TensorHandle* kk = bin(ctx, "Mul", k, k, s); /* an integer target */
  CHECK_OK(s);
  TXE_TensorHandle* srcs[3] = {x, u, k};
  TXE_TensorHandle* r[3];
  TXE_TapeGradient(tape, &y, 1, srcs, 3, NULL, TX_UNCONNECTED_NONE, r, s);
  CHECK_OK(s);
  CHECK(close_to(elem(r[0], 0), 4, 1e-12) && r[1] == NULL && r[2] == NULL);
  TXE_DeleteTensorHandle(r[0]);
  TXE_TapeGradient(tape, &y, 1, srcs, 3, NULL, TX_UNCONNECTED_ZERO, r, s);
  CHECK_OK(s);
  CHECK(TXE_TensorHandleDataType(r[1]) == TX_DOUBLE && TXE_TensorHandleNumElements(r[1], s) == 2 && elem(r[1], 0) == 0);
  CHECK(TXE_TensorHandleDataType(r[2]) == TX_INT32 && elem(r[2], 1) == 0);
  free_all(r, 3);
  /* No gradient flows into an integer source, even through Cast. */
  TXE_TensorHandle* dk = grad1(tape, ksum, k, s);
  CHECK_OK(s);
  CHECK(dk == NULL);
  /* An integer target contributes nothing, as in TensorFlow (Note [Integer targets]), even to
   * itself or beside a floating one, and its output gradient is not checked. */
  CHECK(grad1(tape, kk, k, s) == NULL);
  CHECK_OK(s);
  TXE_TensorHandle* both[2] = {kk, y};
  TXE_TensorHandle* ogs[2] = {x, NULL};
  TXE_TapeGradient(tape, both, 2, srcs, 1, ogs, TX_UNCONNECTED_NONE, r, s);
  CHECK_OK(s);
  CHECK(close_to(elem(r[0], 0), 4, 1e-12));
  TXE_DeleteTensorHandle(r[0]);
  /* A target that is also a source gets ones. */
  TXE_TensorHandle* dy = grad1(tape, y, y, s);
  CHECK(elem(dy, 0) == 1);
  TXE_TensorHandle* hs[8] = {x, u, k, y, kf, ksum, kk, dy};
  free_all(hs, 8);
  TXE_DeleteTape(tape);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* A copy to another device is an identity for the tape; gradient ops run where the forward ops
 * ran, even under the EXPLICIT placement policy. */
static void test_devices(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(2, TXE_DEVICE_PLACEMENT_EXPLICIT);
  TXE_TensorHandle* x = scalar64(3.0);
  TXE_Tape* tape = TXE_NewTape(ctx, 0, 1, s);
  TXE_TapeWatch(tape, x, s);
  TXE_TensorHandle* x1 = TXE_TensorHandleCopyToDevice(x, ctx, "/device:CPU:1", s);
  TXE_TensorHandle* y1 = bin(ctx, "Mul", x1, x1, s);
  TXE_TensorHandle* y0 = bin(ctx, "Mul", x, x, s);
  CHECK_OK(s);
  CHECK(strstr(TXE_TensorHandleDeviceName(y1, s), "CPU:1") != NULL);
  TXE_TensorHandle* ys[2] = {y0, y1};
  TXE_TensorHandle* r = NULL;
  TXE_TapeGradient(tape, ys, 2, &x, 1, NULL, TX_UNCONNECTED_NONE, &r, s);
  CHECK_OK(s);
  CHECK(close_to(elem(r, 0), 12, 1e-12));
  CHECK(strstr(TXE_TensorHandleDeviceName(r, s), "CPU:0") != NULL);
  TXE_TensorHandle* hs[5] = {x, x1, y1, y0, r};
  free_all(hs, 5);
  TXE_DeleteTape(tape);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

/* ----------------------------------------------------------------------------------------------
 * Custom gradients and errors. */

typedef struct CustomArg {
  TXE_Context* ctx;
  int calls, deleted, fail, saw_null;
  TXE_TensorHandle* x; /* borrowed: the forward input */
} CustomArg;

static void custom_deleter(void* arg) { ((CustomArg*)arg)->deleted++; }

/* The gradient of y0 = x^2 (and an unused second output) given as 2 * x * dy0 by ops, so an outer
 * tape can differentiate it again; `fail` reports an error instead. */
static void custom_square_grad(void* arg, TXE_TensorHandle** dys, int nout, TXE_TensorHandle** dxs, int nin,
                               TX_Status* status) {
  CustomArg* a = (CustomArg*)arg;
  a->calls++;
  if (a->fail == 1) {
    TX_SetStatus(status, TX_INVALID_ARGUMENT, "custom backward refused");
    return;
  }
  if (a->fail == 2) { /* a gradient of the wrong shape */
    int64_t two = 2;
    dxs[0] = f64(&two, 1, (double[]){1, 2});
    return;
  }
  if (nout != 2 || nin != 1 || dys[0] == NULL) {
    TX_SetStatus(status, TX_INTERNAL, "unexpected custom gradient arguments");
    return;
  }
  a->saw_null += dys[1] == NULL;
  TXE_TensorHandle* two = scalar64(2.0);
  TXE_TensorHandle* t = bin(a->ctx, "Mul", two, a->x, status);
  dxs[0] = bin(a->ctx, "Mul", t, dys[0], status);
  TXE_DeleteTensorHandle(t);
  TXE_DeleteTensorHandle(two);
}

static void test_custom_gradient(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  TXE_TensorHandle* x = scalar64(3.0);
  CustomArg a = {ctx, 0, 0, 0, 0, x};
  /* Outer tape for the second derivative, inner non-persistent tape for the first. */
  TXE_Tape* outer = TXE_NewTape(ctx, 0, 1, s);
  TXE_Tape* inner = TXE_NewTape(ctx, 0, 1, s);
  TXE_TapeWatch(outer, x, s);
  TXE_TapeWatch(inner, x, s);
  /* The forward: computed while neither tape records, then related to x by the custom gradient. */
  TXE_TapeSetRecording(outer, 0);
  TXE_TapeSetRecording(inner, 0);
  TXE_TensorHandle* y0 = bin(ctx, "Mul", x, x, s);
  TXE_TensorHandle* y1 = bin(ctx, "AddV2", x, x, s);
  TXE_TapeSetRecording(outer, 1);
  TXE_TapeSetRecording(inner, 1);
  TXE_TensorHandle* outs[2] = {y0, y1};
  TXE_TapeRecordCustomGradient(ctx, &x, 1, outs, 2, custom_square_grad, &a, custom_deleter, s);
  CHECK_OK(s);
  TXE_TensorHandle* z = bin(ctx, "Mul", y0, y0, s); /* z = x^4 through the custom op */
  TXE_TensorHandle* dz = grad1(inner, z, x, s);
  CHECK_OK(s);
  CHECK(close_to(elem(dz, 0), 4 * 27.0, 1e-12) && a.calls == 1 && a.saw_null == 1);
  CHECK(a.deleted == 0); /* the outer tape still holds the record */
  TXE_DeleteTape(inner);
  TXE_TensorHandle* d2 = grad1(outer, dz, x, s);
  CHECK_OK(s);
  /* d/dx (2x * 2 y0) with y0 = x^2 seen through the custom gradient again: 12 x^2. */
  CHECK(close_to(elem(d2, 0), 12 * 9.0, 1e-12));
  CHECK(a.calls == 2 && a.deleted == 1); /* the outer tape was used up: its records are gone */
  TXE_DeleteTape(outer);
  TXE_TensorHandle* hs[5] = {y0, y1, z, dz, d2};
  free_all(hs, 5);

  /* No tape recording: the deleter runs before the call returns. */
  CustomArg b = {ctx, 0, 0, 1, 0, x};
  TXE_TensorHandle* y = bin(ctx, "Mul", x, x, s);
  TXE_TensorHandle* y2[2] = {y, y};
  TXE_TapeRecordCustomGradient(ctx, &x, 1, y2, 2, custom_square_grad, &b, custom_deleter, s);
  CHECK_OK(s);
  CHECK(b.deleted == 1);
  /* NULL arguments: the deleter still runs once. */
  b.deleted = 0;
  TXE_TapeRecordCustomGradient(ctx, NULL, 1, y2, 2, custom_square_grad, &b, custom_deleter, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "inputs");
  CHECK(b.deleted == 1);
  /* An output that is an input. */
  b.deleted = 0;
  TXE_TensorHandle* same[2] = {y, x};
  TXE_TapeRecordCustomGradient(ctx, &x, 1, same, 2, custom_square_grad, &b, custom_deleter, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "outputs[1] is inputs[0]");
  CHECK(b.deleted == 1);
  /* A failing backward function: the error reaches TXE_TapeGradient. */
  b.deleted = 0;
  TXE_Tape* tape = TXE_NewTape(ctx, 1, 1, s);
  TXE_TapeWatch(tape, x, s);
  TXE_TapeRecordCustomGradient(ctx, &x, 1, y2, 2, custom_square_grad, &b, custom_deleter, s);
  TXE_TensorHandle* r = grad1(tape, y, x, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "custom backward refused");
  CHECK(r == NULL && b.calls == 1 && b.deleted == 0);
  /* A gradient that does not fit its input. */
  b.fail = 2;
  r = grad1(tape, y, x, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "custom gradient input 0 has shape [2], expected []");
  TXE_DeleteTape(tape);
  CHECK(b.deleted == 1);
  TXE_DeleteTensorHandle(y);
  TXE_DeleteTensorHandle(x);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

static void set_message(TXE_Op* op) { TXE_OpSetAttrString(op, "message", "not here", 8); }

static void test_errors_keep_context_usable(void) {
  TX_Status* s = TX_NewStatus();
  TXE_Context* ctx = new_ctx(1, TXE_DEVICE_PLACEMENT_SILENT);
  TXE_TensorHandle* x = scalar64(2.0);
  TXE_Tape* tape = TXE_NewTape(ctx, 1, 1, s);
  TXE_TapeWatch(tape, x, s);
  /* PreventGradient: its gradient is an error naming the op and carrying its message. */
  TXE_TensorHandle* p = run2(ctx, "PreventGradient", &x, 1, set_message, NULL, s);
  TXE_TensorHandle* y = bin(ctx, "Mul", p, p, s);
  CHECK_OK(s);
  TXE_TensorHandle* r = grad1(tape, y, x, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "PreventGradient");
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "not here");
  CHECK(r == NULL);
  /* StopGradient is not differentiable: nothing flows, no error. */
  TXE_TensorHandle* st = run(ctx, "StopGradient", &x, 1, s);
  TXE_TensorHandle* y2 = bin(ctx, "Mul", st, x, s);
  r = grad1(tape, y2, x, s);
  CHECK_OK(s);
  CHECK(close_to(elem(r, 0), 2.0, 1e-12));
  TXE_DeleteTensorHandle(r);
  /* NULLs and a failing op while recording. */
  TXE_TapeGradient(NULL, &y, 1, &x, 1, NULL, TX_UNCONNECTED_NONE, &r, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "tape is NULL");
  TXE_TapeWatch(tape, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  CHECK(TXE_NewTape(NULL, 0, 0, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "context");
  TXE_TensorHandle* bad = bin(ctx, "MatMul", x, x, s);
  CHECK(bad == NULL && TX_GetCode(s) != TX_OK);
  /* Still usable: the tape and the context. */
  TXE_TensorHandle* z = bin(ctx, "Mul", x, x, s);
  r = grad1(tape, z, x, s);
  CHECK_OK(s);
  CHECK(close_to(elem(r, 0), 4.0, 1e-12));
  TXE_TensorHandle* hs[6] = {x, p, y, st, y2, z};
  free_all(hs, 6);
  TXE_DeleteTensorHandle(r);
  TXE_DeleteTape(tape);
  TXE_DeleteTape(NULL);
  TXE_DeleteContext(ctx);
  TX_DeleteStatus(s);
}

int main(void) {
  test_mlp_matches_finite_differences();
  test_persistent_and_used_tapes();
  test_higher_derivatives();
  test_variables();
  test_stop_recording();
  test_output_gradients_and_targets();
  test_unconnected_and_integers();
  test_devices();
  test_custom_gradient();
  test_errors_keep_context_usable();
  if (g_check_failures) {
    printf("c_api_eager_tape_test: %d check(s) failed\n", g_check_failures);
    return 1;
  }
  printf("c_api_eager_tape_test: all checks passed\n");
  return 0;
}
