// The engine's C interface (txd_engine.h): building pipelines from the Python nodes' parameters and
// pulling their elements.
#include <cstring>
#include <exception>
#include <limits>
#include <new>

#include "nodes.h"
#include "txd_engine.h"

struct TXD_Function {
  std::shared_ptr<const txd::Function> fn;
};

// A shuffle node of a pipeline: its node index, first stamp slot and log (owned by the chain).
struct TXD_Shuffle {
  int node;
  int slot;
  txd::ShuffleLog* log;
};

struct TXD_Pipeline {
  int stamp_size;
  std::vector<txd::NodeCounters> counters;
  std::vector<TXD_Shuffle> shuffles;
  std::unique_ptr<txd::Iterator> top;
  TXD_Pipeline(int num_nodes, int stamp) : stamp_size(stamp), counters(static_cast<size_t>(num_nodes)) {}
};

namespace txd {
namespace {

int Fail(const std::string& message, char* err, int64_t errlen, int code = -1) {
  if (err != nullptr && errlen > 0) {
    size_t n = std::min(message.size(), static_cast<size_t>(errlen - 1));
    std::memcpy(err, message.data(), n);
    err[n] = '\0';
  }
  return code;
}

// Runs `body` (returning a Status), turning C++ exceptions (out of memory) into errors.
template <typename Body>
int Guard(char* err, int64_t errlen, Body body) {
  try {
    Status s = body();
    return s.ok() ? 0 : Fail(s.message, err, errlen);
  } catch (const std::bad_alloc&) {
    return Fail("tensorflux-data engine: out of memory", err, errlen);
  } catch (const std::exception& e) { return Fail(std::string("tensorflux-data engine: ") + e.what(), err, errlen); }
}

// The node slot `node` with its stamp place; checks the indices.
Status PlaceOf(TXD_Pipeline* p, int node, int slot, int width, Place* out) {
  if (p == nullptr || node < 0 || node >= static_cast<int>(p->counters.size()) || slot < 0 ||
      slot + width > p->stamp_size) {
    return Status::Error(TX_INVALID_ARGUMENT, "bad node or stamp slot");
  }
  *out = Place{slot, p->stamp_size, &p->counters[static_cast<size_t>(node)]};
  return Status{};
}

Status Over(TXD_Pipeline* p) {
  return p->top ? Status{} : Status::Error(TX_INVALID_ARGUMENT, "a transformation needs a source below it");
}

// Reads the arrays of a source or of captured values.
std::vector<ArrayComponent> Arrays(int n, const int* dtypes, const int* ranks, const int64_t* dims_flat,
                                   const void* const* data) {
  std::vector<ArrayComponent> out;
  for (int i = 0; i < n; ++i) {
    ArrayComponent c{static_cast<TX_DataType>(dtypes[i]), {}, static_cast<const char*>(data[i])};
    c.dims.assign(dims_flat, dims_flat + ranks[i]);
    dims_flat += ranks[i];
    out.push_back(std::move(c));
  }
  return out;
}

// Copies array `c` into a new tensor.
Status CopyIn(const ArrayComponent& c, Tensor* out) {
  size_t bytes = api.TX_DataTypeSize(c.dtype) * static_cast<size_t>(NumElements(c.dims));
  TX_Tensor* t = api.TX_AllocateTensor(c.dtype, c.dims.data(), static_cast<int>(c.dims.size()), bytes);
  if (t == nullptr) return Status::Error(TX_INVALID_ARGUMENT, "an array has an unsupported dtype");
  if (bytes > 0) std::memcpy(api.TX_TensorData(t), c.data, bytes);
  out->reset(t);
  return Status{};
}

// The inner chain of an interleave from txd_interleave's arguments; checks kinds, functions and slots.
Status InnerOf(int n, const int* kinds, const TXD_Function* const* fns, const int64_t* params, int width,
               InnerChain* out) {
  if (n < 0 || width < kTFRecordSlots || width > (1 << 20))
    return Status::Error(TX_INVALID_ARGUMENT, "interleave: bad inner chain");
  out->width = width;
  for (int k = 0; k < n; ++k) {
    const int64_t* q = params + 4 * k;
    InnerStep step{static_cast<InnerStep::Kind>(kinds[k]),
                   nullptr,
                   static_cast<int>(q[0]),
                   q[1],
                   q[2] != 0,
                   static_cast<int>(q[3])};
    bool has_fn = step.kind != InnerStep::kBatch;
    int slots = step.kind == InnerStep::kMap ? 2 : step.kind == InnerStep::kFilter ? 1 : 0;
    if (kinds[k] < 0 || kinds[k] > 2 || (has_fn && fns[k] == nullptr) || q[3] < kTFRecordSlots ||
        q[3] + slots > width || (step.kind == InnerStep::kBatch && step.batch < 1) || step.batch < 0)
      return Status::Error(TX_INVALID_ARGUMENT, "interleave: bad inner step");
    if (has_fn) step.fn = fns[k]->fn;
    out->steps.push_back(std::move(step));
  }
  return Status{};
}

// The shuffle node `node` of `p`, or null.
const TXD_Shuffle* ShuffleOf(const TXD_Pipeline* p, int node) {
  if (p == nullptr) return nullptr;
  for (const TXD_Shuffle& s : p->shuffles) {
    if (s.node == node) return &s;
  }
  return nullptr;
}

// txd_tfrecord and txd_text_line: a file source made by `make`.
template <typename Make>
int FileSource(TXD_Pipeline* p, int node, int slot, int npaths, const char* const* paths, int compression,
               int64_t next_file, int open, int64_t offset, char* err, int64_t errlen, Make make) {
  return Guard(err, errlen, [&]() -> Status {
    if (compression < 0 || compression > 2) return Status::Error(TX_INVALID_ARGUMENT, "file source: bad compression");
    Place place;
    Status s = PlaceOf(p, node, slot, kTFRecordSlots, &place);
    if (s.ok()) {
      p->top = make(std::vector<std::string>(paths, paths + npaths), static_cast<Compression>(compression), next_file,
                    open != 0, offset, place);
    }
    return s;
  });
}

}  // namespace
}  // namespace txd

using txd::FileSource;
using txd::Guard;
using txd::Place;
using txd::Status;

extern "C" {

int txd_init(const char* libtensorflux, char* err, int64_t errlen) {
  std::string error;
  return txd::LoadCApi(libtensorflux, &error) ? 0 : txd::Fail(error, err, errlen);
}

int txd_add_function_def(const char* name, const void* fdef, int64_t size, char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Status s;
    TXE_Context* ctx = txd::Context(&s);
    if (ctx == nullptr) return s;
    if (txd::api.TXE_ContextHasFunction(ctx, name)) return s;
    TX_Status* status = txd::api.TX_NewStatus();
    txd::api.TXE_ContextAddFunctionDef(ctx, fdef, static_cast<size_t>(size), status);
    if (txd::api.TX_GetCode(status) != TX_OK && !txd::api.TXE_ContextHasFunction(ctx, name)) {
      s = Status::Error(txd::api.TX_GetCode(status), txd::api.TX_Message(status));
    }
    txd::api.TX_DeleteStatus(status);
    return s;
  });
}

void txd_remove_function(const char* name) {
  Status s;
  TXE_Context* ctx = txd::Context(&s);
  if (ctx == nullptr) return;
  TX_Status* status = txd::api.TX_NewStatus();
  txd::api.TXE_ContextRemoveFunction(ctx, name, status);  // a name not there: nothing to do
  txd::api.TX_DeleteStatus(status);
}

TXD_Function* txd_function_new(const char* name, int num_outputs, const int* output_dtypes, int ncaptures,
                               const int* dtypes, const int* ranks, const int64_t* dims_flat, const void* const* data,
                               char* err, int64_t errlen) {
  TXD_Function* out = nullptr;
  Guard(err, errlen, [&]() -> Status {
    std::vector<txd::Tensor> captures;
    for (const auto& c : txd::Arrays(ncaptures, dtypes, ranks, dims_flat, data)) {
      captures.emplace_back();
      Status s = txd::CopyIn(c, &captures.back());
      if (!s.ok()) return s;
    }
    std::vector<TX_DataType> dtypes_out;
    for (int i = 0; i < num_outputs; ++i) dtypes_out.push_back(static_cast<TX_DataType>(output_dtypes[i]));
    out = new TXD_Function{std::make_shared<const txd::Function>(name, std::move(captures), std::move(dtypes_out))};
    return Status{};
  });
  return out;
}

void txd_function_delete(TXD_Function* fn) { delete fn; }

TXD_Pipeline* txd_pipeline_new(int num_nodes, int stamp_size) {
  try {
    return new TXD_Pipeline(num_nodes, stamp_size);
  } catch (const std::exception&) { return nullptr; }
}

void txd_pipeline_delete(TXD_Pipeline* p) { delete p; }

int txd_slices(TXD_Pipeline* p, int node, int slot, int ncomp, const int* dtypes, const int* ranks,
               const int64_t* dims_flat, const void* const* data, int64_t size, int64_t index, char* err,
               int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Place place;
    Status s = txd::PlaceOf(p, node, slot, 1, &place);
    if (s.ok()) p->top = txd::MakeSlices(txd::Arrays(ncomp, dtypes, ranks, dims_flat, data), size, index, place);
    return s;
  });
}

int txd_range(TXD_Pipeline* p, int node, int slot, int64_t start, int64_t step, int64_t size, int dtype, int64_t index,
              char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Place place;
    Status s = txd::PlaceOf(p, node, slot, 1, &place);
    if (s.ok() && dtype != TX_INT32 && dtype != TX_INT64) s = Status::Error(TX_INVALID_ARGUMENT, "range: dtype");
    if (s.ok()) p->top = txd::MakeRange(start, step, size, static_cast<TX_DataType>(dtype), index, place);
    return s;
  });
}

int txd_tfrecord(TXD_Pipeline* p, int node, int slot, int npaths, const char* const* paths, int compression,
                 int64_t next_file, int open, int64_t offset, char* err, int64_t errlen) {
  return FileSource(p, node, slot, npaths, paths, compression, next_file, open, offset, err, errlen, txd::MakeTFRecord);
}

int txd_text_line(TXD_Pipeline* p, int node, int slot, int npaths, const char* const* paths, int compression,
                  int64_t next_file, int open, int64_t offset, char* err, int64_t errlen) {
  return FileSource(p, node, slot, npaths, paths, compression, next_file, open, offset, err, errlen,
                    txd::MakeTextLines);
}

int txd_interleave(TXD_Pipeline* p, int node, int slot, int npaths, const char* const* paths, int64_t cycle,
                   int64_t block, int ninner, const int* kinds, const TXD_Function* const* fns, const int64_t* params,
                   int inner_width, int threads, int compression, const int64_t* start, char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    txd::InnerChain inner;
    Status s = txd::InnerOf(ninner, kinds, fns, params, inner_width, &inner);
    if (!s.ok()) return s;
    inner.threads = threads;
    if (compression < 0 || compression > 2) return Status::Error(TX_INVALID_ARGUMENT, "interleave: bad compression");
    inner.compression = static_cast<txd::Compression>(compression);
    if (cycle < 1 || block < 1 || cycle > std::numeric_limits<int>::max() / (2 + inner_width))
      return Status::Error(TX_INVALID_ARGUMENT, "interleave: bad cycle or block length");
    Place place;
    s = txd::PlaceOf(p, node, slot, txd::kInterleaveHead + (2 + inner_width) * static_cast<int>(cycle), &place);
    if (s.ok() && !txd::InterleaveStartOk(start, npaths, cycle, block, inner_width))
      s = Status::Error(TX_INVALID_ARGUMENT, "interleave: bad start position");
    if (s.ok()) {
      p->top = txd::MakeInterleave(std::vector<std::string>(paths, paths + npaths), std::move(inner), cycle, block,
                                   start, place);
    }
    return s;
  });
}

int txd_map(TXD_Pipeline* p, int node, int slot, const TXD_Function* fn, int seeded, uint64_t seed0, int parallel,
            int threads, int64_t batch, int drop, int64_t count, char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Place place;
    Status s = txd::PlaceOf(p, node, slot, 2, &place);
    if (s.ok()) s = txd::Over(p);
    if (s.ok()) {
      p->top = txd::MakeMap(std::move(p->top), fn->fn, txd::Seeds{seeded != 0, seed0}, parallel, threads, batch,
                            drop != 0, count, place);
    }
    return s;
  });
}

int txd_filter(TXD_Pipeline* p, int node, int slot, const TXD_Function* fn, int seeded, uint64_t seed0, int64_t count,
               char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Place place;
    Status s = txd::PlaceOf(p, node, slot, 1, &place);
    if (s.ok()) s = txd::Over(p);
    if (s.ok()) p->top = txd::MakeFilter(std::move(p->top), fn->fn, txd::Seeds{seeded != 0, seed0}, count, place);
    return s;
  });
}

int txd_batch(TXD_Pipeline* p, int node, int64_t size, int drop, char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Place place;
    Status s = txd::PlaceOf(p, node, 0, 0, &place);
    if (s.ok()) s = txd::Over(p);
    if (s.ok() && size < 1) s = Status::Error(TX_INVALID_ARGUMENT, "batch: size must be >= 1");
    if (s.ok()) p->top = txd::MakeBatch(std::move(p->top), size, drop != 0, place);
    return s;
  });
}

int txd_prefetch(TXD_Pipeline* p, int node, int slot, int64_t buffer, char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Place place;
    Status s = txd::PlaceOf(p, node, slot, 1, &place);
    if (s.ok()) s = txd::Over(p);
    if (s.ok()) p->top = txd::MakePrefetch(std::move(p->top), buffer, place);
    return s;
  });
}

int txd_shuffle(TXD_Pipeline* p, int node, int slot, int64_t size, uint64_t key, const int64_t* stamp, int64_t nbuffer,
                int ncomp, const int* dtypes, const int* ranks, const int64_t* dims_flat, const void* const* data,
                char* err, int64_t errlen) {
  return Guard(err, errlen, [&]() -> Status {
    Place place;
    Status s = txd::PlaceOf(p, node, slot, 3, &place);
    if (s.ok()) s = txd::Over(p);
    if (s.ok() &&
        (size < 1 || nbuffer < 0 || nbuffer > size || ncomp < 0 ||
         (ncomp > 0 && nbuffer > std::numeric_limits<int>::max() / ncomp))) {
      s = Status::Error(TX_INVALID_ARGUMENT, "shuffle: bad buffer size or buffered elements");
    }
    if (!s.ok()) return s;
    txd::ShuffleStart start{size, key, {}, std::vector<int64_t>(stamp, stamp + p->stamp_size)};
    std::vector<txd::ArrayComponent> arrays =
        txd::Arrays(static_cast<int>(nbuffer * ncomp), dtypes, ranks, dims_flat, data);
    for (int64_t i = 0; i < nbuffer; ++i) {
      start.buffer.emplace_back(static_cast<size_t>(ncomp));
      for (int c = 0; c < ncomp; ++c) {
        s = txd::CopyIn(arrays[static_cast<size_t>(i * ncomp + c)], &start.buffer.back()[static_cast<size_t>(c)]);
        if (!s.ok()) return s;
      }
    }
    txd::ShuffleLog* log = nullptr;
    p->top = txd::MakeShuffle(std::move(p->top), std::move(start), place, &log);
    p->shuffles.push_back(TXD_Shuffle{node, slot, log});
    return s;
  });
}

int64_t txd_shuffle_buffer(TXD_Pipeline* p, int node, int64_t outputs, void** components, int64_t max, int* ncomp,
                           char* err, int64_t errlen) {
  int64_t count = 0;
  int rc = Guard(err, errlen, [&]() -> Status {
    const TXD_Shuffle* shuffle = txd::ShuffleOf(p, node);
    if (shuffle == nullptr) return Status::Error(TX_INVALID_ARGUMENT, "no shuffle node there");
    std::vector<std::vector<txd::Tensor>> buffer;
    Status s = shuffle->log->BufferAt(outputs, &buffer);
    if (!s.ok()) return s;
    *ncomp = buffer.empty() ? 0 : static_cast<int>(buffer[0].size());
    if (static_cast<int64_t>(buffer.size()) * *ncomp > max) return Status::Error(TX_INTERNAL, "shuffle: more than max");
    int64_t k = 0;
    for (auto& element : buffer) {
      for (txd::Tensor& t : element) components[k++] = t.release();
    }
    count = static_cast<int64_t>(buffer.size());
    return s;
  });
  return rc != 0 ? rc : count;
}

int txd_next(TXD_Pipeline* p, void** components, int max, int64_t* stamp, char* err, int64_t errlen) {
  txd::Element e;
  int code = 0;
  int rc = Guard(err, errlen, [&]() -> Status {
    Status s = txd::Over(p);
    if (s.ok()) s = p->top->Next(&e);
    code = s.code;
    return s;
  });
  if (rc != 0) return -2 - (code > 0 ? code : TX_INTERNAL);
  if (static_cast<int>(e.components.size()) > max) {
    return txd::Fail("an element has more components than expected", err, errlen, -2 - TX_INTERNAL);
  }
  for (size_t i = 0; i < e.stamp.size() && i < static_cast<size_t>(p->stamp_size); ++i) stamp[i] = e.stamp[i];
  for (const TXD_Shuffle& s : p->shuffles) {
    if (static_cast<size_t>(s.slot) < e.stamp.size()) s.log->Consumed(e.stamp[static_cast<size_t>(s.slot)]);
  }
  if (e.end) return -1;
  for (size_t i = 0; i < e.components.size(); ++i) components[i] = e.components[i].release();
  return static_cast<int>(e.components.size());
}

void txd_node_stats(const TXD_Pipeline* p, int node, int64_t* out3) {
  const txd::NodeCounters& c = p->counters[static_cast<size_t>(node)];
  out3[0] = c.elements.load();
  out3[1] = c.nanos.load();
  out3[2] = c.wait_nanos.load();
}

}  // extern "C"
