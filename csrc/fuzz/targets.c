/* The table of fuzz targets (targets.h). */
#include <string.h>

#include "fuzz/targets.h"

#define TX_FUZZ_ENTRY(name, format) {#name, tx_fuzz_##name, format},
const TxFuzzTarget tx_fuzz_targets[] = {TX_FUZZ_TARGETS(TX_FUZZ_ENTRY)};
#undef TX_FUZZ_ENTRY
const int tx_fuzz_num_targets = (int)(sizeof(tx_fuzz_targets) / sizeof(tx_fuzz_targets[0]));

const TxFuzzTarget* tx_fuzz_find_target(const char* name) {
  for (int i = 0; i < tx_fuzz_num_targets; ++i) {
    if (strcmp(tx_fuzz_targets[i].name, name) == 0) return &tx_fuzz_targets[i];
  }
  return NULL;
}
