// DEFLATE decoding for the TFRecord reader's compressed files.
#include "inflate.h"

#include <algorithm>
#include <cstring>

namespace txd {

// Note [Inflate]
// A compressed TFRecord file is read as the Python engine reads it (zlib.decompressobj with
// TensorFlow's window bits), so the native reader gives the same records and fails where it
// fails: the first stream (gzip member) only, bytes after it ignored; an empty file is an empty
// stream; zlib's header, block, code-set and checksum rules, each an error naming what broke
// (the wording of zlib's own messages). Bytes decoded before a fault are delivered before its
// error, as the Python engine delivers them (it re-feeds a failing chunk byte by byte to find
// them), so a corrupt file yields the same records on either engine at any chunk size.
//
// Decoding is the textbook one (RFC 1951): Huffman codes up to 10 bits are looked up in a table
// indexed by the next input bits, longer ones are decoded bit by bit from the canonical counts.
// Output is decoded ahead into out_, which keeps the 32 KiB before the unread bytes for
// back-references; each call decodes at most about what was asked, so a stream that expands
// enormously never needs more memory than its reader takes at once.

namespace {

constexpr size_t kInputChunk = 1 << 16;  // compressed bytes read from the file at once
constexpr size_t kWindow = 1 << 15;  // the farthest a back-reference reaches
constexpr size_t kDecodeAhead = 1 << 16;  // the least a decoding step produces when it can
constexpr int kFastBits = 10;  // codes this short are decoded by one table lookup
constexpr int kMaxBits = 15;  // the longest DEFLATE code

constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistanceBase[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                        33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                        1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistanceExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order in which a dynamic block lists the code lengths of its code-length code.
constexpr uint8_t kCodeLengthOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

// The CRC-32 (IEEE, reflected) of gzip, eight bytes at a step ("slicing by 8": table k gives the
// CRC of a byte followed by k zero bytes).
const uint32_t (*CrcTables())[256] {
  static const auto* tables = [] {
    auto* t = new uint32_t[8][256];
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (int k = 1; k < 8; ++k) {
      for (uint32_t i = 0; i < 256; ++i) t[k][i] = t[0][t[k - 1][i] & 0xFF] ^ (t[k - 1][i] >> 8);
    }
    return t;
  }();
  return tables;
}

uint32_t UpdateCrc(uint32_t crc, const uint8_t* p, size_t n) {
  const uint32_t (*t)[256] = CrcTables();
  crc = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint32_t lo = crc ^ (p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24);
    crc = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^ t[3][p[4]] ^
        t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; ++p, --n) crc = t[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

}  // namespace

// A canonical Huffman code: a table for the short codes and the counts for the rest.
struct Inflater::Huffman {
  uint16_t fast[1 << kFastBits];  // by the next kFastBits input bits: symbol << 4 | code length; 0: longer
  uint16_t count[kMaxBits + 1];  // how many codes have each length
  uint16_t symbol[288];  // the symbols in code order

  // Builds the code of `n` symbols with code lengths `lengths` (0: unused). Fails on lengths that
  // over-subscribe the code, or leave it incomplete unless `incomplete_ok` and it is one code of
  // length 1 (zlib's rules; a set with no codes at all is valid, and no input decodes with it).
  bool Build(const uint8_t* lengths, int n, bool incomplete_ok) {
    std::memset(count, 0, sizeof(count));
    std::memset(fast, 0, sizeof(fast));
    for (int s = 0; s < n; ++s) ++count[lengths[s]];
    count[0] = 0;
    int max = kMaxBits;
    while (max > 0 && count[max] == 0) --max;
    if (max == 0) return true;
    int left = 1;
    for (int len = 1; len <= kMaxBits; ++len) {
      left = (left << 1) - count[len];
      if (left < 0) return false;
    }
    if (left > 0 && (!incomplete_ok || max != 1)) return false;
    uint16_t offset[kMaxBits + 2] = {0};
    uint32_t next_code[kMaxBits + 1] = {0};
    uint32_t code = 0;
    for (int len = 1; len <= kMaxBits; ++len) {
      offset[len + 1] = static_cast<uint16_t>(offset[len] + count[len]);
      code = (code + count[len - 1]) << 1;
      next_code[len] = code;
    }
    for (int s = 0; s < n; ++s) {
      int len = lengths[s];
      if (len == 0) continue;
      symbol[offset[len]++] = static_cast<uint16_t>(s);
      if (len > kFastBits) continue;
      uint32_t c = next_code[len]++;
      uint32_t reversed = 0;  // codes are sent most significant bit first, into a little-endian bit stream
      for (int b = 0; b < len; ++b) reversed |= ((c >> b) & 1u) << (len - 1 - b);
      for (uint32_t j = reversed; j < (1u << kFastBits); j += 1u << len) {
        fast[j] = static_cast<uint16_t>(s << 4 | len);
      }
    }
    return true;
  }
};

Inflater::Inflater(std::FILE* file, Framing framing)
    : file_(file), framing_(framing), lengths_(new Huffman), distances_(new Huffman) {}

Inflater::~Inflater() = default;

size_t Inflater::Read(char* dst, size_t n) {
  if (out_.size() - out_pos_ < n) Decode(std::max(n, kDecodeAhead));
  size_t got = std::min(n, out_.size() - out_pos_);
  if (got > 0) std::memcpy(dst, out_.data() + out_pos_, got);
  out_pos_ += got;
  return got;
}

bool Inflater::Fail(const char* why) {
  if (state_ != State::kError) error_ = why;
  state_ = State::kError;
  return false;
}

void Inflater::Decode(size_t want) {
  if (out_pos_ > 2 * kWindow) {  // drop what no back-reference can reach
    size_t drop = out_pos_ - kWindow;
    out_.erase(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(drop));
    out_pos_ -= drop;
    checked_ -= drop;
  }
  while (out_.size() - out_pos_ < want) {
    bool ok = true;
    switch (state_) {
      case State::kHeader: ok = Header(); break;
      case State::kBlock: ok = BlockHeader(); break;
      case State::kStored: ok = Stored(want); break;
      case State::kCodes: ok = Codes(want); break;
      case State::kTrailer: ok = Trailer(); break;
      case State::kDone:
      case State::kError: ok = false; break;
    }
    if (!ok) break;
  }
  Checksum();
}

void Inflater::Checksum() {
  const auto* bytes = reinterpret_cast<const uint8_t*>(out_.data() + checked_);
  size_t n = out_.size() - checked_;
  total_ += n;
  if (framing_ == Framing::kGzip) {
    crc_ = UpdateCrc(crc_, bytes, n);
  } else {
    while (n > 0) {  // Adler-32, reduced every 5552 bytes (the most that cannot overflow)
      size_t k = std::min<size_t>(n, 5552);
      for (size_t i = 0; i < k; ++i) {
        adler_a_ += bytes[i];
        adler_b_ += adler_a_;
      }
      adler_a_ %= 65521;
      adler_b_ %= 65521;
      bytes += k;
      n -= k;
    }
  }
  checked_ = out_.size();
}

bool Inflater::Refill() {
  if (in_eof_) return false;
  if (in_.empty()) in_.resize(kInputChunk);
  in_len_ = std::fread(in_.data(), 1, in_.size(), file_);
  in_pos_ = 0;
  if (in_len_ == 0) {
    in_eof_ = true;
    return false;
  }
  any_input_ = true;
  return true;
}

bool Inflater::PullByte() {
  if (in_pos_ == in_len_ && !Refill()) return false;
  bits_ |= static_cast<uint64_t>(in_[in_pos_++]) << bit_count_;
  bit_count_ += 8;
  return true;
}

bool Inflater::Bits(int n, uint32_t* out) {
  while (bit_count_ < n) {
    if (!PullByte()) return Fail("the compressed stream is truncated");
  }
  *out = static_cast<uint32_t>(bits_ & ((uint64_t{1} << n) - 1));
  bits_ >>= n;
  bit_count_ -= n;
  return true;
}

void Inflater::AlignToByte() {
  int drop = bit_count_ % 8;
  bits_ >>= drop;
  bit_count_ -= drop;
}

bool Inflater::Byte(uint8_t* out) {
  uint32_t v;
  if (!Bits(8, &v)) return false;
  *out = static_cast<uint8_t>(v);
  return true;
}

bool Inflater::Symbol(const Huffman& h, int* symbol) {
  while (bit_count_ <= 56 && PullByte()) continue;  // as many bits as the input has, for the longest code
  uint16_t entry = h.fast[bits_ & ((1u << kFastBits) - 1)];
  if (entry != 0) {
    int len = entry & 15;
    if (len > bit_count_) return Fail("the compressed stream is truncated");
    bits_ >>= len;
    bit_count_ -= len;
    *symbol = entry >> 4;
    return true;
  }
  int code = 0;
  int first = 0;
  int index = 0;
  for (int len = 1; len <= kMaxBits; ++len) {
    if (len > bit_count_) return Fail("the compressed stream is truncated");
    code |= static_cast<int>((bits_ >> (len - 1)) & 1);
    int n = h.count[len];
    if (code - first < n) {
      bits_ >>= len;
      bit_count_ -= len;
      *symbol = h.symbol[index + code - first];
      return true;
    }
    index += n;
    first = (first + n) << 1;
    code <<= 1;
  }
  return Fail("invalid code");
}

bool Inflater::Header() {
  while (bit_count_ == 0 && in_pos_ == in_len_) {
    if (!Refill()) {
      if (any_input_) return Fail("the compressed stream is truncated");
      state_ = State::kDone;  // an empty file: an empty stream
      return true;
    }
  }
  if (framing_ == Framing::kZlib) {
    uint8_t cmf, flg;
    if (!Byte(&cmf) || !Byte(&flg)) return false;
    if ((cmf * 256u + flg) % 31 != 0) return Fail("incorrect header check");
    if ((cmf & 15) != 8) return Fail("unknown compression method");
    if ((cmf >> 4) > 7) return Fail("invalid window size");
    if (flg & 0x20) return Fail("a preset dictionary is needed");
  } else {
    std::vector<uint8_t> header;  // for the header's own CRC
    auto take = [&](uint8_t* b) {
      if (!Byte(b)) return false;
      header.push_back(*b);
      return true;
    };
    uint8_t b[10];
    for (uint8_t& x : b) {
      if (!take(&x)) return false;
    }
    if (b[0] != 0x1f || b[1] != 0x8b) return Fail("incorrect header check");
    if (b[2] != 8) return Fail("unknown compression method");
    uint8_t flags = b[3];
    if (flags & 0xe0) return Fail("unknown header flags set");
    if (flags & 4) {  // FEXTRA
      uint8_t lo, hi, skip;
      if (!take(&lo) || !take(&hi)) return false;
      for (int k = lo | hi << 8; k > 0; --k) {
        if (!take(&skip)) return false;
      }
    }
    for (int bit : {8, 16}) {  // FNAME, FCOMMENT: zero-terminated
      if (!(flags & bit)) continue;
      uint8_t c = 1;
      while (c != 0) {
        if (!take(&c)) return false;
      }
    }
    if (flags & 2) {  // FHCRC
      uint8_t lo, hi;
      uint32_t want = UpdateCrc(0, header.data(), header.size()) & 0xFFFF;
      if (!Byte(&lo) || !Byte(&hi)) return false;
      if (static_cast<uint32_t>(lo | hi << 8) != want) return Fail("header crc mismatch");
    }
  }
  state_ = State::kBlock;
  return true;
}

bool Inflater::BlockHeader() {
  if (last_block_) {
    state_ = State::kTrailer;
    return true;
  }
  uint32_t final_block, type;
  if (!Bits(1, &final_block) || !Bits(2, &type)) return false;
  last_block_ = final_block != 0;
  if (type == 0) {
    AlignToByte();
    uint32_t len, nlen;
    if (!Bits(16, &len) || !Bits(16, &nlen)) return false;
    if (len != (~nlen & 0xFFFF)) return Fail("invalid stored block lengths");
    stored_left_ = len;
    state_ = State::kStored;
    return true;
  }
  if (type == 1) {
    uint8_t lengths[288 + 32];  // the fixed codes, complete: symbols 286, 287 and distances 30, 31 are invalid
    std::fill(lengths, lengths + 144, 8);
    std::fill(lengths + 144, lengths + 256, 9);
    std::fill(lengths + 256, lengths + 280, 7);
    std::fill(lengths + 280, lengths + 288, 8);
    std::fill(lengths + 288, lengths + 320, 5);
    lengths_->Build(lengths, 288, false);
    distances_->Build(lengths + 288, 32, false);
    state_ = State::kCodes;
    return true;
  }
  if (type == 2) return DynamicTables();
  return Fail("invalid block type");
}

bool Inflater::DynamicTables() {
  uint32_t hlit, hdist, hclen;
  if (!Bits(5, &hlit) || !Bits(5, &hdist) || !Bits(4, &hclen)) return false;
  int nlen = static_cast<int>(hlit) + 257, ndist = static_cast<int>(hdist) + 1, ncode = static_cast<int>(hclen) + 4;
  if (nlen > 286 || ndist > 30) return Fail("too many length or distance symbols");
  uint8_t code_lengths[19] = {0};
  for (int i = 0; i < ncode; ++i) {
    uint32_t v;
    if (!Bits(3, &v)) return false;
    code_lengths[kCodeLengthOrder[i]] = static_cast<uint8_t>(v);
  }
  Huffman code_code;
  if (!code_code.Build(code_lengths, 19, false)) return Fail("invalid code lengths set");
  uint8_t lengths[286 + 30] = {0};
  for (int i = 0; i < nlen + ndist;) {
    int sym;
    if (!Symbol(code_code, &sym)) return false;
    if (sym < 16) {
      lengths[i++] = static_cast<uint8_t>(sym);
      continue;
    }
    uint32_t extra;
    int repeat;
    uint8_t value = 0;
    if (sym == 16) {
      if (i == 0) return Fail("invalid bit length repeat");
      value = lengths[i - 1];
      if (!Bits(2, &extra)) return false;
      repeat = 3 + static_cast<int>(extra);
    } else if (sym == 17) {
      if (!Bits(3, &extra)) return false;
      repeat = 3 + static_cast<int>(extra);
    } else {
      if (!Bits(7, &extra)) return false;
      repeat = 11 + static_cast<int>(extra);
    }
    if (i + repeat > nlen + ndist) return Fail("invalid bit length repeat");
    while (repeat-- > 0) lengths[i++] = value;
  }
  if (lengths[256] == 0) return Fail("invalid code -- missing end-of-block");
  if (!lengths_->Build(lengths, nlen, true)) return Fail("invalid literal/lengths set");
  if (!distances_->Build(lengths + nlen, ndist, true)) return Fail("invalid distances set");
  state_ = State::kCodes;
  return true;
}

bool Inflater::Stored(size_t want) {
  while (stored_left_ > 0 && out_.size() - out_pos_ < want) {
    if (bit_count_ >= 8) {  // bytes already in the bit buffer come first
      out_.push_back(static_cast<char>(bits_ & 0xFF));
      bits_ >>= 8;
      bit_count_ -= 8;
      --stored_left_;
      continue;
    }
    if (in_pos_ == in_len_ && !Refill()) return Fail("the compressed stream is truncated");
    size_t k = std::min(stored_left_, in_len_ - in_pos_);
    out_.insert(out_.end(), in_.begin() + static_cast<std::ptrdiff_t>(in_pos_),
                in_.begin() + static_cast<std::ptrdiff_t>(in_pos_ + k));
    in_pos_ += k;
    stored_left_ -= k;
  }
  if (stored_left_ == 0) state_ = State::kBlock;
  return true;
}

bool Inflater::Codes(size_t want) {
  while (out_.size() - out_pos_ < want) {
    int sym;
    if (!Symbol(*lengths_, &sym)) return false;
    if (sym < 256) {
      out_.push_back(static_cast<char>(sym));
      continue;
    }
    if (sym == 256) {
      state_ = State::kBlock;
      return true;
    }
    sym -= 257;
    if (sym >= 29) return Fail("invalid literal/length code");
    uint32_t extra;
    if (!Bits(kLengthExtra[sym], &extra)) return false;
    size_t length = kLengthBase[sym] + extra;
    int dsym;
    if (!Symbol(*distances_, &dsym)) return false;
    if (dsym >= 30) return Fail("invalid distance code");
    if (!Bits(kDistanceExtra[dsym], &extra)) return false;
    size_t distance = kDistanceBase[dsym] + extra;
    if (distance > out_.size()) return Fail("invalid distance too far back");
    size_t at = out_.size();
    out_.resize(at + length);
    char* p = out_.data() + at;
    for (size_t i = 0; i < length; ++i) p[i] = p[i - distance];  // may overlap: byte by byte
  }
  return true;
}

bool Inflater::Trailer() {
  Checksum();
  AlignToByte();
  uint8_t b[8];
  size_t n = framing_ == Framing::kZlib ? 4 : 8;
  for (size_t i = 0; i < n; ++i) {
    if (!Byte(&b[i])) return false;
  }
  if (framing_ == Framing::kZlib) {
    uint32_t want = static_cast<uint32_t>(b[0]) << 24 | b[1] << 16 | b[2] << 8 | b[3];
    if (want != (adler_b_ << 16 | adler_a_)) return Fail("incorrect data check");
  } else {
    uint32_t crc = b[0] | b[1] << 8 | b[2] << 16 | static_cast<uint32_t>(b[3]) << 24;
    uint32_t size = b[4] | b[5] << 8 | b[6] << 16 | static_cast<uint32_t>(b[7]) << 24;
    if (crc != crc_) return Fail("incorrect data check");
    if (size != static_cast<uint32_t>(total_)) return Fail("incorrect length check");
  }
  state_ = State::kDone;
  return true;
}

}  // namespace txd
