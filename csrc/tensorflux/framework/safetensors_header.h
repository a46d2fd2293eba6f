// The JSON header of a safetensors file (https://github.com/huggingface/safetensors): a strict,
// dependency-free parser for exactly the format's schema, its serializer, and the layout checks.
// See Note [Safetensors header parsing] in safetensors_header.cc.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tensorflux/core/dtype.h"
#include "tensorflux/core/shape.h"
#include "tensorflux/core/status.h"

namespace tx {

// Largest header the reader accepts, in bytes (the reference implementation's limit).
constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// One tensor entry of the header: its bytes are data[begin, end) of the file's data buffer.
struct SafetensorsTensorInfo {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

// A parsed header: tensors in header order, plus the optional "__metadata__" string map.
struct SafetensorsHeader {
  std::vector<SafetensorsTensorInfo> tensors;
  std::map<std::string, std::string> metadata;
};

// The format's name for `dt` ("F32", "BF16", ...), or nullptr when the format cannot hold it.
const char* SafetensorsDtypeName(DataType dt);

// Parses the header JSON `text` (trailing whitespace allowed, as writers pad with spaces) and
// checks each entry on its own (known dtype, byte length == elements * element size, unique
// names). DataLoss for malformed input, Unimplemented for a format dtype this engine cannot store;
// messages do not name the file (the caller prefixes them).
Status ParseSafetensorsHeader(std::string_view text, SafetensorsHeader* out);

// Checks that the entries tile [0, data_size) exactly: no overlap, no hole, nothing out of
// range, no trailing bytes. DataLoss otherwise.
Status CheckSafetensorsLayout(const SafetensorsHeader& header, uint64_t data_size);

// The serialized header for `tensors` (in file order, offsets already set) and `metadata` (written
// only when non-empty): compact JSON with "__metadata__" first, padded with spaces to a multiple
// of 8 bytes, byte-identical to the reference writer's for the same order.
std::string SerializeSafetensorsHeader(const std::vector<SafetensorsTensorInfo>& tensors,
                                       const std::map<std::string, std::string>& metadata);

// True when `s` is well-formed UTF-8 (JSON strings, and so names and metadata, must be).
bool IsValidUtf8(std::string_view s);

// Orders tensors as the reference writer does: larger-alignment dtypes first, then by name.
bool SafetensorsFileOrderLess(const SafetensorsTensorInfo& a, const SafetensorsTensorInfo& b);

}  // namespace tx
