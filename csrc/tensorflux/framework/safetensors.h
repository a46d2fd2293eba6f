// Checkpoint file I/O in the safetensors format (https://github.com/huggingface/safetensors):
// an 8-byte little-endian header length N, N bytes of JSON header, then the raw tensor bytes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorflux/core/status.h"
#include "tensorflux/core/tensor.h"
#include "tensorflux/framework/safetensors_header.h"

namespace tx {

// Writes `tensors` (unique, non-empty names; dtypes the format holds) and `metadata` to `path`
// atomically: the bytes go to "<path>.tmp-<pid>-<random>@<host>", which is fsynced and then renamed over
// `path`, so a failure or crash never leaves a partial file at `path` (a previous file there stays
// intact until the rename). Temporaries of `path` left by a process that no longer exists (a save
// killed midway) are removed first. InvalidArgument for bad arguments; I/O errors name the file.
Status WriteSafetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata);

// Reads every tensor of the file at `path` (in header order) and its metadata. The whole header
// and layout are checked before any tensor memory is allocated; corrupt files give DataLoss naming
// the file and the problem. Outputs are assigned only on success.
Status ReadSafetensors(const std::string& path, std::vector<std::pair<std::string, Tensor>>* tensors,
                       std::map<std::string, std::string>* metadata);

// An open safetensors file whose header has been read and checked; tensors are read on demand.
// ReadTensor may be called from several threads at once.
class SafetensorsReader {
 public:
  // Opens `path`, reads and checks the header and layout against the file's size.
  static Status Open(const std::string& path, std::unique_ptr<SafetensorsReader>* out);
  ~SafetensorsReader();
  SafetensorsReader(const SafetensorsReader&) = delete;
  SafetensorsReader& operator=(const SafetensorsReader&) = delete;

  const std::string& path() const { return path_; }
  // The tensor entries in header order.
  const std::vector<SafetensorsTensorInfo>& tensors() const { return header_.tensors; }
  const std::map<std::string, std::string>& metadata() const { return header_.metadata; }
  // Reads entry `i` (0 <= i < tensors().size()) into a new engine-allocated tensor; DataLoss if
  // the file shrank since Open.
  Status ReadTensor(size_t i, Tensor* out) const;

 private:
  SafetensorsReader(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_;
  uint64_t data_start_ = 0;  // file offset of the data buffer
  SafetensorsHeader header_;
};

}  // namespace tx
