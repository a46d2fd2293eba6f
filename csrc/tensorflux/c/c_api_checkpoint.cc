// C API: checkpoints in the safetensors format, over framework/safetensors.h.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/c/c_api_internal.h"
#include "tensorflux/core/canonical_bool.h"
#include "tensorflux/framework/safetensors.h"

// An open safetensors file plus its metadata as an indexable list (sorted by key).
struct TX_Safetensors {
  std::unique_ptr<tx::SafetensorsReader> reader;
  std::vector<std::pair<std::string, std::string>> metadata;
};

using namespace tx::capi;

namespace {

const tx::SafetensorsTensorInfo* Entry(const TX_Safetensors* st, int i) {
  if (st == nullptr || i < 0 || static_cast<size_t>(i) >= st->reader->tensors().size()) return nullptr;
  return &st->reader->tensors()[static_cast<size_t>(i)];
}

const std::pair<std::string, std::string>* MetaEntry(const TX_Safetensors* st, int i) {
  if (st == nullptr || i < 0 || static_cast<size_t>(i) >= st->metadata.size()) return nullptr;
  return &st->metadata[static_cast<size_t>(i)];
}

const char* StringOut(const std::string* s, size_t* length) {
  if (length != nullptr) *length = s == nullptr ? 0 : s->size();
  return s == nullptr ? nullptr : s->c_str();
}

// Copies the C arguments of TX_SaveSafetensors into engine types.
tx::Status CollectSaveArgs(const char* const* names, TX_Tensor* const* tensors, int n, const char* const* meta_keys,
                           const char* const* meta_values, int nmeta,
                           std::vector<std::pair<std::string, tx::Tensor>>* out,
                           std::map<std::string, std::string>* metadata) {
  if (n < 0 || nmeta < 0) return tx::InvalidArgument("negative tensor or metadata count");
  if (n > 0 && (names == nullptr || tensors == nullptr)) return tx::InvalidArgument("names or tensors is NULL");
  if (nmeta > 0 && (meta_keys == nullptr || meta_values == nullptr))
    return tx::InvalidArgument("meta_keys or meta_values is NULL");
  out->reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (names[i] == nullptr) return tx::InvalidArgument("name #", i, " is NULL");
    if (tensors[i] == nullptr) return tx::InvalidArgument("tensor '", names[i], "' is NULL");
    tx::Tensor value;
    TX_RETURN_IF_ERROR(tx::AdoptCallerTensor(tensors[i]->tensor, &value));  // Note [Canonical bool]
    out->emplace_back(names[i], std::move(value));
  }
  for (int i = 0; i < nmeta; ++i) {
    if (meta_keys[i] == nullptr || meta_values[i] == nullptr)
      return tx::InvalidArgument("metadata entry #", i, " has a NULL key or value");
    if (!metadata->emplace(meta_keys[i], meta_values[i]).second)
      return tx::InvalidArgument("duplicate metadata key '", meta_keys[i], "'");
  }
  return tx::Status::OK();
}

}  // namespace

extern "C" {

void TX_SaveSafetensors(const char* path, const char* const* names, TX_Tensor* const* tensors, int n,
                        const char* const* meta_keys, const char* const* meta_values, int nmeta, TX_Status* status) {
  Guard(status, [&]() -> tx::Status {
    if (path == nullptr) return tx::InvalidArgument("cannot save a safetensors file: the path is NULL");
    std::vector<std::pair<std::string, tx::Tensor>> items;
    std::map<std::string, std::string> metadata;
    TX_RETURN_IF_ERROR(CollectSaveArgs(names, tensors, n, meta_keys, meta_values, nmeta, &items, &metadata)
                           .WithPrefix(tx::StrCat("cannot save safetensors file '", path, "': ")));
    return tx::WriteSafetensors(path, items, metadata);
  });
}

TX_Safetensors* TX_LoadSafetensors(const char* path, TX_Status* status) {
  TX_Safetensors* result = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (path == nullptr) return tx::InvalidArgument("cannot load a safetensors file: the path is NULL");
    auto st = std::make_unique<TX_Safetensors>();
    TX_RETURN_IF_ERROR(tx::SafetensorsReader::Open(path, &st->reader));
    st->metadata.assign(st->reader->metadata().begin(), st->reader->metadata().end());
    result = st.release();
    return tx::Status::OK();
  });
  return result;
}

void TX_DeleteSafetensors(TX_Safetensors* st) { delete st; }

int TX_SafetensorsNumTensors(const TX_Safetensors* st) {
  return st == nullptr ? 0 : static_cast<int>(st->reader->tensors().size());
}

const char* TX_SafetensorsName(const TX_Safetensors* st, int i, size_t* length) {
  const tx::SafetensorsTensorInfo* e = Entry(st, i);
  return StringOut(e == nullptr ? nullptr : &e->name, length);
}

TX_DataType TX_SafetensorsTensorType(const TX_Safetensors* st, int i) {
  const tx::SafetensorsTensorInfo* e = Entry(st, i);
  return static_cast<TX_DataType>(e == nullptr ? 0 : e->dtype);
}

int TX_SafetensorsTensorNumDims(const TX_Safetensors* st, int i) {
  const tx::SafetensorsTensorInfo* e = Entry(st, i);
  return e == nullptr ? -1 : e->shape.rank();
}

int64_t TX_SafetensorsTensorDim(const TX_Safetensors* st, int i, int dim_index) {
  const tx::SafetensorsTensorInfo* e = Entry(st, i);
  if (e == nullptr || dim_index < 0 || dim_index >= e->shape.rank()) return -1;
  return e->shape.dim(dim_index);
}

TX_Tensor* TX_SafetensorsTensor(TX_Safetensors* st, int i, TX_Status* status) {
  TX_Tensor* result = nullptr;
  Guard(status, [&]() -> tx::Status {
    if (st == nullptr) return tx::InvalidArgument("TX_SafetensorsTensor: the file handle is NULL");
    if (i < 0) return tx::OutOfRange("safetensors file '", st->reader->path(), "': no tensor #", i);
    tx::Tensor t;
    TX_RETURN_IF_ERROR(st->reader->ReadTensor(static_cast<size_t>(i), &t));
    result = new TX_Tensor{std::move(t)};
    return tx::Status::OK();
  });
  return result;
}

int TX_SafetensorsNumMetadata(const TX_Safetensors* st) {
  return st == nullptr ? 0 : static_cast<int>(st->metadata.size());
}

const char* TX_SafetensorsMetadataKey(const TX_Safetensors* st, int i, size_t* length) {
  const auto* e = MetaEntry(st, i);
  return StringOut(e == nullptr ? nullptr : &e->first, length);
}

const char* TX_SafetensorsMetadataValue(const TX_Safetensors* st, int i, size_t* length) {
  const auto* e = MetaEntry(st, i);
  return StringOut(e == nullptr ? nullptr : &e->second, length);
}

}  // extern "C"
