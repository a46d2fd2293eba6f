// The engine's shared helpers: timing, shapes, stacking and its eager context.
#include "engine.h"
#include "nodes.h"

#include <chrono>
#include <cstring>
#include <mutex>

namespace txd {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Timed::Timed(NodeCounters* c) : c_(c), start_(NowNanos()) {}

Timed::~Timed() { c_->nanos.fetch_add(NowNanos() - start_, std::memory_order_relaxed); }

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> DimsOf(const TX_Tensor* t) {
  std::vector<int64_t> dims(static_cast<size_t>(api.TX_NumDims(t)));
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = api.TX_Dim(t, static_cast<int>(i));
  return dims;
}

void CopyStrings(TX_TString* dst, const TX_TString* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    api.TX_StringCopy(&dst[i], api.TX_StringGetDataPointer(&src[i]), api.TX_StringGetSize(&src[i]));
  }
}

Status Stack(const std::vector<const TX_Tensor*>& parts, const char* what, Tensor* out) {
  const TX_Tensor* first = parts.front();
  TX_DataType dtype = api.TX_TensorType(first);
  std::vector<int64_t> dims = DimsOf(first);
  size_t bytes = api.TX_TensorByteSize(first);
  for (const TX_Tensor* p : parts) {
    if (api.TX_TensorType(p) != dtype || DimsOf(p) != dims) {
      return Status::Error(TX_INVALID_ARGUMENT, std::string(what) + ": elements of different shapes or dtypes");
    }
  }
  std::vector<int64_t> stacked_dims{static_cast<int64_t>(parts.size())};
  stacked_dims.insert(stacked_dims.end(), dims.begin(), dims.end());
  TX_Tensor* t =
      api.TX_AllocateTensor(dtype, stacked_dims.data(), static_cast<int>(stacked_dims.size()), bytes * parts.size());
  if (t == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, std::string(what) + ": cannot allocate a batch");
  out->reset(t);
  char* dst = static_cast<char*>(api.TX_TensorData(t));
  for (const TX_Tensor* p : parts) {
    CopyData(p, dst);
    dst += bytes;
  }
  return Status{};
}

void CopyData(const TX_Tensor* src, void* dst) {
  size_t bytes = api.TX_TensorByteSize(src);
  if (api.TX_TensorType(src) == TX_STRING) {
    CopyStrings(static_cast<TX_TString*>(dst), static_cast<const TX_TString*>(api.TX_TensorData(src)),
                static_cast<int64_t>(bytes / sizeof(TX_TString)));
  } else if (bytes > 0) {
    std::memcpy(dst, api.TX_TensorData(src), bytes);
  }
}

Tensor CopyOf(const TX_Tensor* t) {
  if (api.TX_TensorType(t) == TX_VARIANT || api.TX_TensorType(t) == TX_RESOURCE) return Tensor();
  std::vector<int64_t> dims = DimsOf(t);
  TX_Tensor* out =
      api.TX_AllocateTensor(api.TX_TensorType(t), dims.data(), static_cast<int>(dims.size()), api.TX_TensorByteSize(t));
  if (out != nullptr) CopyData(t, api.TX_TensorData(out));
  return Tensor(out);
}

namespace {

// SplitMix64's finaliser, as the package's _seeds._mix.
uint64_t Mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

Tensor Alias(std::shared_ptr<const Tensor> owner) {
  const TX_Tensor* t = owner->get();
  std::vector<int64_t> dims = DimsOf(t);
  auto* hold = new std::shared_ptr<const Tensor>(std::move(owner));
  auto release = [](void*, size_t, void* arg) { delete static_cast<std::shared_ptr<const Tensor>*>(arg); };
  return Tensor(api.TX_NewTensor(api.TX_TensorType(t), dims.data(), static_cast<int>(dims.size()), api.TX_TensorData(t),
                                 api.TX_TensorByteSize(t), release, hold));  // on failure it ran `release`
}

uint64_t KeyedWord(uint64_t key, uint64_t counter) { return Mix(key ^ Mix(counter)); }

Tensor ElementSeeds(uint64_t seed0, int64_t first, int64_t n, bool stacked) {
  int64_t dims[2] = {stacked ? n : 1, 1};
  TX_Tensor* t = api.TX_AllocateTensor(TX_UINT64, stacked ? dims : dims + 1, stacked ? 2 : 1,
                                       sizeof(uint64_t) * static_cast<size_t>(n));
  if (t == nullptr) return Tensor();
  auto* keys = static_cast<uint64_t*>(api.TX_TensorData(t));
  for (int64_t j = 0; j < n; ++j) keys[j] = KeyedWord(seed0, static_cast<uint64_t>(first + j));
  return Tensor(t);
}

TXE_Context* Context(Status* status) {
  static std::mutex mu;
  static TXE_Context* ctx = nullptr;  // lives as long as the process: functions stay registered
  std::lock_guard<std::mutex> lock(mu);
  if (ctx == nullptr) {
    TX_Status* s = api.TX_NewStatus();
    TXE_ContextOptions* opts = api.TXE_NewContextOptions();
    ctx = api.TXE_NewContext(opts, s);
    api.TXE_DeleteContextOptions(opts);
    if (api.TX_GetCode(s) != TX_OK) {
      *status = Status::Error(api.TX_GetCode(s), api.TX_Message(s));
      ctx = nullptr;
    }
    api.TX_DeleteStatus(s);
  }
  return ctx;
}

}  // namespace txd
