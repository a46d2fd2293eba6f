/* The coverage runtime behind the in-repo fuzzer (csrc/fuzz/driver.c): it receives gcc's
 * -fsanitize-coverage=trace-pc,trace-cmp callbacks from the instrumented engine and turns one
 * input's execution into features (Note [Fuzzing coverage] in coverage.cc). Plain C linkage so
 * the C driver calls it; built into the engine only with TX_FUZZ_COVERAGE (coverage_none.c
 * otherwise). Not part of the C API: only the fuzz driver, which links the engine's objects,
 * uses it. */
#ifndef TENSORFLUX_FUZZ_COVERAGE_H_
#define TENSORFLUX_FUZZ_COVERAGE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One recorded comparison: operands `a` and `b` of `width` bytes (1, 2, 4 or 8; 0 = unused). */
typedef struct TxCovCmp {
  uint64_t a, b;
  uint32_t width;
} TxCovCmp;

/* The last this many features (up to tx_cov_num_features()) are value-profile features. */
#define TX_COV_VALUE_PROFILE_FEATURES (1u << 19)

/* Number of distinct features the runtime can report (features are below it); 0 when the engine
 * was built without coverage instrumentation. Sets up the maps on first call. */
uint32_t tx_cov_num_features(void);
/* Starts recording one input's execution (clears what the previous input left). */
void tx_cov_begin(void);
/* Stops recording and writes the features the input reached into `out` (at most `cap`), returning
 * how many there were (that count may exceed `cap`). */
size_t tx_cov_end(uint32_t* out, size_t cap);
/* Copies up to `cap` comparisons recorded since tx_cov_begin (a table indexed by call site, so
 * recent ones win) into `out`; returns how many it copied. */
size_t tx_cov_cmps(TxCovCmp* out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* TENSORFLUX_FUZZ_COVERAGE_H_ */
