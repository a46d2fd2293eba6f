// BufferAllocator: 64-byte aligned memory for tensor buffers, with a bounded cache of large blocks so that
// repeated runs reuse mapped, warm memory (Note [Buffer cache]), and per-thread stacks of small ones.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tx {

// Alignment of every buffer the engine allocates, in bytes.
constexpr size_t kBufferAlignment = 64;

class BufferAllocator {
 public:
  // Blocks below this many bytes skip the size classes (those up to 512 bytes go to per-thread stacks).
  static constexpr size_t kMinCachedBytes = size_t{64} << 10;
  // Blocks above this many bytes are never cached.
  static constexpr size_t kMaxCachedBytes = size_t{1} << 36;
  // The process-wide allocator's bound on idle cached bytes (see Note [Buffer cache]).
  static constexpr size_t kDefaultCacheCap = size_t{256} << 20;

  // Counters for tests and tuning; a snapshot, not synchronized across fields.
  struct Stats {
    size_t cached_bytes = 0;  // idle bytes held in the cache now
    uint64_t hits = 0;  // allocations served from the cache
    uint64_t misses = 0;  // cacheable allocations that went to the C allocator
    uint64_t released = 0;  // cacheable frees returned to the C allocator (cache full)
  };

  // An allocator that keeps at most `cache_cap` idle bytes (0 disables caching).
  explicit BufferAllocator(size_t cache_cap);
  // Returns every cached block to the C allocator; blocks still in use must not outlive it.
  ~BufferAllocator();
  BufferAllocator(const BufferAllocator&) = delete;
  BufferAllocator& operator=(const BufferAllocator&) = delete;

  // The process-wide allocator behind Buffer::Allocate; it never caches in ASan builds, so freed
  // buffers are really freed and use-after-free is still reported.
  static BufferAllocator* Global();

  // At least `size` bytes aligned to kBufferAlignment (never null for size 0); nullptr when out
  // of memory. Release it with Deallocate(p, size) with the same `size`.
  void* Allocate(size_t size);
  // Returns a block from Allocate(size) to the cache, or to the C allocator when the cache is full.
  void Deallocate(void* p, size_t size);
  // Frees every cached block.
  void ReleaseCached();

  // The number of bytes Allocate(size) reserves (its size class).
  static size_t RoundedSize(size_t size);
  Stats stats() const;
  size_t cache_cap() const { return cache_cap_; }

 private:
  // One size class: a stack of idle blocks of the class's size.
  struct FreeList {
    std::mutex mu;
    std::vector<void*> blocks;  // guarded by mu
  };
  // The free list of a cacheable rounded size, and the rounded size of a free list.
  static int ClassOf(size_t rounded);
  static size_t ClassSize(int c);

  const size_t cache_cap_;
  std::unique_ptr<FreeList[]> lists_;
  std::atomic<size_t> cached_bytes_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0}, released_{0};
};

}  // namespace tx
