// UTF-8 helpers shared by the string kernels and the regex engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tx {
namespace utf8 {

// The largest Unicode code point.
constexpr int32_t kMaxRune = 0x10FFFF;
// What DecodeRune reports for a byte that does not start a valid UTF-8 sequence.
constexpr int32_t kInvalidRune = -1;

// True for a UTF-8 continuation byte (10xxxxxx): TensorFlow counts characters as the bytes that
// are not continuation bytes (StringLength / Substr with unit UTF8_CHAR).
inline bool IsTrailByte(char c) { return (static_cast<uint8_t>(c) & 0xC0) == 0x80; }

// Decodes the code point at s[0..n) (n > 0) into *rune and returns its length in bytes. A
// malformed, overlong, surrogate or truncated sequence yields kInvalidRune and length 1.
inline int DecodeRune(const char* s, size_t n, int32_t* rune) {
  const uint8_t c = static_cast<uint8_t>(s[0]);
  if (c < 0x80) {
    *rune = c;
    return 1;
  }
  int len;
  int32_t r, min;
  if ((c & 0xE0) == 0xC0) {
    len = 2, r = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, r = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, r = c & 0x07, min = 0x10000;
  } else {
    *rune = kInvalidRune;
    return 1;
  }
  if (n < static_cast<size_t>(len)) {
    *rune = kInvalidRune;
    return 1;
  }
  for (int i = 1; i < len; ++i) {
    const uint8_t t = static_cast<uint8_t>(s[i]);
    if ((t & 0xC0) != 0x80) {
      *rune = kInvalidRune;
      return 1;
    }
    r = (r << 6) | (t & 0x3F);
  }
  if (r < min || r > kMaxRune || (r >= 0xD800 && r <= 0xDFFF)) {
    *rune = kInvalidRune;
    return 1;
  }
  *rune = r;
  return len;
}

// Appends the UTF-8 encoding of `rune` (0 <= rune <= kMaxRune, not a surrogate) to *out.
inline void AppendRune(int32_t rune, std::string* out) {
  const uint32_t r = static_cast<uint32_t>(rune);
  if (r < 0x80) {
    out->push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (r >> 6)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (r >> 12)));
    out->push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (r >> 18)));
    out->push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
}

// The number of characters (non-continuation bytes) in `s`.
inline int64_t CountChars(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += !IsTrailByte(c);
  return n;
}

}  // namespace utf8
}  // namespace tx
