// The node iterators the engine builds (Note [Native pipelines]). Each node writes its counters
// into its slots of the element stamps (`slot`: its first slot) and counts its work in `counters`.
#ifndef TENSORFLUX_DATA_NODES_H_
#define TENSORFLUX_DATA_NODES_H_

#include <memory>
#include <string>
#include <vector>

#include "engine.h"
#include "function.h"

namespace txd {

// One component of an array source: `data` (borrowed; the caller keeps it alive while the pipeline
// lives) holds `size` rows of `dtype` of shape `dims`.
struct ArrayComponent {
  TX_DataType dtype;
  std::vector<int64_t> dims;
  const char* data;
};

// Where a node iterator is in the pipeline: its stamp slot, the stamp's size and its counters.
struct Place {
  int slot;
  int stamp_size;
  NodeCounters* counters;
};

// from_tensor_slices: rows `index`.. of the components; stamp [next index].
std::unique_ptr<Iterator> MakeSlices(std::vector<ArrayComponent> components, int64_t size, int64_t index, Place p);

// range: start + i * step for i in index..size-1 as `dtype` (int32 or int64); stamp [next i].
std::unique_ptr<Iterator> MakeRange(int64_t start, int64_t step, int64_t size, TX_DataType dtype, int64_t index,
                                    Place p);

// How TFRecord files are compressed (TensorFlow's compression_type "", "ZLIB", "GZIP").
enum class Compression { kNone = 0, kZlib = 1, kGzip = 2 };

// The records of TFRecord files, from file `next_file` on (or, when `open`, from byte `offset` of
// file next_file - 1, counted in uncompressed bytes); stamp [next file, open, offset]. A corrupt or
// cut record, or corrupt compressed data, is an error.
std::unique_ptr<Iterator> MakeTFRecord(std::vector<std::string> paths, Compression compression, int64_t next_file,
                                       bool open, int64_t offset, Place p);

// The lines of text files (TextLineDataset: without "\n" or "\r\n"), with MakeTFRecord's arguments
// and stamp.
std::unique_ptr<Iterator> MakeTextLines(std::vector<std::string> paths, Compression compression, int64_t next_file,
                                        bool open, int64_t offset, Place p);

// The stamp slots of a TFRecord source.
constexpr int kTFRecordSlots = 3;

// An interleave's stamp: kInterleaveHead slots, then per cycle slot [open, name index] and the
// stamp of its inner chain (Note [Native interleave] in interleave.cc).
constexpr int kInterleaveHead = 4;

// One transformation of an interleave's inner chain, over the one before it (the file's records
// first): a map (`batch` > 0: fused with the batch after it), a filter or a batch.
struct InnerStep {
  enum Kind { kMap = 0, kFilter = 1, kBatch = 2 };
  Kind kind;
  std::shared_ptr<const Function> fn;  // map and filter (unseeded)
  int parallel;  // map: calls in flight (kAutotune allowed)
  int64_t batch;  // map (fused) and batch: the batch size
  bool drop;  // map (fused) and batch: drop a final short batch
  int slot;  // its first slot in the inner stamp
};

// What an interleave runs per file: TFRecordDataset(name) (inner stamp slots 0..kTFRecordSlots-1),
// then `steps`; `width` inner stamp slots in all; parallel maps use `threads` workers.
struct InnerChain {
  std::vector<InnerStep> steps;
  int width = kTFRecordSlots;
  int threads = 0;
  Compression compression = Compression::kNone;  // of each file
};

// Whether `start` (an interleave's stamp slots) is a position of `cycle` slots with blocks of `block`
// over `npaths` names, each slot's inner stamp `inner_width` slots.
bool InterleaveStartOk(const int64_t* start, int64_t npaths, int64_t cycle, int64_t block, int inner_width);

// interleave of `inner` (TFRecordDataset(name) and its transformations) over `paths`, `cycle` files
// at a time, `block` elements from each, from position `start` (its stamp slots, checked by
// InterleaveStartOk; Note [Native interleave]).
std::unique_ptr<Iterator> MakeInterleave(std::vector<std::string> paths, InnerChain inner, int64_t cycle, int64_t block,
                                         const int64_t* start, Place p);

// Per-element seeds of a function that calls tx.random (Note [Element seeds] in the package's
// _seeds.py): element i's Philox key is Mix(seed0 ^ Mix(i)), passed after the element's components.
struct Seeds {
  bool seeded = false;
  uint64_t seed0 = 0;
};

// The keys of elements first..first + n - 1: uint64[1], or uint64[n, 1] when `stacked`; null when
// out of memory.
Tensor ElementSeeds(uint64_t seed0, int64_t first, int64_t n, bool stacked);

// A map's `parallel` for AUTOTUNE: its width follows its measured rate (Note [Native autotune]).
constexpr int kAutotune = -1;

// map: `fn` per element (its seeds appended when `seeds.seeded`), or with `batch` > 0 (a fused
// map-and-batch) per `batch` input elements stacked (a final short batch dropped when `drop`);
// with `parallel` > 1 (or kAutotune) calls overlap on `threads` workers, results in input order.
// Stamp [elements read, input ended].
std::unique_ptr<Iterator> MakeMap(std::unique_ptr<Iterator> input, std::shared_ptr<const Function> fn, Seeds seeds,
                                  int parallel, int threads, int64_t batch, bool drop, int64_t count, Place p);

// filter: the elements whose predicate `fn` is true; stamp [elements read].
std::unique_ptr<Iterator> MakeFilter(std::unique_ptr<Iterator> input, std::shared_ptr<const Function> fn, Seeds seeds,
                                     int64_t count, Place p);

// batch: `size` elements stacked (a final short batch dropped when `drop`); no stamp slots.
std::unique_ptr<Iterator> MakeBatch(std::unique_ptr<Iterator> input, int64_t size, bool drop, Place p);

// Up to `n` next elements of `input` stacked along a new first dimension (`*count` of them; 0 at
// the end, with the end's stamp); `what` names the node in errors.
Status ReadBatch(Iterator* input, int64_t n, const char* what, Element* out, int64_t* count);

// Where a shuffle starts (Note [Native shuffle] in shuffle.cc): its buffer size, stream key, buffered
// elements (their components) and the pipeline's stamp (its own slots [outputs, words drawn, input
// ended], and its input's position).
struct ShuffleStart {
  int64_t size;
  uint64_t key;
  std::vector<std::vector<Tensor>> buffer;
  std::vector<int64_t> stamp;
};

// What the pipeline asks of a shuffle node, from any thread (Note [Native shuffle]).
class ShuffleLog {
 public:
  virtual ~ShuffleLog() = default;
  // Records that the consumer was handed the element of output `outputs` (or the end after it).
  virtual void Consumed(int64_t outputs) = 0;
  // The buffered elements as of output `outputs`, which is at or after the last one consumed.
  virtual Status BufferAt(int64_t outputs, std::vector<std::vector<Tensor>>* out) = 0;
};

// shuffle: each output drawn uniformly from a buffer of `start.size` input elements with the keyed
// counter stream of the package's _seeds.draw; stamp [outputs, words drawn, input ended]. `*log`
// (owned by the iterator) answers the pipeline.
std::unique_ptr<Iterator> MakeShuffle(std::unique_ptr<Iterator> input, ShuffleStart start, Place p, ShuffleLog** log);

// prefetch: the input read ahead on a thread of its own into a buffer of `buffer` elements (<= 0:
// sized from the consumer's waits); stamp [ended].
std::unique_ptr<Iterator> MakePrefetch(std::unique_ptr<Iterator> input, int64_t buffer, Place p);

}  // namespace txd

#endif  // TENSORFLUX_DATA_NODES_H_
