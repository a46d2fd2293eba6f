// The coverage runtime of the in-repo fuzzer: gcc's -fsanitize-coverage callbacks (see coverage.h).
//
// Note [Fuzzing coverage]
// gcc has no libFuzzer, but it has the compiler half of it: -fsanitize-coverage=trace-pc makes
// every basic block call __sanitizer_cov_trace_pc(), and trace-cmp makes every integer comparison
// and switch call __sanitizer_cov_trace_(const_)cmp{1,2,4,8} / _switch with its operands. With
// TX_FUZZ_COVERAGE the engine's decoding code (core, framework, ops, c, runtime, eager, passes;
// not the kernels, which the decoders never reach) is compiled with both, and this file receives
// the calls. It is compiled without instrumentation and sits in the engine's objects, so the
// shared library (Python under the sanitize session) and the fuzz driver (which links the objects)
// both resolve the callbacks to it; outside the driver it stays off and each call costs a load
// and a branch.
//
// Features of one input, as libFuzzer's:
//  - block counters: the callback's return address, as an offset into the module's text divided
//    by 4, indexes a byte counter (a call instruction takes 5 bytes, so two call sites never share
//    one). Counts are bucketed (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+) so a loop running more
//    often is new coverage too; feature = index * 8 + bucket. First touches go to a list, so the
//    end of an input costs what it touched, not the map's size.
//  - value profile: per comparison site (12 bits of a hash of its address), the number of
//    differing bits of the operands (0..64); reaching a comparison with fewer differing bits than
//    ever is progress towards passing it.
//  - a table of recent comparisons (operands, by call site) that the driver splices into inputs
//    (cmp-guided mutation), and a table of compared byte strings from memcmp/strcmp (ASan's
//    interceptors call __sanitizer_weak_hook_* when the executable defines them).
// Several threads may run instrumented code; counters race benignly (a lost increment changes a
// bucket at worst), the touched list is appended atomically.
#include "fuzz/coverage.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include <atomic>

namespace {

constexpr uint32_t kTouchedCap = 1u << 20;
constexpr uint32_t kValueProfileBits = TX_COV_VALUE_PROFILE_FEATURES;  // 4096 sites x 128 distances
constexpr uint32_t kCmpTable = 4096;

struct CmpSlot {
  uint64_t a, b;
  uint32_t width;
  uint32_t generation;
};

std::atomic<int> g_on{0};
uintptr_t g_base, g_size;  // the instrumented module's executable segments
uint8_t* g_counters;  // one per 4 bytes of text
uint32_t* g_touched;  // counter indices first touched by this input
std::atomic<uint32_t> g_ntouched{0};
uint8_t* g_vp_bits;  // value-profile bits set by this input
uint32_t* g_vp_touched;
std::atomic<uint32_t> g_nvp{0};
CmpSlot g_cmps[kCmpTable];
uint32_t g_generation = 1;
uint32_t g_num_features;

int FindText(struct dl_phdr_info* info, size_t, void* arg) {
  auto self = reinterpret_cast<uintptr_t>(arg);
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) & ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (start < lo) lo = start;
    if (start + ph.p_memsz > hi) hi = start + ph.p_memsz;
  }
  if (lo <= self && self < hi) {
    g_base = lo;
    g_size = hi - lo;
    return 1;
  }
  return 0;
}

void* MapZeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

inline uint32_t HashPc(uintptr_t pc) { return static_cast<uint32_t>((pc * 0x9E3779B97F4A7C15ull) >> 40); }

inline uint32_t Bucket(uint8_t c) {
  if (c <= 3) return c - 1u;
  if (c < 8) return 3;
  if (c < 16) return 4;
  if (c < 32) return 5;
  if (c < 128) return 6;
  return 7;
}

inline void OnCmp(uint64_t a, uint64_t b, uint32_t width, uintptr_t pc) {
  if (!g_on.load(std::memory_order_relaxed)) return;
  uint32_t h = HashPc(pc);
  uint32_t v = ((h & 0xFFFu) << 7) | static_cast<uint32_t>(__builtin_popcountll(a ^ b));
  uint8_t bit = static_cast<uint8_t>(1u << (v & 7));
  if (!(g_vp_bits[v >> 3] & bit)) {
    g_vp_bits[v >> 3] |= bit;
    uint32_t k = g_nvp.fetch_add(1, std::memory_order_relaxed);
    if (k < kTouchedCap) g_vp_touched[k] = v;
  }
  if (a != b) g_cmps[h % kCmpTable] = CmpSlot{a, b, width, g_generation};
}

}  // namespace

extern "C" {

uint32_t tx_cov_num_features(void) {
  if (g_counters != nullptr) return g_num_features;
  dl_iterate_phdr(FindText, reinterpret_cast<void*>(&tx_cov_num_features));
  if (g_size == 0) return 0;
  g_counters = static_cast<uint8_t*>(MapZeroed(g_size / 4 + 1));
  g_touched = static_cast<uint32_t*>(MapZeroed(kTouchedCap * sizeof(uint32_t)));
  g_vp_bits = static_cast<uint8_t*>(MapZeroed(kValueProfileBits / 8));
  g_vp_touched = static_cast<uint32_t*>(MapZeroed(kTouchedCap * sizeof(uint32_t)));
  if (!g_counters || !g_touched || !g_vp_bits || !g_vp_touched) return 0;
  g_num_features = static_cast<uint32_t>((g_size / 4 + 1) * 8 + kValueProfileBits);
  return g_num_features;
}

void tx_cov_begin(void) {
  if (tx_cov_num_features() == 0) return;
  g_ntouched.store(0, std::memory_order_relaxed);
  g_nvp.store(0, std::memory_order_relaxed);
  ++g_generation;
  g_on.store(1, std::memory_order_release);
}

size_t tx_cov_end(uint32_t* out, size_t cap) {
  g_on.store(0, std::memory_order_release);
  if (g_counters == nullptr) return 0;
  size_t n = 0;
  uint32_t touched = g_ntouched.load(std::memory_order_acquire);
  if (touched > kTouchedCap) touched = kTouchedCap;
  for (uint32_t k = 0; k < touched; ++k) {
    uint32_t i = g_touched[k];
    uint8_t c = g_counters[i];
    if (c == 0) continue;  // a duplicate entry (two threads touched it first at once)
    g_counters[i] = 0;
    if (n < cap) out[n] = i * 8 + Bucket(c);
    ++n;
  }
  uint32_t base = g_num_features - kValueProfileBits;
  uint32_t nvp = g_nvp.load(std::memory_order_acquire);
  if (nvp > kTouchedCap) nvp = kTouchedCap;
  for (uint32_t k = 0; k < nvp; ++k) {
    uint32_t v = g_vp_touched[k];
    g_vp_bits[v >> 3] = 0;
    if (n < cap) out[n] = base + v;
    ++n;
  }
  return n;
}

size_t tx_cov_cmps(TxCovCmp* out, size_t cap) {
  size_t n = 0;
  for (uint32_t i = 0; i < kCmpTable && n < cap; ++i) {
    const CmpSlot& s = g_cmps[i];
    if (s.generation == g_generation && s.width != 0) out[n++] = TxCovCmp{s.a, s.b, s.width};
  }
  return n;
}

// ---- The callbacks gcc's instrumentation calls ----

void __sanitizer_cov_trace_pc(void) {
  if (!g_on.load(std::memory_order_relaxed)) return;
  uintptr_t off = reinterpret_cast<uintptr_t>(__builtin_return_address(0)) - g_base;
  if (off >= g_size) return;
  uint32_t i = static_cast<uint32_t>(off >> 2);
  uint8_t c = g_counters[i];
  if (c == 0) {
    uint32_t k = g_ntouched.fetch_add(1, std::memory_order_relaxed);
    if (k < kTouchedCap) g_touched[k] = i;
  }
  g_counters[i] = static_cast<uint8_t>(c + (c != 255));
}

#define TX_COV_PC reinterpret_cast<uintptr_t>(__builtin_return_address(0))
void __sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b) { OnCmp(a, b, 1, TX_COV_PC); }
void __sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b) { OnCmp(a, b, 2, TX_COV_PC); }
void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b) { OnCmp(a, b, 4, TX_COV_PC); }
void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b) { OnCmp(a, b, 8, TX_COV_PC); }
void __sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b) { OnCmp(a, b, 1, TX_COV_PC); }
void __sanitizer_cov_trace_const_cmp2(uint16_t a, uint16_t b) { OnCmp(a, b, 2, TX_COV_PC); }
void __sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b) { OnCmp(a, b, 4, TX_COV_PC); }
void __sanitizer_cov_trace_const_cmp8(uint64_t a, uint64_t b) { OnCmp(a, b, 8, TX_COV_PC); }

void __sanitizer_cov_trace_cmpf(float a, float b) {
  uint32_t x, y;
  memcpy(&x, &a, 4);
  memcpy(&y, &b, 4);
  OnCmp(x, y, 4, TX_COV_PC);
}

void __sanitizer_cov_trace_cmpd(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  OnCmp(x, y, 8, TX_COV_PC);
}

// cases[0] = number of cases, cases[1] = operand width in bits, cases[2...] = the case values.
// The closest case value (by differing bits) stands for the whole switch.
void __sanitizer_cov_trace_switch(uint64_t val, uint64_t* cases) {
  if (!g_on.load(std::memory_order_relaxed) || cases[0] == 0) return;
  uint64_t best = cases[2];
  for (uint64_t i = 1; i < cases[0]; ++i) {
    if (__builtin_popcountll(val ^ cases[2 + i]) < __builtin_popcountll(val ^ best)) best = cases[2 + i];
  }
  OnCmp(val, best, static_cast<uint32_t>(cases[1] / 8), TX_COV_PC);
}
#undef TX_COV_PC

}  // extern "C"
