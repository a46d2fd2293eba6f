/* Checkpoints from plain C: TX_SaveSafetensors / TX_LoadSafetensors round trips with metadata,
 * lazy per-tensor reads, ownership across TX_DeleteSafetensors, and the error paths (bad
 * arguments leave an existing file intact; corrupt and missing files). */
#include <unistd.h>

#include "c_api_test_util.h"

static char g_path[512];

/* A per-process file path under $TMPDIR (or /tmp) with `suffix`. */
static const char* temp_path(const char* suffix) {
  const char* dir = getenv("TMPDIR");
  snprintf(g_path, sizeof(g_path), "%s/tx_c_api_checkpoint_%d_%s", dir != NULL && *dir ? dir : "/tmp", (int)getpid(),
           suffix);
  return g_path;
}

static TX_Tensor* bytes_tensor(TX_DataType dt, const int64_t* dims, int nd, int seed) {
  size_t n = TX_DataTypeSize(dt);
  for (int i = 0; i < nd; ++i) n *= (size_t)dims[i];
  TX_Tensor* t = TX_AllocateTensor(dt, dims, nd, n);
  unsigned char* p = (unsigned char*)TX_TensorData(t);
  for (size_t i = 0; t != NULL && i < n; ++i) p[i] = (unsigned char)(dt == TX_BOOL ? (i + seed) % 2 : (i * 7 + seed));
  return t;
}

static int same_tensor(TX_Tensor* a, TX_Tensor* b) {
  if (a == NULL || b == NULL || TX_TensorType(a) != TX_TensorType(b) || TX_NumDims(a) != TX_NumDims(b)) return 0;
  for (int i = 0; i < TX_NumDims(a); ++i)
    if (TX_Dim(a, i) != TX_Dim(b, i)) return 0;
  size_t n = TX_TensorByteSize(a);
  return n == TX_TensorByteSize(b) && (n == 0 || memcmp(TX_TensorData(a), TX_TensorData(b), n) == 0);
}

static void test_round_trip(void) {
  TX_Status* s = TX_NewStatus();
  char path[512];
  snprintf(path, sizeof(path), "%s", temp_path("round_trip.safetensors"));
  int64_t mat[2] = {2, 3}, empty[2] = {0, 5};
  const char* names[5] = {"layer/kernel", "layer/bias16", "step", "mask", "nothing"};
  TX_Tensor* in[5] = {bytes_tensor(TX_FLOAT, mat, 2, 1), bytes_tensor(TX_BFLOAT16, mat + 1, 1, 2),
                      bytes_tensor(TX_INT64, NULL, 0, 3), bytes_tensor(TX_BOOL, mat, 2, 4),
                      bytes_tensor(TX_UINT16, empty, 2, 5)};
  const char* keys[2] = {"format", "epoch"};
  const char* values[2] = {"tx", "12"};
  TX_SaveSafetensors(path, names, in, 5, keys, values, 2, s);
  CHECK_OK(s);

  TX_Safetensors* st = TX_LoadSafetensors(path, s);
  CHECK_OK(s);
  CHECK(st != NULL);
  CHECK(TX_SafetensorsNumTensors(st) == 5);
  TX_Tensor* step = NULL;
  for (int i = 0; i < TX_SafetensorsNumTensors(st); ++i) {
    size_t len = 0;
    const char* name = TX_SafetensorsName(st, i, &len);
    CHECK(name != NULL && strlen(name) == len);
    int k = -1;
    for (int j = 0; j < 5; ++j)
      if (name != NULL && strcmp(name, names[j]) == 0) k = j;
    CHECK(k >= 0);
    if (k < 0) continue;
    CHECK(TX_SafetensorsTensorType(st, i) == TX_TensorType(in[k]));
    CHECK(TX_SafetensorsTensorNumDims(st, i) == TX_NumDims(in[k]));
    for (int d = 0; d < TX_NumDims(in[k]); ++d) CHECK(TX_SafetensorsTensorDim(st, i, d) == TX_Dim(in[k], d));
    TX_Tensor* t = TX_SafetensorsTensor(st, i, s);
    CHECK_OK(s);
    CHECK(same_tensor(t, in[k]));
    CHECK(TX_TensorIsAligned(t));
    if (k == 2)
      step = t;
    else
      TX_DeleteTensor(t);
  }
  /* The reference order: 8-byte types first (I64 before F32 before BF16 before U16 before BOOL). */
  CHECK(strcmp(TX_SafetensorsName(st, 0, NULL), "step") == 0);
  CHECK(strcmp(TX_SafetensorsName(st, 4, NULL), "mask") == 0);
  CHECK(TX_SafetensorsNumMetadata(st) == 2);
  /* Metadata comes back sorted by key. */
  CHECK(strcmp(TX_SafetensorsMetadataKey(st, 0, NULL), "epoch") == 0);
  CHECK(strcmp(TX_SafetensorsMetadataValue(st, 0, NULL), "12") == 0);
  size_t vlen = 0;
  CHECK(strcmp(TX_SafetensorsMetadataValue(st, 1, &vlen), "tx") == 0 && vlen == 2);
  CHECK(TX_SafetensorsMetadataKey(st, 2, &vlen) == NULL && vlen == 0);
  CHECK(TX_SafetensorsName(st, 5, NULL) == NULL && TX_SafetensorsName(st, -1, NULL) == NULL);
  CHECK(TX_SafetensorsTensorNumDims(st, 7) == -1 && TX_SafetensorsTensorDim(st, 0, 3) == -1);
  CHECK(TX_SafetensorsTensorType(st, 9) == 0);
  CHECK(TX_SafetensorsTensor(st, 5, s) == NULL);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "no tensor #5");
  CHECK(TX_SafetensorsTensor(st, -1, s) == NULL);
  CHECK_ERR(s, TX_OUT_OF_RANGE, "no tensor #-1");
  TX_DeleteSafetensors(st);
  /* Tensors outlive the file handle. */
  CHECK(same_tensor(step, in[2]));
  TX_DeleteTensor(step);
  for (int i = 0; i < 5; ++i) TX_DeleteTensor(in[i]);
  unlink(path);
  TX_DeleteStatus(s);
}

static void test_failed_save_keeps_old_file(void) {
  TX_Status* s = TX_NewStatus();
  char path[512];
  snprintf(path, sizeof(path), "%s", temp_path("keep.safetensors"));
  int64_t dims[1] = {3};
  TX_Tensor* t = bytes_tensor(TX_FLOAT, dims, 1, 9);
  const char* one[1] = {"w"};
  TX_SaveSafetensors(path, one, &t, 1, NULL, NULL, 0, s);
  CHECK_OK(s);

  const char* dup[2] = {"a", "a"};
  TX_Tensor* two[2] = {t, t};
  TX_SaveSafetensors(path, dup, two, 2, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "duplicate tensor name 'a'");
  const char* empty[1] = {""};
  TX_SaveSafetensors(path, empty, &t, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "empty name");
  TX_Tensor* null_tensor = NULL;
  TX_SaveSafetensors(path, one, &null_tensor, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "tensor 'w' is NULL");
  TX_SaveSafetensors(path, one, &t, 1, NULL, NULL, 1, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "meta_keys or meta_values is NULL");
  const char* k2[2] = {"k", "k"};
  TX_SaveSafetensors(path, one, &t, 1, k2, k2, 2, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "duplicate metadata key 'k'");
  const char* bad_utf8[1] = {"w\xff"};
  TX_SaveSafetensors(path, bad_utf8, &t, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "not valid UTF-8");
  TX_SaveSafetensors(path, one, &t, -1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "negative");
  TX_SaveSafetensors(NULL, one, &t, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "path is NULL");
  TX_Tensor* c128 = bytes_tensor(TX_COMPLEX128, dims, 1, 0);
  TX_SaveSafetensors(path, one, &c128, 1, NULL, NULL, 0, s);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "complex128");
  TX_DeleteTensor(c128);

  TX_Safetensors* st = TX_LoadSafetensors(path, s);
  CHECK_OK(s);
  CHECK(TX_SafetensorsNumTensors(st) == 1 && strcmp(TX_SafetensorsName(st, 0, NULL), "w") == 0);
  TX_Tensor* back = TX_SafetensorsTensor(st, 0, s);
  CHECK(same_tensor(back, t));
  TX_DeleteTensor(back);
  TX_DeleteSafetensors(st);
  TX_DeleteTensor(t);
  unlink(path);
  TX_DeleteStatus(s);
}

static void test_load_errors(void) {
  TX_Status* s = TX_NewStatus();
  char path[512];
  snprintf(path, sizeof(path), "%s", temp_path("missing.safetensors"));
  CHECK(TX_LoadSafetensors(path, s) == NULL);
  CHECK_ERR(s, TX_NOT_FOUND, "missing.safetensors");
  CHECK(TX_LoadSafetensors(NULL, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "path is NULL");

  snprintf(path, sizeof(path), "%s", temp_path("corrupt.safetensors"));
  FILE* f = fopen(path, "wb");
  const char header[] = "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
  unsigned char len[8] = {(unsigned char)(sizeof(header) - 1), 0, 0, 0, 0, 0, 0, 0};
  fwrite(len, 1, 8, f);
  fwrite(header, 1, sizeof(header) - 1, f);
  fwrite("abcd", 1, 4, f); /* 4 of the 8 data bytes */
  fclose(f);
  CHECK(TX_LoadSafetensors(path, s) == NULL);
  CHECK_ERR(s, TX_DATA_LOSS, "corrupt.safetensors");
  CHECK_ERR(s, TX_DATA_LOSS, "runs past the end of the 4-byte data buffer");
  unlink(path);

  /* NULL handles are harmless. */
  TX_DeleteSafetensors(NULL);
  CHECK(TX_SafetensorsNumTensors(NULL) == 0 && TX_SafetensorsNumMetadata(NULL) == 0);
  CHECK(TX_SafetensorsName(NULL, 0, NULL) == NULL && TX_SafetensorsMetadataValue(NULL, 0, NULL) == NULL);
  CHECK(TX_SafetensorsTensor(NULL, 0, s) == NULL);
  CHECK_ERR(s, TX_INVALID_ARGUMENT, "NULL");
  TX_DeleteStatus(s);
}

int main(void) {
  static const TestCase tests[] = {
      {"round_trip", test_round_trip},
      {"failed_save_keeps_old_file", test_failed_save_keeps_old_file},
      {"load_errors", test_load_errors},
  };
  return run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
