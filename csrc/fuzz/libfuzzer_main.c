/* The fuzz targets as libFuzzer entry points, for developers with clang (docs/fuzzing.md): built
 * once per target with -DTX_FUZZ_TARGET=<name> by the TX_LIBFUZZER configuration. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/targets.h"

#ifndef TX_FUZZ_TARGET
#error "define TX_FUZZ_TARGET to a target's name"
#endif
#define TX_FUZZ_STR2(x) #x
#define TX_FUZZ_STR(x) TX_FUZZ_STR2(x)

static const TxFuzzTarget* g_target;

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  g_target = tx_fuzz_find_target(TX_FUZZ_STR(TX_FUZZ_TARGET));
  if (g_target == NULL) {
    fprintf(stderr, "no fuzz target %s\n", TX_FUZZ_STR(TX_FUZZ_TARGET));
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_target->run(data, size);
  return 0;
}
