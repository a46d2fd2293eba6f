/* A deterministic mutation fuzzer for every decoder behind the C API: GraphDef import (with its
 * FunctionDef library and TensorProto attrs), FunctionDef import, TensorProtos (as Const values),
 * safetensors files, and the tensor constructors. Each target starts from the seed files in
 * csrc/tests/fuzz/corpus/<target>/ and runs TX_FUZZ_ITERATIONS (default 300) mutated inputs
 * from the seed TX_FUZZ_SEED (default 1). Inputs must give OK or an error status, never a crash;
 * under the sanitize build ASan/UBSan check every access. A crash writes the input to
 * fuzz-crash-<target>.bin in the working directory. docs/fuzzing.md explains longer campaigns.
 * Prints "N passed, M failed". */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <dirent.h>
#include <unistd.h>

#include "c_api_test_util.h"

#ifndef TX_FUZZ_CORPUS_DIR
#define TX_FUZZ_CORPUS_DIR "csrc/tests/fuzz/corpus"
#endif

enum { kMaxInput = 1 << 16, kMaxSeeds = 64 };

typedef struct Input {
  unsigned char* d;
  size_t n;
} Input;

/* ---- A deterministic random source (xorshift64*) ---- */

static uint64_t g_rng;

static uint64_t rnd(void) {
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 2685821657736338717ULL;
}

static size_t below(size_t n) { return n == 0 ? 0 : (size_t)(rnd() % n); }

/* ---- The input being run, written out if the process crashes ---- */

static const unsigned char* g_current;
static size_t g_current_n;
static char g_crash_path[256];

static void on_crash(int sig) {
  int fd = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ssize_t w = write(fd, g_current, g_current_n);
    (void)w;
    close(fd);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

/* ---- Seeds ---- */

static int load_seeds(const char* target, Input* seeds) {
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/%s", TX_FUZZ_CORPUS_DIR, target);
  DIR* d = opendir(dir);
  if (d == NULL) return 0;
  int n = 0;
  struct dirent* e;
  while (n < kMaxSeeds && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    FILE* f = fopen(path, "rb");
    if (f == NULL) continue;
    seeds[n].d = malloc(kMaxInput);
    seeds[n].n = fread(seeds[n].d, 1, kMaxInput, f);
    fclose(f);
    ++n;
  }
  closedir(d);
  return n;
}

/* ---- Mutations ---- */

static const uint64_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 0x7fffffff, 0xffffffffULL,
                                        0x8000000000000000ULL, 0xffffffffffffffffULL};

static void mutate(Input* x, const Input* seeds, int nseeds) {
  int rounds = 1 + (int)below(4);
  for (int r = 0; r < rounds; ++r) {
    switch (below(8)) {
      case 0: /* flip a bit */
        if (x->n) x->d[below(x->n)] ^= (unsigned char)(1u << below(8));
        break;
      case 1: /* a random byte */
        if (x->n) x->d[below(x->n)] = (unsigned char)rnd();
        break;
      case 2: { /* an interesting little-endian value, 1 to 8 bytes */
        size_t w = 1 + below(8);
        if (x->n >= w) {
          uint64_t v = kInteresting[below(sizeof(kInteresting) / sizeof(kInteresting[0]))];
          size_t at = below(x->n - w + 1);
          for (size_t i = 0; i < w; ++i) x->d[at + i] = (unsigned char)(v >> (8 * i));
        }
        break;
      }
      case 3: { /* delete a range */
        if (x->n == 0) break;
        size_t at = below(x->n), len = 1 + below(x->n - at < 16 ? x->n - at : 16);
        memmove(x->d + at, x->d + at + len, x->n - at - len);
        x->n -= len;
        break;
      }
      case 4: { /* insert random bytes */
        size_t len = 1 + below(16);
        if (x->n + len > kMaxInput) break;
        size_t at = below(x->n + 1);
        memmove(x->d + at + len, x->d + at, x->n - at);
        for (size_t i = 0; i < len; ++i) x->d[at + i] = (unsigned char)rnd();
        x->n += len;
        break;
      }
      case 5: { /* duplicate a range (repeated fields, nested messages) */
        if (x->n == 0) break;
        size_t at = below(x->n), len = 1 + below(x->n - at);
        if (x->n + len > kMaxInput) break;
        size_t to = below(x->n + 1);
        unsigned char tmp[kMaxInput];
        memcpy(tmp, x->d + at, len);
        memmove(x->d + to + len, x->d + to, x->n - to);
        memcpy(x->d + to, tmp, len);
        x->n += len;
        break;
      }
      case 6: { /* splice in part of another seed */
        const Input* o = &seeds[below((size_t)nseeds)];
        if (o->n == 0) break;
        size_t from = below(o->n), len = 1 + below(o->n - from);
        size_t at = below(x->n + 1);
        if (at + len > kMaxInput) break;
        memcpy(x->d + at, o->d + from, len);
        if (at + len > x->n) x->n = at + len;
        break;
      }
      default: /* truncate */
        x->n = below(x->n + 1);
        break;
    }
  }
}

/* ---- Targets: each decodes `d` and must return (any status) without crashing ---- */

static void run_graphdef(const unsigned char* d, size_t n, TX_Status* s) {
  TX_Graph* g = TX_NewGraph();
  TX_Buffer* b = TX_NewBufferFromString(d, n);
  TX_ImportGraphDefOptions* o = TX_NewImportGraphDefOptions();
  TX_GraphImportGraphDef(g, b, o, s);
  if (TX_GetCode(s) == TX_OK) { /* round-trip what was accepted */
    TX_Buffer* out = TX_NewBuffer();
    TX_GraphToGraphDef(g, out, s);
    TX_DeleteBuffer(out);
  }
  TX_DeleteImportGraphDefOptions(o);
  TX_DeleteBuffer(b);
  TX_DeleteGraph(g);
}

static void run_functiondef(const unsigned char* d, size_t n, TX_Status* s) {
  TX_Function* f = TX_FunctionImportFunctionDef(d, n, s);
  if (f != NULL) {
    TX_Graph* g = TX_NewGraph();
    TX_GraphCopyFunction(g, f, NULL, s);
    TX_DeleteGraph(g);
  }
  TX_DeleteFunction(f);
}

/* The TensorProto becomes the value of a Const: GraphDef{node{name:"c" op:"Const"
 * attr{"value": AttrValue{tensor: <input>}} attr{"dtype": <input's first byte>}}}. */
static size_t put_varint(unsigned char* p, uint64_t v) {
  size_t k = 0;
  while (v >= 0x80) {
    p[k++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  p[k++] = (unsigned char)v;
  return k;
}

static size_t put_len(unsigned char* p, int field, size_t len) {
  size_t k = put_varint(p, (uint64_t)field << 3 | 2);
  return k + put_varint(p + k, len);
}

static void run_tensorproto(const unsigned char* d, size_t n, TX_Status* s) {
  static unsigned char buf[kMaxInput + 256];
  unsigned char hdr[64];
  /* attr entry "value" -> AttrValue{tensor (field 8)} */
  size_t value_len = put_len(hdr, 8, n) + n;
  size_t entry_len = 2 + 5 + put_len(hdr, 2, value_len) + value_len;
  unsigned char dtype_entry[16];
  size_t de = 0;
  de += put_len(dtype_entry + de, 1, 5);
  memcpy(dtype_entry + de, "dtype", 5);
  de += 5;
  de += put_len(dtype_entry + de, 2, 2);
  dtype_entry[de++] = 6 << 3; /* AttrValue.type */
  dtype_entry[de++] = (unsigned char)(n > 1 ? d[1] & 0x7f : 1);
  size_t node_len = 3 + 2 + 5 + put_len(hdr, 5, entry_len) + entry_len + put_len(hdr, 5, de) + de;
  size_t k = put_len(buf, 1, node_len);
  k += put_len(buf + k, 1, 1);
  buf[k++] = 'c';
  k += put_len(buf + k, 2, 5);
  memcpy(buf + k, "Const", 5);
  k += 5;
  k += put_len(buf + k, 5, entry_len);
  k += put_len(buf + k, 1, 5);
  memcpy(buf + k, "value", 5);
  k += 5;
  k += put_len(buf + k, 2, value_len);
  k += put_len(buf + k, 8, n);
  memcpy(buf + k, d, n);
  k += n;
  k += put_len(buf + k, 5, de);
  memcpy(buf + k, dtype_entry, de);
  k += de;
  run_graphdef(buf, k, s);
}

static char g_scratch[256];

static void run_safetensors(const unsigned char* d, size_t n, TX_Status* s) {
  FILE* f = fopen(g_scratch, "wb");
  if (f == NULL) return;
  fwrite(d, 1, n, f);
  fclose(f);
  TX_Safetensors* st = TX_LoadSafetensors(g_scratch, s);
  for (int i = 0; st != NULL && i < TX_SafetensorsNumTensors(st); ++i) {
    TX_Tensor* t = TX_SafetensorsTensor(st, i, s);
    TX_DeleteTensor(t);
  }
  TX_DeleteSafetensors(st);
}

/* Bytes read as: dtype, num_dims (signed), dims (int64 each), a length delta; the constructors
 * must reject every inconsistent combination (and wrap or allocate the consistent ones). */
static void run_tensor(const unsigned char* d, size_t n, TX_Status* s) {
  TX_SetStatus(s, TX_INVALID_ARGUMENT, "rejected");
  if (n < 3) return;
  TX_DataType dt = (TX_DataType)d[0];
  int nd = (int)(signed char)d[1];
  int64_t dims[16];
  size_t k = 2;
  int have = 0;
  for (; have < 16 && k + 8 <= n; ++have, k += 8) memcpy(&dims[have], d + k, 8);
  if (nd > have) nd = have;
  size_t elem = TX_DataTypeSize(dt);
  size_t len = elem;
  for (int i = 0; i < nd && i < have; ++i) len *= (size_t)dims[i];
  len += (size_t)(signed char)(k < n ? d[k] : 0) % 3 == 0 ? 0 : 1; /* sometimes off by one */
  static unsigned char memory[64];
  if (len <= sizeof(memory)) {
    TX_Tensor* a = TX_NewTensor(dt, dims, nd, memory, len, NULL, NULL);
    CHECK(a == NULL || TX_TensorByteSize(a) == len);
    if (a != NULL) TX_SetStatus(s, TX_OK, "");
    TX_DeleteTensor(a);
  }
  if (len <= (1u << 20)) {
    TX_Tensor* b = TX_AllocateTensor(dt, dims, nd, len);
    if (b != NULL) {
      /* Raw bytes may not be written into TX_TString elements (c_api.h): fill strings properly. */
      if (dt == TX_STRING) {
        TX_TString* strs = (TX_TString*)TX_TensorData(b);
        for (int64_t i = 0; i < TX_TensorElementCount(b); ++i) TX_StringCopy(&strs[i], (const char*)d, n);
      } else {
        memset(TX_TensorData(b), 0xAB, TX_TensorByteSize(b));
      }
      TX_SetStatus(s, TX_OK, "");
    }
    TX_DeleteTensor(b);
  }
}

typedef void (*Target)(const unsigned char*, size_t, TX_Status*);

static void fuzz(const char* name, Target target) {
  Input seeds[kMaxSeeds];
  int nseeds = load_seeds(name, seeds);
  CHECK(nseeds > 0);
  if (nseeds == 0) return;
  const char* it = getenv("TX_FUZZ_ITERATIONS");
  const char* sd = getenv("TX_FUZZ_SEED");
  long iterations = it ? atol(it) : 300;
  g_rng = (sd ? (uint64_t)atoll(sd) : 1) * 0x9E3779B97F4A7C15ULL + 1;
  snprintf(g_crash_path, sizeof(g_crash_path), "fuzz-crash-%s.bin", name);
  Input x = {malloc(kMaxInput), 0};
  TX_Status* s = TX_NewStatus();
  long ok = 0;
  for (int i = 0; i < nseeds; ++i) { /* every seed is valid input */
    g_current = seeds[i].d;
    g_current_n = seeds[i].n;
    target(seeds[i].d, seeds[i].n, s);
    if (TX_GetCode(s) != TX_OK) printf("  seed %d of %s: %s\n", i, name, TX_Message(s));
    CHECK(TX_GetCode(s) == TX_OK);
  }
  for (long i = 0; i < iterations; ++i) {
    const Input* seed = &seeds[below((size_t)nseeds)];
    memcpy(x.d, seed->d, seed->n);
    x.n = seed->n;
    mutate(&x, seeds, nseeds);
    g_current = x.d;
    g_current_n = x.n;
    TX_SetStatus(s, TX_OK, "");
    target(x.d, x.n, s);
    ok += TX_GetCode(s) == TX_OK;
  }
  printf("  %s: %ld inputs from %d seeds, %ld accepted\n", name, iterations, nseeds, ok);
  TX_DeleteStatus(s);
  free(x.d);
  for (int i = 0; i < nseeds; ++i) free(seeds[i].d);
}

static void test_graphdef(void) { fuzz("graphdef", run_graphdef); }
static void test_functiondef(void) { fuzz("functiondef", run_functiondef); }
static void test_tensorproto(void) { fuzz("tensorproto", run_tensorproto); }
static void test_safetensors(void) { fuzz("safetensors", run_safetensors); }
static void test_tensor(void) { fuzz("tensor", run_tensor); }

int main(void) {
  signal(SIGSEGV, on_crash);
  signal(SIGABRT, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
  snprintf(g_scratch, sizeof(g_scratch), "/tmp/tx-fuzz-%d.safetensors", (int)getpid());
  static const TestCase tests[] = {
      {"graphdef", test_graphdef},     {"functiondef", test_functiondef}, {"tensorproto", test_tensorproto},
      {"safetensors", test_safetensors}, {"tensor", test_tensor},
  };
  int rc = run_tests(tests, (int)(sizeof(tests) / sizeof(tests[0])));
  unlink(g_scratch);
  return rc;
}
