#include "tensorflux/framework/proto_wire.h"

#include <cstring>

namespace tx {
namespace wire {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
double BitsToDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

// ----------------------------------------------------------------------------
// Reader

namespace {

const char* WireTypeName(WireType t) {
  switch (t) {
    case kVarint: return "varint";
    case kFixed64: return "fixed64";
    case kLengthDelimited: return "length-delimited";
    case kStartGroup: return "start-group";
    case kEndGroup: return "end-group";
    case kFixed32: return "fixed32";
  }
  return "invalid";
}

Status WrongType(WireType got, WireType want) {
  return DataLoss("field has wire type ", WireTypeName(got), ", expected ", WireTypeName(want));
}

}  // namespace

Status Reader::ReadVarintSlow(uint64_t* v) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= data_.size()) return DataLoss("truncated varint at byte ", pos_);
    uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    if (i == 9 && b > 1) return DataLoss("varint overflows 64 bits at byte ", pos_ - 1);
    result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      *v = result;
      return Status::OK();
    }
  }
  return DataLoss("varint longer than 10 bytes at byte ", pos_);
}

Status Reader::ReadTagSlow(int* field, WireType* type) {
  uint64_t key;
  TX_RETURN_IF_ERROR(ReadVarint(&key));
  uint64_t number = key >> 3;
  int wt = static_cast<int>(key & 7);
  if (number == 0 || number > 0x1fffffff) return DataLoss("invalid field number ", number);
  if (wt == kStartGroup || wt == kEndGroup) return DataLoss("groups are not supported (field ", number, ")");
  if (wt != kVarint && wt != kFixed64 && wt != kLengthDelimited && wt != kFixed32)
    return DataLoss("invalid wire type ", wt, " for field ", number);
  *field = static_cast<int>(number);
  *type = static_cast<WireType>(wt);
  return Status::OK();
}

Status Reader::ReadFixed32(uint32_t* v) {
  if (data_.size() - pos_ < 4) return DataLoss("truncated fixed32 at byte ", pos_);
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<uint32_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
  pos_ += 4;
  *v = r;
  return Status::OK();
}

Status Reader::ReadFixed64(uint64_t* v) {
  if (data_.size() - pos_ < 8) return DataLoss("truncated fixed64 at byte ", pos_);
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
  pos_ += 8;
  *v = r;
  return Status::OK();
}

Status Reader::ReadBytesSlow(std::string_view* v) {
  uint64_t len;
  TX_RETURN_IF_ERROR(ReadVarint(&len));
  if (len > data_.size() - pos_)
    return DataLoss("length-delimited field of ", len, " bytes exceeds the ", data_.size() - pos_, " bytes remaining");
  *v = data_.substr(pos_, static_cast<size_t>(len));
  pos_ += static_cast<size_t>(len);
  return Status::OK();
}

Status Reader::ReadMessage(Reader* sub) {
  if (depth_ + 1 > kMaxMessageDepth) return DataLoss("messages nested deeper than ", kMaxMessageDepth, " levels");
  std::string_view bytes;
  TX_RETURN_IF_ERROR(ReadBytes(&bytes));
  *sub = Reader(bytes, depth_ + 1);
  return Status::OK();
}

Status Reader::Skip(WireType type) {
  switch (type) {
    case kVarint: {
      uint64_t v;
      return ReadVarint(&v);
    }
    case kFixed64: {
      uint64_t v;
      return ReadFixed64(&v);
    }
    case kLengthDelimited: {
      std::string_view v;
      return ReadBytes(&v);
    }
    case kFixed32: {
      uint32_t v;
      return ReadFixed32(&v);
    }
    default: return DataLoss("cannot skip a field of wire type ", static_cast<int>(type));
  }
}

Status Reader::ReadInt32(WireType type, int32_t* v) {
  if (type != kVarint) return WrongType(type, kVarint);
  uint64_t u;
  TX_RETURN_IF_ERROR(ReadVarint(&u));
  *v = static_cast<int32_t>(static_cast<uint32_t>(u));  // protobuf keeps the low 32 bits
  return Status::OK();
}

Status Reader::ReadInt64(WireType type, int64_t* v) {
  if (type != kVarint) return WrongType(type, kVarint);
  uint64_t u;
  TX_RETURN_IF_ERROR(ReadVarint(&u));
  *v = static_cast<int64_t>(u);
  return Status::OK();
}

Status Reader::ReadUInt64(WireType type, uint64_t* v) {
  if (type != kVarint) return WrongType(type, kVarint);
  return ReadVarint(v);
}

Status Reader::ReadBool(WireType type, bool* v) {
  if (type != kVarint) return WrongType(type, kVarint);
  uint64_t u;
  TX_RETURN_IF_ERROR(ReadVarint(&u));
  *v = u != 0;
  return Status::OK();
}

Status Reader::ReadFloat(WireType type, float* v) {
  if (type != kFixed32) return WrongType(type, kFixed32);
  uint32_t u;
  TX_RETURN_IF_ERROR(ReadFixed32(&u));
  *v = BitsToFloat(u);
  return Status::OK();
}

Status Reader::ReadDouble(WireType type, double* v) {
  if (type != kFixed64) return WrongType(type, kFixed64);
  uint64_t u;
  TX_RETURN_IF_ERROR(ReadFixed64(&u));
  *v = BitsToDouble(u);
  return Status::OK();
}

Status Reader::ReadString(WireType type, std::string* v) {
  if (type != kLengthDelimited) return WrongType(type, kLengthDelimited);
  std::string_view s;
  TX_RETURN_IF_ERROR(ReadBytes(&s));
  v->assign(s.data(), s.size());
  return Status::OK();
}

Status Reader::ReadSubMessage(WireType type, Reader* sub) {
  if (type != kLengthDelimited) return WrongType(type, kLengthDelimited);
  return ReadMessage(sub);
}

Status Reader::ReadRepeatedVarint(WireType type, std::vector<uint64_t>* out) {
  uint64_t v;
  if (type == kVarint) {
    TX_RETURN_IF_ERROR(ReadVarint(&v));
    out->push_back(v);
    return Status::OK();
  }
  if (type != kLengthDelimited) return WrongType(type, kVarint);
  std::string_view packed;
  TX_RETURN_IF_ERROR(ReadBytes(&packed));
  Reader r(packed, depth_);
  while (!r.done()) {
    TX_RETURN_IF_ERROR(r.ReadVarint(&v).WithPrefix("in packed field: "));
    out->push_back(v);
  }
  return Status::OK();
}

Status Reader::ReadRepeatedFixed32(WireType type, std::vector<uint32_t>* out) {
  uint32_t v;
  if (type == kFixed32) {
    TX_RETURN_IF_ERROR(ReadFixed32(&v));
    out->push_back(v);
    return Status::OK();
  }
  if (type != kLengthDelimited) return WrongType(type, kFixed32);
  std::string_view packed;
  TX_RETURN_IF_ERROR(ReadBytes(&packed));
  if (packed.size() % 4 != 0)
    return DataLoss("packed fixed32 field of ", packed.size(), " bytes is not a multiple of 4");
  Reader r(packed, depth_);
  out->reserve(out->size() + packed.size() / 4);
  while (!r.done()) {
    TX_RETURN_IF_ERROR(r.ReadFixed32(&v));
    out->push_back(v);
  }
  return Status::OK();
}

Status Reader::ReadRepeatedFixed64(WireType type, std::vector<uint64_t>* out) {
  uint64_t v;
  if (type == kFixed64) {
    TX_RETURN_IF_ERROR(ReadFixed64(&v));
    out->push_back(v);
    return Status::OK();
  }
  if (type != kLengthDelimited) return WrongType(type, kFixed64);
  std::string_view packed;
  TX_RETURN_IF_ERROR(ReadBytes(&packed));
  if (packed.size() % 8 != 0)
    return DataLoss("packed fixed64 field of ", packed.size(), " bytes is not a multiple of 8");
  Reader r(packed, depth_);
  out->reserve(out->size() + packed.size() / 8);
  while (!r.done()) {
    TX_RETURN_IF_ERROR(r.ReadFixed64(&v));
    out->push_back(v);
  }
  return Status::OK();
}

// ----------------------------------------------------------------------------
// Writer

void Writer::WriteRawVarint(uint64_t v) {
  while (v >= 0x80) {
    buf_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  buf_.push_back(static_cast<char>(v));
}

void Writer::WriteTag(int field, WireType type) {
  WriteRawVarint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(type));
}

void Writer::WriteVarintField(int field, uint64_t v) {
  WriteTag(field, kVarint);
  WriteRawVarint(v);
}

static void AppendLE(std::string* buf, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) buf->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void Writer::WriteFixed32Field(int field, uint32_t v) {
  WriteTag(field, kFixed32);
  AppendLE(&buf_, v, 4);
}

void Writer::WriteFixed64Field(int field, uint64_t v) {
  WriteTag(field, kFixed64);
  AppendLE(&buf_, v, 8);
}

void Writer::WriteFloatField(int field, float v) { WriteFixed32Field(field, FloatBits(v)); }
void Writer::WriteDoubleField(int field, double v) { WriteFixed64Field(field, DoubleBits(v)); }

void Writer::WriteBytesField(int field, std::string_view v) {
  WriteTag(field, kLengthDelimited);
  WriteRawVarint(v.size());
  buf_.append(v.data(), v.size());
}

void Writer::WritePackedVarints(int field, const std::vector<uint64_t>& values) {
  if (values.empty()) return;
  Writer body;
  for (uint64_t v : values) body.WriteRawVarint(v);
  WriteBytesField(field, body.data());
}

void Writer::WritePackedFixed32(int field, const std::vector<uint32_t>& values) {
  if (values.empty()) return;
  WriteTag(field, kLengthDelimited);
  WriteRawVarint(values.size() * 4);
  for (uint32_t v : values) AppendLE(&buf_, v, 4);
}

void Writer::WritePackedFixed64(int field, const std::vector<uint64_t>& values) {
  if (values.empty()) return;
  WriteTag(field, kLengthDelimited);
  WriteRawVarint(values.size() * 8);
  for (uint64_t v : values) AppendLE(&buf_, v, 8);
}

}  // namespace wire
}  // namespace tx
