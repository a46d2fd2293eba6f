/* Byte-level mutations of the fuzz driver, dictionaries, and the safetensors header fix-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/driver.h"

uint64_t tx_fuzz_rng = 1;

static const uint64_t kInteresting[] = {0,
                                        1,
                                        2,
                                        0x7f,
                                        0x80,
                                        0xff,
                                        0x100,
                                        0x7fff,
                                        0x8000,
                                        0xffff,
                                        0x10000,
                                        0x7fffffff,
                                        0x80000000,
                                        0xffffffffULL,
                                        0x100000000ULL,
                                        0x7fffffffffffffffULL,
                                        0x8000000000000000ULL,
                                        0xffffffffffffffffULL};
enum { kNumInteresting = sizeof(kInteresting) / sizeof(kInteresting[0]) };

void tx_fuzz_add_word(MutationSources* m, const uint8_t* d, size_t n) {
  if (n == 0 || n > 64 || m->nwords >= m->cap_words) return;
  for (size_t i = 0; i < m->nwords; ++i) {
    if (m->words[i].n == n && memcmp(m->words[i].d, d, n) == 0) return;
  }
  m->words[m->nwords].d = malloc(n);
  memcpy(m->words[m->nwords].d, d, n);
  m->words[m->nwords].n = n;
  ++m->nwords;
}

/* Replaces x[at, at+old) with `with` (len bytes); returns the new length, or n when it won't fit. */
static size_t splice(uint8_t* x, size_t n, size_t cap, size_t at, size_t old, const uint8_t* with, size_t len) {
  if (n - old + len > cap) return n;
  memmove(x + at + len, x + at + old, n - at - old);
  if (len > 0) memcpy(x + at, with, len);
  return n - old + len;
}

static void store(uint8_t* p, uint64_t v, size_t width, int big_endian) {
  for (size_t i = 0; i < width; ++i) p[big_endian ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint64_t load(const uint8_t* p, size_t width, int big_endian) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= (uint64_t)p[big_endian ? width - 1 - i : i] << (8 * i);
  return v;
}

static size_t random_width(void) {
  static const size_t kWidths[] = {1, 2, 4, 8};
  return kWidths[below(4)];
}

/* Finds an operand of a recent comparison in the input (little or big endian) and replaces it with
 * the other operand (or it +-1); failing that, writes the other operand at a random place. */
static size_t mutate_cmp(uint8_t* x, size_t n, const MutationSources* m) {
  if (m->ncmps == 0) return n;
  size_t k = below(m->ncmps), w = m->cmp_widths[k];
  int swap = (int)below(2);
  uint64_t from = m->cmps[k][swap], to = m->cmps[k][!swap] + (uint64_t)(int64_t)((int)below(3) - 1);
  if (w == 0 || w > 8 || n < w) return n;
  size_t start = below(n - w + 1);
  for (size_t i = 0; i <= n - w; ++i) {
    size_t at = (start + i) % (n - w + 1);
    for (int be = 0; be < 2; ++be) {
      if (load(x + at, w, be) == from) {
        store(x + at, to, w, be);
        return n;
      }
    }
  }
  store(x + below(n - w + 1), to, w, (int)below(2));
  return n;
}

size_t tx_fuzz_mutate_bytes(uint8_t* x, size_t n, size_t cap, const MutationSources* m) {
  int rounds = 1 + (int)below(5);
  for (int r = 0; r < rounds; ++r) {
    switch (below(15)) {
      case 0: /* flip a bit */
        if (n) x[below(n)] ^= (uint8_t)(1u << below(8));
        break;
      case 1: /* a random byte */
        if (n) x[below(n)] = (uint8_t)rnd();
        break;
      case 2: { /* an interesting value, 1 to 8 bytes, either endianness */
        size_t w = random_width();
        if (n >= w) store(x + below(n - w + 1), kInteresting[below(kNumInteresting)], w, (int)below(2));
        break;
      }
      case 3: { /* add or subtract a small number */
        size_t w = random_width();
        if (n < w) break;
        size_t at = below(n - w + 1);
        int be = (int)below(2);
        int64_t delta = (int64_t)below(35) + 1;
        store(x + at, load(x + at, w, be) + (uint64_t)(below(2) ? delta : -delta), w, be);
        break;
      }
      case 4: { /* delete a range */
        if (n == 0) break;
        size_t at = below(n), len = 1 + below(n - at < 16 ? n - at : 16);
        n = splice(x, n, cap, at, len, NULL, 0);
        break;
      }
      case 5: { /* insert random bytes */
        uint8_t b[16];
        size_t len = 1 + below(16);
        for (size_t i = 0; i < len; ++i) b[i] = (uint8_t)(below(4) ? rnd() : 0);
        n = splice(x, n, cap, below(n + 1), 0, b, len);
        break;
      }
      case 6: { /* copy a range of the input elsewhere (repeated fields, nested messages) */
        if (n == 0) break;
        size_t from = below(n), len = 1 + below(n - from < 256 ? n - from : 256);
        uint8_t tmp[256];
        memcpy(tmp, x + from, len);
        if (below(2)) {
          n = splice(x, n, cap, below(n + 1), 0, tmp, len);
        } else {
          size_t to = below(n - len + 1);
          memcpy(x + to, tmp, len);
        }
        break;
      }
      case 7: { /* crossover: a range of another corpus input, inserted or overwriting */
        if (m->ncorpus == 0) break;
        const Bytes* o = &m->corpus[below(m->ncorpus)];
        if (o->n == 0) break;
        size_t from = below(o->n), len = 1 + below(o->n - from);
        size_t at = below(n + 1);
        if (below(2)) {
          n = splice(x, n, cap, at, 0, o->d + from, len);
        } else {
          size_t old = n - at < len ? n - at : len;
          n = splice(x, n, cap, at, old, o->d + from, len);
        }
        break;
      }
      case 8: /* truncate */ n = below(n + 1); break;
      case 9:
      case 10: { /* a dictionary word, inserted or overwriting */
        const Bytes* w;
        if (m->ncmp_words > 0 && (m->nwords == 0 || below(4) == 0)) {
          w = &m->cmp_words[below(m->ncmp_words)];
        } else if (m->nwords > 0) {
          w = &m->words[below(m->nwords)];
        } else {
          break;
        }
        size_t at = below(n + 1);
        size_t old = below(2) ? (n - at < w->n ? n - at : w->n) : 0;
        n = splice(x, n, cap, at, old, w->d, w->n);
        break;
      }
      case 11:
      case 12: /* an operand of a recent comparison, replacing the other */ n = mutate_cmp(x, n, m); break;
      case 13: { /* shuffle a few bytes */
        if (n < 2) break;
        size_t at = below(n - 1), len = 2 + below(n - at - 1 < 7 ? n - at - 1 : 7);
        for (size_t i = len - 1; i > 0; --i) {
          size_t j = below(i + 1);
          uint8_t t = x[at + i];
          x[at + i] = x[at + j];
          x[at + j] = t;
        }
        break;
      }
      default: { /* a byte set to a value from the input itself (a tag, a length) */
        if (n >= 2) x[below(n)] = x[below(n)];
        break;
      }
    }
  }
  return n;
}

/* ---- safetensors: [u64 header length][JSON header][data] ---- */

void tx_fuzz_fix_safetensors(uint8_t* x, size_t n) {
  if (n < 9 || x[8] != '{') return;
  int depth = 0, in_string = 0;
  for (size_t i = 8; i < n; ++i) {
    uint8_t c = x[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = 0;
      }
    } else if (c == '"') {
      in_string = 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      store(x, (uint64_t)(i + 1 - 8), 8, 0);
      return;
    }
  }
}

/* ---- Dictionaries ---- */

static int hex(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int tx_fuzz_read_dict(MutationSources* m, const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return -1;
  char line[4096];
  int count = 0;
  while (fgets(line, sizeof(line), f) != NULL) {
    char* q = strchr(line, '"');
    if (line[strspn(line, " \t")] == '#' || q == NULL) continue;
    uint8_t word[64];
    size_t n = 0;
    for (char* p = q + 1; *p && *p != '"' && n < sizeof(word); ++p) {
      if (*p == '\\' && p[1] == 'x' && hex(p[2]) >= 0 && hex(p[3]) >= 0) {
        word[n++] = (uint8_t)(hex(p[2]) * 16 + hex(p[3]));
        p += 3;
      } else if (*p == '\\' && p[1] != '\0') {
        word[n++] = (uint8_t)*++p;
      } else {
        word[n++] = (uint8_t)*p;
      }
    }
    tx_fuzz_add_word(m, word, n);
    ++count;
  }
  fclose(f);
  return count;
}
