#include "tensorflux/framework/safetensors_header.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace tx {

// Note [Safetensors header parsing]
// The header is untrusted input of up to 100 MB. Rather than building a generic JSON tree (whose
// nodes can cost ~50x the text they come from), the parser reads exactly the schema
//   { "__metadata__": {str: str}?, name: {"dtype": str, "shape": [uint...], "data_offsets":
//     [uint, uint]}, ... }
// straight into SafetensorsHeader, so memory stays a small multiple of the header's size and the
// nesting depth is fixed (no recursion on input). It is strict RFC 8259 JSON: UTF-8 validated,
// escapes decoded (surrogate pairs joined, lone surrogates rejected), no leading zeros, no
// trailing commas, only whitespace after the top-level object. Integers must be non-negative and
// fit in 64 bits; unknown fields and duplicate keys are errors.

namespace {

struct DtypeRow {
  DataType dt;
  const char* name;
};

// Ordered as the reference's Dtype enum, so a larger index means a larger alignment first.
constexpr DtypeRow kDtypes[] = {
    {DT_BOOL, "BOOL"},     {DT_UINT8, "U8"},      {DT_INT8, "I8"},   {DT_INT16, "I16"},  {DT_UINT16, "U16"},
    {DT_HALF, "F16"},      {DT_BFLOAT16, "BF16"}, {DT_INT32, "I32"}, {DT_UINT32, "U32"}, {DT_FLOAT, "F32"},
    {DT_COMPLEX64, "C64"}, {DT_DOUBLE, "F64"},    {DT_INT64, "I64"}, {DT_UINT64, "U64"},
};

// Format dtypes that exist in the specification but that this engine cannot store.
constexpr const char* kUnsupportedDtypes[] = {"F4", "F6_E2M3", "F6_E3M2", "F8_E5M2", "F8_E4M3", "F8_E8M0"};

int DtypeRank(DataType dt) {
  for (size_t i = 0; i < sizeof(kDtypes) / sizeof(kDtypes[0]); ++i)
    if (kDtypes[i].dt == dt) return static_cast<int>(i);
  return -1;
}

// The length of the multi-byte UTF-8 sequence starting at s[pos] (a byte >= 0x80), or 0 when it
// is invalid: truncated, overlong, a surrogate, or beyond U+10FFFF.
size_t Utf8SequenceLength(std::string_view s, size_t pos) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  size_t len;
  uint32_t cp, min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - pos < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(s[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// TensorFlow's limit on rank; the format has none, but no engine tensor may exceed it.
constexpr size_t kMaxRank = 254;

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}

  Status Parse(SafetensorsHeader* out) {
    bool seen_metadata = false;
    TX_RETURN_IF_ERROR(ParseObject([&](std::string key) -> Status {
      if (key == "__metadata__") {
        if (seen_metadata) return Error("duplicate \"__metadata__\" key");
        seen_metadata = true;
        return ParseMetadata(&out->metadata);
      }
      if (key.empty()) return Error("a tensor has an empty name");
      out->tensors.emplace_back();
      out->tensors.back().name = std::move(key);
      return ParseTensorInfo(&out->tensors.back());
    }));
    SkipWs();
    if (pos_ != s_.size()) return Error("unexpected data after the header object (trailing garbage)");
    return Status::OK();
  }

 private:
  Status Error(std::string_view what) const { return DataLoss("malformed JSON header at byte ", pos_, ": ", what); }

  void SkipWs() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }

  bool Peek(char c) {
    SkipWs();
    return pos_ < s_.size() && s_[pos_] == c;
  }

  Status Expect(char c) {
    if (!Peek(c)) {
      return Error(pos_ < s_.size() ? StrCat("expected '", c, "'") : StrCat("unexpected end, expected '", c, "'"));
    }
    ++pos_;
    return Status::OK();
  }

  // Parses `{ "key": <value by on_member(key)>, ... }`.
  template <typename F>
  Status ParseObject(F&& on_member) {
    TX_RETURN_IF_ERROR(Expect('{'));
    if (Peek('}')) {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      std::string key;
      TX_RETURN_IF_ERROR(ParseString(&key));
      TX_RETURN_IF_ERROR(Expect(':'));
      TX_RETURN_IF_ERROR(on_member(std::move(key)));
      if (Peek(',')) {
        ++pos_;
        continue;
      }
      return Expect('}');
    }
  }

  // Parses `[ <element by on_element()>, ... ]`.
  template <typename F>
  Status ParseArray(F&& on_element) {
    TX_RETURN_IF_ERROR(Expect('['));
    if (Peek(']')) {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      TX_RETURN_IF_ERROR(on_element());
      if (Peek(',')) {
        ++pos_;
        continue;
      }
      return Expect(']');
    }
  }

  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // Reads the 4 hex digits after "\u".
  Status ParseHex4(uint32_t* out) {
    if (s_.size() - pos_ < 4) return Error("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int h = HexValue(s_[pos_ + i]);
      if (h < 0) return Error("invalid \\u escape");
      v = v * 16 + static_cast<uint32_t>(h);
    }
    pos_ += 4;
    *out = v;
    return Status::OK();
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Decodes the escape after a backslash.
  Status ParseEscape(std::string* out) {
    if (pos_ >= s_.size()) return Error("unterminated string");
    char c = s_[pos_++];
    switch (c) {
      case '"': out->push_back('"'); return Status::OK();
      case '\\': out->push_back('\\'); return Status::OK();
      case '/': out->push_back('/'); return Status::OK();
      case 'b': out->push_back('\b'); return Status::OK();
      case 'f': out->push_back('\f'); return Status::OK();
      case 'n': out->push_back('\n'); return Status::OK();
      case 'r': out->push_back('\r'); return Status::OK();
      case 't': out->push_back('\t'); return Status::OK();
      case 'u': break;
      default: --pos_; return Error("invalid escape in string");
    }
    uint32_t cp;
    TX_RETURN_IF_ERROR(ParseHex4(&cp));
    if (cp >= 0xDC00 && cp <= 0xDFFF) return Error("lone low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (s_.size() - pos_ < 2 || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
        return Error("high surrogate not followed by a low surrogate");
      pos_ += 2;
      uint32_t lo;
      TX_RETURN_IF_ERROR(ParseHex4(&lo));
      if (lo < 0xDC00 || lo > 0xDFFF) return Error("high surrogate not followed by a low surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    AppendUtf8(cp, out);
    return Status::OK();
  }

  // Validates and copies one multi-byte UTF-8 sequence starting at pos_.
  Status CopyUtf8(std::string* out) {
    const size_t len = Utf8SequenceLength(s_, pos_);
    if (len == 0) return Error("invalid UTF-8 in string");
    out->append(s_.data() + pos_, len);
    pos_ += len;
    return Status::OK();
  }

  Status ParseString(std::string* out) {
    if (!Peek('"')) return Error(pos_ < s_.size() ? "expected a string" : "unexpected end, expected a string");
    ++pos_;
    while (true) {
      if (pos_ >= s_.size()) return Error("unterminated string");
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return Status::OK();
      }
      if (c == '\\') {
        ++pos_;
        TX_RETURN_IF_ERROR(ParseEscape(out));
      } else if (c < 0x20) {
        return Error("unescaped control character in string");
      } else if (c < 0x80) {
        out->push_back(static_cast<char>(c));
        ++pos_;
      } else {
        TX_RETURN_IF_ERROR(CopyUtf8(out));
      }
    }
  }

  // A non-negative integer in 64 bits, without leading zeros, fraction or exponent.
  Status ParseUint(uint64_t* out) {
    SkipWs();
    if (pos_ >= s_.size()) return Error("unexpected end, expected an integer");
    if (s_[pos_] == '-') return Error("expected a non-negative integer");
    if (s_[pos_] < '0' || s_[pos_] > '9') return Error("expected an integer");
    const size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const uint64_t d = static_cast<uint64_t>(s_[pos_] - '0');
      if (v > (UINT64_MAX - d) / 10) return Error("integer does not fit in 64 bits");
      v = v * 10 + d;
      ++pos_;
    }
    if (s_[start] == '0' && pos_ - start > 1) return Error("integer with a leading zero");
    if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E'))
      return Error("expected an integer, not a fraction or exponent");
    *out = v;
    return Status::OK();
  }

  Status ParseMetadata(std::map<std::string, std::string>* out) {
    return ParseObject([&](std::string key) -> Status {
      std::string value;
      if (!Peek('"')) return Error(StrCat("metadata value of \"", key, "\" must be a string"));
      TX_RETURN_IF_ERROR(ParseString(&value));
      if (!out->emplace(std::move(key), std::move(value)).second) return Error("duplicate metadata key");
      return Status::OK();
    });
  }

  Status ParseDtype(SafetensorsTensorInfo* info) {
    std::string name;
    if (!Peek('"')) return Error(StrCat("dtype of tensor '", info->name, "' must be a string"));
    TX_RETURN_IF_ERROR(ParseString(&name));
    for (const DtypeRow& row : kDtypes) {
      if (name == row.name) {
        info->dtype = row.dt;
        return Status::OK();
      }
    }
    for (const char* u : kUnsupportedDtypes) {
      if (name == u)
        return Unimplemented("tensor '", info->name, "' has dtype ", name, ", which Tensorflux cannot store");
    }
    return DataLoss("tensor '", info->name, "' has unknown dtype \"", name, "\"");
  }

  Status ParseShape(SafetensorsTensorInfo* info) {
    std::vector<int64_t> dims;
    TX_RETURN_IF_ERROR(ParseArray([&]() -> Status {
      if (dims.size() >= kMaxRank)
        return Error(StrCat("tensor '", info->name, "' has more than ", kMaxRank, " dimensions"));
      uint64_t d;
      TX_RETURN_IF_ERROR(ParseUint(&d));
      if (d > static_cast<uint64_t>(INT64_MAX)) return Error("dimension does not fit in int64");
      dims.push_back(static_cast<int64_t>(d));
      return Status::OK();
    }));
    Status s = TensorShape::Make(dims.data(), static_cast<int>(dims.size()), &info->shape);
    if (!s.ok()) return DataLoss("tensor '", info->name, "' has an invalid shape: ", s.message());
    return Status::OK();
  }

  Status ParseOffsets(SafetensorsTensorInfo* info) {
    uint64_t v[2];
    size_t n = 0;
    TX_RETURN_IF_ERROR(ParseArray([&]() -> Status {
      if (n == 2) return Error(StrCat("data_offsets of tensor '", info->name, "' must have 2 entries"));
      return ParseUint(&v[n++]);
    }));
    if (n != 2) return Error(StrCat("data_offsets of tensor '", info->name, "' must have 2 entries"));
    info->begin = v[0];
    info->end = v[1];
    return Status::OK();
  }

  Status ParseTensorInfo(SafetensorsTensorInfo* info) {
    bool seen[3] = {false, false, false};
    TX_RETURN_IF_ERROR(ParseObject([&](std::string key) -> Status {
      static constexpr const char* kFields[3] = {"dtype", "shape", "data_offsets"};
      int field = -1;
      for (int i = 0; i < 3; ++i)
        if (key == kFields[i]) field = i;
      if (field < 0) return Error(StrCat("unknown field \"", key, "\" in tensor '", info->name, "'"));
      if (seen[field]) return Error(StrCat("duplicate field \"", key, "\" in tensor '", info->name, "'"));
      seen[field] = true;
      if (field == 0) return ParseDtype(info);
      if (field == 1) return ParseShape(info);
      return ParseOffsets(info);
    }));
    if (!seen[0] || !seen[1] || !seen[2]) {
      const char* missing = !seen[0] ? "dtype" : !seen[1] ? "shape" : "data_offsets";
      return DataLoss("tensor '", info->name, "' lacks \"", missing, "\"");
    }
    // Each entry's byte length must match its dtype and shape.
    if (info->end < info->begin)
      return DataLoss("tensor '", info->name, "' has data_offsets [", info->begin, ", ", info->end,
                      "] that end before they begin");
    const uint64_t elems = static_cast<uint64_t>(info->shape.num_elements());
    const uint64_t size = DataTypeSize(info->dtype);
    const uint64_t have = info->end - info->begin;
    if ((elems != 0 && size > UINT64_MAX / elems) || elems * size != have) {
      return DataLoss("tensor '", info->name, "' of dtype ", SafetensorsDtypeName(info->dtype), " and shape ",
                      info->shape.ToString(), " needs ", elems, " * ", size, " bytes but its data_offsets [",
                      info->begin, ", ", info->end, "] hold ", have);
    }
    return Status::OK();
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Appends `s` as a JSON string literal, escaping as serde_json does.
void AppendQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const size_t len = Utf8SequenceLength(s, pos);
    if (len == 0) return false;
    pos += len;
  }
  return true;
}

const char* SafetensorsDtypeName(DataType dt) {
  const int r = DtypeRank(dt);
  return r < 0 ? nullptr : kDtypes[r].name;
}

bool SafetensorsFileOrderLess(const SafetensorsTensorInfo& a, const SafetensorsTensorInfo& b) {
  const int ra = DtypeRank(a.dtype), rb = DtypeRank(b.dtype);
  if (ra != rb) return ra > rb;
  return a.name < b.name;
}

Status ParseSafetensorsHeader(std::string_view text, SafetensorsHeader* out) {
  SafetensorsHeader header;
  TX_RETURN_IF_ERROR(HeaderParser(text).Parse(&header));
  // Duplicate names: sort indices by name and compare neighbours.
  std::vector<size_t> order(header.tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return header.tensors[a].name < header.tensors[b].name; });
  for (size_t i = 1; i < order.size(); ++i) {
    const std::string& name = header.tensors[order[i]].name;
    if (name == header.tensors[order[i - 1]].name) return DataLoss("duplicate tensor name '", name, "'");
  }
  *out = std::move(header);
  return Status::OK();
}

Status CheckSafetensorsLayout(const SafetensorsHeader& header, uint64_t data_size) {
  std::vector<const SafetensorsTensorInfo*> by_offset;
  by_offset.reserve(header.tensors.size());
  for (const SafetensorsTensorInfo& t : header.tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](const SafetensorsTensorInfo* a, const SafetensorsTensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t covered = 0;
  const SafetensorsTensorInfo* prev = nullptr;
  for (const SafetensorsTensorInfo* t : by_offset) {
    if (t->begin < covered) {
      return DataLoss("tensor '", t->name, "' (bytes [", t->begin, ", ", t->end, ")) overlaps tensor '", prev->name,
                      "' (bytes [", prev->begin, ", ", prev->end, "))");
    }
    if (t->begin > covered) {
      return DataLoss("bytes [", covered, ", ", t->begin, ") of the data buffer belong to no tensor (a hole before '",
                      t->name, "')");
    }
    if (t->end > data_size) {
      return DataLoss("tensor '", t->name, "' (bytes [", t->begin, ", ", t->end, ")) runs past the end of the ",
                      data_size, "-byte data buffer (truncated file?)");
    }
    covered = t->end;
    prev = t;
  }
  if (covered != data_size) {
    return DataLoss(data_size - covered, " trailing bytes after the last tensor's data (the tensors cover ", covered,
                    " of ", data_size, " bytes)");
  }
  return Status::OK();
}

std::string SerializeSafetensorsHeader(const std::vector<SafetensorsTensorInfo>& tensors,
                                       const std::map<std::string, std::string>& metadata) {
  std::string out = "{";
  if (!metadata.empty()) {
    out += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : metadata) {
      if (!first) out.push_back(',');
      first = false;
      AppendQuoted(key, &out);
      out.push_back(':');
      AppendQuoted(value, &out);
    }
    out.push_back('}');
  }
  for (const SafetensorsTensorInfo& t : tensors) {
    if (out.size() > 1) out.push_back(',');
    AppendQuoted(t.name, &out);
    out += StrCat(":{\"dtype\":\"", SafetensorsDtypeName(t.dtype), "\",\"shape\":[");
    for (int i = 0; i < t.shape.rank(); ++i) out += StrCat(i ? "," : "", t.shape.dim(i));
    out += StrCat("],\"data_offsets\":[", t.begin, ",", t.end, "]}");
  }
  out.push_back('}');
  out.append((8 - out.size() % 8) % 8, ' ');
  return out;
}

}  // namespace tx
