/* Fuzz targets for safetensors files and the C API tensor constructors. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tensorflux/c/c_api.h>

#include "fuzz/targets.h"

/* The input becomes the contents of an in-memory file (memfd), opened by path like any file. */
int tx_fuzz_safetensors(const uint8_t* data, size_t size) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("tx-fuzz-safetensors", 0);
    if (fd < 0) {
      perror("memfd_create");
      abort();
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size)) abort();
  TX_Status* s = TX_NewStatus();
  TX_Safetensors* st = TX_LoadSafetensors(path, s);
  int ok = st != NULL;
  for (int i = 0; st != NULL && i < TX_SafetensorsNumTensors(st); ++i) {
    size_t len;
    (void)TX_SafetensorsName(st, i, &len);
    int nd = TX_SafetensorsTensorNumDims(st, i);
    for (int d = 0; d < nd; ++d) (void)TX_SafetensorsTensorDim(st, i, d);
    TX_Tensor* t = TX_SafetensorsTensor(st, i, s);
    if (t != NULL && TX_TensorType(t) == TX_BOOL) { /* decoded bools are canonical (Note [Canonical bool]) */
      const unsigned char* b = (const unsigned char*)TX_TensorData(t);
      for (size_t k = 0; k < TX_TensorByteSize(t); ++k) {
        if (b[k] > 1) abort();
      }
    }
    ok &= t != NULL;
    TX_DeleteTensor(t);
  }
  for (int i = 0; st != NULL && i < TX_SafetensorsNumMetadata(st); ++i) {
    size_t len;
    (void)TX_SafetensorsMetadataKey(st, i, &len);
    (void)TX_SafetensorsMetadataValue(st, i, &len);
  }
  TX_DeleteSafetensors(st);
  TX_DeleteStatus(s);
  return ok;
}

static void count_free(void* data, size_t len, void* arg) { ++*(int*)arg; }

/* Bytes read as: dtype, num_dims (signed), up to 16 int64 dims, then a byte choosing an exact
 * length (a multiple of 3) or one off by one; the constructors must reject every inconsistent
 * combination, wrap or allocate the consistent ones, and call a given deallocator exactly once. */
int tx_fuzz_tensor(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  TX_DataType dt = (TX_DataType)data[0];
  int nd = (int)(signed char)data[1];
  int64_t dims[16];
  size_t k = 2;
  int have = 0;
  for (; have < 16 && k + 8 <= size; ++have, k += 8) memcpy(&dims[have], data + k, 8);
  if (nd > have) nd = have;
  size_t len = TX_DataTypeSize(dt);
  for (int i = 0; i < nd; ++i) len *= (size_t)dims[i];
  len += (k < size ? data[k] : 0) % 3 == 0 ? 0 : 1;
  int ok = 0;
  static unsigned char memory[64];
  if (len <= sizeof(memory)) {
    int freed = 0;
    TX_Tensor* a = TX_NewTensor(dt, dims, nd, memory, len, count_free, &freed);
    if (a != NULL && TX_TensorByteSize(a) != len) abort();
    ok |= a != NULL;
    TX_DeleteTensor(a);
    if (freed != 1) abort();
  }
  if (len <= (1u << 20)) {
    TX_Tensor* b = TX_AllocateTensor(dt, dims, nd, len);
    if (b != NULL) {
      if (TX_TensorByteSize(b) != len || TX_NumDims(b) != nd) abort();
      /* Raw bytes may not be written into TX_TString elements (c_api.h): fill strings properly.
       * Variant elements are engine objects whose bytes are not to be written at all. */
      if (dt == TX_STRING) {
        TX_TString* strs = (TX_TString*)TX_TensorData(b);
        for (int64_t i = 0; i < TX_TensorElementCount(b); ++i) TX_StringCopy(&strs[i], (const char*)data, size);
      } else if (dt != TX_VARIANT) {
        memset(TX_TensorData(b), 0xAB, TX_TensorByteSize(b));
      }
      ok = 1;
    }
    TX_DeleteTensor(b);
  }
  return ok;
}
