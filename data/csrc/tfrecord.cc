// The records of TFRecord files, read with checksums verified: each record is its length (uint64,
// little-endian), the masked CRC32C of those 8 bytes, the data and the data's masked CRC32C; and the
// lines of text files, without their "\n" or "\r\n". Either may be GZIP or ZLIB compressed.
#include <nmmintrin.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "inflate.h"
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
  TFRecordIterator(std::vector<std::string> paths, bool lines, Compression compression, int64_t next_file, bool open,
                   int64_t offset, Place p)
      : paths_(std::move(paths)),
        lines_(lines),
        compression_(compression),
        next_file_(next_file),
        place_(p),
        resume_open_(open),
        resume_offset_(offset) {}

  ~TFRecordIterator() override { Close(); }

  Status Next(Element* out) override {
    Timed timed(place_.counters);
    int64_t count = 0;
    Status s = Produce(1, false, out, &count);
    out->end = s.ok() && count == 0;
    return s;
  }

  bool CanBatch() const override { return true; }

  Status NextBatch(int64_t n, Element* out, int64_t* count) override {
    Timed timed(place_.counters);
    return Produce(n, true, out, count);
  }

 private:
  // Reads up to `n` next records into one string tensor in `out` (a vector when `batched`, else a
  // scalar; nothing when the files are done), their number in `*count`. The records gather back to
  // back in arena_, then move in one copy into the tensor's own string storage, which its elements
  // view (Note [String storage] in core): one allocation per batch, none per record.
  Status Produce(int64_t n, bool batched, Element* out, int64_t* count) {
    out->components.clear();
    arena_.clear();
    lengths_.clear();
    *count = 0;
    Status s = Read(n, count, [&](const char* p, size_t size) {
      arena_.append(p, size);
      lengths_.push_back(size);
    });
    if (!s.ok()) return s;
    if (*count > 0) {
      char* storage = nullptr;
      int64_t dim = *count;
      Tensor t(api.TX_AllocateStringTensor(&dim, batched ? 1 : 0, arena_.size(), &storage));
      if (t.get() == nullptr) return Status::Error(TX_RESOURCE_EXHAUSTED, Name() + ": cannot make a batch");
      if (!arena_.empty()) std::memcpy(storage, arena_.data(), arena_.size());
      auto* to = static_cast<TX_TString*>(api.TX_TensorData(t.get()));
      for (int64_t i = 0; i < *count; ++i) {
        const size_t size = lengths_[static_cast<size_t>(i)];
        api.TX_StringAssignView(&to[i], storage, size);
        storage += size;
      }
      out->components.push_back(std::move(t));
    }
    place_.counters->elements.fetch_add(*count, std::memory_order_relaxed);
    Stamp(out);
    return s;
  }

  // The dataset this reads for, as errors name it.
  std::string Name() const { return lines_ ? "TextLineDataset" : "TFRecordDataset"; }

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
    path_ = path;
    offset_ = 0;
    len_ = 0;
    pos_ = 0;
    eof_ = false;
    stream_status_ = Status{};
    if (compression_ != Compression::kNone) {
      inflater_ = std::make_unique<Inflater>(
          file_, compression_ == Compression::kGzip ? Inflater::Framing::kGzip : Inflater::Framing::kZlib);
      file_size_ = INT64_MAX;  // the uncompressed length is known only at the end
      while (offset_ < offset) {  // a compressed stream resumes by decoding up to its offset
        size_t step = static_cast<size_t>(std::min<int64_t>(offset - offset_, static_cast<int64_t>(kChunk)));
        Want(step);
        size_t got = std::min(step, len_ - pos_);
        if (got == 0) return StreamError("cannot resume at byte offset " + std::to_string(offset) + ", the end");
        pos_ += got;
        offset_ += static_cast<int64_t>(got);
      }
      return Status{};
    }
    struct stat info;
    file_size_ = fstat(fileno(file_), &info) == 0 ? static_cast<int64_t>(info.st_size) : INT64_MAX;
    if (offset > 0 && std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0) {
      return Status::Error(TX_DATA_LOSS, path + ": cannot seek to byte offset " + std::to_string(offset));
    }
    offset_ = offset;
    return Status{};
  }

  void Close() {
    inflater_.reset();
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }

  // The error of a record the end of the stream cut short: why the stream stopped early when it
  // did (corrupt compressed data, no memory), else DATA_LOSS `what` at the record's offset.
  Status StreamError(const std::string& what) const {
    if (!stream_status_.ok()) return stream_status_;
    return Status::Error(TX_DATA_LOSS, path_ + ": " + what + " at byte offset " + std::to_string(offset_));
  }

  // Makes at least `n` bytes from pos_ available unless the stream ends first. The buffer grows
  // only as bytes arrive (a corrupt length in a compressed file allocates nothing ahead of them)
  // and is never zero-filled.
  void Want(size_t n) {
    if (len_ - pos_ >= n || eof_) return;
    len_ -= pos_;
    if (len_ > 0) std::memmove(buf_.get(), buf_.get() + pos_, len_);
    pos_ = 0;
    while (len_ < n && !eof_) {
      if (len_ == cap_) {
        size_t cap = std::max(2 * cap_, kChunk);
        std::unique_ptr<char[]> bigger(new (std::nothrow) char[cap]);
        if (bigger == nullptr) {
          stream_status_ = Status::Error(
              TX_RESOURCE_EXHAUSTED,
              path_ + ": no memory for " + std::to_string(n) + " bytes at byte offset " + std::to_string(offset_));
          eof_ = true;
          return;
        }
        if (len_ > 0) std::memcpy(bigger.get(), buf_.get(), len_);
        buf_ = std::move(bigger);
        cap_ = cap;
      }
      size_t want = cap_ - len_;
      size_t got = inflater_ != nullptr ? inflater_->Read(buf_.get() + len_, want)
                                        : std::fread(buf_.get() + len_, 1, want, file_);
      len_ += got;
      if (inflater_ != nullptr ? got == 0 : got < want) {
        eof_ = true;
        if (inflater_ != nullptr && !inflater_->error().empty()) {
          stream_status_ = Status::Error(TX_DATA_LOSS,
                                         path_ + ": corrupt compressed data near byte " +
                                             std::to_string(offset_ + static_cast<int64_t>(len_)) +
                                             " of the uncompressed stream (" + inflater_->error() + ")");
        }
      }
    }
  }

  // Reads up to `n` next records (fewer only at the end of the last file), passing each record's
  // bytes to `sink(data, size)` (valid only during the call: reading on may move the buffer) and
  // counting them in `*count`.
  template <typename Sink>
  Status Read(int64_t n, int64_t* count, Sink&& sink) {
    if (resume_open_) {
      resume_open_ = false;
      if (next_file_ < 1 || next_file_ > static_cast<int64_t>(paths_.size())) {
        return Status::Error(TX_INVALID_ARGUMENT, Name() + ": bad resume position");
      }
      Status s = Open(paths_[static_cast<size_t>(next_file_ - 1)], resume_offset_);
      if (!s.ok()) return s;
    }
    while (*count < n) {
      if (file_ == nullptr) {
        if (next_file_ >= static_cast<int64_t>(paths_.size())) break;
        Status s = Open(paths_[static_cast<size_t>(next_file_)], 0);
        ++next_file_;
        if (!s.ok()) return s;
      }
      if (lines_) {
        bool got = false;
        Status s = ReadLine(&got, sink);
        if (!s.ok()) return s;
        if (got) {
          ++*count;
        } else {
          Close();
        }
        continue;
      }
      Want(12);
      size_t avail = len_ - pos_;
      if (avail == 0) {
        if (!stream_status_.ok()) return stream_status_;
        Close();
        continue;
      }
      const char* at = buf_.get() + pos_;
      if (avail < 12) return StreamError("corrupt record header");
      if (MaskedCrc(at, 8) != LoadU32(at + 8)) {
        return Status::Error(TX_DATA_LOSS, path_ + ": corrupt record header at byte offset " + std::to_string(offset_));
      }
      uint64_t length;
      std::memcpy(&length, at, 8);
      if (length > static_cast<uint64_t>(file_size_ - offset_)) {  // never read (or allocate) past the file
        return Status::Error(TX_DATA_LOSS, path_ + ": truncated record at byte offset " + std::to_string(offset_));
      }
      Want(12 + length + 4);
      at = buf_.get() + pos_;
      if (len_ - pos_ < 12 + length + 4) return StreamError("truncated record");
      if (MaskedCrc(at + 12, length) != LoadU32(at + 12 + length)) {
        return Status::Error(TX_DATA_LOSS, path_ + ": corrupt record at byte offset " + std::to_string(offset_));
      }
      sink(at + 12, static_cast<size_t>(length));
      ++*count;
      pos_ += 16 + length;
      offset_ += static_cast<int64_t>(16 + length);
    }
    return Status{};
  }

  // Passes the next line of the open file to `sink` and sets *got, or leaves it false at the file's
  // end. A last line without "\n" counts; "\r" before the end of a line is dropped. A stream that
  // breaks before a line's end is its error (the Python engine drops such a line too).
  template <typename Sink>
  Status ReadLine(bool* got, Sink&& sink) {
    size_t scanned = 0;  // bytes from pos_ known to hold no "\n"
    for (;;) {
      const char* start = buf_.get() + pos_;
      size_t avail = len_ - pos_;
      const void* nl = avail > scanned ? std::memchr(start + scanned, '\n', avail - scanned) : nullptr;
      if (nl != nullptr || (eof_ && avail > 0 && stream_status_.ok())) {
        size_t end = nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - start) : avail;
        size_t used = nl != nullptr ? end + 1 : end;
        sink(start, end > 0 && start[end - 1] == '\r' ? end - 1 : end);
        pos_ += used;
        offset_ += static_cast<int64_t>(used);
        *got = true;
        return Status{};
      }
      if (eof_) return stream_status_;  // the end of the file, or why the stream broke
      scanned = avail;
      Want(avail + 1);
    }
  }

  std::vector<std::string> paths_;
  bool lines_;
  Compression compression_;
  int64_t next_file_;
  Place place_;
  bool resume_open_;
  int64_t resume_offset_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<Inflater> inflater_;  // a compressed file's decoder (reads file_)
  Status stream_status_;  // why the stream stopped early (OK while it has not)
  std::string path_;
  int64_t offset_ = 0;
  int64_t file_size_ = 0;
  std::unique_ptr<char[]> buf_;  // bytes read from the file: [pos_, len_) not yet consumed
  size_t cap_ = 0;
  size_t len_ = 0;
  std::string arena_;  // the records of the batch being read, back to back
  std::vector<size_t> lengths_;  // and their lengths
  size_t pos_ = 0;
  bool eof_ = false;
};

}  // namespace

std::unique_ptr<Iterator> MakeTFRecord(std::vector<std::string> paths, Compression compression, int64_t next_file,
                                       bool open, int64_t offset, Place p) {
  return std::make_unique<TFRecordIterator>(std::move(paths), false, compression, next_file, open, offset, p);
}

std::unique_ptr<Iterator> MakeTextLines(std::vector<std::string> paths, Compression compression, int64_t next_file,
                                        bool open, int64_t offset, Place p) {
  return std::make_unique<TFRecordIterator>(std::move(paths), true, compression, next_file, open, offset, p);
}

}  // namespace txd
