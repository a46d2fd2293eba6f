// Decompression of TensorFlow's "ZLIB" and "GZIP" files: one DEFLATE stream (RFC 1951) in zlib
// (RFC 1950) or gzip (RFC 1952) framing, read from a file.
#ifndef TENSORFLUX_DATA_INFLATE_H_
#define TENSORFLUX_DATA_INFLATE_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace txd {

// Decodes the stream at a file's current position as Python's zlib.decompressobj does for the
// same window bits: one stream (one gzip member) with its checksums verified, the bytes after it
// ignored; an empty file is an empty stream. Note [Inflate] in inflate.cc.
class Inflater {
 public:
  enum class Framing { kZlib, kGzip };

  // Reads `file` (borrowed, kept open by the caller while this reads it).
  Inflater(std::FILE* file, Framing framing);
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Writes up to `n` next uncompressed bytes to `dst` and returns how many; 0 once the stream has
  // ended, or at an error. Bytes decoded before corrupt or truncated data are returned first; the
  // call after them returns 0 with error() set.
  size_t Read(char* dst, size_t n);
  // Why the stream broke ("" while it has not).
  const std::string& error() const { return error_; }

 private:
  struct Huffman;
  enum class State { kHeader, kBlock, kStored, kCodes, kTrailer, kDone, kError };

  bool Fail(const char* why);
  // Decodes until `want` bytes are waiting in out_ or the stream ends or breaks.
  void Decode(size_t want);
  bool Header();
  bool BlockHeader();
  bool DynamicTables();
  bool Stored(size_t want);
  bool Codes(size_t want);
  bool Trailer();
  bool Symbol(const Huffman& h, int* symbol);
  bool Bits(int n, uint32_t* out);
  bool Byte(uint8_t* out);
  void AlignToByte();
  bool Refill();
  // Moves the next input byte into the bit buffer; false at the end of the file.
  bool PullByte();
  // Adds out_'s bytes from checked_ on to the checksums.
  void Checksum();

  std::FILE* file_;
  Framing framing_;
  State state_ = State::kHeader;
  std::string error_;
  bool last_block_ = false;
  // Compressed input: in_[in_pos_, in_len_) not yet read; bits_ holds bit_count_ bits read ahead.
  std::vector<uint8_t> in_;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  bool in_eof_ = false;
  bool any_input_ = false;
  uint64_t bits_ = 0;
  int bit_count_ = 0;
  // Decoded output: out_[out_pos_, size) not yet returned; the 32 KiB before out_pos_ are kept for
  // back-references.
  std::vector<char> out_;
  size_t out_pos_ = 0;
  size_t stored_left_ = 0;
  std::unique_ptr<Huffman> lengths_;
  std::unique_ptr<Huffman> distances_;
  // Checksums over the whole output: Adler-32 (zlib) or CRC-32 and the length (gzip).
  uint32_t adler_a_ = 1;
  uint32_t adler_b_ = 0;
  uint32_t crc_ = 0;
  uint64_t total_ = 0;
  size_t checked_ = 0;  // out_ bytes already in the checksums
};

}  // namespace txd

#endif  // TENSORFLUX_DATA_INFLATE_H_
