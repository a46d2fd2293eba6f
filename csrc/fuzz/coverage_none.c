/* The coverage interface (coverage.h) for engines built without TX_FUZZ_COVERAGE: no features, so
 * the driver mutates its seeds without guidance. */
#include "fuzz/coverage.h"

uint32_t tx_cov_num_features(void) { return 0; }
void tx_cov_begin(void) {}
size_t tx_cov_end(uint32_t* out, size_t cap) { return 0; }
size_t tx_cov_cmps(TxCovCmp* out, size_t cap) { return 0; }
