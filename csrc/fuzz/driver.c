/* tx_fuzz: the coverage-guided fuzz driver (docs/fuzzing.md).
 *
 *   tx_fuzz TARGET|all [-flag=value ...] [CORPUS_DIR_OR_FILE ...]
 *
 * For each target it loads the seed corpus (csrc/fuzz/corpus/<target>/), the given folders (a
 * folder D holding D/<target>/ contributes that) and files, then mutates corpus inputs and runs
 * them, keeping every input that reaches a feature no earlier input reached (coverage.cc; without
 * TX_FUZZ_COVERAGE it is a plain mutation fuzzer). A crash, a sanitizer report, a timeout or a
 * leak writes the input to <artifact_prefix>{crash,timeout,leak}-<target>-<hash> and exits 1.
 * Flags (libFuzzer's names):
 *   -runs=N               inputs per target (default 300 without -max_total_time)
 *   -max_total_time=S     seconds per target
 *   -seed=N -max_len=N (8192) -timeout=S (CPU seconds per input, 20) -print_every=S (10)
 *   -dict=FILE            more words (dict/<target>.dict is always read)
 *   -corpus_dir=D         new inputs go to D/<target>/, and D is read too
 *   -artifact_prefix=P    where crash/timeout/leak inputs go (./)
 *   -detect_leaks=0|1     (1) -use_value_profile=0|1 (0: comparison distances are not coverage)
 *   -malloc_limit_mb=N    (64; see __asan_default_options)
 *   -merge=D              instead of fuzzing: write to D/<target>/ a smallest-first subset of the
 *                         inputs with the same features
 *   -replay=1             only run the corpus and the given inputs */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <tensorflux/c/c_api.h>

#include "fuzz/coverage.h"
#include "fuzz/driver.h"
#include "fuzz/targets.h"

#ifndef TX_FUZZ_DIR
#define TX_FUZZ_DIR "csrc/fuzz"
#endif

/* The sanitizer runtimes' interfaces; absent (NULL) in builds without sanitizers. */
extern void __asan_init(void) __attribute__((weak));
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
extern int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void*, size_t),
                                                     void (*f)(const volatile void*)) __attribute__((weak));

enum { kMaxFeatures = 1 << 20, kMaxInputs = 64, kCmpRing = 2048, kWordRing = 256, kWordMax = 64 };

typedef struct Options {
  long runs;
  double max_time, print_every;
  uint64_t seed;
  size_t max_len;
  int timeout, detect_leaks, replay, value_profile;
  long malloc_limit_mb;
  const char* corpus_dir;
  const char* artifact_prefix;
  const char* merge;
  const char* dicts[8];
  int ndicts;
  const char* inputs[kMaxInputs];
  int ninputs;
} Options;

typedef struct Corpus {
  Bytes* items;
  size_t n, cap, bytes;
} Corpus;

/* ---- State the crash, timeout and comparison hooks read ---- */

static const TxFuzzTarget* g_target;
static const char* g_artifact_prefix = "./";
static const uint8_t* g_current;
static size_t g_current_n;
static volatile int g_running;
static volatile size_t g_mallocs, g_frees;
static uint8_t g_word_ring[kWordRing][kWordMax];
static Bytes g_words_seen[kWordRing];
static size_t g_nwords_seen;

static uint64_t hash_bytes(const uint8_t* d, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ d[i]) * 1099511628211ULL;
  return h;
}

static void write_file(const char* path, const uint8_t* d, size_t n) {
  FILE* f = fopen(path, "wb");
  if (f == NULL) return;
  if (n > 0) fwrite(d, 1, n, f);
  fclose(f);
}

/* Writes the current input as an artifact; async-signal-tolerant enough for a dying process. */
static void write_artifact(const char* kind) {
  char path[1024];
  snprintf(path, sizeof(path), "%s%s-%s-%016llx", g_artifact_prefix, kind, g_target ? g_target->name : "none",
           (unsigned long long)hash_bytes(g_current, g_current_n));
  write_file(path, g_current, g_current_n);
  fprintf(stderr, "\ntx_fuzz: %s: input of %zu bytes written to %s\n", kind, g_current_n, path);
}

static void on_death(void) {
  if (g_running) write_artifact("crash");
}

static void on_signal(int sig) {
  const int timeout = sig == SIGALRM || sig == SIGPROF;
  if (g_running) write_artifact(timeout ? "timeout" : "crash");
  if (timeout) _exit(1);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void on_malloc(const volatile void* p, size_t n) {
  if (g_running) ++g_mallocs;
}

static void on_free(const volatile void* p) {
  if (g_running && p) ++g_frees;
}

/* ASan's interceptors call these for every memcmp/strcmp; compared strings become words. */
static void record_words(const void* a, const void* b, size_t n) {
  if (!g_running || n < 2 || n > kWordMax) return;
  for (int k = 0; k < 2; ++k) {
    size_t slot = (size_t)(hash_bytes(k ? b : a, n) % kWordRing);
    memcpy(g_word_ring[slot], k ? b : a, n);
    g_words_seen[slot].d = g_word_ring[slot];
    g_words_seen[slot].n = n;
  }
  g_nwords_seen = kWordRing;
}

__attribute__((visibility("default"))) void __sanitizer_weak_hook_memcmp(void* pc, const void* a, const void* b,
                                                                         size_t n, int result) {
  if (result != 0) record_words(a, b, n);
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_strncmp(void* pc, const char* a, const char* b,
                                                                          size_t n, int result) {
  if (result != 0) record_words(a, b, strnlen(a, n) < strnlen(b, n) ? strnlen(a, n) : strnlen(b, n));
}
__attribute__((visibility("default"))) void __sanitizer_weak_hook_strcmp(void* pc, const char* a, const char* b,
                                                                         int result) {
  if (result != 0) record_words(a, b, strlen(a) < strlen(b) ? strlen(a) : strlen(b));
}
/* Memory bounds, so that inputs asking for gigabytes fail fast instead of timing out: a TensorProto
 * of 12 bytes may rightly ask for 2 GiB (a shape and no values means zeros, as in TensorFlow), and
 * the engine must then report the failed allocation. Under ASan an allocation above 64 MiB fails
 * (ASAN_OPTIONS=max_allocation_size_mb=N changes it; the caller's ASAN_OPTIONS win); without ASan
 * main() limits the data segment to what it is at start plus -malloc_limit_mb (64). */
__attribute__((visibility("default"))) const char* __asan_default_options(void) {
  return "allocator_may_return_null=1:max_allocation_size_mb=64:detect_leaks=1";
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- Running one input ---- */

static uint32_t* g_features;
static uint8_t* g_seen; /* a bit per feature reached by some corpus input */
static size_t g_num_seen;

/* Runs `d` on the target from a private copy (so reading past its end is caught); returns the
 * number of features reached (in g_features) and sets *accepted. Exits on a leak. */
static size_t run_one(const Options* o, const uint8_t* d, size_t n, int* accepted) {
  uint8_t* copy = malloc(n ? n : 1);
  memcpy(copy, d, n);
  g_current = copy;
  g_current_n = n;
  /* -timeout counts CPU time, so a loaded machine does not turn slow inputs into timeouts; a
   * blocked input (no CPU) is caught by a wall-clock limit ten times as long. */
  struct itimerval cpu = {{0, 0}, {o->timeout, 0}}, wall = {{0, 0}, {10 * o->timeout, 0}};
  setitimer(ITIMER_PROF, &cpu, NULL);
  setitimer(ITIMER_REAL, &wall, NULL);
  g_mallocs = g_frees = 0;
  g_running = 1;
  tx_cov_begin();
  *accepted = g_target->run(copy, n);
  size_t nf = tx_cov_end(g_features, kMaxFeatures);
  g_running = 0;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  setitimer(ITIMER_REAL, &off, NULL);
  if (o->detect_leaks && g_mallocs > g_frees && __lsan_do_recoverable_leak_check != NULL &&
      __lsan_do_recoverable_leak_check() != 0) {
    write_artifact("leak");
    exit(1);
  }
  free(copy);
  return nf < kMaxFeatures ? nf : kMaxFeatures;
}

static uint32_t g_value_profile_base = UINT32_MAX; /* features from here on: value profile, if used */

/* Counts the features of the last run not yet seen; with `mark`, marks them seen. */
static size_t new_features(size_t nf, int mark) {
  size_t fresh = 0;
  for (size_t i = 0; i < nf; ++i) {
    uint32_t f = g_features[i];
    if (f >= g_value_profile_base) continue;
    uint8_t bit = (uint8_t)(1u << (f & 7));
    if (!(g_seen[f >> 3] & bit)) {
      ++fresh;
      if (mark) {
        g_seen[f >> 3] |= bit;
        ++g_num_seen;
      }
    }
  }
  return fresh;
}

/* ---- The corpus ---- */

static void corpus_add(Corpus* c, const uint8_t* d, size_t n) {
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 256;
    c->items = realloc(c->items, c->cap * sizeof(Bytes));
  }
  c->items[c->n].d = malloc(n ? n : 1);
  memcpy(c->items[c->n].d, d, n);
  c->items[c->n].n = n;
  ++c->n;
  c->bytes += n;
}

static void load_file(Corpus* c, const char* path, size_t max_len) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return;
  uint8_t* d = malloc(max_len);
  size_t n = fread(d, 1, max_len, f);
  fclose(f);
  corpus_add(c, d, n);
  free(d);
}

/* Loads every regular file of `dir` (or of dir/<target> when that exists), or the file `path`. */
static void load_path(Corpus* c, const char* path, size_t max_len) {
  char sub[1024];
  struct stat st;
  snprintf(sub, sizeof(sub), "%s/%s", path, g_target->name);
  const char* dir = stat(sub, &st) == 0 && S_ISDIR(st.st_mode) ? sub : path;
  if (stat(dir, &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    load_file(c, dir, max_len);
    return;
  }
  struct dirent** names;
  int n = scandir(dir, &names, NULL, alphasort); /* sorted, so runs are reproducible */
  for (int i = 0; i < n; ++i) {
    char file[2048];
    snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
    if (names[i]->d_name[0] != '.' && stat(file, &st) == 0 && S_ISREG(st.st_mode)) load_file(c, file, max_len);
    free(names[i]);
  }
  free(names);
}

static void save_input(const char* dir, const uint8_t* d, size_t n) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, g_target->name);
  mkdir(dir, 0755);
  mkdir(path, 0755);
  snprintf(path, sizeof(path), "%s/%s/%016llx", dir, g_target->name, (unsigned long long)hash_bytes(d, n));
  write_file(path, d, n);
}

/* ---- Words: dictionary files and, for protobuf targets, the names in the op registry ---- */

static void add_registry_words(MutationSources* m) {
  /* OpList{op: OpDef{name 1, input_arg 2 {name 1}, output_arg 3 {name 1}, attr 4 {name 1, type 2}}} */
  TX_Buffer* ops = TX_GetAllOpList();
  const uint8_t* p = ops->data;
  size_t n = ops->length;
  for (size_t at = 0; at + 2 < n;) { /* every length-delimited field 1 or 2 holding printable text */
    uint8_t tag = p[at];
    size_t len = p[at + 1], hdr = 2;
    if (len & 0x80) {
      len = (len & 0x7f) | (size_t)p[at + 2] << 7;
      hdr = 3;
    }
    int text = (tag == 0x0a || tag == 0x12) && len > 0 && len <= kWordMax && at + hdr + len <= n;
    for (size_t i = 0; text && i < len; ++i) text = p[at + hdr + i] >= 0x20 && p[at + hdr + i] < 0x7f;
    if (text) tx_fuzz_add_word(m, p + at + hdr, len);
    at += text ? hdr + len : 1;
  }
  TX_DeleteBuffer(ops);
}

/* ---- Fuzzing one target ---- */

typedef struct Stats {
  long runs, accepted;
  double start;
} Stats;

static void print_stats(const char* tag, const Stats* s, const Corpus* c) {
  double t = now() - s->start;
  printf("#%ld\t%s\tcov: %zu\tcorp: %zu/%zub\texec/s: %.0f\taccepted: %.1f%%\ttime: %.0fs\n", s->runs, tag, g_num_seen,
         c->n, c->bytes, t > 0 ? s->runs / t : 0.0, s->runs ? 100.0 * s->accepted / s->runs : 0.0, t);
  fflush(stdout);
}

static int cmp_size(const void* a, const void* b) {
  const Bytes *x = a, *y = b;
  return x->n < y->n ? -1 : x->n > y->n;
}

static void fuzz_target(const Options* o) {
  Corpus seeds = {0}, corpus = {0};
  char path[1024];
  snprintf(path, sizeof(path), "%s/corpus", TX_FUZZ_DIR);
  if (!o->merge) load_path(&seeds, path, o->max_len);
  for (int i = 0; i < o->ninputs; ++i) load_path(&seeds, o->inputs[i], o->max_len);
  if (o->corpus_dir && !o->merge) load_path(&seeds, o->corpus_dir, o->max_len);
  if (seeds.n == 0) {
    fprintf(stderr, "tx_fuzz: %s: no seed inputs (%s/%s/ is empty or missing)\n", g_target->name, path, g_target->name);
    exit(2);
  }
  if (o->merge) qsort(seeds.items, seeds.n, sizeof(Bytes), cmp_size);
  MutationSources m = {0};
  m.cap_words = 8192;
  m.words = calloc(m.cap_words, sizeof(Bytes));
  m.cap_cmps = kCmpRing;
  m.cmps = calloc(kCmpRing, sizeof(m.cmps[0]));
  m.cmp_widths = calloc(kCmpRing, 1);
  snprintf(path, sizeof(path), "%s/dict/%s.dict", TX_FUZZ_DIR, g_target->name);
  tx_fuzz_read_dict(&m, path);
  for (int i = 0; i < o->ndicts; ++i) {
    if (tx_fuzz_read_dict(&m, o->dicts[i]) < 0) fprintf(stderr, "tx_fuzz: cannot read %s\n", o->dicts[i]);
  }
  if (g_target->format == TX_FUZZ_PROTO) add_registry_words(&m);
  uint32_t num_features = tx_cov_num_features();
  g_value_profile_base =
      o->value_profile || num_features == 0 ? UINT32_MAX : num_features - TX_COV_VALUE_PROFILE_FEATURES;
  size_t seen_bytes = num_features / 8 + 1;
  g_seen = mmap(NULL, seen_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  g_num_seen = 0;
  printf("tx_fuzz: %s: %zu seed inputs, %zu dictionary words, coverage %s (%u features), seed %llu\n", g_target->name,
         seeds.n, m.nwords, num_features ? "on" : "off: mutation only", num_features, (unsigned long long)o->seed);
  Stats s = {0, 0, now()};
  /* Every seed runs; those reaching new features (all of them without coverage) form the corpus. */
  for (size_t i = 0; i < seeds.n; ++i) {
    int ok;
    size_t nf = run_one(o, seeds.items[i].d, seeds.items[i].n, &ok);
    ++s.runs;
    s.accepted += ok;
    if (num_features == 0 || new_features(nf, 1) > 0 || (!o->merge && corpus.n == 0)) {
      corpus_add(&corpus, seeds.items[i].d, seeds.items[i].n);
      if (o->merge) save_input(o->merge, seeds.items[i].d, seeds.items[i].n);
    }
  }
  print_stats("INITED", &s, &corpus);
  long runs = o->runs >= 0 ? o->runs : (o->max_time > 0 ? -1 : 300);
  uint8_t* x = malloc(o->max_len);
  double last_print = now();
  TxCovCmp cmps[512];
  size_t cmp_next = 0;
  for (long i = 0; !o->merge && !o->replay && (runs < 0 || i < runs); ++i) {
    if (o->max_time > 0 && (i & 15) == 0 && now() - s.start >= o->max_time) break;
    m.corpus = corpus.items;
    m.ncorpus = corpus.n;
    m.cmp_words = g_words_seen;
    m.ncmp_words = g_nwords_seen;
    size_t pick = corpus.n > 16 && below(2) ? corpus.n - 1 - below(16) : below(corpus.n);
    const Bytes* from = &corpus.items[pick];
    size_t n = from->n < o->max_len ? from->n : o->max_len;
    memcpy(x, from->d, n);
    if (g_target->format == TX_FUZZ_PROTO && below(3) != 0) {
      for (int k = 1 + (int)below(3); k > 0; --k) {
        size_t r = tx_fuzz_mutate_proto(x, n, o->max_len, &m);
        n = r ? r : tx_fuzz_mutate_bytes(x, n, o->max_len, &m);
      }
    } else {
      n = tx_fuzz_mutate_bytes(x, n, o->max_len, &m);
    }
    if (g_target->format == TX_FUZZ_SAFETENSORS && below(4) != 0) tx_fuzz_fix_safetensors(x, n);
    int ok;
    size_t nf = run_one(o, x, n, &ok);
    ++s.runs;
    s.accepted += ok;
    if (num_features && new_features(nf, 1) > 0) {
      corpus_add(&corpus, x, n);
      if (o->corpus_dir) save_input(o->corpus_dir, x, n);
    }
    if ((i & 7) == 0) { /* keep recent comparisons for cmp-guided mutations */
      size_t k = tx_cov_cmps(cmps, 512);
      for (size_t j = 0; j < k; ++j, cmp_next = (cmp_next + 1) % kCmpRing) {
        m.cmps[cmp_next][0] = cmps[j].a;
        m.cmps[cmp_next][1] = cmps[j].b;
        m.cmp_widths[cmp_next] = (uint8_t)cmps[j].width;
        if (m.ncmps < kCmpRing) ++m.ncmps;
      }
    }
    if (now() - last_print >= o->print_every) {
      print_stats("pulse", &s, &corpus);
      last_print = now();
    }
  }
  print_stats(o->merge ? "MERGED" : "DONE", &s, &corpus);
  free(x);
  munmap(g_seen, seen_bytes);
  for (size_t i = 0; i < m.nwords; ++i) free(m.words[i].d);
  free(m.words);
  free(m.cmps);
  free(m.cmp_widths);
  for (size_t i = 0; i < seeds.n; ++i) free(seeds.items[i].d);
  for (size_t i = 0; i < corpus.n; ++i) free(corpus.items[i].d);
  free(seeds.items);
  free(corpus.items);
}

/* The process's data segment (VmData: heap, private mappings, thread stacks) in bytes. */
static rlim_t data_segment_bytes(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long kb = 0;
  while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
    if (sscanf(line, "VmData: %llu kB", &kb) == 1) break;
  }
  if (f != NULL) fclose(f);
  return (rlim_t)kb << 10;
}

/* ---- Command line ---- */

static int flag(const char* arg, const char* name, const char** value) {
  size_t k = strlen(name);
  if (arg[0] != '-' || strncmp(arg + 1, name, k) != 0 || arg[1 + k] != '=') return 0;
  *value = arg + 2 + k;
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s TARGET|all [-runs=N] [-max_total_time=S] [...] [CORPUS ...]\ntargets:", argv[0]);
    for (int i = 0; i < tx_fuzz_num_targets; ++i) fprintf(stderr, " %s", tx_fuzz_targets[i].name);
    fprintf(stderr, "\n");
    return 2;
  }
  Options o = {.runs = -1,
               .print_every = 10,
               .seed = 1,
               .max_len = 8192,
               .timeout = 20,
               .detect_leaks = 1,
               .malloc_limit_mb = 64};
  for (int i = 2; i < argc; ++i) {
    const char* v;
    if (flag(argv[i], "runs", &v))
      o.runs = atol(v);
    else if (flag(argv[i], "max_total_time", &v))
      o.max_time = atof(v);
    else if (flag(argv[i], "print_every", &v))
      o.print_every = atof(v);
    else if (flag(argv[i], "seed", &v))
      o.seed = strtoull(v, NULL, 10);
    else if (flag(argv[i], "max_len", &v))
      o.max_len = (size_t)atol(v) > 0 ? (size_t)atol(v) : 1;
    else if (flag(argv[i], "timeout", &v))
      o.timeout = atoi(v);
    else if (flag(argv[i], "malloc_limit_mb", &v))
      o.malloc_limit_mb = atol(v);
    else if (flag(argv[i], "detect_leaks", &v))
      o.detect_leaks = atoi(v);
    else if (flag(argv[i], "replay", &v))
      o.replay = atoi(v);
    else if (flag(argv[i], "use_value_profile", &v))
      o.value_profile = atoi(v);
    else if (flag(argv[i], "corpus_dir", &v))
      o.corpus_dir = v;
    else if (flag(argv[i], "artifact_prefix", &v))
      o.artifact_prefix = v;
    else if (flag(argv[i], "merge", &v))
      o.merge = v;
    else if (flag(argv[i], "dict", &v) && o.ndicts < 8)
      o.dicts[o.ndicts++] = v;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "tx_fuzz: unknown flag %s\n", argv[i]);
      return 2;
    } else if (o.ninputs < kMaxInputs) {
      o.inputs[o.ninputs++] = argv[i];
    }
  }
  if (o.artifact_prefix) g_artifact_prefix = o.artifact_prefix;
  if (__asan_init == NULL) { /* see __asan_default_options: what the process has now, plus the limit */
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = data_segment_bytes() + ((rlim_t)o.malloc_limit_mb << 20);
    setrlimit(RLIMIT_DATA, &limit);
  }
  /* ASan reports SEGV, BUS and FPE and then calls the death callback, as UBSan does; abort(),
   * illegal instructions and timeouts come here in every build. */
  if (__sanitizer_set_death_callback != NULL) {
    __sanitizer_set_death_callback(on_death);
  } else {
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
  }
  signal(SIGABRT, on_signal);
  signal(SIGILL, on_signal);
  signal(SIGALRM, on_signal);
  signal(SIGPROF, on_signal);
  if (o.detect_leaks && __sanitizer_install_malloc_and_free_hooks != NULL) {
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
  }
  g_features = malloc(kMaxFeatures * sizeof(uint32_t));
  tx_fuzz_init();
  int all = strcmp(argv[1], "all") == 0;
  for (int i = 0; i < tx_fuzz_num_targets; ++i) {
    if (!all && strcmp(argv[1], tx_fuzz_targets[i].name) != 0) continue;
    g_target = &tx_fuzz_targets[i];
    tx_fuzz_rng = o.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)i + 1;
    fuzz_target(&o);
  }
  if (g_target == NULL) {
    fprintf(stderr, "tx_fuzz: no target named %s\n", argv[1]);
    return 2;
  }
  free(g_features);
  return 0;
}
