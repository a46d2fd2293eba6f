// Simple (one code point to one code point) case mapping for the Latin, Greek and Cyrillic
// scripts, used by the regex engine's case folding and by StringLower/StringUpper in UTF-8 mode.
#pragma once

#include <cstdint>
#include <vector>

namespace tx {
namespace unicase {

// Note [Simple case mapping]
// Covered: ASCII, Latin-1 Supplement, Latin Extended-A, Greek and Coptic (basic letters), and
// Cyrillic (U+0400-U+052F), plus the letters whose case partners lie elsewhere (Kelvin sign,
// Angstrom sign, long s, micro sign, capital sharp s). Letters of other scripts map to
// themselves. ICU (behind TensorFlow's encoding="utf-8") and RE2 cover all of Unicode; the
// difference shows only for scripts outside these blocks.

// The lowercase / uppercase partner of `r`, or `r` itself when it has none.
int32_t ToLower(int32_t r);
int32_t ToUpper(int32_t r);

// Appends every code point that equals `r` ignoring case (r itself included) to *out.
void FoldOrbit(int32_t r, std::vector<int32_t>* out);

// The highest code point FoldOrbit maps to something other than itself (bounds range scans).
constexpr int32_t kMaxFoldedRune = 0x212B;

}  // namespace unicase
}  // namespace tx
