// Tests of BufferAllocator: size classes, reuse of freed blocks, per-thread small blocks, alignment,
// the cap on cached bytes, concurrent use, and that tensors allocate through the global allocator.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "test_util.h"
#include "tensorflux/core/allocator.h"
#include "tensorflux/core/tensor.h"

using namespace tx;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

bool Aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0; }

TEST(RoundedSizeClasses) {
  EXPECT_EQ(BufferAllocator::RoundedSize(0), kBufferAlignment);
  EXPECT_EQ(BufferAllocator::RoundedSize(1), size_t{64});
  EXPECT_EQ(BufferAllocator::RoundedSize(65), size_t{128});
  EXPECT_EQ(BufferAllocator::RoundedSize(1000), size_t{1024});
  // Cacheable sizes: four classes per power of two, exact powers of two map to themselves.
  EXPECT_EQ(BufferAllocator::RoundedSize(64 << 10), size_t{64} << 10);
  EXPECT_EQ(BufferAllocator::RoundedSize((64 << 10) + 1), size_t{80} << 10);
  EXPECT_EQ(BufferAllocator::RoundedSize(4 * kMiB), 4 * kMiB);
  EXPECT_EQ(BufferAllocator::RoundedSize(4 * kMiB + 1), 5 * kMiB);
  EXPECT_EQ(BufferAllocator::RoundedSize(7 * kMiB + 1), 8 * kMiB);
  // A rounded size never wastes a quarter of the request, and is a multiple of the alignment.
  for (size_t s = 1000; s < 300 * kMiB; s = s * 9 / 7 + 13) {
    const size_t r = BufferAllocator::RoundedSize(s);
    EXPECT_TRUE(r >= s);
    EXPECT_TRUE(r - s < s / 4 + kBufferAlignment);
    EXPECT_EQ(r % kBufferAlignment, size_t{0});
    EXPECT_EQ(BufferAllocator::RoundedSize(r), r);
  }
}

TEST(ReusesFreedBlockOfSameClass) {
  BufferAllocator a(64 * kMiB);
  void* p = a.Allocate(4 * kMiB);
  EXPECT_TRUE(p != nullptr);
  std::memset(p, 1, 4 * kMiB);
  a.Deallocate(p, 4 * kMiB);
  EXPECT_EQ(a.stats().cached_bytes, 4 * kMiB);
  // A different request of the same class gets the same block back.
  void* q = a.Allocate(4 * kMiB - 1000);
  EXPECT_TRUE(q == p);
  EXPECT_EQ(a.stats().hits, uint64_t{1});
  EXPECT_EQ(a.stats().misses, uint64_t{1});
  EXPECT_EQ(a.stats().cached_bytes, size_t{0});
  // Another class does not take it.
  a.Deallocate(q, 4 * kMiB - 1000);
  void* r = a.Allocate(2 * kMiB);
  EXPECT_TRUE(r != p);
  EXPECT_EQ(a.stats().misses, uint64_t{2});
  a.Deallocate(r, 2 * kMiB);
  EXPECT_EQ(a.stats().cached_bytes, 6 * kMiB);
  a.ReleaseCached();
  EXPECT_EQ(a.stats().cached_bytes, size_t{0});
}

TEST(SmallBlocksAreNotCached) {
  BufferAllocator a(64 * kMiB);
  void* p = a.Allocate(1000);
  EXPECT_TRUE(p != nullptr && Aligned(p));
  a.Deallocate(p, 1000);
  EXPECT_EQ(a.stats().cached_bytes, size_t{0});
  EXPECT_EQ(a.stats().hits + a.stats().misses, uint64_t{0});
}

// Note [Small blocks]: a thread gets back the block it freed last of the same 64-byte class.
TEST(SmallBlocksAreReusedPerThread) {
  BufferAllocator a(64 * kMiB);
  void* p = a.Allocate(100);
  EXPECT_TRUE(p != nullptr && Aligned(p));
  std::memset(p, 1, 128);  // the whole class is usable
  a.Deallocate(p, 100);
  void* q = a.Allocate(128);  // same class as 100 bytes
  EXPECT_TRUE(q == p);
  void* r = a.Allocate(129);  // the next class
  EXPECT_TRUE(r != nullptr && r != q && Aligned(r));
  std::memset(r, 2, 192);
  a.Deallocate(q, 128);
  a.Deallocate(r, 129);
  // More frees than a stack holds: the rest go back to the C allocator, and every block works.
  std::vector<void*> ps;
  for (int i = 0; i < 100; ++i) ps.push_back(a.Allocate(512));
  for (void* b : ps) a.Deallocate(b, 512);
  for (int round = 0; round < 2; ++round) {
    for (void*& b : ps) {
      b = a.Allocate(500);
      EXPECT_TRUE(b != nullptr && Aligned(b));
      std::memset(b, round, 512);
    }
    for (void* b : ps) a.Deallocate(b, 500);
  }
  EXPECT_EQ(a.stats().hits + a.stats().misses, uint64_t{0});  // the size classes were not involved
}

// Small blocks freed on another thread join that thread's stacks; each thread's stacks are freed
// when it exits (the sanitizer build's leak check sees any block left behind).
TEST(SmallBlocksCrossThreads) {
  BufferAllocator a(64 * kMiB);
  constexpr int kBlocks = 200;
  std::vector<unsigned char*> made(kBlocks);
  std::thread producer([&] {
    for (int i = 0; i < kBlocks; ++i) {
      const size_t n = 1 + (i * 37) % 512;
      made[i] = static_cast<unsigned char*>(a.Allocate(n));
      std::memset(made[i], i & 0xff, n);
    }
  });
  producer.join();
  std::atomic<int> corrupt{0};
  std::vector<std::thread> consumers;
  for (int t = 0; t < 2; ++t) {
    consumers.emplace_back([&, t] {
      for (int i = t; i < kBlocks; i += 2) {
        const size_t n = 1 + (i * 37) % 512;
        corrupt += made[i][0] != (i & 0xff) || made[i][n - 1] != (i & 0xff);
        a.Deallocate(made[i], n);
      }
      for (int i = 0; i < 50; ++i) {  // reuse what this thread now holds
        auto* p = static_cast<unsigned char*>(a.Allocate(64));
        std::memset(p, t, 64);
        a.Deallocate(p, 64);
      }
    });
  }
  for (std::thread& th : consumers) th.join();
  EXPECT_EQ(corrupt.load(), 0);
}

TEST(AlignmentOfEverySize) {
  BufferAllocator a(64 * kMiB);
  const size_t sizes[] = {0, 1, 63, 64, 65, 4097, 65535, 65536, 65537, 100000, 3 * kMiB + 7, 4 * kMiB};
  for (int round = 0; round < 2; ++round) {  // the second round is served from the cache
    std::vector<void*> ps;
    for (size_t s : sizes) {
      void* p = a.Allocate(s);
      EXPECT_TRUE(p != nullptr);
      EXPECT_TRUE(Aligned(p));
      if (s > 0) std::memset(p, 0x5a, s);
      ps.push_back(p);
    }
    for (size_t i = 0; i < ps.size(); ++i) a.Deallocate(ps[i], sizes[i]);
  }
  EXPECT_TRUE(a.stats().hits >= uint64_t{6});
}

TEST(CapBoundsCachedBytes) {
  BufferAllocator a(10 * kMiB);
  std::vector<void*> ps;
  for (int i = 0; i < 5; ++i) ps.push_back(a.Allocate(4 * kMiB));
  for (void* p : ps) a.Deallocate(p, 4 * kMiB);
  // Two 4 MiB blocks fit under 10 MiB; the other three went back to the C allocator.
  EXPECT_EQ(a.stats().cached_bytes, 8 * kMiB);
  EXPECT_EQ(a.stats().released, uint64_t{3});
  void* p = a.Allocate(4 * kMiB);
  void* q = a.Allocate(4 * kMiB);
  void* r = a.Allocate(4 * kMiB);
  EXPECT_EQ(a.stats().hits, uint64_t{2});
  EXPECT_EQ(a.stats().misses, uint64_t{6});
  a.Deallocate(p, 4 * kMiB);
  a.Deallocate(q, 4 * kMiB);
  a.Deallocate(r, 4 * kMiB);
  EXPECT_EQ(a.stats().cached_bytes, 8 * kMiB);
}

TEST(ZeroCapDisablesCaching) {
  BufferAllocator a(0);
  void* p = a.Allocate(4 * kMiB);
  EXPECT_TRUE(p != nullptr && Aligned(p));
  a.Deallocate(p, 4 * kMiB);
  EXPECT_EQ(a.stats().cached_bytes, size_t{0});
  EXPECT_EQ(a.stats().hits, uint64_t{0});
}

// Threads allocate, fill with their own pattern, check it and free, over shared size classes:
// a block handed to two owners at once would show the other's pattern.
TEST(ConcurrentAllocateAndFree) {
  BufferAllocator a(24 * kMiB);
  constexpr int kThreads = 4, kIters = 300;
  const size_t sizes[] = {64 << 10, 100 << 10, kMiB, 2 * kMiB + 5};
  std::atomic<int> corrupt{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::pair<unsigned char*, size_t>> held;
      for (int i = 0; i < kIters; ++i) {
        const size_t s = sizes[(i * 7 + t) % 4];
        auto* p = static_cast<unsigned char*>(a.Allocate(s));
        if (p == nullptr || !Aligned(p)) {
          ++failed;
          continue;
        }
        std::memset(p, t + 1, s);
        held.emplace_back(p, s);
        if (held.size() > 3 || i % 5 == 0) {  // free the oldest after checking it
          auto [q, n] = held.front();
          held.erase(held.begin());
          for (size_t k = 0; k < n; k += 4093) corrupt += q[k] != t + 1;
          corrupt += q[n - 1] != t + 1;
          a.Deallocate(q, n);
        }
      }
      for (auto [q, n] : held) a.Deallocate(q, n);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(corrupt.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  const BufferAllocator::Stats s = a.stats();
  EXPECT_TRUE(s.cached_bytes <= a.cache_cap());
  EXPECT_TRUE(s.hits > 0);
  EXPECT_EQ(s.hits + s.misses, uint64_t{kThreads * kIters});
}

TEST(TensorsUseTheGlobalAllocator) {
  BufferAllocator* g = BufferAllocator::Global();
  const uint64_t before = g->stats().hits + g->stats().misses;
  {
    Tensor t;
    EXPECT_OK(Tensor::Allocate(DT_FLOAT, TensorShape({512, 512}), &t));
    EXPECT_TRUE(Aligned(t.raw_data()));
    EXPECT_TRUE(t.CanReuseBuffer());
  }
  const uint64_t after = g->stats().hits + g->stats().misses;
  // ASan builds make the global allocator pass-through (caching off), so nothing is counted.
  if (g->cache_cap() > 0)
    EXPECT_EQ(after, before + 1);
  else
    EXPECT_EQ(after, before);
  if (g->cache_cap() > 0) {
    Tensor t;
    EXPECT_OK(Tensor::Allocate(DT_FLOAT, TensorShape({1024, 256}), &t));  // the same 1 MiB class
    EXPECT_EQ(g->stats().hits + g->stats().misses, after + 1);
    EXPECT_TRUE(g->stats().hits >= uint64_t{1});
  }
}

}  // namespace
