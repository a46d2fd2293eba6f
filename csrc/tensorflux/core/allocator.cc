#include "tensorflux/core/allocator.h"

#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#define TX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TX_ASAN 1
#endif
#endif
#ifdef TX_ASAN
#include <sanitizer/asan_interface.h>
#define TX_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define TX_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define TX_POISON(p, n) ((void)(p), (void)(n))
#define TX_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

// Note [Buffer cache]
// glibc serves blocks above its mmap threshold (128 KiB, raised dynamically up to 32 MiB) with a
// fresh mmap, and trims the top of its heap when a large block is freed there; either way a
// tensor of a few MiB comes back as untouched pages that fault (and are zeroed by the kernel)
// on first write, on every Session.run. BufferAllocator keeps freed blocks of kMinCachedBytes
// and more in size classes (four per power of two, so a block is at most 25% larger than the
// request; [1024,1024] float32 is exactly a class) and hands them out again warm.
//
// Only idle blocks count against the cap. A run frees its intermediates when their last reader
// is done, and the next run asks for the same sizes, so the cache must hold one run's worth of
// transients to help at all; 256 MiB covers that for the CPU workloads we benchmark (a
// [1024,1024] float32 chain needs three 4 MiB blocks, a batch-64 conv net a few dozen MiB)
// while bounding what a process keeps after a one-off peak. A free that would exceed the cap
// goes back to the C allocator, and with it the memory to the system. A lock per size class
// keeps threads that free different sizes apart; the critical section is a vector push or pop,
// against kernels that touch at least 64 KiB.
//
// Note [Small blocks]
// An eager op on a few elements allocates one small output buffer and frees one; through
// aligned_alloc that pair (glibc carves an aligned chunk out of a larger one and frees the rest)
// was a tenth of the op's time. Blocks of up to kMaxSmallBytes (rounded to 64-byte classes) go
// to a per-thread stack of up to kSmallBlocksPerClass blocks per class instead: a block freed on
// another thread joins that thread's stack, each stack holds blocks of one size and alignment,
// and whatever a stack cannot take goes back to the C allocator, so a thread keeps at most
// ~74 KiB. At thread exit its stacks are freed; a block freed after that (by a static tensor's
// destructor during exit) goes to the C allocator directly. Only allocators that cache at all
// keep small blocks, so ASan builds see every small free too.
//
// In ASan builds the global allocator caches nothing, so a freed tensor is really freed and a
// use-after-free is reported; allocators made with a cap (the allocator's own tests) poison
// the blocks they hold.

namespace tx {
namespace {
constexpr int kLog2MinCached = 15;  // classes start at (32 KiB, 64 KiB]
constexpr int kStepsPerDoubling = 4;
constexpr int kLog2MaxCached = 36;
constexpr int kNumClasses = (kLog2MaxCached - kLog2MinCached) * kStepsPerDoubling;

size_t RoundUp(size_t n, size_t m) { return (n + m - 1) / m * m; }

// floor(log2(n)) for n > 0.
int Log2Floor(size_t n) { return 63 - __builtin_clzll(static_cast<unsigned long long>(n)); }

bool Cacheable(size_t rounded) {
  return rounded >= BufferAllocator::kMinCachedBytes && rounded <= BufferAllocator::kMaxCachedBytes;
}

// Note [Small blocks].
constexpr size_t kMaxSmallBytes = 512;
constexpr int kSmallClasses = kMaxSmallBytes / kBufferAlignment;
constexpr int kSmallBlocksPerClass = 32;

// The stack of a small rounded size, and the rounded size of a stack.
int SmallClassOf(size_t rounded) { return static_cast<int>(rounded / kBufferAlignment) - 1; }
size_t SmallClassSize(int c) { return (c + 1) * kBufferAlignment; }

struct SmallBlocks {
  void* blocks[kSmallClasses][kSmallBlocksPerClass];
  int count[kSmallClasses];
};

// The thread's stacks (trivially destructible, so readable at any point of thread exit), and
// whether they were already freed.
thread_local SmallBlocks* t_small = nullptr;
thread_local bool t_small_gone = false;

// Frees the thread's stacks at its exit.
struct SmallBlocksOwner {
  ~SmallBlocksOwner() {
    if (t_small == nullptr) return;
    for (int c = 0; c < kSmallClasses; ++c)
      for (int i = 0; i < t_small->count[c]; ++i) {
        TX_UNPOISON(t_small->blocks[c][i], SmallClassSize(c));
        std::free(t_small->blocks[c][i]);
      }
    delete t_small;
    t_small = nullptr;
    t_small_gone = true;
  }
};

// The thread's stacks, made on first use; nullptr once the thread is exiting.
SmallBlocks* ThreadSmallBlocks() {
  if (t_small != nullptr || t_small_gone) return t_small;
  thread_local SmallBlocksOwner owner;
  t_small = new SmallBlocks();
  return t_small;
}
}  // namespace

BufferAllocator::BufferAllocator(size_t cache_cap) : cache_cap_(cache_cap), lists_(new FreeList[kNumClasses]) {}

BufferAllocator::~BufferAllocator() { ReleaseCached(); }

BufferAllocator* BufferAllocator::Global() {
#ifdef TX_ASAN
  static BufferAllocator* a = new BufferAllocator(0);
#else
  static BufferAllocator* a = new BufferAllocator(kDefaultCacheCap);
#endif
  return a;
}

size_t BufferAllocator::RoundedSize(size_t size) {
  if (size == 0) return kBufferAlignment;  // never hand out a null data pointer
  if (size < kMinCachedBytes || size > kMaxCachedBytes) return RoundUp(size, kBufferAlignment);
  // 2^p < size <= 2^(p+1): round up to a multiple of 2^p / kStepsPerDoubling.
  const int p = Log2Floor(size - 1);
  return RoundUp(size, (size_t{1} << p) / kStepsPerDoubling);
}

int BufferAllocator::ClassOf(size_t rounded) {
  const int p = Log2Floor(rounded - 1);
  const size_t step = (size_t{1} << p) / kStepsPerDoubling;
  const int k = static_cast<int>(((rounded - (size_t{1} << p)) / step));  // 1..kStepsPerDoubling
  return (p - kLog2MinCached) * kStepsPerDoubling + k - 1;
}

size_t BufferAllocator::ClassSize(int c) {
  const int p = c / kStepsPerDoubling + kLog2MinCached, k = c % kStepsPerDoubling + 1;
  return (size_t{1} << p) + k * ((size_t{1} << p) / kStepsPerDoubling);
}

void* BufferAllocator::Allocate(size_t size) {
  // No machine has this much memory; failing here (out of memory, as malloc would) keeps absurd
  // requests from overflowed shapes away from malloc, which ASan would abort on instead.
  constexpr size_t kMaxBufferBytes = size_t{1} << 40;
  if (size > kMaxBufferBytes) return nullptr;
  const size_t rounded = RoundedSize(size);
  if (cache_cap_ > 0 && rounded <= kMaxSmallBytes) {
    SmallBlocks* small = ThreadSmallBlocks();
    const int c = SmallClassOf(rounded);
    if (small != nullptr && small->count[c] > 0) {
      void* p = small->blocks[c][--small->count[c]];
      TX_UNPOISON(p, rounded);
      return p;
    }
  } else if (cache_cap_ > 0 && Cacheable(rounded)) {
    FreeList& list = lists_[ClassOf(rounded)];
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> l(list.mu);
      if (!list.blocks.empty()) {
        p = list.blocks.back();
        list.blocks.pop_back();
      }
    }
    if (p != nullptr) {
      cached_bytes_.fetch_sub(rounded, std::memory_order_relaxed);
      hits_.fetch_add(1, std::memory_order_relaxed);
      TX_UNPOISON(p, rounded);
      return p;
    }
    misses_.fetch_add(1, std::memory_order_relaxed);
  }
  return std::aligned_alloc(kBufferAlignment, rounded);
}

void BufferAllocator::Deallocate(void* p, size_t size) {
  if (p == nullptr) return;
  const size_t rounded = RoundedSize(size);
  if (cache_cap_ > 0 && rounded <= kMaxSmallBytes) {
    SmallBlocks* small = ThreadSmallBlocks();
    const int c = SmallClassOf(rounded);
    if (small != nullptr && small->count[c] < kSmallBlocksPerClass) {
      TX_POISON(p, rounded);
      small->blocks[c][small->count[c]++] = p;
      return;
    }
  } else if (cache_cap_ > 0 && Cacheable(rounded)) {
    if (cached_bytes_.fetch_add(rounded, std::memory_order_relaxed) + rounded <= cache_cap_) {
      TX_POISON(p, rounded);
      FreeList& list = lists_[ClassOf(rounded)];
      std::lock_guard<std::mutex> l(list.mu);
      list.blocks.push_back(p);
      return;
    }
    cached_bytes_.fetch_sub(rounded, std::memory_order_relaxed);
    released_.fetch_add(1, std::memory_order_relaxed);
  }
  std::free(p);
}

void BufferAllocator::ReleaseCached() {
  for (int c = 0; c < kNumClasses; ++c) {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> l(lists_[c].mu);
      blocks.swap(lists_[c].blocks);
    }
    const size_t size = ClassSize(c);
    for (void* p : blocks) {
      TX_UNPOISON(p, size);
      std::free(p);
    }
    cached_bytes_.fetch_sub(blocks.size() * size, std::memory_order_relaxed);
  }
}

BufferAllocator::Stats BufferAllocator::stats() const {
  Stats s;
  s.cached_bytes = cached_bytes_.load(std::memory_order_relaxed);
  s.hits = hits_.load(std::memory_order_relaxed);
  s.misses = misses_.load(std::memory_order_relaxed);
  s.released = released_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace tx
