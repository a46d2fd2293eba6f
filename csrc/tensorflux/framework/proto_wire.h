// A small protobuf wire-format reader and writer (no protobuf runtime; DESIGN.md §4).
// Note [Wire codec]: the reader never reads out of bounds and never aborts: every malformed
// input (truncation, overlong varints, groups, invalid wire types, nesting deeper than
// kMaxMessageDepth) yields a DataLoss status. Repeated numeric fields are accepted both packed
// and unpacked. The writer emits proto3 canonical output (packed repeated scalars).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensorflux/core/status.h"

namespace tx {
namespace wire {

// Protobuf wire types; 3 and 4 (groups) are recognized only to be rejected.
enum WireType : int {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Deepest nesting of sub-messages a Reader accepts.
constexpr int kMaxMessageDepth = 100;

// Reads one serialized message; the viewed bytes must outlive the Reader.
// Note [Wire fast paths]: decoding is mostly keys of low field numbers, short varints and short
// length-delimited payloads (a tf.train.Example's features, a NodeDef's attrs). Those one-byte cases
// are inline in the header; every other case, and every error, goes to the out-of-line reader.
class Reader {
 public:
  // Reads `bytes` as a top-level message (depth 0).
  explicit Reader(std::string_view bytes, int depth = 0) : data_(bytes), depth_(depth) {}

  // True when every byte has been consumed.
  bool done() const { return pos_ >= data_.size(); }
  // Nesting depth of this message (0 for the top level).
  int depth() const { return depth_; }
  // Offset of the next unread byte, and a view of bytes [begin, end) of this message (for
  // keeping fields a decoder does not model verbatim).
  size_t position() const { return pos_; }
  std::string_view Slice(size_t begin, size_t end) const { return data_.substr(begin, end - begin); }

  // Reads the next field key; DataLoss on a bad key, field number 0 or an invalid wire type.
  // Inline for the one-byte keys of fields 1..15 (Note [Wire fast paths]).
  Status ReadTag(int* field, WireType* type) {
    if (pos_ < data_.size()) {
      const auto b = static_cast<uint8_t>(data_[pos_]);
      const int wt = b & 7;
      if (b < 0x80 && (b >> 3) != 0 && (wt == kVarint || wt == kFixed64 || wt == kLengthDelimited || wt == kFixed32)) {
        ++pos_;
        *field = b >> 3;
        *type = static_cast<WireType>(wt);
        return Status::OK();
      }
    }
    return ReadTagSlow(field, type);
  }
  // Reads a base-128 varint of at most 10 bytes that fits in 64 bits (one byte: inline).
  Status ReadVarint(uint64_t* v) {
    if (pos_ < data_.size() && static_cast<uint8_t>(data_[pos_]) < 0x80) {
      *v = static_cast<uint8_t>(data_[pos_++]);
      return Status::OK();
    }
    return ReadVarintSlow(v);
  }
  // Reads 4 / 8 little-endian bytes.
  Status ReadFixed32(uint32_t* v);
  Status ReadFixed64(uint64_t* v);
  // Reads a length-delimited payload as a view into the underlying bytes (a one-byte length: inline).
  Status ReadBytes(std::string_view* v) {
    if (pos_ < data_.size()) {
      const auto len = static_cast<uint8_t>(data_[pos_]);
      if (len < 0x80 && len <= data_.size() - pos_ - 1) {
        *v = data_.substr(pos_ + 1, len);
        pos_ += 1 + len;
        return Status::OK();
      }
    }
    return ReadBytesSlow(v);
  }
  // Reads a length-delimited sub-message; DataLoss if nesting would exceed kMaxMessageDepth.
  Status ReadMessage(Reader* sub);
  // Skips the value of a field of wire type `type` (groups are rejected).
  Status Skip(WireType type);

  // Scalar field readers that check the wire type of the field just tagged.
  Status ReadInt32(WireType type, int32_t* v);
  Status ReadInt64(WireType type, int64_t* v);
  Status ReadUInt64(WireType type, uint64_t* v);
  Status ReadBool(WireType type, bool* v);
  Status ReadFloat(WireType type, float* v);
  Status ReadDouble(WireType type, double* v);
  Status ReadString(WireType type, std::string* v);
  Status ReadSubMessage(WireType type, Reader* sub);

  // Appends the value(s) of a repeated numeric field, packed or unpacked.
  Status ReadRepeatedVarint(WireType type, std::vector<uint64_t>* out);
  Status ReadRepeatedFixed32(WireType type, std::vector<uint32_t>* out);
  Status ReadRepeatedFixed64(WireType type, std::vector<uint64_t>* out);

 private:
  // The general cases of the inline readers above.
  Status ReadTagSlow(int* field, WireType* type);
  Status ReadVarintSlow(uint64_t* v);
  Status ReadBytesSlow(std::string_view* v);

  std::string_view data_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// Builds one serialized message by appending fields.
class Writer {
 public:
  // Appends a field key.
  void WriteTag(int field, WireType type);
  // Appends a raw varint (no key).
  void WriteRawVarint(uint64_t v);

  // Appends a varint field (int32 values are sign-extended to 64 bits as protobuf does).
  void WriteVarintField(int field, uint64_t v);
  void WriteInt32Field(int field, int32_t v) {
    WriteVarintField(field, static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  void WriteInt64Field(int field, int64_t v) { WriteVarintField(field, static_cast<uint64_t>(v)); }
  void WriteBoolField(int field, bool v) { WriteVarintField(field, v ? 1 : 0); }
  void WriteFixed32Field(int field, uint32_t v);
  void WriteFixed64Field(int field, uint64_t v);
  void WriteFloatField(int field, float v);
  void WriteDoubleField(int field, double v);
  // Appends a length-delimited field (strings, bytes, serialized sub-messages).
  void WriteBytesField(int field, std::string_view v);
  // Appends already-encoded fields verbatim.
  void WriteRaw(std::string_view bytes) { buf_.append(bytes.data(), bytes.size()); }

  // Appends a packed repeated field; writes nothing when `values` is empty.
  void WritePackedVarints(int field, const std::vector<uint64_t>& values);
  void WritePackedFixed32(int field, const std::vector<uint32_t>& values);
  void WritePackedFixed64(int field, const std::vector<uint64_t>& values);

  // The bytes written so far.
  const std::string& data() const { return buf_; }
  // Moves the bytes out, leaving the writer empty.
  std::string Release() { return std::move(buf_); }

 private:
  std::string buf_;
};

// Bit-casts between floating-point values and their IEEE-754 patterns.
uint32_t FloatBits(float f);
float BitsToFloat(uint32_t u);
uint64_t DoubleBits(double d);
double BitsToDouble(uint64_t u);

}  // namespace wire
}  // namespace tx
