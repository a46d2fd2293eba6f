// The native pipeline engine's model: elements of C API tensors flowing up a chain of node
// iterators, each pulling from the one below (Note [Native pipelines]).
#ifndef TENSORFLUX_DATA_ENGINE_H_
#define TENSORFLUX_DATA_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "capi.h"

// Note [Native pipelines]
// A chain of dataset nodes that the engine can run (sources of arrays, ranges and TFRecord files;
// map and filter with traced functions; shuffle; batch; prefetch; an interleave of TFRecord files
// and their inner maps, filters and batches) is built here from the Python nodes' parameters and
// runs on the engine's threads: a prefetch drives the nodes below it from a thread of its own, a
// parallel map runs its function calls on the engine's worker pool, and the Python caller,
// waiting in a foreign call, does not hold the GIL. The functions are the traced
// tx.function graphs, executed through the C API's eager entry points (TXE_Execute of a call
// with PartitionedCall, attr f) in the engine's own context, several at once (the C API allows concurrent ops).
// Every element carries a stamp: each node's counters (source position, elements read) as of
// that element in the sequential order, whatever ran in parallel. The stamp of the last element
// handed out is the pipeline's position, from which the Python side writes the Python nodes' own
// state layout, so a state saved here restores in either engine. The engine handles the common
// path only: on any error it stops and reports, and the Python side resumes the same position in
// the Python engine, which meets the error again and raises it (or skips it) with tf.data's exact
// semantics.

namespace txd {

// An error code (TX_Code) and message; code 0 is OK.
struct Status {
  int code = 0;
  std::string message;
  bool ok() const { return code == 0; }
  static Status Error(int code, std::string message) { return Status{code, std::move(message)}; }
};

// An owned TX_Tensor (deleted with TX_DeleteTensor).
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TX_Tensor* t) : t_(t) {}
  Tensor(Tensor&& o) noexcept : t_(o.release()) {}
  Tensor& operator=(Tensor&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() { reset(nullptr); }
  TX_Tensor* get() const { return t_; }
  TX_Tensor* release() {
    TX_Tensor* t = t_;
    t_ = nullptr;
    return t;
  }
  void reset(TX_Tensor* t) {
    if (t_ != nullptr) api.TX_DeleteTensor(t_);
    t_ = t;
  }

 private:
  TX_Tensor* t_ = nullptr;
};

// One element (its flat components) or the end of the sequence, with its stamp.
struct Element {
  std::vector<Tensor> components;
  std::vector<int64_t> stamp;
  bool end = false;
};

// What one node did: elements produced and nanoseconds spent producing them (inputs included).
struct NodeCounters {
  std::atomic<int64_t> elements{0};
  std::atomic<int64_t> nanos{0};
  std::atomic<int64_t> wait_nanos{0};  // prefetch: the consumer's waits on an empty buffer
};

// Iterates one node. Next fills `out` with the next element (or out->end) and its stamp; an error
// ends the iteration (the caller stops calling).
class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual Status Next(Element* out) = 0;
  // Up to `n` next elements stacked along a new first dimension (`*count` of them; 0 at the end),
  // for sources that cut a batch at once; false when this iterator cannot.
  virtual bool CanBatch() const { return false; }
  virtual Status NextBatch(int64_t n, Element* out, int64_t* count) {
    (void)n, (void)out, (void)count;
    return Status::Error(TX_INTERNAL, "NextBatch is not supported here");
  }
};

// The time of one Next, added to a node's counters when it ends.
class Timed {
 public:
  explicit Timed(NodeCounters* c);
  ~Timed();

 private:
  NodeCounters* c_;
  int64_t start_;
};

// Monotonic nanoseconds.
int64_t NowNanos();

// The element count of dims[0..rank).
int64_t NumElements(const std::vector<int64_t>& dims);

// The dims of tensor `t`.
std::vector<int64_t> DimsOf(const TX_Tensor* t);

// `n` elements of the same dtype and shape stacked along a new first dimension (`what` names the
// node in the error when they differ).
Status Stack(const std::vector<const TX_Tensor*>& parts, const char* what, Tensor* out);

// Copies the strings of `n` TX_TString at `src` to `dst` (a fresh string tensor's elements).
void CopyStrings(TX_TString* dst, const TX_TString* src, int64_t n);

// Copies the elements of `src` to `dst`, fresh memory of src's dtype and byte size.
void CopyData(const TX_Tensor* src, void* dst);

// A copy of `t`; empty when out of memory or for a dtype whose bytes are not to be copied (variant).
Tensor CopyOf(const TX_Tensor* t);

// A tensor on the memory of `*owner`, without a copy, holding `owner` until the engine releases it
// (the engine never writes memory it wraps: Note [Buffer forwarding] in the core); empty when the C
// API refuses the wrap (a variant).
Tensor Alias(std::shared_ptr<const Tensor> owner);

// Word `counter` of the stream keyed by `key`: Mix(key ^ Mix(counter)), Mix being SplitMix64's
// finaliser (the package's _seeds.keyed_word).
uint64_t KeyedWord(uint64_t key, uint64_t counter);

// The engine's process-wide eager context, created on first use.
TXE_Context* Context(Status* status);

}  // namespace txd

#endif  // TENSORFLUX_DATA_ENGINE_H_
