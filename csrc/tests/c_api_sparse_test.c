/* A SparseTensor through the C API: three tensors (int64 indices [nnz, rank], values [nnz], int64
 * dense_shape [rank]) fed to the sparse ops like any others; bad indices are a run error naming
 * the op, and the session stays usable. */
#include "c_api_test_util.h"

static TX_Tensor* int64_tensor(const int64_t* dims, int nd, const int64_t* vals) {
  size_t n = 1;
  for (int i = 0; i < nd; ++i) n *= (size_t)dims[i];
  TX_Tensor* t = TX_AllocateTensor(TX_INT64, dims, nd, n * sizeof(int64_t));
  if (t != NULL && n > 0) memcpy(TX_TensorData(t), vals, n * sizeof(int64_t));
  return t;
}

/* A = [[0, 2, 0], [3, 0, 0]] as a SparseTensor times B = [[1, 2], [3, 4], [5, 6]]. */
static void test_sparse_matmul(void) {
  TX_Status* s = TX_NewStatus();
  TX_Graph* g = TX_NewGraph();
  static const int64_t ind_dims[2] = {-1, 2}, val_dims[1] = {-1}, shape_dims[1] = {2}, b_dims[2] = {3, 2};
  TX_Operation* ind = placeholder(g, "sp/indices", TX_INT64, ind_dims, 2, s);
  TX_Operation* val = placeholder(g, "sp/values", TX_FLOAT, val_dims, 1, s);
  TX_Operation* shp = placeholder(g, "sp/dense_shape", TX_INT64, shape_dims, 1, s);
  static const float bv[6] = {1, 2, 3, 4, 5, 6};
  TX_Operation* b = const_f32(g, "b", b_dims, 2, bv, s);
  CHECK_OK(s);
  TX_OperationDescription* d = TX_NewOperation(g, "SparseTensorDenseMatMul", "product");
  TX_AddInput(d, out0(ind));
  TX_AddInput(d, out0(val));
  TX_AddInput(d, out0(shp));
  TX_AddInput(d, out0(b));
  TX_Operation* mm = TX_FinishOperation(d, s);
  CHECK_OK(s);
  TX_Session* sess = TX_NewSession(g, NULL, s);
  CHECK_OK(s);

  static const int64_t iv[4] = {0, 1, 1, 0}, sv[2] = {2, 3}, nnz_dims[2] = {2, 2}, v_dims[1] = {2};
  static const float vv[2] = {2, 3};
  TX_Output feeds[3] = {out0(ind), out0(val), out0(shp)};
  TX_Tensor* values[3] = {int64_tensor(nnz_dims, 2, iv), float_tensor(v_dims, 1, vv), int64_tensor(v_dims, 1, sv)};
  TX_Output fetch = out0(mm);
  TX_Tensor* result = NULL;
  TX_SessionRun(sess, NULL, feeds, values, 3, &fetch, &result, 1, NULL, 0, NULL, s);
  CHECK_OK(s);
  if (result != NULL) {
    const float* r = (const float*)TX_TensorData(result);
    static const float want[4] = {6, 8, 3, 6};
    CHECK(TX_NumDims(result) == 2 && TX_Dim(result, 0) == 2 && TX_Dim(result, 1) == 2);
    for (int i = 0; i < 4; ++i) CHECK(near(r[i], want[i]));
    TX_DeleteTensor(result);
  }
  for (int i = 0; i < 3; ++i) TX_DeleteTensor(values[i]);

  /* An index outside dense_shape: an error naming the op; the session keeps working. */
  static const int64_t bad[4] = {0, 1, 7, 0};
  TX_Tensor* bad_values[3] = {int64_tensor(nnz_dims, 2, bad), float_tensor(v_dims, 1, vv), int64_tensor(v_dims, 1, sv)};
  result = NULL;
  TX_SessionRun(sess, NULL, feeds, bad_values, 3, &fetch, &result, 1, NULL, 0, NULL, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "m (7) from index[1,0] out of bounds (>=2)");
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "product");
  CHECK(result == NULL);
  for (int i = 0; i < 3; ++i) TX_DeleteTensor(bad_values[i]);

  TX_DeleteSession(sess, s);
  TX_DeleteGraph(g);
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {{"sparse_matmul", test_sparse_matmul}};
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
