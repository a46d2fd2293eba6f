/* Shared by the parts of the coverage-guided fuzz driver (driver.c, mutate.c, proto_mutate.c). */
#ifndef TENSORFLUX_FUZZ_DRIVER_H_
#define TENSORFLUX_FUZZ_DRIVER_H_

#include <stddef.h>
#include <stdint.h>

/* ---- Random numbers (xorshift64*): every run is reproducible from its -seed ---- */

extern uint64_t tx_fuzz_rng;

static inline uint64_t rnd(void) {
  tx_fuzz_rng ^= tx_fuzz_rng >> 12;
  tx_fuzz_rng ^= tx_fuzz_rng << 25;
  tx_fuzz_rng ^= tx_fuzz_rng >> 27;
  return tx_fuzz_rng * 2685821657736338717ULL;
}

/* Uniform in [0, n); 0 for n == 0. */
static inline size_t below(size_t n) { return n == 0 ? 0 : (size_t)(rnd() % n); }

/* ---- What mutations draw from ---- */

/* A byte string: a dictionary word, a compared operand or a corpus input. */
typedef struct Bytes {
  uint8_t* d;
  size_t n;
} Bytes;

/* The material shared by the mutators: dictionary words (from -dict files and compared strings),
 * recent integer comparisons, and the corpus (for crossover). */
typedef struct MutationSources {
  Bytes* words;
  size_t nwords, cap_words;
  const Bytes* cmp_words; /* byte strings recently compared (memcmp/strcmp hooks) */
  size_t ncmp_words;
  uint64_t (*cmps)[2]; /* operand pairs of recent comparisons */
  uint8_t* cmp_widths;
  size_t ncmps, cap_cmps;
  const Bytes* corpus;
  size_t ncorpus;
} MutationSources;

/* Adds a copy of `d` (n bytes) to the dictionary unless it is already there or the table is full. */
void tx_fuzz_add_word(MutationSources* m, const uint8_t* d, size_t n);

/* Applies 1 to 5 stacked byte-level mutations to `x` (capacity `cap`, length *n); returns the new
 * length (at most cap). */
size_t tx_fuzz_mutate_bytes(uint8_t* x, size_t n, size_t cap, const MutationSources* m);

/* One protobuf-aware mutation (a field changed, deleted, duplicated, inserted from another input,
 * renumbered), enclosing lengths kept consistent; returns the new length, or 0 when `x` does not
 * parse as a message (the caller falls back to byte mutations). */
size_t tx_fuzz_mutate_proto(uint8_t* x, size_t n, size_t cap, const MutationSources* m);

/* Rewrites a safetensors file's 8-byte header length to the length of the JSON object after it
 * (when one can be found). */
void tx_fuzz_fix_safetensors(uint8_t* x, size_t n);

/* Reads a libFuzzer/AFL dictionary (lines `name="value"` or `"value"`, \\xNN \\" \\\\ escapes,
 * # comments) into m; returns the number of words read, -1 when the file cannot be opened. */
int tx_fuzz_read_dict(MutationSources* m, const char* path);

#endif /* TENSORFLUX_FUZZ_DRIVER_H_ */
