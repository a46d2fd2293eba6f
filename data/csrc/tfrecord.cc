// TFRecord files read with checksums verified: each record is its length (uint64, little-endian),
// the masked CRC32C of those 8 bytes, the data and the data's masked CRC32C.
#include <nmmintrin.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "nodes.h"

namespace txd {
namespace {

constexpr size_t kChunk = 1 << 20;  // bytes read from the file at once

// CRC32C (Castagnoli) of `n` bytes, with the SSE4.2 instruction.
uint32_t Crc32c(const char* p, size_t n) {
  uint64_t crc = 0xFFFFFFFFu;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    crc = _mm_crc32_u64(crc, word);
  }
  auto c = static_cast<uint32_t>(crc);
  for (; n > 0; ++p, --n) c = _mm_crc32_u8(c, static_cast<uint8_t>(*p));
  return c ^ 0xFFFFFFFFu;
}

// TFRecord's masked CRC32C.
uint32_t MaskedCrc(const char* p, size_t n) {
  uint32_t c = Crc32c(p, n);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

class TFRecordIterator : public Iterator {
 public:
  TFRecordIterator(std::vector<std::string> paths, int64_t next_file, bool open, int64_t offset, Place p)
      : paths_(std::move(paths)), next_file_(next_file), place_(p), resume_open_(open), resume_offset_(offset) {}

  ~TFRecordIterator() override { Close(); }

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    Status s = Read(1);
    if (!s.ok()) return s;
    out->components.clear();
    out->end = lengths_.empty();
    if (!out->end) {
      TX_Tensor* t = api.TX_AllocateTensor(TX_STRING, nullptr, 0, sizeof(TX_TString));
      if (t == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, "TFRecordDataset: cannot make a tensor");
      Fill(t);
      out->components.emplace_back(t);
    }
    Stamp(out);
    return s;
  }

  bool CanBatch() const override { return true; }

  Status NextBatch(int64_t n, Element* out, int64_t* count) override {
    Timed timed(place_.counters);
    Status s = Read(n);
    if (!s.ok()) return s;
    out->components.clear();
    *count = static_cast<int64_t>(lengths_.size());
    if (*count > 0) {
      int64_t dim = *count;
      TX_Tensor* t = api.TX_AllocateTensor(TX_STRING, &dim, 1, sizeof(TX_TString) * lengths_.size());
      if (t == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, "TFRecordDataset: cannot make a batch");
      Fill(t);
      out->components.emplace_back(t);
    }
    Stamp(out);
    return s;
  }

 private:
  // Writes the records of the last Read into string tensor `t`.
  void Fill(TX_Tensor* t) {
    auto* dst = static_cast<TX_TString*>(api.TX_TensorData(t));
    const char* at = arena_.data();
    for (size_t i = 0; i < lengths_.size(); ++i) {
      api.TX_StringCopy(&dst[i], at, lengths_[i]);
      at += lengths_[i];
    }
    place_.counters->elements.fetch_add(static_cast<int64_t>(lengths_.size()), std::memory_order_relaxed);
  }

  void Stamp(Element* out) const {
    out->stamp.assign(static_cast<size_t>(place_.stamp_size), 0);
    auto* s = &out->stamp[static_cast<size_t>(place_.slot)];
    s[0] = next_file_;
    s[1] = file_ != nullptr ? 1 : 0;
    s[2] = offset_;
  }

  Status Open(const std::string& path, int64_t offset) {
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) return Status::Error(TX_NOT_FOUND, path + ": " + std::strerror(errno));
    struct stat info;
    file_size_ = fstat(fileno(file_), &info) == 0 ? static_cast<int64_t>(info.st_size) : INT64_MAX;
    if (offset > 0 && std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0) {
      return Status::Error(TX_DATA_LOSS, path + ": cannot seek to byte offset " + std::to_string(offset));
    }
    path_ = path;
    offset_ = offset;
    buf_.clear();
    pos_ = 0;
    eof_ = false;
    return Status{};
  }

  void Close() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }

  // Makes at least `n` bytes from pos_ available unless the file ends first.
  void Want(size_t n) {
    if (buf_.size() - pos_ >= n || eof_) return;
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
    pos_ = 0;
    while (buf_.size() < n && !eof_) {
      size_t have = buf_.size();
      size_t want = std::max(kChunk, n - have);
      buf_.resize(have + want);
      size_t got = std::fread(buf_.data() + have, 1, want, file_);
      buf_.resize(have + got);
      if (got < want) eof_ = true;
    }
  }

  // Reads up to `n` next records (fewer only at the end of the last file) into arena_ and lengths_:
  // copied out of the read buffer, which reading a later record may move.
  Status Read(int64_t n) {
    arena_.clear();
    lengths_.clear();
    if (resume_open_) {
      resume_open_ = false;
      if (next_file_ < 1 || next_file_ > static_cast<int64_t>(paths_.size())) {
        return Status::Error(TX_INVALID_ARGUMENT, "TFRecordDataset: bad resume position");
      }
      Status s = Open(paths_[static_cast<size_t>(next_file_ - 1)], resume_offset_);
      if (!s.ok()) return s;
    }
    while (static_cast<int64_t>(lengths_.size()) < n) {
      if (file_ == nullptr) {
        if (next_file_ >= static_cast<int64_t>(paths_.size())) break;
        Status s = Open(paths_[static_cast<size_t>(next_file_)], 0);
        ++next_file_;
        if (!s.ok()) return s;
      }
      Want(12);
      size_t avail = buf_.size() - pos_;
      if (avail == 0) {
        Close();
        continue;
      }
      const char* at = buf_.data() + pos_;
      if (avail < 12 || MaskedCrc(at, 8) != LoadU32(at + 8)) {
        return Status::Error(TX_DATA_LOSS, path_ + ": corrupt record header at byte offset " + std::to_string(offset_));
      }
      uint64_t length;
      std::memcpy(&length, at, 8);
      if (length > static_cast<uint64_t>(file_size_ - offset_)) {  // never read (or allocate) past the file
        return Status::Error(TX_DATA_LOSS, path_ + ": truncated record at byte offset " + std::to_string(offset_));
      }
      Want(12 + length + 4);
      at = buf_.data() + pos_;
      if (buf_.size() - pos_ < 12 + length + 4 || MaskedCrc(at + 12, length) != LoadU32(at + 12 + length)) {
        return Status::Error(TX_DATA_LOSS, path_ + ": corrupt record at byte offset " + std::to_string(offset_));
      }
      arena_.append(at + 12, length);
      lengths_.push_back(static_cast<size_t>(length));
      pos_ += 16 + length;
      offset_ += static_cast<int64_t>(16 + length);
    }
    return Status{};
  }

  std::vector<std::string> paths_;
  int64_t next_file_;
  Place place_;
  bool resume_open_;
  int64_t resume_offset_;
  std::FILE* file_ = nullptr;
  std::string path_;
  int64_t offset_ = 0;
  int64_t file_size_ = 0;
  std::vector<char> buf_;
  std::string arena_;  // the records of the last Read, back to back
  std::vector<size_t> lengths_;  // and their lengths
  size_t pos_ = 0;
  bool eof_ = false;
};

}  // namespace

std::unique_ptr<Iterator> MakeTFRecord(std::vector<std::string> paths, int64_t next_file, bool open, int64_t offset,
                                       Place p) {
  return std::make_unique<TFRecordIterator>(std::move(paths), next_file, open, offset, p);
}

}  // namespace txd
